// Package rekor verifies Rekor v1 log entries offline, as the second proof
// kind of a transparency reference (offline.KindRekorV1): the proof bytes
// are the LogEntryAnon JSON object Rekor returns for an entry (the value of
// the map {uuid: entry} of its API), starting with "{".
//
// The entry must be a hashedrekord v0.0.1 whose data hash is the digest
// (sha256, sha384 or sha512, as the entry says) of the canonical bytes of
// the bundle's mcpres.transparency-entry/v1: that is what binds it to the
// bundle. The signature and key inside the entry are the submitter's and
// were checked by Rekor when it accepted the entry; they are not
// interpreted here.
//
// [Verifier.Verify] checks, with no network and no clock, in this order:
// the JSON (strict reader, closed members, rekor's generated models and
// their Validate); the body kind and the binding (*offline.BindingError);
// the log, found by the entry's logID among the trust's ECDSA (type 0x02)
// log keys (*offline.UnknownLogError); the signed entry timestamp with
// rekor's verify.VerifySignedEntryTimestamp (*SETError); the inclusion
// proof with rekor's verify.VerifyInclusion (*offline.InclusionError); the
// checkpoint with offline.VerifyCheckpoint (sumdb/note.Open, the strict
// body with the origin, witness cosignatures and quorum),
// which must be for exactly the proof's tree size and root hash
// (*offline.CheckpointError). Rekor's own verify.VerifyCheckpointSignature
// is not used: it compares only the root hash, and rekor's SignedNote
// fails on checkpoints that carry witness cosignatures.
//
// This package links rekor, sigstore and go-openapi (and so net/http,
// though nothing here opens a connection). mcpres does not link it, to keep
// its start-up budget; cmd/mcpres-sigstore does.
package rekor

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-openapi/strfmt"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/transparency-dev/merkle/rfc6962"
)

// An EntryError is proof bytes that are not a Rekor v1 LogEntryAnon this
// package accepts.
type EntryError struct {
	Msg string
	Err error
}

func (e *EntryError) Error() string {
	if e.Err != nil {
		return "Rekor entry: " + e.Msg + ": " + e.Err.Error()
	}
	return "Rekor entry: " + e.Msg
}

func (e *EntryError) Unwrap() error { return e.Err }

// A SETError is a signed entry timestamp that does not verify under the
// log's key.
type SETError struct{ Err error }

func (e *SETError) Error() string { return "Rekor entry: signed entry timestamp: " + e.Err.Error() }
func (e *SETError) Unwrap() error { return e.Err }

// Verifier is the offline.KindVerifier of Rekor v1 entries.
type Verifier struct{}

var _ offline.KindVerifier = Verifier{}

// Kind is offline.KindRekorV1.
func (Verifier) Kind() offline.Kind { return offline.KindRekorV1 }

// Verify verifies a Rekor v1 entry (see the package documentation). The
// Verified's LogID is the entry's logID (hex SHA-256 of the log key's DER)
// and its EntryUUID the hex leaf hash (Rekor's UUID; Verified.
// MatchesReference also accepts it with Rekor's 16-digit tree ID prefix).
func (Verifier) Verify(proof []byte, want offline.Entry, trust offline.Trust) (*offline.Verified, error) {
	if err := trust.Check(); err != nil {
		return nil, err
	}
	e, body, err := parseEntry(proof)
	if err != nil {
		return nil, err
	}
	if err := checkBinding(body, want); err != nil {
		return nil, err
	}
	lg, der, err := findLog(*e.LogID, trust)
	if err != nil {
		return nil, err
	}
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, &offline.TrustError{Msg: fmt.Sprintf("log %s: %v", lg.Origin, err)}
	}
	sv, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, &offline.TrustError{Msg: fmt.Sprintf("log %s: %v", lg.Origin, err)}
	}
	ctx := context.Background()
	if err := verify.VerifySignedEntryTimestamp(ctx, e, sv); err != nil {
		return nil, &SETError{Err: err}
	}
	ip := e.Verification.InclusionProof
	if err := verify.VerifyInclusion(ctx, e); err != nil {
		return nil, &offline.InclusionError{Index: uint64(*ip.LogIndex), Size: uint64(*ip.TreeSize), Err: err}
	}
	// The log's key verifies its checkpoint signature (SHA-256 and ASN.1
	// ECDSA, as formats' NewECDSAVerifier): parsed once, with the trust.
	nv := lg.Key
	signed := []byte(*ip.Checkpoint)
	origin, err := checkpointOrigin(signed, nv.Name())
	if err != nil {
		return nil, err
	}
	cp, err := offline.VerifyCheckpoint(signed, origin, nv, trust)
	if err != nil {
		return nil, err
	}
	root, _ := hex.DecodeString(*ip.RootHash) // checked by parseEntry
	if cp.Size != uint64(*ip.TreeSize) || !bytes.Equal(cp.Hash[:], root) {
		return nil, &offline.CheckpointError{Msg: fmt.Sprintf("the checkpoint is for tree size %d and root %x, the inclusion proof for tree size %d and root %s", cp.Size, cp.Hash, *ip.TreeSize, *ip.RootHash)}
	}
	leaf := rfc6962.DefaultHasher.HashLeaf(body)
	return &offline.Verified{
		Kind: offline.KindRekorV1, LogID: *e.LogID, EntryUUID: hex.EncodeToString(leaf),
		Entry: want, LeafHash: signednote.Hash(leaf), Index: uint64(*ip.LogIndex), Checkpoint: *cp,
	}, nil
}

