package offline

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
)

// Verified is what [Verify] established. It is returned if and only if
// every step passed.
type Verified struct {
	Kind Kind
	// LogID and EntryUUID are what the transparencyReference's logId and
	// entryUuid must be (see [Verified.MatchesReference]): for a tlog-proof
	// the checkpoint origin and the leaf index in decimal; for a Rekor v1
	// entry the log ID (hex SHA-256 of the log key) and the hex leaf hash.
	LogID     string
	EntryUUID string
	// Entry is the verified log entry; LeafHash its RFC 6962 leaf hash.
	Entry    Entry
	LeafHash signednote.Hash
	Index    uint64
	// Checkpoint is the verified checkpoint the leaf is included in.
	Checkpoint Checkpoint
}

// MatchesReference checks a transparencyReference's logId and entryUuid
// against the verified proof. A Rekor v1 entryUuid may also carry Rekor's
// 16-hex-digit tree ID prefix (80 hex digits in all).
func (v *Verified) MatchesReference(logID, entryUUID string) error {
	if logID != v.LogID {
		return fmt.Errorf("logId is %q, the verified log's is %q", logID, v.LogID)
	}
	if entryUUID == v.EntryUUID {
		return nil
	}
	if v.Kind == KindRekorV1 && len(entryUUID) == 80 && strings.Trim(entryUUID, "0123456789abcdef") == "" && strings.HasSuffix(entryUUID, v.EntryUUID) {
		return nil
	}
	return fmt.Errorf("entryUuid is %q, the verified entry's is %q", entryUUID, v.EntryUUID)
}

// A Checkpoint is a verified checkpoint and the witnesses counted on it.
type Checkpoint struct {
	Origin string
	Size   uint64
	Hash   signednote.Hash // the root hash
	// LogKey is the NAME+HASH (8 hex digits) of the log key that signed.
	LogKey string
	// Witnesses are the witnesses of the trust whose cosignature verified,
	// once each, in signature order. Each has its own key (keys are
	// distinct in a checked Trust), so this counts distinct keys.
	Witnesses []signednote.CountedCosignature
	// Quorum is the rule that was satisfied ("none" when none is required).
	Quorum string
	// Repeated names witnesses with more than one cosignature line, counted
	// once; Ignored counts signature lines by keys not in the trust.
	Repeated []string
	Ignored  int
	// NotCounted are verified cosignatures of witnesses of the trust that
	// were not counted because of their time (Trust.EvaluatedAt,
	// Trust.MaxCosignatureAge).
	NotCounted []signednote.UncountedCosignature
}

// A KindVerifier verifies proof bytes of a kind this package leaves to
// another one (KindRekorV1: package offline/rekor), with the same contract
// as [Verify].
type KindVerifier interface {
	Kind() Kind
	Verify(proof []byte, want Entry, trust Trust) (*Verified, error)
}

// Check checks t as every verification does, and returns the *TrustError,
// if any.
func (t Trust) Check() error {
	_, err := t.check()
	return err
}

// Verify verifies tlog-proof bytes against the entry this bundle must have
// (want; its SchemaVersion is not read) and the trust, with no network and
// no clock, in this order, each failing with its own error type:
//
//  1. the trust is usable (*[TrustError]);
//  2. [ParseProof] (*[ProofError]);
//  3. the extra data is a canonical mcpres.transparency-entry/v1 or /v2
//     (*[EntryError]) whose subject.name, subject.sha256,
//     evidenceBundleDigest, scenarioFingerprint and executionInstanceDigest
//     equal want's, compared in this order (*[BindingError] naming the
//     first that differs); when want names signers (the v2 entry of an
//     attested bundle, as its submitter expects it), the entry must name
//     exactly those, in that order (*[BindingError] for "signers"); a want
//     with no signers accepts either version (a v2 entry's signers are
//     bound to an envelope by [CheckEntrySigner]);
//  4. the leaf hash is the RFC 6962 hash SHA-256(0x00 ‖ entry bytes);
//  5. a signature line of the checkpoint is by an Ed25519 log key of the
//     trust, matched by key name and hash (*[UnknownLogError]);
//  6. the checkpoint's signatures verify under that log key and every
//     witness key (signednote.OpenNote: sumdb/note.Open with strict
//     verifiers; a line by one of them that does not verify:
//     *[SignatureError]; a malformed note: *[CheckpointError]), then its
//     body is read: one formats' Checkpoint.Unmarshal cannot read is a
//     *[CheckpointError], another origin than the log's an *[OriginError],
//     a body that is not strict (signednote.ParseBody) a *[CheckpointError];
//  7. merkle's proof.VerifyInclusion of the leaf at the proof's index in the
//     checkpoint's tree size and root hash (*[InclusionError]);
//  8. the cosignature/v1 signatures of witness keys are counted once per
//     key (a repeated line from the same key counts once, by sumdb/note
//     and by key fingerprint) and the quorum rule is applied
//     (*[QuorumError]: "cosignatures: 1 of 2 required (WB missing)").
//
// The witness timestamps are reported, and judged only against the
// trust's EvaluatedAt and MaxCosignatureAge (a cosignature dated after the
// evaluation time, or older than the maximum age, is not counted and is
// listed in Checkpoint.NotCounted): no clock is read.
// Verify does not compare the reference's logId and entryUuid: call
// [Verified.MatchesReference].
func Verify(proofBytes []byte, want Entry, trust Trust) (*Verified, error) {
	return verify(proofBytes, want, trust, nil)
}

