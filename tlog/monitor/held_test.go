package monitor_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/monitor"
	"github.com/mcpres/mcpres/trustpolicy"
	"golang.org/x/mod/sumdb/note"
)

// Checkpoint-only sources (Config.Checkpoints): what a witness cosigned,
// compared with what the log serves.

// witnessed is a log whose checkpoints the witness W cosigns, and the
// tlog policy "quorum W".
type witnessed struct {
	*testLog
	w   *offlinetest.Witness
	pol *trustpolicy.TLogPolicy
}

func newWitnessed(t testing.TB) *witnessed {
	t.Helper()
	l := newLog(t, "log")
	w := offlinetest.NewWitness("W", "witness.example.org", "witness", 1_700_000_000)
	pol, errs := trustpolicy.ParseTLogPolicy("log " + signednote.FormatVerifierKey(origin, signednote.TypeEd25519, l.key.PublicKey()) +
		"\nwitness W " + w.VKey + "\nquorum W\n")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return &witnessed{testLog: l, w: w, pol: pol}
}

// cosigned is l's checkpoint as signed by the log and cosigned by ws.
func cosigned(t testing.TB, l *testLog, ws ...*offlinetest.Witness) []byte {
	t.Helper()
	text, _, err := signednote.Split(l.checkpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	signers := []note.Signer{l.signer}
	for _, w := range ws {
		signers = append(signers, w)
	}
	return offlinetest.Sign(text, signers...)
}

// add appends to the log and has W cosign its new checkpoint, as a log
// with witnesses publishes it.
func (l *witnessed) add(t testing.TB, entries ...[]byte) {
	t.Helper()
	l.testLog.add(t, entries...)
	l.setCheckpoint(t, cosigned(t, l.testLog, l.w))
}

// file writes a checkpoint file (a witness's copy) and opens it.
func file(t *testing.T, b []byte) monitor.CheckpointSource {
	t.Helper()
	p := filepath.Join(t.TempDir(), "witness-checkpoint")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := monitor.OpenCheckpoint(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The control: what the witness cosigned, now or for an older tree, is
// consistent with what the log serves: no alert, and the state moves on
// with the log (never to the witness's checkpoint).
func TestHeldCheckpointHonest(t *testing.T) {
	l := newWitnessed(t)
	l.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')))
	atTwo := file(t, l.checkpoint(t))
	h := newHarness(t, l.key)
	h.cfg.TLogPolicy = l.pol
	h.cfg.Checkpoints = []monitor.CheckpointSource{atTwo}
	res, as := h.run(t, dir(t, l.testLog))
	wantKinds(t, as, "")
	if res.Tree.Size != 2 || res.Next != 2 || len(res.Unproven) != 0 {
		t.Fatalf("result %+v", res)
	}
	l.add(t, entry(t, "acme/c", digest('3')))
	h.cfg.Checkpoints = append(h.cfg.Checkpoints, file(t, l.checkpoint(t)))
	res, as = h.run(t, dir(t, l.testLog))
	wantKinds(t, as, "")
	if res.Tree.Size != 3 || res.Next != 3 {
		t.Fatalf("result %+v", res)
	}
}

// A checkpoint the log signed for a forked tree, cosigned by the witness
// of the policy: one split-view alert naming the checkpoint's source and
// the witness (verified), and the state does not move.
func TestHeldCheckpointSplitView(t *testing.T) {
	l := newWitnessed(t)
	l.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')), entry(t, "acme/c", digest('3')))
	h := newHarness(t, l.key)
	h.cfg.TLogPolicy = l.pol
	_, as := h.run(t, dir(t, l.testLog))
	wantKinds(t, as, "")
	before := h.stateFile(t)
	w2 := offlinetest.NewWitness("W2", "other-witness.example.org", "witness2", 1_700_000_000)

	for _, tc := range []struct {
		name    string
		entries [][]byte
		ws      []*offlinetest.Witness
		want    []string // the cosigners
		quorum  bool
	}{
		{"same size", [][]byte{entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')), entry(t, "acme/X", digest('4'))},
			[]*offlinetest.Witness{l.w}, []string{fmt.Sprintf("witness.example.org+%08x", l.w.KeyHash())}, true},
		{"smaller", [][]byte{entry(t, "acme/a", digest('1')), entry(t, "acme/X", digest('4'))},
			[]*offlinetest.Witness{l.w, w2}, []string{fmt.Sprintf("witness.example.org+%08x", l.w.KeyHash())}, true},
		// A cosignature by a witness the policy does not name is not
		// reported: nothing is copied from the note unverified.
		{"cosigned outside the policy", [][]byte{entry(t, "acme/X", digest('4'))},
			[]*offlinetest.Witness{w2}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fork := newLog(t, "log")
			fork.add(t, tc.entries...)
			held := file(t, cosigned(t, fork, tc.ws...))
			h.cfg.Checkpoints = []monitor.CheckpointSource{held}
			_, as := h.run(t, dir(t, l.testLog))
			wantKinds(t, as, "split-view")
			a := as[0]
			t.Log(a.Text())
			if a.Source != l.dir || a.Other == nil || a.Other.Source != held.Name() || a.Other.QuorumMet != tc.quorum ||
				strings.Join(a.Other.Cosigners, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("alert %s", a.JSON())
			}
			if tc.quorum && !strings.Contains(a.Message, "cosigned by witness.example.org+") {
				t.Errorf("message %q does not name the witness", a.Message)
			}
			if !bytes.Equal(h.stateFile(t), before) {
				t.Fatal("state changed")
			}
		})
	}
	// A cosignature line under the witness's key that does not verify
	// names no cosigner: the alert says so.
	fork := newLog(t, "log")
	fork.add(t, entry(t, "acme/X", digest('4')))
	forged := cosigned(t, fork, l.w)
	forged[len(forged)-5] ^= 1 // a base64 character of the cosignature
	h.cfg.Checkpoints = []monitor.CheckpointSource{file(t, forged)}
	_, as = h.run(t, dir(t, l.testLog))
	wantKinds(t, as, "split-view")
	if as[0].Other.Cosigners != nil || as[0].Other.QuorumMet || !strings.Contains(as[0].Message, "whose witness cosignatures do not verify") {
		t.Fatalf("alert %s", as[0].JSON())
	}
	// Without a tlog policy the split view is found all the same, and
	// nothing is said of the cosignatures.
	h2 := newHarness(t, l.key)
	h2.cfg.Checkpoints = []monitor.CheckpointSource{file(t, cosigned(t, fork, l.w))}
	_, as = h2.run(t, dir(t, l.testLog))
	wantKinds(t, as, "split-view")
	if as[0].Other.Cosigners != nil || as[0].Other.QuorumMet || h2.stateFile(t) != nil {
		t.Fatalf("alert %s", as[0].JSON())
	}
	// Control: the honest checkpoint again.
	h.cfg.Checkpoints = []monitor.CheckpointSource{file(t, l.checkpoint(t))}
	_, as = h.run(t, dir(t, l.testLog))
	wantKinds(t, as, "")
}

// A checkpoint-only source's checkpoint not signed by the log key is a
// checkpoint-signature alert naming it; the log itself is still read.
func TestHeldCheckpointOtherKey(t *testing.T) {
	l := newWitnessed(t)
	l.add(t, entry(t, "acme/a", digest('1')))
	other := newLog(t, "evil")
	other.add(t, entry(t, "acme/a", digest('1')))
	held := file(t, cosigned(t, other, l.w))
	h := newHarness(t, l.key)
	h.cfg.TLogPolicy = l.pol
	h.cfg.Checkpoints = []monitor.CheckpointSource{held}
	res, as := h.run(t, dir(t, l.testLog))
	wantKinds(t, as, "checkpoint-signature")
	if as[0].Source != held.Name() || res.Tree.Size != 1 {
		t.Fatalf("alert %s, result %+v", as[0].JSON(), res)
	}
}

// A checkpoint-only view larger than every source cannot be proven until
// the log serves its tiles: no alert, Result.Unproven, the state moves
// with the log. Once the log serves that tree it is checked: consistent,
// nothing; another tree of that size, a split view.
func TestHeldCheckpointAhead(t *testing.T) {
	l := newWitnessed(t)
	l.add(t, entry(t, "acme/a", digest('1')))
	cp1 := l.checkpoint(t)
	l.add(t, entry(t, "acme/b", digest('2')), entry(t, "acme/c", digest('3')))
	honest3 := file(t, l.checkpoint(t))
	fork := newLog(t, "log")
	fork.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/X", digest('4')), entry(t, "acme/c", digest('3')))
	forked3 := file(t, cosigned(t, fork, l.w))

	// The log serves size 1 (and only its tiles) while its witness has
	// cosigned size 3.
	behind := newLog(t, "log")
	behind.add(t, entry(t, "acme/a", digest('1')))
	behind.setCheckpoint(t, cp1)
	h := newHarness(t, l.key)
	h.cfg.TLogPolicy = l.pol
	h.cfg.Checkpoints = []monitor.CheckpointSource{forked3}
	res, as := h.run(t, dir(t, behind))
	wantKinds(t, as, "")
	if res.Tree.Size != 1 || len(res.Unproven) != 1 || res.Unproven[0].Source != forked3.Name() || res.Unproven[0].Checkpoint.Size != 3 ||
		!res.Unproven[0].QuorumMet {
		t.Fatalf("result %+v", res)
	}
	// The log catches up with another tree of size 3: a split view.
	before := h.stateFile(t)
	res, as = h.run(t, dir(t, l.testLog))
	wantKinds(t, as, "split-view")
	if as[0].Other.Source != forked3.Name() || len(res.Unproven) != 0 || !bytes.Equal(h.stateFile(t), before) {
		t.Fatalf("alert %s, result %+v", as[0].JSON(), res)
	}
	// Control: the honest size 3, ahead then caught up with.
	h2 := newHarness(t, l.key)
	h2.cfg.TLogPolicy = l.pol
	h2.cfg.Checkpoints = []monitor.CheckpointSource{honest3}
	res, as = h2.run(t, dir(t, behind))
	wantKinds(t, as, "")
	if len(res.Unproven) != 1 {
		t.Fatalf("result %+v", res)
	}
	res, as = h2.run(t, dir(t, l.testLog))
	wantKinds(t, as, "")
	if len(res.Unproven) != 0 || res.Tree.Size != 3 {
		t.Fatalf("result %+v", res)
	}

	// A log whose tiles already hold the larger tree (it has not
	// published the checkpoint yet) proves or disproves it at once.
	l.setCheckpoint(t, cp1)
	h3 := newHarness(t, l.key)
	h3.cfg.TLogPolicy = l.pol
	h3.cfg.Checkpoints = []monitor.CheckpointSource{honest3}
	res, as = h3.run(t, dir(t, l.testLog))
	wantKinds(t, as, "")
	if len(res.Unproven) != 0 || res.Tree.Size != 1 {
		t.Fatalf("result %+v", res)
	}
	h3.cfg.Checkpoints = []monitor.CheckpointSource{forked3}
	_, as = h3.run(t, dir(t, l.testLog))
	wantKinds(t, as, "split-view")

	// Two checkpoints ahead of the log, of one size and two roots: a
	// split view without a tile.
	h4 := newHarness(t, l.key)
	h4.cfg.Checkpoints = []monitor.CheckpointSource{honest3, forked3}
	res, as = h4.run(t, dir(t, behind))
	wantKinds(t, as, "split-view")
	if as[0].Source != honest3.Name() || as[0].Other.Source != forked3.Name() || len(res.Unproven) != 2 || h4.stateFile(t) != nil {
		t.Fatalf("alert %s, result %+v", as[0].JSON(), res)
	}
}

// A checkpoint URL is read as a log's checkpoint is: a redirect or an
// endless body is a log-unreadable alert naming it, never followed or
// read to the end; the honest server is the control.
func TestHeldCheckpointHostileURL(t *testing.T) {
	l := newWitnessed(t)
	l.add(t, entry(t, "acme/a", digest('1')))
	cp := l.checkpoint(t)
	for _, tc := range []struct {
		name  string
		serve http.HandlerFunc
		want  string
	}{
		{"honest", func(w http.ResponseWriter, r *http.Request) { w.Write(cp) }, ""},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/checkpoint", http.StatusFound)
		}, "log-unreadable"},
		{"endless body", func(w http.ResponseWriter, r *http.Request) {
			chunk := bytes.Repeat([]byte("x"), 4096)
			for range 1000 {
				if _, err := w.Write(chunk); err != nil {
					break
				}
			}
		}, "log-unreadable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.serve)
			defer srv.Close()
			held, err := monitor.OpenCheckpoint(srv.URL+"/witness/checkpoint", 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, l.key)
			h.cfg.TLogPolicy = l.pol
			h.cfg.Checkpoints = []monitor.CheckpointSource{held}
			res, as := h.run(t, dir(t, l.testLog))
			wantKinds(t, as, tc.want)
			if tc.want != "" && (as[0].Source != srv.URL+"/witness/checkpoint" || !strings.Contains(as[0].Message, "reading the checkpoint")) {
				t.Fatalf("alert %s", as[0].JSON())
			}
			if res.Tree.Size != 1 {
				t.Fatalf("result %+v", res)
			}
		})
	}
}