// closed lists the members each object of a LogEntryAnon may have.
var closed = []struct {
	path    string
	allowed []string
}{
	{"", []string{"attestation", "body", "integratedTime", "logID", "logIndex", "verification"}},
	{"verification", []string{"inclusionProof", "signedEntryTimestamp"}},
	{"verification/inclusionProof", []string{"checkpoint", "hashes", "logIndex", "rootHash", "treeSize"}},
}

// parseEntry reads the proof bytes: strict JSON (mcpres's reader: no
// duplicate keys, safe integers), closed members, then rekor's models and
// their Validate, the parts Verify needs present, and lowercase hex hashes.
// It returns the entry and its decoded body.
func parseEntry(proof []byte) (*models.LogEntryAnon, []byte, error) {
	if len(proof) > offline.MaxProofSize {
		return nil, nil, &EntryError{Msg: fmt.Sprintf("%d bytes, more than the limit of %d", len(proof), offline.MaxProofSize)}
	}
	if offline.DetectKind(proof) != offline.KindRekorV1 {
		return nil, nil, &EntryError{Msg: "not a JSON object (the first byte must be \"{\")"}
	}
	v, err := canonjson.Parse(proof)
	if err != nil {
		return nil, nil, &EntryError{Msg: "not strict JSON", Err: err}
	}
	for _, c := range closed {
		path, allowed := c.path, c.allowed
		o := v
		if path != "" {
			for _, k := range strings.Split(path, "/") {
				o = o.Get(k)
			}
		}
		if o == nil || !o.Is(canonjson.Object) {
			continue // Validate and the checks below report it
		}
		for _, m := range o.Members {
			if !slices.Contains(allowed, m.Key) {
				return nil, nil, &EntryError{Msg: fmt.Sprintf("unknown member %q in /%s", m.Key, path)}
			}
		}
	}
	var e models.LogEntryAnon
	if err := json.Unmarshal(proof, &e); err != nil {
		return nil, nil, &EntryError{Msg: "does not decode", Err: err}
	}
	if err := e.Validate(strfmt.Default); err != nil {
		return nil, nil, &EntryError{Msg: "invalid", Err: err}
	}
	if e.Verification == nil || e.Verification.InclusionProof == nil {
		return nil, nil, &EntryError{Msg: "no inclusion proof"}
	}
	if len(e.Verification.SignedEntryTimestamp) == 0 {
		return nil, nil, &EntryError{Msg: "no signed entry timestamp"}
	}
	ip := e.Verification.InclusionProof
	for i, h := range append([]string{*ip.RootHash}, ip.Hashes...) {
		if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
			what := "rootHash"
			if i > 0 {
				what = fmt.Sprintf("hashes[%d]", i-1)
			}
			return nil, nil, &EntryError{Msg: fmt.Sprintf("inclusionProof.%s is not 64 lowercase hex digits", what)}
		}
	}
	if len(ip.Hashes) > offline.MaxProofHashes {
		return nil, nil, &EntryError{Msg: fmt.Sprintf("%d inclusion hashes, more than the limit of %d", len(ip.Hashes), offline.MaxProofHashes)}
	}
	b64, ok := e.Body.(string)
	if !ok {
		return nil, nil, &EntryError{Msg: "body is not a string"}
	}
	body, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || base64.StdEncoding.EncodeToString(body) != b64 {
		return nil, nil, &EntryError{Msg: "body is not canonical padded base64"}
	}
	return &e, body, nil
}

