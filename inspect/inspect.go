// Package inspect describes what an MCP-RES document, an attested bundle,
// a transparency reference, a tlog-proof, a checkpoint, a trust policy or
// a tlog policy contains, without a policy and without judging trust:
// `mcpres inspect` prints it (cosign users know the habit from `cosign
// bundle inspect`).
//
// Nothing here verifies anything. A signature is described by the key it
// names and the identity and time it claims, a cosignature by the witness
// key it names and the timestamp it carries, a checkpoint by what its body
// says: every value is the document's claim, shown as written, and trust
// is for attest verify, offline.Verify and a trust policy to decide. What
// is computed (a key fingerprint from the embedded public key, the kind of
// a signature line from its length) is computed from the bytes alone.
//
// [Describe] takes the bytes of one file and returns a [Description]:
// [Description.Text] for people, [Description.Value] for the JSON of
// `mcpres inspect --format json` (schemaVersion [SchemaVersion]). It reads
// no file, clock or network.
package inspect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/trustpolicy"
)

// SchemaVersion versions the JSON of a Description.
const SchemaVersion = "mcpres.inspect/v1"

// The kinds of input a Description describes (Description.Kind).
const (
	KindBundle      = "conformance-bundle"
	KindAttested    = "attested-bundle"
	KindReference   = "transparency-reference"
	KindProof       = "tlog-proof"
	KindCheckpoint  = "checkpoint"
	KindTrustPolicy = "trust-policy"
	KindTLogPolicy  = "tlog-policy"
	KindOtherMCPRES = "mcp-res-document"
)

// A Description is what one input contains. Exactly the members of its
// Kind are set.
type Description struct {
	SchemaVersion string `json:"schemaVersion"`
	Kind          string `json:"kind"`
	// DocumentSchemaVersion is a JSON document's schemaVersion.
	DocumentSchemaVersion string       `json:"documentSchemaVersion,omitempty"`
	Bundle                *Bundle      `json:"bundle,omitempty"`
	Attestation           *Attestation `json:"attestation,omitempty"`
	Reference             *Reference   `json:"reference,omitempty"`
	Proof                 *Proof       `json:"proof,omitempty"`
	Checkpoint            *Checkpoint  `json:"checkpoint,omitempty"`
	Policy                *Policy      `json:"policy,omitempty"`
	TLogPolicy            *TLogPolicy  `json:"tlogPolicy,omitempty"`
	// Sigstore is a Sigstore bundle's content (KindSigstoreBundle).
	Sigstore *SigstoreBundle `json:"sigstoreBundle,omitempty"`
	// Problems are the parts that could not be read as their kind says
	// (a member the kind is made of missing, a member of another type,
	// each named by its JSON pointer; a payload that does not decode, a
	// malformed proof): described as far as they go. `mcpres inspect`
	// exits 2 when there are any.
	Problems []string `json:"problems"`
}

// A Subject is a bundle's evidence.subject.
type Subject struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Version string `json:"version"`
	// Digest is "sha256:" and artifactSha256.
	Digest string `json:"digest"`
}

// A Bundle is what a conformance bundle says about itself.
type Bundle struct {
	Subject                 Subject `json:"subject"`
	Profile                 string  `json:"profile"`
	ScenarioFingerprint     string  `json:"scenarioFingerprint"`
	ExecutionInstanceDigest string  `json:"executionInstanceDigest"`
	BundleDigest            string  `json:"bundleDigest"`
	EvidenceClass           string  `json:"evidenceClass"`
	Result                  string  `json:"result"`
	Validator               string  `json:"validator"`
}

// An Attestation is an attested bundle's authenticity part.
type Attestation struct {
	ClaimedClassification string     `json:"claimedClassification"`
	Envelopes             []Envelope `json:"envelopes"`
}

// An Envelope is one DSSE envelope, as written.
type Envelope struct {
	Index       int    `json:"index"`
	PayloadType string `json:"payloadType"`
	// KeyFingerprint is the SHA-256 of the embedded public key's SPKI DER
	// (computed); KeyID is the keyid as written.
	KeyFingerprint string     `json:"keyFingerprint"`
	KeyID          string     `json:"keyId"`
	SignerIdentity string     `json:"signerIdentity"`
	Algorithm      string     `json:"algorithm"`
	Statement      *Statement `json:"statement"`
}

