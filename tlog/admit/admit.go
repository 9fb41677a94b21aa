// Package admit is the admission rule of an mcpres transparency log: what
// `mcpres log add` and `POST /add` of `mcpres log serve` may log, and the
// log entry it is logged as. Both admit with it, so a local log and a
// served one take exactly the same documents.
//
// # What is admitted
//
// A document read with the strict reader (canonjson) is admitted
// when it is
//
//   - a conformance bundle whose core validation (validator.Validator.Bundle,
//     REFERENCE §5.1) is valid: invalid evidence is never logged. A
//     document of any other kind but the attested bundle is validated as a
//     conformance bundle too, as `mcpres validate` validates an unknown
//     document, and so fails that validation;
//   - an attested conformance bundle (mcp-res.attested-conformance-bundle/0.2.0)
//     that attest.VerifySigned finds valid: the whole wrapper is checked, not
//     only the bundle inside it — the wrapper's schema, the embedded
//     bundle's core validity, and every envelope's signature, canonical
//     statement, binding to the bundle and signer identity (E1–E14). Only
//     the claimed classification is not judged: that needs the verifier's
//     trust policy, which the log does not have. An envelope whose
//     signature does not verify, or a wrapper that is not schema-valid, is
//     refused.
//
// The entry logged for a conformance bundle is its
// mcpres.transparency-entry/v1 (offline.EntryFor). For an attested bundle
// it is the mcpres.transparency-entry/v2 of the bundle it embeds and of
// the signers of its envelopes, which admission has just verified
// (offline.SignedEntryFor: key fingerprint, signer identity and signing
// time of each): the log then records who signed evidence about a
// subject, which a monitor judges against its trust policy, and a
// reference to that entry binds only those signers' envelopes
// (offline.CheckEntrySigner). A bundle and its attested form are thus two
// entries; an attested bundle with no envelope is logged as its bundle.
// ([Admission.LogEntry]; Admission.Entry stays the v1 entry, which a log
// that records the evidence only, such as Rekor, is given.)
//
// # Memory
//
// [Cost] bounds the memory that reading a body, parsing it and admitting it
// take together; the log service reserves it from its memory budget as a
// body arrives (tlog/server Config.Cost).
package admit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/validator"
)

// MaxSchemaErrors is the most schema errors a refusal lists
// (validator.Options.MaxSchemaErrors): `mcpres validate` lists them all.
const MaxSchemaErrors = 100

// An Admitter decides admissions with one core validator (its compiled
// schemas serve every document), which lists at most [MaxSchemaErrors]
// schema errors. It is safe for concurrent use.
type Admitter struct {
	val *validator.Validator
}

// New returns an Admitter.
func New() *Admitter {
	return &Admitter{val: validator.NewWith(validator.Options{MaxSchemaErrors: MaxSchemaErrors})}
}

// An Admission is an admitted document.
type Admission struct {
	// Kind is the document's kind: document.Bundle or
	// document.AttestedBundle.
	Kind document.Kind
	// Entry is the canonical bytes of the mcpres.transparency-entry/v1 of
	// Bundle: what a log that records the evidence only (Rekor, through
	// cmd/mcpres-sigstore) is given.
	Entry []byte
	// SignedEntry, for an attested bundle with envelopes, is the canonical
	// bytes of its mcpres.transparency-entry/v2, which also names the
	// signers of its envelopes, all verified; else nil. An mcpres log
	// logs [Admission.LogEntry].
	SignedEntry []byte
	// Bundle is the conformance bundle the entry binds: the document
	// itself, or the bundle an attested bundle embeds.
	Bundle *canonjson.Value
	// Result is the document's validation result (for an attested bundle,
	// Result.Attestation is attest.VerifySigned's).
	Result document.Result
}

// A Refusal is a document refused because it is not valid evidence (exit
// status 1; HTTP 422): Result is its validation result, as `mcpres
// validate --format json` reports it but for the schema errors, of which
// it lists at most [MaxSchemaErrors] (for an attested bundle,
// Result.Attestation is attest.VerifySigned's).
type Refusal struct {
	Result document.Result
}

func (e *Refusal) Error() string {
	return fmt.Sprintf("refusing to log invalid evidence: %s: %s", strings.Join(e.Result.Diagnostics, ", "), e.Result.Detail)
}