// checkBinding reads the body as a hashedrekord v0.0.1 and compares its
// data hash with the digest of want's canonical bytes.
func checkBinding(body []byte, want offline.Entry) error {
	bv, err := canonjson.Parse(body)
	if err != nil {
		return &EntryError{Msg: "body is not strict JSON", Err: err}
	}
	if k := bv.Get("kind"); k == nil || !k.Is(canonjson.String) || k.Str != "hashedrekord" {
		return &EntryError{Msg: "body is not a hashedrekord entry (the only Rekor kind that binds an mcpres entry)"}
	}
	var hr models.Hashedrekord
	if err := json.Unmarshal(body, &hr); err != nil {
		return &EntryError{Msg: "hashedrekord body does not decode", Err: err}
	}
	if hr.APIVersion == nil || *hr.APIVersion != "0.0.1" {
		return &EntryError{Msg: "hashedrekord apiVersion is not 0.0.1"}
	}
	specBytes, err := canonjson.Compact(bv.Get("spec"))
	if err != nil {
		return &EntryError{Msg: "hashedrekord spec", Err: err}
	}
	var spec models.HashedrekordV001Schema
	if err := json.Unmarshal(specBytes, &spec); err != nil {
		return &EntryError{Msg: "hashedrekord spec does not decode", Err: err}
	}
	if err := spec.Validate(strfmt.Default); err != nil {
		return &EntryError{Msg: "hashedrekord spec is invalid", Err: err}
	}
	if spec.Data == nil || spec.Data.Hash == nil {
		return &EntryError{Msg: "hashedrekord spec has no data hash"}
	}
	entry, err := want.Marshal()
	if err != nil {
		return err
	}
	var digest []byte
	switch alg := *spec.Data.Hash.Algorithm; alg {
	case "sha256":
		s := sha256.Sum256(entry)
		digest = s[:]
	case "sha384":
		s := sha512.Sum384(entry)
		digest = s[:]
	case "sha512":
		s := sha512.Sum512(entry)
		digest = s[:]
	default:
		return &EntryError{Msg: fmt.Sprintf("hashedrekord data hash algorithm %q is not supported", alg)}
	}
	if got, w := *spec.Data.Hash.Value, hex.EncodeToString(digest); got != w {
		return &offline.BindingError{Field: "hashedrekord data.hash (" + *spec.Data.Hash.Algorithm + " of the mcpres.transparency-entry/v1)", Got: got, Want: w}
	}
	return nil
}

// findLog returns the trust's ECDSA log whose key has the entry's logID.
func findLog(logID string, trust offline.Trust) (offline.Log, []byte, error) {
	for _, l := range trust.Logs {
		if l.Key == nil || l.Key.Type() != signednote.TypeECDSA {
			continue
		}
		if der := l.Key.DER(); l.Key.Fingerprint() == logID {
			return l, der, nil
		}
	}
	return offline.Log{}, nil, &offline.UnknownLogError{Signers: []string{"Rekor logID " + logID}}
}

// checkpointOrigin reads the (not yet authenticated) origin line of a Rekor
// checkpoint and checks it has the shape Rekor v1 gives it: the key name,
// optionally followed by " - " and the decimal tree ID. VerifyCheckpoint
// then authenticates the checkpoint and requires exactly this origin.
func checkpointOrigin(signed []byte, keyName string) (string, error) {
	origin, _, _ := bytes.Cut(signed, []byte("\n"))
	o := string(origin)
	if o == keyName {
		return o, nil
	}
	if id, ok := strings.CutPrefix(o, keyName+" - "); ok {
		if n, err := strconv.ParseUint(id, 10, 64); err == nil && strconv.FormatUint(n, 10) == id {
			return o, nil
		}
	}
	return "", &offline.OriginError{Got: o, Want: keyName + " - TREE_ID"}
}