// A Claim is what a transparency reference says about its proof: the log
// (checkpoint origin) and the entry (leaf index in decimal).
type Claim struct {
	LogID     string
	EntryUUID string
}

// VerifyClaimed is [Verify] for a proof that a transparency reference
// carries: the reference's entryUuid must name the proof's leaf index, and
// its logId the origin of the checkpoint, which is checked as soon as the
// checkpoint is authenticated, before the inclusion proof, so that a
// checkpoint of another (even trusted) log is reported as such.
func VerifyClaimed(proofBytes []byte, want Entry, claim Claim, trust Trust) (*Verified, error) {
	return verify(proofBytes, want, trust, &claim)
}

func verify(proofBytes []byte, want Entry, trust Trust, claim *Claim) (*Verified, error) {
	s, err := trust.check()
	if err != nil {
		return nil, err
	}
	p, err := ParseProof(proofBytes)
	if err != nil {
		return nil, err
	}
	entry, err := checkEntry(p.Entry, want)
	if err != nil {
		return nil, err
	}
	if claim != nil && claim.EntryUUID != strconv.FormatUint(p.Index, 10) {
		return nil, fmt.Errorf("entryUuid is %q, the proof is for leaf index %d", claim.EntryUUID, p.Index)
	}
	leaf := rfc6962.DefaultHasher.HashLeaf(p.Entry)
	lg, err := s.findLog(p.sigs)
	if err != nil {
		return nil, err
	}
	cp, counted, err := s.openCheckpoint(p.Checkpoint, p.text, p.sigs, lg.Origin, lg.v)
	if err != nil {
		return nil, err
	}
	if claim != nil && claim.LogID != cp.Origin {
		return nil, fmt.Errorf("logId is %q, the checkpoint's origin is %q", claim.LogID, cp.Origin)
	}
	if err := VerifyInclusion(p.Index, cp.Size, leaf, hashSlices(p.Hashes), cp.Hash[:]); err != nil {
		return nil, err
	}
	if err := s.applyQuorum(cp, counted); err != nil {
		return nil, err
	}
	return &Verified{
		Kind: KindTLogProof, LogID: cp.Origin, EntryUUID: strconv.FormatUint(p.Index, 10),
		Entry: entry, LeafHash: signednote.Hash(leaf), Index: p.Index, Checkpoint: *cp,
	}, nil
}

// VerifyCheckpoint is steps 6 and 8 of [Verify] for a checkpoint on its
// own: it verifies signed with logKey (the log's key: type 0x01, or 0x02
// for a Rekor log) and the witness keys of trust,
// requires the origin, and applies the quorum. trust.Logs is not read.
// Package offline/rekor uses it for Rekor checkpoints.
func VerifyCheckpoint(signed []byte, origin string, logKey *signednote.Verifier, trust Trust) (*Checkpoint, error) {
	s, err := trust.check()
	if err != nil {
		return nil, err
	}
	text, lines, err := signednote.Split(signed)
	if err != nil {
		return nil, &CheckpointError{Msg: "malformed note", Err: err}
	}
	cp, counted, err := s.openCheckpoint(signed, text, lines, origin, logKey)
	if err != nil {
		return nil, err
	}
	if err := s.applyQuorum(cp, counted); err != nil {
		return nil, err
	}
	return cp, nil
}

func (s *trustSet) applyQuorum(cp *Checkpoint, counted map[string]bool) error {
	if e := s.evaluate(counted); e != nil {
		e.Repeated, e.Ignored, e.NotCounted = cp.Repeated, cp.Ignored, cp.NotCounted
		return e
	}
	cp.Quorum = s.quorum
	if cp.Quorum == "" {
		cp.Quorum = "none"
	}
	return nil
}