// Admit decides whether doc, a document read with the strict reader, may
// be logged (see the package documentation). evaluatedAt is the
// evaluation time of an attested bundle (a REFERENCE §1.7 date-time,
// echoed in its result; no clock is read). It returns the Admission, or a
// *Refusal for invalid evidence, or another error when doc cannot be
// evaluated at all (a *validator.InputError: MCP_RES_INPUT_INVALID, exit
// status 2, HTTP 400).
func (a *Admitter) Admit(doc *canonjson.Value, evaluatedAt string) (*Admission, error) {
	k := document.Detect(doc)
	var res document.Result
	b := doc
	if k == document.AttestedBundle {
		ar, err := attest.VerifySigned(doc, attest.Options{EvaluatedAt: evaluatedAt, Validator: a.val})
		if err != nil {
			return nil, err
		}
		res = document.Result{Kind: k, Result: ar.Result, Attestation: &ar}
		b = doc.Get("bundle")
	} else {
		r, err := a.val.Bundle(doc)
		if err != nil {
			return nil, err
		}
		res = document.Result{Kind: k, Result: r}
		k = document.Bundle
	}
	if !res.Valid {
		return nil, &Refusal{Result: res}
	}
	adm := &Admission{Kind: k, Bundle: b, Result: res}
	var err error
	if adm.Entry, err = offline.EntryFor(b).Marshal(); err == nil && res.Attestation != nil && len(res.Attestation.Evaluation.Envelopes) > 0 {
		adm.SignedEntry, err = signedEntry(b, res.Attestation).Marshal()
	}
	if err != nil {
		// A valid bundle always has an entry; never log without one.
		return nil, &validator.InputError{Reason: "encoding the log entry: " + err.Error()}
	}
	return adm, nil
}

// LogEntry is the leaf data an mcpres log appends for the document: its
// SignedEntry when it has one (an attested bundle with envelopes), else
// its Entry.
func (a *Admission) LogEntry() []byte {
	if a.SignedEntry != nil {
		return a.SignedEntry
	}
	return a.Entry
}

// signedEntry is the v2 entry of an attested bundle whose envelopes, all
// verified (ar), number at least one.
func signedEntry(b *canonjson.Value, ar *attest.Result) offline.Entry {
	signers := make([]offline.EntrySigner, len(ar.Evaluation.Envelopes))
	for i, e := range ar.Evaluation.Envelopes {
		signers[i] = offline.EntrySigner{KeyFingerprint: e.KeyFingerprint, SignerIdentity: e.SignerIdentity, SigningTime: e.SigningTime}
	}
	return offline.SignedEntryFor(b, signers)
}

// AdmitBody is [Admitter.Admit] for the bytes of a document (a POST /add
// body): they are read with the strict reader first (canonjson.Parse),
// and a body that is no JSON document is refused as input that cannot be
// evaluated (a *validator.InputError or the reader's error).
func (a *Admitter) AdmitBody(body []byte, evaluatedAt string) (*Admission, error) {
	doc, err := canonjson.Parse(body)
	if err != nil {
		return nil, err
	}
	return a.Admit(doc, evaluatedAt)
}

// Diagnostic is the diagnostic JSON object of a document that was not
// admitted, as `mcpres validate --format json` prints it: for a
// *[Refusal] its validation result object (an attested bundle's
// attest.Result.Value, else validator.Result.Value), for any other error
// the MCP_RES_INPUT_INVALID object (validator.InputInvalidValue).
func Diagnostic(err error) *canonjson.Value {
	var r *Refusal
	switch {
	case !errors.As(err, &r):
		return validator.InputInvalidValue(err)
	case r.Result.Attestation != nil:
		return r.Result.Attestation.Value()
	}
	return r.Result.Value()
}

// DiagnosticJSON is [Diagnostic] encoded as one compact line, its strings
// made valid UTF-8 when they quote input that is not
// (canonjson.ValidUTF8).
func DiagnosticJSON(err error) []byte {
	v := Diagnostic(err)
	out, cerr := canonjson.Compact(v)
	if cerr != nil {
		out, _ = canonjson.Compact(canonjson.ValidUTF8(v))
	}
	return append(out, '\n')
}

// The terms of [Cost], measured (TestCost) on the documents that cost the
// most per byte: dense arrays and objects of empty values (about 40 bytes
// of parse tree per input byte, up to canonjson.MaxNodes values), numbers,
// long strings, escapes, and bundles at the reader limits whose every
// operation fails the schema (their schema errors and the refusal's result
// object).
const (
	// costPerByte covers the body itself and the strings the parse copies
	// out of it.
	costPerByte = 2
	// costPerDenseByte and costTree cover the parse tree and what
	// validation builds over it: at most costPerDenseByte bytes per input
	// byte, and never more than costTree in all (the reader's node limit
	// bounds the tree).
	costPerDenseByte = 48
	costTree         = 48 << 20
	// costFixed covers what one admission allocates whatever the size.
	costFixed = 256 << 10
)

// Cost returns an upper bound of the memory that reading an n-byte body,
// parsing it with the strict reader, admitting it and rendering its
// refusal's result object take together, in bytes: 2n + min(48n, 48 MiB)
// + 256 KiB. It is non-decreasing in n; Cost(16 MiB), the largest body
// the reader takes, is 80.25 MiB.
func Cost(n int64) int64 {
	if n < 0 {
		n = 0
	}
	return costPerByte*n + min(costPerDenseByte*n, costTree) + costFixed
}
