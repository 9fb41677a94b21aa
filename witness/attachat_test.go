package witness_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
)

// TestAttachAt: AttachAt refuses a correctly signed cosignature dated
// after its evaluation time (the verifier's rule, signednote.
// JudgeCosignature), naming the file, the witness key and the date, and
// attaches nothing; the same cosignature evaluated at its own second, and
// one dated earlier, are attached (controls); a cosignature dated ahead
// that does not verify is refused for its signature; one dated ahead by a
// key that already cosigned is dropped, not judged.
func TestAttachAt(t *testing.T) {
	k := testKeys(t)
	dir, l := makeLog(t, k, "a")
	c1 := mustCosign(t, k, dir, nil) // dated testNow
	ahead := testNow.AddDate(1, 0, 0)
	c2, err := witness.CosignCheckpoint(ctx(t), posix.New(dir), k.logKey, k.w2, nil, ahead)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := l.Checkpoint(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	ws := []*signednote.Verifier{k.wv, k.w2v}
	in := func(lines ...[]byte) []witness.CosignatureInput {
		var out []witness.CosignatureInput
		for _, l := range lines {
			out = append(out, witness.CosignatureInput{Source: "w.cosig", Data: l})
		}
		return out
	}
	res, err := witness.AttachAt(cp.Note, k.logKey, ws, in(c1.Line, c2.Line), testNow)
	var u *signednote.UncountedCosignature
	if res != nil || !errors.As(err, &u) || u.Name != "example.org/witness-2" ||
		err.Error() != "w.cosig: cosignature of example.org/witness-2 dated 2027-08-27T18:05:00Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z" {
		t.Fatalf("a cosignature a year ahead: %v, %v", res, err)
	}
	// Controls: evaluated at its second, and one dated at the evaluation
	// time.
	if res, err := witness.AttachAt(cp.Note, k.logKey, ws, in(c1.Line, c2.Line), ahead.Add(999*time.Millisecond)); err != nil || len(res.Added) != 2 {
		t.Fatalf("evaluated at the cosignature's second: %+v, %v", res, err)
	}
	res, err = witness.AttachAt(cp.Note, k.logKey, ws, in(c1.Line), testNow)
	if err != nil || len(res.Added) != 1 {
		t.Fatalf("a cosignature dated at the evaluation time: %+v, %v", res, err)
	}
	// A bad signature dated ahead: refused for the signature.
	if _, err := witness.AttachAt(cp.Note, k.logKey, ws, in(flipLastBase64(t, c2.Line)), testNow); !errors.Is(err, witness.ErrBadCosignature) || errors.As(err, &u) {
		t.Errorf("a bad signature dated ahead: %v", err)
	}
	// Witness 1 already on the checkpoint: its line dated ahead is dropped.
	c1ahead, err := witness.CosignCheckpoint(ctx(t), posix.New(dir), k.logKey, k.w, nil, ahead)
	if err != nil {
		t.Fatal(err)
	}
	again, err := witness.AttachAt(res.Checkpoint, k.logKey, ws, in(c1ahead.Line), testNow)
	if err != nil || len(again.Dropped) != 1 || !strings.Contains(again.Dropped[0].Reason, "already cosigned") {
		t.Errorf("a repeated key dated ahead: %+v, %v", again, err)
	}
}
