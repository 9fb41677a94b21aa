// Package rekortest builds in-memory Rekor v1 logs for tests: an ECDSA
// P-256 log key generated per test, hashedrekord v0.0.1 bodies built with
// rekor's own types, checkpoints signed with rekor's util.SignedCheckpoint
// (plus any witness cosignatures) and signed entry timestamps computed as
// Rekor's server does.
package rekortest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"testing"

	jsoncanonicalizer "github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/go-openapi/strfmt"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/signednote"
	"github.com/sigstore/rekor/pkg/generated/models"
	hashedrekord "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1"
	"github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/options"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
	"golang.org/x/mod/sumdb/note"
)

// Name is the logs' key name and TreeID the tree ID in their checkpoint
// origin "Name - TreeID", as Rekor v1 writes it.
const (
	Name   = "rekor.example.org"
	TreeID = "1193050959916656506"
)

// Log is an in-memory Rekor v1 log: an ECDSA P-256 key generated for
// the test, an RFC 6962 tree of entry bodies, checkpoints signed with
// rekor's util.SignedCheckpoint and SETs computed as rekor's server does.
type Log struct {
	key    *ecdsa.PrivateKey
	signer signature.SignerVerifier
	der    []byte
	// LogID is the hex SHA-256 of the key's DER; VKey its type 0x02
	// verifier key named Name.
	LogID string
	VKey  string
	Key   *signednote.Verifier // VKey, parsed
	// Tree holds the bodies appended, in order.
	Tree   *testonly.Tree
	Bodies [][]byte
}

// NewLog returns an empty log with a new key.
func NewLog(t testing.TB) *Log {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	l := &Log{key: key, Tree: testonly.New(rfc6962.DefaultHasher)}
	if l.signer, err = signature.LoadECDSASignerVerifier(key, crypto.SHA256); err != nil {
		t.Fatal(err)
	}
	if l.der, err = x509.MarshalPKIXPublicKey(&key.PublicKey); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(l.der)
	l.LogID = hex.EncodeToString(sum[:])
	l.VKey = signednote.FormatECDSAVerifierKey(Name, l.der)
	if l.Key, err = signednote.ParseVerifier(l.VKey); err != nil {
		t.Fatal(err)
	}
	return l
}

// HashedRekordBody is the canonical body of a hashedrekord v0.0.1 entry
// for data, built with rekor's own types (which verify the signature):
// the data hash is SHA-256(data), signed by a submitter key.
func HashedRekordBody(t testing.TB, data []byte) []byte {
	t.Helper()
	sub, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(data)
	sig, err := ecdsa.SignASN1(rand.Reader, sub, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&sub.PublicKey)
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	alg, value := "sha256", hex.EncodeToString(digest[:])
	e := &hashedrekord.V001Entry{HashedRekordObj: models.HashedrekordV001Schema{
		Data:      &models.HashedrekordV001SchemaData{Hash: &models.HashedrekordV001SchemaDataHash{Algorithm: &alg, Value: &value}},
		Signature: &models.HashedrekordV001SchemaSignature{Content: strfmt.Base64(sig), PublicKey: &models.HashedrekordV001SchemaSignaturePublicKey{Content: strfmt.Base64(pub)}},
	}}
	body, err := e.Canonicalize(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// Append adds a body and returns its index.
func (l *Log) Append(body []byte) int64 {
	l.Bodies = append(l.Bodies, body)
	l.Tree.AppendData(body)
	return int64(len(l.Bodies) - 1)
}

// Checkpoint signs a Rekor checkpoint of the current tree with rekor's
// util.SignedCheckpoint, then appends cosignature lines.
func (l *Log) Checkpoint(t testing.TB, origin string, size uint64, cosigners ...note.Signer) string {
	t.Helper()
	sc, err := util.CreateSignedCheckpoint(util.Checkpoint{Origin: origin, Size: size, Hash: l.Tree.HashAt(size)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Sign(Name, l.signer, options.WithContext(context.Background())); err != nil {
		t.Fatal(err)
	}
	text, err := sc.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if len(cosigners) > 0 {
		text = cosign(t, text, cosigners...)
	}
	return string(text)
}

// cosign adds cosignature lines to a signed note.
func cosign(t testing.TB, signed []byte, cosigners ...note.Signer) []byte {
	t.Helper()
	text, _, _ := bytes.Cut(signed, []byte("\n\n"))
	extra := offlinetest.Sign(append(text, '\n'), cosigners...)
	_, lines, _ := bytes.Cut(extra, []byte("\n\n"))
	return append(bytes.Clone(signed), lines...)
}

// Entry returns the LogEntryAnon of leaf i with an inclusion proof and
// checkpoint at the current size and a SET signed by the log key.
func (l *Log) Entry(t testing.TB, i int64, cosigners ...note.Signer) *models.LogEntryAnon {
	t.Helper()
	size := l.Tree.Size()
	ps, err := l.Tree.InclusionProof(uint64(i), size)
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for _, h := range ps {
		hashes = append(hashes, hex.EncodeToString(h))
	}
	body := base64.StdEncoding.EncodeToString(l.Bodies[i])
	integrated, logIndex, logID := int64(1767225600), i, l.LogID
	cp := l.Checkpoint(t, Name+" - "+TreeID, size, cosigners...)
	root, treeSize := hex.EncodeToString(l.Tree.HashAt(size)), int64(size)
	e := &models.LogEntryAnon{
		Body: body, IntegratedTime: &integrated, LogID: &logID, LogIndex: &logIndex,
		Verification: &models.LogEntryAnonVerification{
			InclusionProof: &models.InclusionProof{Checkpoint: &cp, Hashes: hashes, LogIndex: &logIndex, RootHash: &root, TreeSize: &treeSize},
		},
	}
	e.Verification.SignedEntryTimestamp = l.set(t, e)
	return e
}

// set signs the entry timestamp as rekor does: the canonical JSON of
// {body, integratedTime, logIndex, logID}.
func (l *Log) set(t testing.TB, e *models.LogEntryAnon) []byte {
	t.Helper()
	payload, err := json.Marshal(struct {
		Body           any    `json:"body"`
		IntegratedTime int64  `json:"integratedTime"`
		LogIndex       int64  `json:"logIndex"`
		LogID          string `json:"logID"`
	}{e.Body, *e.IntegratedTime, *e.LogIndex, *e.LogID})
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := jsoncanonicalizer.Transform(payload)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := l.signer.SignMessage(bytes.NewReader(canonical))
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// Marshal is the JSON of e, as Rekor returns it.
func Marshal(t testing.TB, e *models.LogEntryAnon) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