// VerifyInclusion checks an RFC 6962 inclusion proof with merkle's
// proof.VerifyInclusion (rfc6962.DefaultHasher), after requiring 32-byte
// hashes (merkle does not check the size of proof elements). Any failure
// is an *[InclusionError].
func VerifyInclusion(index, size uint64, leafHash []byte, hashes [][]byte, root []byte) error {
	for i, h := range hashes {
		if len(h) != sha256.Size {
			return &InclusionError{Index: index, Size: size, Err: fmt.Errorf("proof hash %d is %d bytes, want %d", i, len(h), sha256.Size)}
		}
	}
	if len(root) != sha256.Size {
		return &InclusionError{Index: index, Size: size, Err: fmt.Errorf("root hash is %d bytes, want %d", len(root), sha256.Size)}
	}
	if err := proof.VerifyInclusion(rfc6962.DefaultHasher, index, size, leafHash, hashes, root); err != nil {
		return &InclusionError{Index: index, Size: size, Err: err}
	}
	return nil
}

func hashSlices(hs [][sha256.Size]byte) [][]byte {
	out := make([][]byte, len(hs))
	for i := range hs {
		out[i] = hs[i][:]
	}
	return out
}

// checkEntry is step 3 of Verify.
func checkEntry(data []byte, want Entry) (Entry, error) {
	e, err := ParseEntry(data)
	if err != nil {
		return Entry{}, &EntryError{Err: err}
	}
	for _, f := range []struct{ name, got, want string }{
		{"subject.name", e.Subject.Name, want.Subject.Name},
		{"subject.sha256", e.Subject.Sha256, want.Subject.Sha256},
		{"evidenceBundleDigest", e.EvidenceBundleDigest, want.EvidenceBundleDigest},
		{"scenarioFingerprint", e.ScenarioFingerprint, want.ScenarioFingerprint},
		{"executionInstanceDigest", e.ExecutionInstanceDigest, want.ExecutionInstanceDigest},
	} {
		if f.got != f.want {
			return Entry{}, &BindingError{Field: f.name, Got: f.got, Want: f.want}
		}
	}
	if want.Signers != nil && !slices.Equal(e.Signers, want.Signers) {
		return Entry{}, &BindingError{Field: "signers", Got: formatSigners(e.Signers), Want: formatSigners(want.Signers)}
	}
	return e, nil
}

// formatSigners names an entry's signers for a message.
func formatSigners(ss []EntrySigner) string {
	if len(ss) == 0 {
		return "none"
	}
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = fmt.Sprintf("%s as %q at %s", s.KeyFingerprint, s.SignerIdentity, s.SigningTime)
	}
	return strings.Join(names, ", ")
}

// findLog is step 5 of Verify: the Ed25519 log whose key name and hash a
// signature line carries.
func (s *trustSet) findLog(lines []signednote.SigLine) (*trustedLog, error) {
	for _, l := range lines {
		for i := range s.logs {
			if k := s.logs[i].Key; s.logs[i].v != nil && l.Name == k.Name() && l.Hash == k.KeyHash() {
				return &s.logs[i], nil
			}
		}
	}
	return nil, unknownLog(lines)
}

// openCheckpoint is step 6 of Verify and the counting of step 8: it returns
// the checkpoint and the names of the witnesses counted. text and lines are
// signed as signednote.Split returned them: the note is split, opened and
// its body parsed once each.
func (s *trustSet) openCheckpoint(signed, text []byte, lines []signednote.SigLine, origin string, logKey *signednote.Verifier) (*Checkpoint, map[string]bool, error) {
	n, err := signednote.OpenNote(signed, logKey, s.witnessKeys()...)
	if err != nil {
		var inv *note.InvalidSignatureError
		var ns *signednote.NotSignedByLogError
		switch {
		case errors.As(err, &inv):
			role := "log"
			for _, w := range s.witnesses {
				if w.Key.Name() == inv.Name && w.Key.KeyHash() == inv.Hash {
					role = fmt.Sprintf("witness %q", w.Name)
				}
			}
			return nil, nil, &SignatureError{Name: inv.Name, KeyHash: inv.Hash, Role: role, Err: err}
		case errors.As(err, &ns):
			return nil, nil, unknownLog(lines)
		}
		return nil, nil, &CheckpointError{Msg: "malformed note", Err: err}
	}
	// Authenticated: now parse. A body formats cannot read at all is
	// malformed; one it reads with another origin is an *OriginError (as
	// formats' log.ParseCheckpoint would say), before the strict rules.
	body, err := parseCheckpointBody(text)
	var be *CheckpointError
	if errors.As(err, &be) && be.Err != nil {
		return nil, nil, err
	}
	if got, _, _ := bytes.Cut(text, []byte("\n")); string(got) != origin {
		return nil, nil, &OriginError{Got: string(got), Want: origin}
	}
	if err != nil {
		return nil, nil, err
	}
	cp := &Checkpoint{Origin: body.Origin, Size: body.Size, Hash: body.Hash, LogKey: fmt.Sprintf("%s+%08x", logKey.Name(), logKey.KeyHash())}
	counted := map[string]bool{}
	byFP := map[string]bool{}
	for _, sig := range n.Sigs {
		w := s.witnessFor(sig.Name, sig.Hash)
		if w == nil {
			continue
		}
		fp := w.fp
		if byFP[fp] { // unreachable: sumdb/note drops repeats and keys are distinct
			continue
		}
		c := signednote.CountedCosignature{Name: w.Name, Fingerprint: fp, Time: cosignatureTime(sig)}
		if nc := s.times.judge(c); nc != nil {
			cp.NotCounted = append(cp.NotCounted, *nc)
			continue
		}
		byFP[fp], counted[w.Name] = true, true
		cp.Witnesses = append(cp.Witnesses, c)
	}
	seen := map[string]int{}
	for _, l := range lines {
		if w := s.witnessFor(l.Name, l.Hash); w != nil {
			if seen[w.Name]++; seen[w.Name] == 2 {
				cp.Repeated = append(cp.Repeated, w.Name)
			}
		}
	}
	cp.Ignored = len(n.UnverifiedSigs)
	return cp, counted, nil
}

