package offline_test

import (
	"bytes"
	"testing"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// offline verifies cosignature/v1 itself (formats/note links crypto/x509
// and so net). Its verifier and transparency-dev/formats' agree: a
// checkpoint cosigned by formats' signer verifies here, one cosigned by
// offlinetest's fixed-time signer verifies with formats' verifier, and
// neither accepts the other's signature over another note.
func TestCosignatureV1MatchesFormats(t *testing.T) {
	f := newFixture(t)
	fsigner, err := fnote.NewSignerForCosignatureV1(f.wa.Skey())
	if err != nil {
		t.Fatal(err)
	}
	if fsigner.Name() != f.wa.Name() || fsigner.KeyHash() != f.wa.KeyHash() {
		t.Fatalf("formats signer %s+%08x, offlinetest %s+%08x", fsigner.Name(), fsigner.KeyHash(), f.wa.Name(), f.wa.KeyHash())
	}
	one := offlinetest.Trust([]*offlinetest.Log{f.log}, []*offlinetest.Witness{f.wa}, nil, "WA")
	if _, err := offline.Verify(f.proof(fsigner).Marshal(), f.want, one); err != nil {
		t.Errorf("cosigned by formats' signer: %v", err)
	}
	fverifier, err := fnote.NewVerifierForCosignatureV1(f.wa.VKey)
	if err != nil {
		t.Fatal(err)
	}
	logV, err := note.NewVerifier(f.log.VKey)
	if err != nil {
		t.Fatal(err)
	}
	cp := f.proof(f.wa).Checkpoint
	n, err := note.Open(cp, note.VerifierList(logV, fverifier))
	if err != nil || len(n.Sigs) != 2 {
		t.Fatalf("formats' verifier on offlinetest's cosignature: %v", err)
	}
	// Every one-bit change of the cosignature: both reject.
	sig := mustB64(t, n.Sigs[1].Base64)[4:]
	text := []byte(n.Text)
	for i := range len(sig) * 8 {
		bad := bytes.Clone(sig)
		bad[i/8] ^= 1 << (i % 8)
		if fverifier.Verify(text, bad) {
			t.Fatalf("formats accepts bit %d flipped", i)
		}
		got, err := offline.Verify(f.proof(&fixedSig{f.wa, bad}).Marshal(), f.want, one)
		if err == nil || got != nil {
			t.Fatalf("offline accepts bit %d flipped", i)
		}
	}
}

// fixedSig is a note.Signer that writes a given signature under w's name
// and key hash.
type fixedSig struct {
	w   *offlinetest.Witness
	sig []byte
}

func (s *fixedSig) Name() string                { return s.w.Name() }
func (s *fixedSig) KeyHash() uint32             { return s.w.KeyHash() }
func (s *fixedSig) Sign([]byte) ([]byte, error) { return s.sig, nil }