// A Statement is an envelope's in-toto statement, as signed.
type Statement struct {
	Type                    string     `json:"type"`
	PredicateType           string     `json:"predicateType"`
	SubjectName             string     `json:"subjectName"`
	SubjectDigest           string     `json:"subjectDigest"`
	SignerIdentity          string     `json:"signerIdentity"`
	SignerKeyFingerprint    string     `json:"signerKeyFingerprint"`
	SigningTime             string     `json:"signingTime"`
	TrustPolicyID           string     `json:"trustPolicyId"`
	EvidenceBundleDigest    string     `json:"evidenceBundleDigest"`
	ScenarioFingerprint     string     `json:"scenarioFingerprint"`
	ExecutionInstanceDigest string     `json:"executionInstanceDigest"`
	TransparencyReference   *Reference `json:"transparencyReference"`
}

// A Reference is a transparency reference.
type Reference struct {
	LogID     string `json:"logId"`
	EntryUUID string `json:"entryUuid"`
	// ProofSha256 is inclusionProofSha256 as written; ProofKind what the
	// proof bytes are (offline.DetectKind).
	ProofSha256 string `json:"proofSha256"`
	ProofKind   string `json:"proofKind"`
	Proof       *Proof `json:"proof,omitempty"`
}

// A Proof is a c2sp.org/tlog-proof.
type Proof struct {
	Index           uint64     `json:"index"`
	InclusionHashes int        `json:"inclusionHashes"`
	Entry           *Entry     `json:"entry"`
	Checkpoint      Checkpoint `json:"checkpoint"`
}

// An Entry is the log entry a tlog-proof carries.
type Entry struct {
	SubjectName             string `json:"subjectName"`
	SubjectDigest           string `json:"subjectDigest"`
	EvidenceBundleDigest    string `json:"evidenceBundleDigest"`
	ScenarioFingerprint     string `json:"scenarioFingerprint"`
	ExecutionInstanceDigest string `json:"executionInstanceDigest"`
}

// A Checkpoint is a signed checkpoint note, unverified.
type Checkpoint struct {
	Origin     string      `json:"origin"`
	Size       uint64      `json:"size"`
	RootHash   string      `json:"rootHash"`
	Signatures []Signature `json:"signatures"`
}

// A Signature is one signature line of a note: the key it names and, for
// a line shaped as a cosignature/v1 (a timestamp and an Ed25519
// signature), its timestamp.
type Signature struct {
	Name    string `json:"name"`
	KeyHash string `json:"keyHash"`
	// Kind is "cosignature/v1", "ed25519" (64 bytes: a log's Ed25519
	// signature) or "other", from the line's length.
	Kind string `json:"kind"`
	// Timestamp is a cosignature's time, RFC 3339 UTC; TimestampUnix the
	// seconds as written.
	Timestamp     string `json:"timestamp,omitempty"`
	TimestampUnix uint64 `json:"timestampUnix,omitempty"`
}

// A Policy is a trust policy.
type Policy struct {
	Format       string             `json:"format"`
	ID           string             `json:"id"`
	Version      string             `json:"version"`
	ValidFrom    string             `json:"validFrom"`
	ValidUntil   string             `json:"validUntil"`
	Signers      []PolicySigner     `json:"signers"`
	Revocations  []PolicyRevocation `json:"revocations"`
	Witnesses    *PolicyWitnesses   `json:"witnesses"`
	Transparency *TLogPolicy        `json:"transparency"`
	// MaxCosignatureAgeSeconds is transparency.maxCosignatureAgeSeconds.
	MaxCosignatureAgeSeconds int64 `json:"maxCosignatureAgeSeconds,omitempty"`
	// TrustedRootSHA256 is trustedRoot.sha256: the Sigstore trusted root
	// identity signers are verified against.
	TrustedRootSHA256 string `json:"trustedRootSha256,omitempty"`
}

