package offline

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
)

// SchemaVersionEntry is the schemaVersion of a transparency log entry that
// names the evidence only: what is logged for a conformance bundle.
const SchemaVersionEntry = "mcpres.transparency-entry/v1"

// SchemaVersionEntrySigned is the schemaVersion of a transparency log
// entry that also names the signers of the evidence: what is logged for
// an attested bundle, whose envelopes the log verified before logging
// (tlog/admit).
const SchemaVersionEntrySigned = "mcpres.transparency-entry/v2"

// MaxEntrySigners is the most signers an entry names: the most envelopes
// an attested bundle carries (the schema's maxItems of
// authenticity.envelopes).
const MaxEntrySigners = 8

// An Entry is what mcpres appends to a transparency log for a conformance
// or an attested bundle: the digests that identify the evidence, and for
// an attested bundle (schemaVersion [SchemaVersionEntrySigned]) the
// signers of its envelopes. Its leaf data in the log is its canonical
// encoding (mcp-res-json-utf16-v1), so the RFC 6962 leaf hash is
// SHA-256(0x00 || canonical(entry)).
type Entry struct {
	SchemaVersion           string       `json:"schemaVersion"`
	Subject                 EntrySubject `json:"subject"`
	EvidenceBundleDigest    string       `json:"evidenceBundleDigest"`
	ScenarioFingerprint     string       `json:"scenarioFingerprint"`
	ExecutionInstanceDigest string       `json:"executionInstanceDigest"`
	// Signers are the signers of the attested bundle logged, one per
	// envelope in envelope order, in a v2 entry; nil in a v1 entry.
	Signers []EntrySigner `json:"signers,omitempty"`
}

// EntrySubject names the subject artifact of the evidence.
type EntrySubject struct {
	Name   string `json:"name"`
	Sha256 string `json:"sha256"`
}

// An EntrySigner is the signer of one envelope of a logged attested
// bundle, as its statement names it: the key's SPKI fingerprint (lowercase
// hex SHA-256 of the SPKI DER, the statement's signerKeyFingerprint and
// the envelope's keyid), the signer identity and the signing time as
// signed (the signer's own assertion).
type EntrySigner struct {
	KeyFingerprint string `json:"keyFingerprint"`
	SignerIdentity string `json:"signerIdentity"`
	SigningTime    string `json:"signingTime"`
}

// EntryFor returns the v1 entry that binds a conformance bundle (the value
// of a mcp-res.conformance-bundle/0.2.0 document, assumed valid).
func EntryFor(bundle *canonjson.Value) Entry {
	ev := bundle.Get("evidence")
	return Entry{
		SchemaVersion:           SchemaVersionEntry,
		Subject:                 EntrySubject{Name: ev.Path("subject", "name").Str, Sha256: ev.Path("subject", "artifactSha256").Str},
		EvidenceBundleDigest:    bundle.Path("integrity", "bundleDigest").Str,
		ScenarioFingerprint:     ev.Path("scenario", "fingerprint").Str,
		ExecutionInstanceDigest: bundle.Path("statement", "executionInstanceDigest").Str,
	}
}

// SignedEntryFor returns the v2 entry of an attested bundle whose
// embedded conformance bundle is bundle and whose envelopes, verified,
// were signed by signers (in envelope order, 1 to [MaxEntrySigners]).
func SignedEntryFor(bundle *canonjson.Value, signers []EntrySigner) Entry {
	e := EntryFor(bundle)
	e.SchemaVersion = SchemaVersionEntrySigned
	e.Signers = signers
	return e
}

// Names reports whether e names a signer with this key fingerprint and
// signer identity (a v1 entry names none).
func (e Entry) Names(keyFingerprint, signerIdentity string) bool {
	for _, s := range e.Signers {
		if s.KeyFingerprint == keyFingerprint && s.SignerIdentity == signerIdentity {
			return true
		}
	}
	return false
}

// Marshal returns the canonical bytes of e: the log leaf data.
func (e Entry) Marshal() ([]byte, error) {
	v, err := canonjson.FromGo(e)
	if err != nil {
		return nil, err
	}
	return canonjson.Canonical(v)
}

// ParseEntry reads leaf data strictly: it must be the canonical encoding of
// an entry with exactly the members of its schemaVersion, so one entry has
// one encoding. A v1 entry has no signers; a v2 entry has 1 to
// [MaxEntrySigners], each with a distinct key fingerprint (64 lowercase
// hex digits), a signer identity of 1 to 256 code points and a signing
// time that is a REFERENCE §1.7 date-time.
//
// It takes the bytes or a string (as a monitor that reads a whole entry
// bundle into one string passes each entry, with no copy of its own).
func ParseEntry[T string | []byte](data T) (Entry, error) {
	if e, ok := parsePlainEntry(string(data)); ok {
		return e, nil
	}
	return parseEntryStrict([]byte(data))
}

