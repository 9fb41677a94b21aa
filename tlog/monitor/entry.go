package monitor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/trustpolicy"
)

// DecodeEntry decodes a log entry: it must be at most [MaxEntryBytes]
// and the canonical encoding of an mcpres.transparency-entry/v1 or /v2
// (offline.ParseEntry, the rule verifiers apply to the entry of a
// reference). It takes the bytes or a string, as offline.ParseEntry.
func DecodeEntry[T string | []byte](data T) (offline.Entry, error) {
	if len(data) > MaxEntryBytes {
		return offline.Entry{}, fmt.Errorf("log entry: %d bytes, more than %d", len(data), MaxEntryBytes)
	}
	return offline.ParseEntry(data)
}

// Watch says which entries concern the monitor's user: those whose
// subject name matches one of Subjects (the subject pattern language of
// trust policies, trustpolicy.ParseScope) or whose subject artifact
// digest is one of Digests. The zero Watch watches nothing.
type Watch struct {
	Subjects []trustpolicy.Scope
	// Digests are lowercase hex SHA-256 digests (see [ParseDigest]).
	Digests []string
}

// ParseDigest reads "sha256:HEX" (64 hex digits) and returns the
// lowercase hex.
func ParseDigest(s string) (string, error) {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 2*sha256.Size {
		return "", fmt.Errorf("digest %q: want sha256: and 64 hex digits", s)
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", fmt.Errorf("digest %q: want sha256: and 64 hex digits", s)
	}
	return strings.ToLower(h), nil
}

// Match returns the rule that e matches ("subject PATTERN" or
// "digest sha256:HEX"), or "".
func (w Watch) Match(e offline.Entry) string {
	for _, s := range w.Subjects {
		if s.Match(e.Subject.Name) {
			return "subject " + s.String()
		}
	}
	for _, d := range w.Digests {
		if e.Subject.Sha256 == d {
			return "digest sha256:" + d
		}
	}
	return ""
}

// An Authoriser judges an entry about a watched subject: nil error when
// the evidence it names is authorised, else an error saying why not (an
// [*UnattributedError] when it cannot tell).
type Authoriser interface {
	Authorise(e offline.Entry) error
}

// An UnattributedError is an entry that names no signer (an
// mcpres.transparency-entry/v1: a conformance bundle logged before it was
// signed), which a [PolicyAuthoriser] cannot judge: a reference to it
// binds the envelope of any signer.
type UnattributedError struct{}

func (*UnattributedError) Error() string {
	return "the entry names no signer (" + offline.SchemaVersionEntry + "): a reference to it may be carried by any signer's envelope, so who signs this evidence is not on the log"
}

// A PolicyAuthoriser judges the signers an entry names (an
// mcpres.transparency-entry/v2, logged for an attested bundle whose
// envelopes the log verified) against a trust policy, as attest's steps
// E13 and G8 judge an envelope: each signer's key must be one of the
// policy's signers, with that signer identity, not revoked, trusted for
// the entry's subject name, and the signer's own window and the policy's
// window must cover the signing time the entry records. The time judged
// is that signing time, the signer's own assertion (the log records no
// time of its own): an old entry of a key that has since expired is not
// an alert, while a verifier also judges its evaluation time. The
// statement's trustPolicyId is not in the entry and is not judged: the
// policy given is the authority on who may sign evidence about the
// subject. An entry with no signer is an [*UnattributedError].
type PolicyAuthoriser struct {
	Policy attest.TrustPolicy
}

// Authorise returns nil when the policy authorises every signer e names,
// else an error naming each signer it does not authorise and why.
func (a PolicyAuthoriser) Authorise(e offline.Entry) error {
	if len(e.Signers) == 0 {
		return &UnattributedError{}
	}
	// Signer i is envelope i of the attested bundle logged: Derive explains
	// the untrusted ones by that index. A signer the policy refused
	// outright (Envelope's failure) is explained here and passed to
	// Derive as trusted, so that it is not explained twice.
	var why []string
	fs := make([]attest.EnvelopeFacts, len(e.Signers))
	evs := make([]attest.EnvelopeEvaluation, len(e.Signers))
	var untrusted []string
	for i, s := range e.Signers {
		t, err := datetime.Parse(s.SigningTime)
		if err != nil { // ParseEntry checked it
			return fmt.Errorf("envelope %d: signingTime: %v", i, err)
		}
		fs[i] = attest.EnvelopeFacts{Index: i, KeyID: s.KeyFingerprint, SignerIdentity: s.SignerIdentity, SigningTime: t.Time(), SigningTimeText: s.SigningTime,
			TrustPolicyID: a.Policy.ID(), SubjectName: e.Subject.Name, SubjectDigest: e.Subject.Sha256, EvidenceBundleDigest: e.EvidenceBundleDigest,
			ScenarioFingerprint: e.ScenarioFingerprint, ExecutionInstanceDigest: e.ExecutionInstanceDigest, EvaluatedAt: t.Time()}
		evs[i] = attest.EnvelopeEvaluation{Index: i, KeyFingerprint: s.KeyFingerprint, SignerIdentity: s.SignerIdentity, SignatureValid: true}
		if fail := a.Policy.Envelope(&fs[i], t.Time(), &evs[i]); fail != nil {
			why = append(why, fmt.Sprintf("envelope %d: %s (%s)", i, fail.Detail, fail.Code))
			evs[i].Trusted = true
			continue
		}
		if !evs[i].Trusted {
			untrusted = append(untrusted, fmt.Sprintf("envelope %d (key %s as %q)", i, s.KeyFingerprint, s.SignerIdentity))
		}
	}
	if len(untrusted) > 0 {
		// The policy's own explanation (a v1 policy names the reason per
		// envelope; an upstream policy only counts).
		note := strings.Join(untrusted, ", ") + " not trusted by the policy"
		if d := a.Policy.Derive(fs, evs); len(d.Notes) > 0 {
			note += ": " + d.Notes[0]
		}
		why = append(why, note)
	}
	if len(why) > 0 {
		return errors.New(strings.Join(why, "; "))
	}
	return nil
}