// A PolicySigner is a signer of a policy (an upstream trustedSigners
// entry has only the identity and fingerprint).
type PolicySigner struct {
	Name           string   `json:"name,omitempty"`
	Identity       string   `json:"identity"`
	KeyFingerprint string   `json:"keyFingerprint"`
	Roles          []string `json:"roles,omitempty"`
	ValidFrom      string   `json:"validFrom,omitempty"`
	ValidUntil     string   `json:"validUntil,omitempty"`
	// Subjects are its subject patterns; nil: every subject.
	Subjects []string `json:"subjects"`
	// CertificateIdentity is an identity (keyless) signer's: issuer,
	// identity or expression, extensions; nil for a key.
	CertificateIdentity *trustpolicy.CertificateIdentity `json:"certificateIdentity,omitempty"`
}

// A PolicyRevocation is a revoked key.
type PolicyRevocation struct {
	Fingerprint string `json:"fingerprint"`
	Reason      string `json:"reason,omitempty"`
	RevokedAt   string `json:"revokedAt,omitempty"`
}

// PolicyWitnesses is a v1 policy's witnesses rule.
type PolicyWitnesses struct {
	Quorum             int64    `json:"quorum"`
	Members            []string `json:"members"`
	DistinctIdentities bool     `json:"distinctIdentities"`
}

// A TLogPolicy is a tlog-policy text.
type TLogPolicy struct {
	Logs      []TLogKey   `json:"logs"`
	Witnesses []TLogKey   `json:"witnesses"`
	Groups    []TLogGroup `json:"groups"`
	Quorum    string      `json:"quorum"`
}

// A TLogKey is a log or witness line: its name (a witness's policy name;
// a log's origin), its key (NAME+HASH) and URL.
type TLogKey struct {
	Name string `json:"name"`
	Key  string `json:"key"`
	URL  string `json:"url,omitempty"`
}

// A TLogGroup is a group line.
type TLogGroup struct {
	Name      string   `json:"name"`
	Threshold int      `json:"threshold"`
	Members   []string `json:"members"`
}

// ErrUnknown is wrapped by the error of Describe for an input that is none
// of the kinds it describes.
var ErrUnknown = errors.New("not a document inspect describes")

// Describe describes data, the bytes of one file: a JSON document (read
// with canonjson's strict reader; kind from schemaVersion, or a
// transparency reference by its members), a tlog-proof, a signed
// checkpoint or a tlog-policy text. An input of no such kind, or JSON
// the strict reader refuses, is an error; a part that cannot be read as
// its kind says is a Problem of the Description.
func Describe(data []byte) (*Description, error) {
	d := &Description{SchemaVersion: SchemaVersion, Problems: []string{}}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		doc, err := canonjson.Parse(data)
		if err != nil {
			return nil, err
		}
		if err := d.document(doc); err != nil {
			return nil, err
		}
	case bytes.HasPrefix(data, []byte(offline.ProofHeader)):
		d.Kind = KindProof
		p, err := describeProof(data)
		if err != nil {
			return nil, err
		}
		d.Proof = p
	default:
		if cp, err := describeCheckpoint(data); err == nil {
			d.Kind, d.Checkpoint = KindCheckpoint, cp
			return d, nil
		}
		if tp, errs := trustpolicy.ParseTLogPolicy(string(data)); errs == nil {
			d.Kind, d.TLogPolicy = KindTLogPolicy, describeTLog(tp)
			return d, nil
		}
		return nil, fmt.Errorf("%w: not JSON, and neither a tlog-proof, a signed checkpoint nor a tlog-policy text", ErrUnknown)
	}
	return d, nil
}

func (d *Description) problem(format string, args ...any) {
	d.Problems = append(d.Problems, fmt.Sprintf(format, args...))
}