// OpenCheckpoint refuses what names no checkpoint; a symbolic link is
// refused when read (as in a log directory).
func TestOpenCheckpointRefuses(t *testing.T) {
	d := t.TempDir()
	for _, s := range []string{d + "/", "https://user:pw@example.org/checkpoint", "https://example.org/checkpoint?x=1", "https:///checkpoint", filepath.Join(d, "missing", "checkpoint")} {
		if c, err := monitor.OpenCheckpoint(s, 0); err == nil {
			t.Errorf("OpenCheckpoint(%q) = %v", s, c.Name())
		}
	}
	real := filepath.Join(d, "real")
	if err := os.WriteFile(real, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(d, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{link: "not a regular file", d + "/.": "not a regular file", real: ""} {
		c, err := monitor.OpenCheckpoint(name, 0)
		if err != nil {
			t.Fatalf("OpenCheckpoint(%q): %v", name, err)
		}
		_, err = c.ReadCheckpoint(context.Background())
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("ReadCheckpoint(%q): %v, want %q", name, err, want)
		}
	}
}

// asProof wraps a checkpoint in a C2SP tlog-proof (its inclusion proof
// is not the monitor's concern) and asReference that in a transparency
// reference: what a consumer holds.
func asProof(cp []byte) []byte {
	return (&offline.Proof{Index: 0, Checkpoint: cp, Entry: []byte("entry")}).Marshal()
}

func asReference(t testing.TB, cp []byte) []byte {
	t.Helper()
	b, err := attest.NewTransparencyReference(origin, strings.Repeat("ab", 32), asProof(cp)).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A checkpoint-only source may hold the checkpoint inside a tlog-proof or
// a transparency reference (what a consumer saw); anything else in such a
// wrapper, or a checkpoint too large, is a checkpoint-signature alert.
func TestHeldCheckpointDocuments(t *testing.T) {
	l := newWitnessed(t)
	l.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')))
	fork := newLog(t, "log")
	fork.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/X", digest('4')))
	forked := cosigned(t, fork, l.w)
	h := newHarness(t, l.key)
	h.cfg.TLogPolicy = l.pol
	for _, tc := range []struct {
		name string
		doc  []byte
		want string
	}{
		{"honest proof", asProof(l.checkpoint(t)), ""},
		{"honest reference", asReference(t, l.checkpoint(t)), ""},
		{"forked proof", asProof(forked), "split-view"},
		{"forked reference", asReference(t, forked), "split-view"},
		{"reference to a Rekor entry", func() []byte {
			b, err := attest.NewTransparencyReference(origin, "x", []byte(`{"body":""}`)).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			return b
		}(), "checkpoint-signature"},
		{"malformed proof", append(asProof(l.checkpoint(t)), 'x'), "checkpoint-signature"},
		{"checkpoint too large", append(l.checkpoint(t), bytes.Repeat([]byte("— x AAAA\n"), monitor.MaxCheckpointBytes/9)...), "checkpoint-signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			held := file(t, tc.doc)
			h.cfg.Checkpoints = []monitor.CheckpointSource{held}
			res, as := h.run(t, dir(t, l.testLog))
			wantKinds(t, as, tc.want)
			switch tc.want {
			case "split-view":
				if as[0].Other.Source != held.Name() || !as[0].Other.QuorumMet || len(as[0].Other.Cosigners) != 1 {
					t.Fatalf("alert %s", as[0].JSON())
				}
			case "checkpoint-signature":
				if as[0].Source != held.Name() || res.Tree.Size != 2 {
					t.Fatalf("alert %s, result %+v", as[0].JSON(), res)
				}
				t.Log(as[0].Text())
			}
		})
	}
}

// heldBytes is a checkpoint-only source answering its bytes.
type heldBytes []byte

func (heldBytes) Name() string { return "held" }

func (b heldBytes) ReadCheckpoint(context.Context) ([]byte, error) { return b, nil }

// Whatever a checkpoint-only source answers, the monitor does not fail,
// raises only the alerts a checkpoint-only source can raise, and never
// writes the state (which holds the log's tree already).
func FuzzHeldCheckpoint(f *testing.F) {
	l := newWitnessed(f)
	l.add(f, entry(f, "acme/a", digest('1')), entry(f, "acme/b", digest('2')))
	fork := newLog(f, "log")
	fork.add(f, entry(f, "acme/a", digest('1')), entry(f, "acme/X", digest('4')), entry(f, "acme/c", digest('3')))
	other := newLog(f, "evil")
	other.add(f, entry(f, "acme/a", digest('1')))
	f.Add(l.checkpoint(f))
	f.Add(cosigned(f, fork, l.w))
	f.Add(cosigned(f, other))
	f.Add([]byte("log.example.org/monitor\n2\nAAAA\n\n— log.example.org/monitor AAAA\n"))
	f.Add([]byte{})
	f.Add(asProof(cosigned(f, fork, l.w)))
	f.Add(asReference(f, cosigned(f, fork, l.w)))
	src := dir(f, l.testLog)
	cfg := monitor.Config{LogKey: l.key, StateDir: f.TempDir(), TLogPolicy: l.pol, Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}
	if _, err := monitor.Run(context.Background(), cfg, []monitor.Source{src}, func(a *monitor.Alert) error { return fmt.Errorf("alert %s", a.Text()) }); err != nil {
		f.Fatal(err)
	}
	statePath := filepath.Join(cfg.StateDir, monitor.StateName(l.key.Name(), l.key.KeyHash())+".json")
	before, err := os.ReadFile(statePath)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c := cfg
		c.Checkpoints = []monitor.CheckpointSource{heldBytes(b)}
		_, err := monitor.Run(context.Background(), c, []monitor.Source{src}, func(a *monitor.Alert) error {
			if a.Kind != monitor.KindCheckpointSignature && a.Kind != monitor.KindSplitView {
				return fmt.Errorf("alert %s", a.JSON())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if after, err := os.ReadFile(statePath); err != nil || !bytes.Equal(after, before) {
			t.Fatalf("state changed: %s (%v)", after, err)
		}
	})
}