// parseEntryStrict is ParseEntry: any entry, decoded and encoded again.
func parseEntryStrict(data []byte) (Entry, error) {
	var e Entry
	v, err := canonjson.Parse(data)
	if err != nil {
		return e, fmt.Errorf("log entry: %w", err)
	}
	if err := canonjson.Unmarshal(v, &e); err != nil {
		return e, fmt.Errorf("log entry: %w", err)
	}
	switch e.SchemaVersion {
	case SchemaVersionEntry:
		if e.Signers != nil {
			return e, fmt.Errorf("log entry: an %s entry has no signers", SchemaVersionEntry)
		}
	case SchemaVersionEntrySigned:
		if err := checkSigners(e.Signers); err != nil {
			return e, fmt.Errorf("log entry: %w", err)
		}
	default:
		return e, fmt.Errorf("log entry: schemaVersion is %q, want %q or %q", e.SchemaVersion, SchemaVersionEntry, SchemaVersionEntrySigned)
	}
	canon, err := e.Marshal()
	if err != nil || string(canon) != string(data) {
		return e, fmt.Errorf("log entry: not the canonical encoding of an %s entry", e.SchemaVersion)
	}
	return e, nil
}

// checkSigners checks the signers of a v2 entry.
func checkSigners(ss []EntrySigner) error {
	if len(ss) == 0 || len(ss) > MaxEntrySigners {
		return fmt.Errorf("an %s entry names %d signers, want 1 to %d", SchemaVersionEntrySigned, len(ss), MaxEntrySigners)
	}
	for i, s := range ss {
		if !isFingerprint(s.KeyFingerprint) {
			return fmt.Errorf("signers[%d].keyFingerprint %q is not 64 lowercase hex digits", i, s.KeyFingerprint)
		}
		for _, earlier := range ss[:i] { // at most MaxEntrySigners: no map
			if earlier.KeyFingerprint == s.KeyFingerprint {
				return fmt.Errorf("signers[%d].keyFingerprint %s is named twice", i, s.KeyFingerprint)
			}
		}
		if n := utf8.RuneCountInString(s.SignerIdentity); n < 1 || n > 256 {
			return fmt.Errorf("signers[%d].signerIdentity has %d code points, want 1 to 256", i, n)
		}
		if _, err := datetime.Parse(s.SigningTime); err != nil {
			return fmt.Errorf("signers[%d].signingTime: %v", i, err)
		}
	}
	return nil
}

func isFingerprint(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !lowerHex[s[i]] {
			return false
		}
	}
	return true
}

// lowerHex marks the lowercase hex digits: a monitor tests a fingerprint
// per signer of every entry of a log, so the test is one load per byte.
var lowerHex = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true,
}

// CheckEntrySigner is the signer binding of a transparency reference
// (attest's step E14, at signing and at verifying time): when proofBytes
// are a c2sp.org/tlog-proof whose entry is an
// mcpres.transparency-entry/v2, that entry must name the envelope's key
// fingerprint with its signer identity, so that a reference to the entry
// of one signer's attested bundle is no reference for another signer's
// envelope. A v1 entry names no signer and any envelope of its bundle may
// carry it, as before v2; proof bytes that do not parse, or whose entry
// does not, are left to the binding and offline verification, which
// refuse them: nil.
func CheckEntrySigner(proofBytes []byte, keyFingerprint, signerIdentity string) error {
	p, err := ParseProof(proofBytes)
	if err != nil {
		return nil
	}
	e, err := ParseEntry(p.Entry)
	if err != nil || e.SchemaVersion != SchemaVersionEntrySigned || e.Names(keyFingerprint, signerIdentity) {
		return nil
	}
	named := make([]string, len(e.Signers))
	for i, s := range e.Signers {
		named[i] = fmt.Sprintf("%s as %q", s.KeyFingerprint, s.SignerIdentity)
	}
	return &SignerBindingError{KeyFingerprint: keyFingerprint, SignerIdentity: signerIdentity, Named: named}
}

// A SignerBindingError is a reference whose v2 entry does not name the
// envelope's signer ([CheckEntrySigner]).
type SignerBindingError struct {
	KeyFingerprint, SignerIdentity string
	// Named are the entry's signers, "FINGERPRINT as "IDENTITY"".
	Named []string
}

func (e *SignerBindingError) Error() string {
	return fmt.Sprintf("log entry is for other signers: it names %s, not key %s as %q", strings.Join(e.Named, ", "), e.KeyFingerprint, e.SignerIdentity)
}