func (d *Description) document(doc *canonjson.Value) error {
	sv := doc.Get("schemaVersion")
	if sv.Is(canonjson.String) {
		d.DocumentSchemaVersion = sv.Str
	}
	switch {
	case document.Detect(doc) == document.Bundle:
		d.Kind, d.Bundle = KindBundle, d.bundle(doc, "")
	case document.Detect(doc) == document.AttestedBundle:
		d.Kind = KindAttested
		d.Bundle = d.bundle(d.need(doc, "", "bundle", canonjson.Object), "/bundle")
		d.Attestation = d.attestation(d.need(doc, "", "authenticity", canonjson.Object), "/authenticity")
	case sv.Is(canonjson.String) && (sv.Str == trustpolicy.SchemaVersionPolicy || sv.Str == bundle.SchemaVersionTrustPolicy):
		d.Kind, d.Policy = KindTrustPolicy, d.policy(doc)
	case document.Detect(doc) != document.Unknown:
		d.Kind = KindOtherMCPRES
	case doc.Is(canonjson.Object) && doc.Get("inclusionProofBase64") != nil:
		d.Kind, d.Reference = KindReference, d.reference(doc, "")
	case isSigstoreBundle(doc):
		d.Kind, d.Sigstore = KindSigstoreBundle, d.sigstoreBundle(doc)
	default:
		return fmt.Errorf("%w: a JSON document without an MCP-RES or mcpres schemaVersion, and not a transparency reference", ErrUnknown)
	}
	return nil
}

// The readers of a JSON document's members. Each reads one member as the
// type its kind says: a member present with another type (null, a number
// for a string, an object for an array) reads as the zero value and is a
// Problem named by its JSON pointer, and so is an absent member that
// makes up the kind (need: an attested bundle's authenticity and
// envelopes, a policy's signers). A partial document is described as far
// as it goes; no member is read through a value of another kind.

// member returns obj's member key when it has kind k; nil when obj is not
// an object, key is absent, or its value has another kind (a problem).
func (d *Description) member(obj *canonjson.Value, at, key string, k canonjson.Kind) *canonjson.Value {
	return d.typed(obj.Get(key), at+"/"+canonjson.EscapePointer(key), k)
}

// need is member for a member the kind is made of: absent from an object,
// it is a problem too (when obj itself is absent or no object, that is
// the problem of obj's reader).
func (d *Description) need(obj *canonjson.Value, at, key string, k canonjson.Kind) *canonjson.Value {
	v := obj.Get(key)
	if v == nil {
		if obj.Is(canonjson.Object) {
			d.problem("%s/%s is missing (%s)", at, canonjson.EscapePointer(key), aKind(k))
		}
		return nil
	}
	return d.member(obj, at, key, k)
}

// typed returns v when it has kind k; nil when v is absent, and nil and a
// problem when v has another kind.
func (d *Description) typed(v *canonjson.Value, at string, k canonjson.Kind) *canonjson.Value {
	if v == nil || v.Is(k) {
		return v
	}
	d.problem("%s is %s, not %s", at, aKind(v.Kind), aKind(k))
	return nil
}

