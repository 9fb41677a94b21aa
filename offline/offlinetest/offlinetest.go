// Package offlinetest builds in-memory transparency logs, checkpoints,
// witness cosignatures and tlog-proofs for tests of package offline and
// its users. Every key here is derived from a label and is for tests only:
// never trust one.
package offlinetest

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
	"golang.org/x/mod/sumdb/note"
)

// TestOnlyKey returns the Ed25519 key whose seed is SHA-256("mcpres
// offline test-only key: " + label).
func TestOnlyKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("mcpres offline test-only key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

// A Log is an in-memory RFC 6962 log whose checkpoints are signed with an
// Ed25519 signed-note key named after its origin.
type Log struct {
	Origin string
	// VKey is the log's verifier key (type 0x01).
	VKey   string
	Key    *signednote.Verifier
	Signer note.Signer
	tree   *testonly.Tree
	leaves [][]byte
}

// NewLog returns an empty log with origin and the test-only key of label.
func NewLog(origin, label string) *Log {
	l := &Log{Origin: origin, tree: testonly.New(rfc6962.DefaultHasher)}
	l.VKey, l.Signer = LogKey(origin, label)
	l.Key = mustParse(l.VKey)
	return l
}

// LogKey returns the verifier key and signer of an Ed25519 signed-note key
// named name with the test-only key of label.
func LogKey(name, label string) (string, note.Signer) {
	priv := TestOnlyKey(label)
	vkey := signednote.FormatVerifierKey(name, signednote.TypeEd25519, priv.Public().(ed25519.PublicKey))
	s, err := note.NewSigner(signednote.FormatSignerKey(name, signednote.TypeEd25519, priv))
	if err != nil {
		panic(err)
	}
	return vkey, s
}

// Append adds leaves and returns the index of the first.
func (l *Log) Append(data ...[]byte) uint64 {
	first := l.tree.Size()
	for _, d := range data {
		l.leaves = append(l.leaves, d)
		l.tree.AppendData(d)
	}
	return first
}

// Size is the number of leaves.
func (l *Log) Size() uint64 { return l.tree.Size() }

// Body is the checkpoint body of the tree of the given size, with the
// log's origin.
func (l *Log) Body(size uint64) []byte {
	return log.Checkpoint{Origin: l.Origin, Size: size, Hash: l.tree.HashAt(size)}.Marshal()
}

// Sign signs text with the log's key and then each cosigner, in order.
func (l *Log) Sign(text []byte, cosigners ...note.Signer) []byte {
	return Sign(text, append([]note.Signer{l.Signer}, cosigners...)...)
}

// Sign returns the signed note of text with the signers, in order.
func Sign(text []byte, signers ...note.Signer) []byte {
	b, err := note.Sign(&note.Note{Text: string(text)}, signers...)
	if err != nil {
		panic(err)
	}
	return b
}

// Hashes is the inclusion proof of leaf index in the tree of size.
func (l *Log) Hashes(index, size uint64) [][sha256.Size]byte {
	ps, err := l.tree.InclusionProof(index, size)
	if err != nil {
		panic(err)
	}
	out := make([][sha256.Size]byte, len(ps))
	for i, h := range ps {
		out[i] = [sha256.Size]byte(h)
	}
	return out
}

// Proof returns the tlog-proof of leaf index against a checkpoint of the
// current size signed by the log and the cosigners.
func (l *Log) Proof(index uint64, cosigners ...note.Signer) *offline.Proof {
	size := l.Size()
	return &offline.Proof{Index: index, Hashes: l.Hashes(index, size), Checkpoint: l.Sign(l.Body(size), cosigners...), Entry: l.leaves[index]}
}

// A Witness cosigns checkpoints with cosignature/v1 at a fixed timestamp
// (formats' signer reads the clock; tests want fixed bytes). It is a
// note.Signer.
type Witness struct {
	// PolicyName is the policy's name for it; KeyName the vkey's.
	PolicyName, KeyName string
	VKey                string
	Key                 *signednote.Verifier
	Time                uint64
	priv                ed25519.PrivateKey
	hash                uint32
}

// NewWitness returns a witness named name in the policy, with key name
// keyName and the test-only key of label, cosigning at Unix time t.
func NewWitness(name, keyName, label string, t uint64) *Witness {
	priv := TestOnlyKey(label)
	vkey := signednote.FormatVerifierKey(keyName, signednote.TypeCosignatureV1, priv.Public().(ed25519.PublicKey))
	k := mustParse(vkey)
	return &Witness{PolicyName: name, KeyName: keyName, VKey: vkey, Key: k, Time: t, priv: priv, hash: k.KeyHash()}
}

// Skey is the witness's signer key in the note format of formats'
// NewSignerForCosignatureV1.
func (w *Witness) Skey() string {
	return signednote.FormatSignerKey(w.KeyName, signednote.TypeCosignatureV1, w.priv)
}

// At returns a copy of w that cosigns at time t.
func (w *Witness) At(t uint64) *Witness { c := *w; c.Time = t; return &c }

// Name implements note.Signer: the key name.
func (w *Witness) Name() string { return w.KeyName }

// KeyHash implements note.Signer.
func (w *Witness) KeyHash() uint32 { return w.hash }

// Sign implements note.Signer: the 8-byte big-endian timestamp and the
// Ed25519 signature of "cosignature/v1\ntime T\n" + msg.
func (w *Witness) Sign(msg []byte) ([]byte, error) {
	m := fmt.Appendf(nil, "cosignature/v1\ntime %d\n", w.Time)
	sig := binary.BigEndian.AppendUint64(nil, w.Time)
	return append(sig, ed25519.Sign(w.priv, append(m, msg...))...), nil
}

// Trust returns the offline.Trust of the logs, the witnesses (under their
// policy names) and the groups and quorum.
func Trust(logs []*Log, ws []*Witness, groups []offline.Group, quorum string) offline.Trust {
	var t offline.Trust
	for _, l := range logs {
		t.Logs = append(t.Logs, offline.Log{Origin: l.Origin, Key: l.Key})
	}
	for _, w := range ws {
		t.Witnesses = append(t.Witnesses, offline.Witness{Name: w.PolicyName, Key: w.Key})
	}
	t.Groups, t.Quorum = groups, quorum
	return t
}

// mustParse parses a vkey this package formatted.
func mustParse(vkey string) *signednote.Verifier {
	k, err := signednote.ParseVerifier(vkey)
	if err != nil {
		panic(err)
	}
	return k
}