func unknownLog(lines []signednote.SigLine) error {
	e := &UnknownLogError{}
	for _, l := range lines {
		e.Signers = append(e.Signers, fmt.Sprintf("%s+%08x", l.Name, l.Hash))
	}
	return e
}

func (s *trustSet) witnessFor(name string, hash uint32) *trustedWitness {
	for i := range s.witnesses {
		if k := s.witnesses[i].Key; k.Name() == name && k.KeyHash() == hash {
			return &s.witnesses[i]
		}
	}
	return nil
}

// CheckBinding is what `attest sign --transparency` checks before signing,
// with no key at all: the proof bytes are a strict tlog-proof ([ParseProof])
// whose entry binds bundle (the value of a valid conformance bundle, see
// [EntryFor]) and whose inclusion proof leads to the root hash of its
// checkpoint. The checkpoint's signatures are not verified (that needs the
// verifier's policy; [Verify] does it). Bytes of another kind fail with an
// error wrapping [ErrNotTLogProof], which a caller may accept as a
// digest-only reference.
func CheckBinding(proofBytes []byte, bundle *canonjson.Value) error {
	p, err := ParseProof(proofBytes)
	if err != nil {
		return err
	}
	if _, err := checkEntry(p.Entry, EntryFor(bundle)); err != nil {
		return err
	}
	cp, err := parseCheckpointBody(p.text)
	if err != nil {
		return err
	}
	return VerifyInclusion(p.Index, cp.Size, rfc6962.DefaultHasher.HashLeaf(p.Entry), hashSlices(p.Hashes), cp.Hash[:])
}

// CheckReference is [CheckBinding] for a whole transparencyReference: the
// proof binds bundle, and logID and entryUUID are the proof's checkpoint
// origin and leaf index ([ReferenceIDs]). It is what `attest sign
// --transparency` runs; an error wrapping [ErrNotTLogProof] means the
// proof is of another kind and only its digest can be checked at signing
// time.
func CheckReference(logID, entryUUID string, proofBytes []byte, bundle *canonjson.Value) error {
	if err := CheckBinding(proofBytes, bundle); err != nil {
		return err
	}
	wantLog, wantUUID, err := ReferenceIDs(proofBytes)
	if err != nil {
		return err
	}
	if logID != wantLog {
		return fmt.Errorf("logId is %q, the checkpoint origin is %q", logID, wantLog)
	}
	if entryUUID != wantUUID {
		return fmt.Errorf("entryUuid is %q, the leaf index is %q", entryUUID, wantUUID)
	}
	return nil
}

// ReferenceIDs returns the logId (the checkpoint origin) and entryUuid (the
// leaf index in decimal) a transparencyReference carrying these tlog-proof
// bytes must have. The origin is read without verifying the checkpoint.
func ReferenceIDs(proofBytes []byte) (logID, entryUUID string, err error) {
	p, err := ParseProof(proofBytes)
	if err != nil {
		return "", "", err
	}
	cp, err := parseCheckpointBody(p.text)
	if err != nil {
		return "", "", err
	}
	return cp.Origin, strconv.FormatUint(p.Index, 10), nil
}

// cosignatureTime is the timestamp of a verified cosignature/v1 line, as
// the witness wrote it.
func cosignatureTime(sig note.Signature) uint64 {
	t, _ := signednote.CosignatureTimestamp(sig) // verified: well formed
	return t
}