func aKind(k canonjson.Kind) string {
	switch k {
	case canonjson.Null:
		return "null"
	case canonjson.Array, canonjson.Object, canonjson.Int:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// str reads obj's member key as a string.
func (d *Description) str(obj *canonjson.Value, at, key string) string {
	if v := d.member(obj, at, key, canonjson.String); v != nil {
		return v.Str
	}
	return ""
}

// object reads obj's member key as an object (nil when it is none).
func (d *Description) object(obj *canonjson.Value, at, key string) *canonjson.Value {
	return d.member(obj, at, key, canonjson.Object)
}

// itemsOf is the items of an array that may be absent.
func itemsOf(v *canonjson.Value) []*canonjson.Value {
	if v == nil {
		return nil
	}
	return v.Items
}

// itemAt is the JSON pointer of item i of the array at.
func itemAt(at string, i int) string { return at + "/" + strconv.Itoa(i) }

func digest(hexDigest string) string {
	if hexDigest == "" {
		return ""
	}
	return "sha256:" + hexDigest
}

// bundle describes the conformance bundle b (at, its JSON pointer).
func (d *Description) bundle(b *canonjson.Value, at string) *Bundle {
	ev := d.need(b, at, "evidence", canonjson.Object)
	evAt := at + "/evidence"
	s := d.object(ev, evAt, "subject")
	sAt := evAt + "/subject"
	prof := d.object(ev, evAt, "profile")
	profile := d.str(prof, evAt+"/profile", "id")
	if v := d.str(prof, evAt+"/profile", "version"); v != "" {
		profile += "@" + v
	}
	st := d.need(b, at, "statement", canonjson.Object)
	stAt := at + "/statement"
	var val *canonjson.Value
	if v := st.Get("validator"); !v.Is(canonjson.Null) { // null: a draft, not yet sealed
		val = d.object(st, stAt, "validator")
	}
	return &Bundle{
		Subject: Subject{Type: d.str(s, sAt, "subjectType"), Name: d.str(s, sAt, "name"), Version: d.str(s, sAt, "version"),
			Digest: digest(d.str(s, sAt, "artifactSha256"))},
		Profile:                 profile,
		ScenarioFingerprint:     d.str(d.object(ev, evAt, "scenario"), evAt+"/scenario", "fingerprint"),
		ExecutionInstanceDigest: d.str(st, stAt, "executionInstanceDigest"),
		BundleDigest:            d.str(d.need(b, at, "integrity", canonjson.Object), at+"/integrity", "bundleDigest"),
		EvidenceClass:           d.str(st, stAt, "evidenceClass"),
		Result:                  d.str(st, stAt, "result"),
		Validator:               strings.TrimSpace(d.str(val, stAt+"/validator", "name") + " " + d.str(val, stAt+"/validator", "version")),
	}
}

// attestation describes an attested bundle's authenticity object.
func (d *Description) attestation(auth *canonjson.Value, at string) *Attestation {
	a := &Attestation{ClaimedClassification: d.str(auth, at, "claimedClassification"), Envelopes: []Envelope{}}
	for i, item := range itemsOf(d.need(auth, at, "envelopes", canonjson.Array)) {
		envAt := itemAt(at+"/envelopes", i)
		env := d.typed(item, envAt, canonjson.Object)
		e := Envelope{Index: i, PayloadType: d.str(env, envAt, "payloadType")}
		sigArray := d.need(env, envAt, "signatures", canonjson.Array)
		sigs := itemsOf(sigArray)
		if sigArray != nil && len(sigs) != 1 {
			d.problem("envelope %d has %d signatures, not one", i, len(sigs))
		}
		if len(sigs) > 0 {
			sigAt := envAt + "/signatures/0"
			sig := d.typed(sigs[0], sigAt, canonjson.Object)
			e.KeyID, e.SignerIdentity, e.Algorithm = d.str(sig, sigAt, "keyid"), d.str(sig, sigAt, "signerIdentity"), d.str(sig, sigAt, "algorithm")
			if der, err := keyfile.DecodeStrictBase64(d.str(sig, sigAt, "publicKeySpkiBase64")); err == nil {
				e.KeyFingerprint = ed25519strict.SPKIFingerprint(der)
			} else {
				d.problem("envelope %d: publicKeySpkiBase64: %v", i, err)
			}
		}
		if p := d.need(env, envAt, "payload", canonjson.String); p != nil {
			if payload, err := keyfile.DecodeStrictBase64(p.Str); err != nil {
				d.problem("envelope %d: payload: %v", i, err)
			} else if st, err := canonjson.Parse(payload); err != nil {
				d.problem("envelope %d: the payload is not a JSON statement: %v", i, err)
			} else {
				e.Statement = d.statement(st, fmt.Sprintf("envelope %d statement ", i))
			}
		}
		a.Envelopes = append(a.Envelopes, e)
	}
	return a
}

// statement describes an envelope's in-toto statement; at prefixes the
// JSON pointers of its problems.
func (d *Description) statement(st *canonjson.Value, at string) *Statement {
	st = d.typed(st, at+"(the document)", canonjson.Object)
	p := d.need(st, at, "predicate", canonjson.Object)
	pAt := at + "/predicate"
	s := &Statement{
		Type: d.str(st, at, "_type"), PredicateType: d.str(st, at, "predicateType"),
		SignerIdentity: d.str(p, pAt, "signerIdentity"), SignerKeyFingerprint: d.str(p, pAt, "signerKeyFingerprint"),
		SigningTime: d.str(p, pAt, "signingTime"), TrustPolicyID: d.str(p, pAt, "trustPolicyId"),
		EvidenceBundleDigest: d.str(p, pAt, "evidenceBundleDigest"), ScenarioFingerprint: d.str(p, pAt, "scenarioFingerprint"),
		ExecutionInstanceDigest: d.str(p, pAt, "executionInstanceDigest"),
	}
	if subs := itemsOf(d.need(st, at, "subject", canonjson.Array)); len(subs) > 0 {
		subAt := at + "/subject/0"
		sub := d.typed(subs[0], subAt, canonjson.Object)
		s.SubjectName = d.str(sub, subAt, "name")
		s.SubjectDigest = digest(d.str(d.object(sub, subAt, "digest"), subAt+"/digest", "sha256"))
	}
	if ref := d.object(p, pAt, "transparencyReference"); ref != nil {
		s.TransparencyReference = d.reference(ref, pAt+"/transparencyReference")
	}
	return s
}

// reference describes a transparency reference object: its members, and
// the proof bytes when they decode (a problem when they do not, or are a
// tlog-proof that is not strict).
func (d *Description) reference(ref *canonjson.Value, at string) *Reference {
	r := &Reference{LogID: d.str(ref, at, "logId"), EntryUUID: d.str(ref, at, "entryUuid"), ProofSha256: d.str(ref, at, "inclusionProofSha256")}
	b64 := d.need(ref, at, "inclusionProofBase64", canonjson.String)
	if b64 == nil {
		return r
	}
	proof, err := keyfile.DecodeStrictBase64(b64.Str)
	if err != nil {
		d.problem("%s/inclusionProofBase64: %v", at, err)
		return r
	}
	r.ProofKind = offline.DetectKind(proof).String()
	if offline.DetectKind(proof) == offline.KindTLogProof {
		if p, err := describeProof(proof); err == nil {
			r.Proof = p
		} else {
			d.problem("%s/inclusionProofBase64: the proof is not a strict tlog-proof: %v", at, err)
		}
	}
	return r
}

func describeProof(b []byte) (*Proof, error) {
	p, err := offline.ParseProof(b)
	if err != nil {
		return nil, err
	}
	out := &Proof{Index: p.Index, InclusionHashes: len(p.Hashes)}
	if e, err := offline.ParseEntry(p.Entry); err == nil {
		out.Entry = &Entry{SubjectName: e.Subject.Name, SubjectDigest: digest(e.Subject.Sha256), EvidenceBundleDigest: e.EvidenceBundleDigest,
			ScenarioFingerprint: e.ScenarioFingerprint, ExecutionInstanceDigest: e.ExecutionInstanceDigest}
	}
	cp, err := describeCheckpoint(p.Checkpoint)
	if err != nil {
		return nil, err
	}
	out.Checkpoint = *cp
	return out, nil
}

// describeCheckpoint reads a signed note's shape and checkpoint body,
// verifying no signature.
func describeCheckpoint(n []byte) (*Checkpoint, error) {
	if len(n) > signednote.MaxBytes {
		return nil, fmt.Errorf("a checkpoint is at most %d bytes", signednote.MaxBytes)
	}
	text, lines, err := signednote.Split(n)
	if err != nil {
		return nil, err
	}
	body, err := signednote.ParseBody(text)
	if err != nil {
		return nil, err
	}
	cp := &Checkpoint{Origin: body.Origin, Size: body.Size, RootHash: body.Hash.String(), Signatures: []Signature{}}
	for _, l := range lines {
		s := Signature{Name: l.Name, KeyHash: fmt.Sprintf("%08x", l.Hash), Kind: "other"}
		switch len(l.Sig) {
		case signednote.CosignatureSize:
			s.Kind = "cosignature/v1"
			s.TimestampUnix = binary.BigEndian.Uint64(l.Sig)
			if s.TimestampUnix <= 1<<40 { // a time.Unix that formats as a year
				s.Timestamp = time.Unix(int64(s.TimestampUnix), 0).UTC().Format(time.RFC3339)
			}
		case 64:
			s.Kind = "ed25519"
		}
		cp.Signatures = append(cp.Signatures, s)
	}
	return cp, nil
}

func (d *Description) policy(doc *canonjson.Value) *Policy {
	sv := d.str(doc, "", "schemaVersion")
	p := &Policy{Format: sv, ID: d.str(doc, "", "id"), ValidFrom: d.str(doc, "", "validFrom"), ValidUntil: d.str(doc, "", "validUntil"),
		Signers: []PolicySigner{}, Revocations: []PolicyRevocation{}}
	if sv == bundle.SchemaVersionTrustPolicy {
		p.Version = d.str(doc, "", "version")
		for i, item := range itemsOf(d.need(doc, "", "trustedSigners", canonjson.Array)) {
			at := itemAt("/trustedSigners", i)
			s := d.typed(item, at, canonjson.Object)
			p.Signers = append(p.Signers, PolicySigner{Identity: d.str(s, at, "signerIdentity"), KeyFingerprint: d.str(s, at, "keyFingerprint")})
		}
		for i, item := range itemsOf(d.need(doc, "", "revokedKeyFingerprints", canonjson.Array)) {
			fp := ""
			if r := d.typed(item, itemAt("/revokedKeyFingerprints", i), canonjson.String); r != nil {
				fp = r.Str
			}
			p.Revocations = append(p.Revocations, PolicyRevocation{Fingerprint: fp})
		}
		return p
	}
	pd, problems := trustpolicy.Decode(doc, nil)
	if problems != nil {
		d.problem("the policy does not have the shape of %s: %s (%d schema problem(s); mcpres policy check lists them)", trustpolicy.SchemaVersionPolicy, problems[0], len(problems))
		return p
	}
	p.Version = strconv.FormatInt(pd.Version, 10)
	for i, s := range pd.Signers {
		ps := PolicySigner{Name: s.Name, Identity: s.Identity, Roles: s.Roles, ValidFrom: s.ValidFrom, ValidUntil: s.ValidUntil, Subjects: s.Subjects, CertificateIdentity: s.CertificateIdentity}
		if s.IsIdentity() {
			p.Signers = append(p.Signers, ps)
			continue
		}
		if k, err := keyfile.ParsePublicKeyPEM([]byte(s.PublicKey)); err == nil {
			ps.KeyFingerprint = ed25519strict.Fingerprint(k)
		} else {
			d.problem("signer %d (%q): publicKey: %v", i, s.Name, err)
		}
		p.Signers = append(p.Signers, ps)
	}
	for _, r := range pd.Revocations {
		p.Revocations = append(p.Revocations, PolicyRevocation(r))
	}
	if w := pd.Witnesses; w != nil {
		p.Witnesses = &PolicyWitnesses{Quorum: w.Quorum, Members: w.Members, DistinctIdentities: w.DistinctIdentities}
	}
	if r := pd.TrustedRoot; r != nil {
		p.TrustedRootSHA256 = r.SHA256
	}
	if t := pd.Transparency; t != nil {
		p.MaxCosignatureAgeSeconds = t.MaxCosignatureAgeSeconds
		if tp, errs := trustpolicy.ParseTLogPolicy(t.TLogPolicy); errs == nil {
			p.Transparency = describeTLog(tp)
		} else {
			d.problem("transparency.tlogPolicy: %d problem(s) (mcpres policy check lists them)", len(errs))
		}
	}
	return p
}

func describeTLog(tp *trustpolicy.TLogPolicy) *TLogPolicy {
	key := func(v *signednote.Verifier) string { return fmt.Sprintf("%s+%08x", v.Name(), v.KeyHash()) }
	t := &TLogPolicy{Logs: []TLogKey{}, Witnesses: []TLogKey{}, Groups: []TLogGroup{}, Quorum: tp.Quorum}
	for _, l := range tp.Logs {
		t.Logs = append(t.Logs, TLogKey{Name: l.Key.Name(), Key: key(l.Key), URL: l.URL})
	}
	for _, w := range tp.Witnesses {
		t.Witnesses = append(t.Witnesses, TLogKey{Name: w.Name, Key: key(w.Key), URL: w.URL})
	}
	for _, g := range tp.Groups {
		t.Groups = append(t.Groups, TLogGroup{Name: g.Name, Threshold: g.Threshold, Members: g.Members})
	}
	return t
}

// Value returns d as the JSON object of `mcpres inspect --format json`.
func (d *Description) Value() (*canonjson.Value, error) {
	return canonjson.FromGo(d)
}
