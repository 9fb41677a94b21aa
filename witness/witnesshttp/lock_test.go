//go:build unix

package witnesshttp_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
	"github.com/mcpres/mcpres/witness/witnesshttp"
	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/note"
)

func serve(t *testing.T, s *witnesshttp.Server) string {
	t.Helper()
	srv := httptest.NewServer(s.HTTPServer("").Handler)
	t.Cleanup(srv.Close)
	return srv.URL + "/add-checkpoint"
}

func writeState(t testing.TB, path string, l witness.LogState) {
	t.Helper()
	st := &witness.State{}
	st.Put(l)
	data, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServerOwnsStateDir: a second server on the same state directory
// (here in the same process; another process the same: the lock is
// flock(2) on serve.lock) is refused until the first is closed; a server
// on another directory is not.
func TestServerOwnsStateDir(t *testing.T) {
	_, lv := logKey(t, 0x81, "example.org/witnesshttp-lock-log")
	w, _ := witnessKey(t, 0x82, "example.org/witnesshttp-lock-w")
	now := func() time.Time { return testNow }
	state := t.TempDir()
	first, err := witnesshttp.New(w, []*signednote.Verifier{lv}, state, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := witnesshttp.New(w, []*signednote.Verifier{lv}, state, now, nil)
	if second != nil || !errors.Is(err, witness.ErrStateLocked) || !strings.Contains(err.Error(), "in use by another witness server") ||
		!strings.Contains(err.Error(), filepath.Join(state, witnesshttp.ServeLockName)) {
		t.Fatalf("a second server on one state directory: %v, %v", second, err)
	}
	other, err := witnesshttp.New(w, []*signednote.Verifier{lv}, t.TempDir(), now, nil)
	if err != nil {
		t.Fatalf("control, another directory: %v", err)
	}
	other.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := witnesshttp.New(w, []*signednote.Verifier{lv}, state, now, nil)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	again.Close()
}

// lockFixture is a log of two entries whose witness recorded size 1, and
// the request from 1 to 2 (with its proof).
type lockFixture struct {
	lv    *signednote.Verifier
	s     *witnesshttp.Server
	url   string
	state string // the log's state file
	at1   witness.LogState
	req   []byte
}

func newLockFixture(t *testing.T) *lockFixture {
	t.Helper()
	ls, lv := logKey(t, 0x83, "example.org/witnesshttp-lock-log")
	w, _ := witnessKey(t, 0x84, "example.org/witnesshttp-lock-w")
	dir := filepath.Join(t.TempDir(), "log")
	lg := tlog.Open(posix.New(dir), lv)
	if _, err := lg.Init(ctx(t), ls); err != nil {
		t.Fatal(err)
	}
	if _, err := lg.Add(ctx(t), ls, []byte("a")); err != nil {
		t.Fatal(err)
	}
	c1, _ := lg.Checkpoint(ctx(t))
	if _, err := lg.Add(ctx(t), ls, []byte("b")); err != nil {
		t.Fatal(err)
	}
	c2, _ := lg.Checkpoint(ctx(t))
	pb, _ := client.NewProofBuilder(ctx(t), 2, posix.New(dir).ReadTile)
	proof, err := pb.ConsistencyProof(ctx(t), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	stateDir := t.TempDir()
	s, err := witnesshttp.New(w, []*signednote.Verifier{lv}, stateDir, func() time.Time { return testNow }, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f := &lockFixture{lv: lv, s: s, url: serve(t, s), state: witnesshttp.StatePath(stateDir, lv.Name()),
		at1: witness.LogState{Origin: lv.Name(), Size: 1, Hash: c1.Hash},
		req: (&witness.AddRequest{OldSize: 1, Proof: proof, Checkpoint: c2.Note}).Marshal()}
	writeState(t, f.state, f.at1)
	return f
}

// TestRequestWaitsForStateLock: while another holder (another witness
// process; here a lock of this one, which flock(2) excludes alike) has
// the log's state lock, a request waits, and then decides on what that
// holder recorded: the holder cosigned another tree of size 2, so the
// request from 1 is a conflict (409 with 2), not a second root at size 2.
// Control: a holder that records nothing lets the same request through.
func TestRequestWaitsForStateLock(t *testing.T) {
	for _, holderWrites := range []bool{true, false} {
		t.Run(fmt.Sprintf("holder writes %v", holderWrites), func(t *testing.T) {
			f := newLockFixture(t)
			held, err := witness.LockStateFile(f.state, 0)
			if err != nil {
				t.Fatal(err)
			}
			answer := make(chan post, 1)
			go func() { answer <- do(t, f.url, http.MethodPost, f.req) }()
			time.Sleep(200 * time.Millisecond) // the request is waiting (or, unlocked, already answered)
			if holderWrites {
				st := &witness.State{}
				st.Put(witness.LogState{Origin: f.lv.Name(), Size: 2, Hash: signednote.Hash(bytes.Repeat([]byte{0xee}, 32))})
				if err := held.Write(st); err != nil {
					t.Fatal(err)
				}
			}
			held.Unlock()
			r := <-answer
			want := post{status: 200}
			if holderWrites {
				want = post{status: 409, ctype: witnesshttp.ContentTypeSize, body: "2\n"}
			}
			if r.status != want.status || (want.ctype != "" && (r.ctype != want.ctype || r.body != want.body)) {
				t.Fatalf("request after the holder: %+v, want %+v", r, want)
			}
		})
	}
}

// TestStateLockedTooLong: a state lock held beyond StateLockWait gets
// 503, and nothing is recorded.
func TestStateLockedTooLong(t *testing.T) {
	if testing.Short() {
		t.Skipf("waits %v; skipped in -short mode", witnesshttp.StateLockWait)
	}
	f := newLockFixture(t)
	held, err := witness.LockStateFile(f.state, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	before, _ := os.ReadFile(f.state)
	if r := do(t, f.url, http.MethodPost, f.req); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "locked by another process") {
		t.Fatalf("request while the state stays locked: %+v, want 503", r)
	}
	if after, _ := os.ReadFile(f.state); !bytes.Equal(before, after) {
		t.Fatal("the state changed")
	}
}

// TestStateFIFO: a log's state file that is a FIFO is refused at once
// (500: nothing cosigned), where reading it would hang every request for
// the log; once it is a regular file again, the log is served.
func TestStateFIFO(t *testing.T) {
	f := newLockFixture(t)
	os.Remove(f.state)
	if err := syscall.Mkfifo(f.state, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	answer := make(chan post, 1)
	go func() { answer <- do(t, f.url, http.MethodPost, f.req) }()
	select {
	case r := <-answer:
		if r.status != http.StatusInternalServerError || !strings.Contains(r.body, "could not be read") {
			t.Fatalf("a FIFO state: %+v, want 500", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("a request for a log whose state is a FIFO hangs")
	}
	os.Remove(f.state)
	writeState(t, f.state, f.at1)
	if r := do(t, f.url, http.MethodPost, f.req); r.status != 200 {
		t.Fatalf("control, a regular state file: %+v", r)
	}
}

// TestSizeLimit: sizes from 2^53 to 2^64−1 (the checkpoint's, or the old
// size) are a malformed request, 400, before anything else: even with an
// unreadable state, and even unsigned. 2^53−1 is cosigned and recorded.
func TestSizeLimit(t *testing.T) {
	ls, lv := logKey(t, 0x85, "example.org/witnesshttp-size-log")
	impS, _ := logKey(t, 0x86, "example.org/witnesshttp-size-log")
	w, _ := witnessKey(t, 0x87, "example.org/witnesshttp-size-w")
	stateDir := t.TempDir()
	s, err := witnesshttp.New(w, []*signednote.Verifier{lv}, stateDir, func() time.Time { return testNow }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u := serve(t, s)
	path := witnesshttp.StatePath(stateDir, lv.Name())
	cp := func(n uint64, signer *signednote.LogSigner) []byte {
		c, err := note.Sign(&note.Note{Text: fmt.Sprintf("%s\n%d\n%s\n", lv.Name(), n, "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU=")}, signer)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	req := func(old, n uint64, signer *signednote.LogSigner) []byte {
		return (&witness.AddRequest{OldSize: old, Checkpoint: cp(n, signer)}).Marshal()
	}
	const limit = uint64(witness.MaxTreeSize)
	for _, n := range []uint64{limit + 1, 1 << 60, 1<<63 - 1, 1 << 63, 1<<64 - 1} {
		for name, body := range map[string][]byte{
			"first use":      req(0, n, ls),
			"old size too":   req(n, n, ls),
			"old size alone": req(n, 1, ls),
			"unsigned":       req(0, n, impS),
		} {
			for _, st := range []string{"none", "unreadable"} {
				os.Remove(path)
				if st == "unreadable" {
					os.WriteFile(path, []byte("not a state"), 0o644)
				}
				if r := do(t, u, http.MethodPost, body); r.status != http.StatusBadRequest || !strings.Contains(r.body, "the largest a witness records") {
					t.Errorf("size %d, %s, state %s: %+v, want 400 naming the limit", n, name, st, r)
				}
				if st == "none" {
					if _, err := os.Stat(path); err == nil {
						t.Errorf("size %d, %s: a state was recorded", n, name)
					}
				}
			}
		}
	}
	// Controls: the largest size, and a small one, are cosigned.
	for _, n := range []uint64{limit, 3} {
		os.Remove(path)
		if r := do(t, u, http.MethodPost, req(0, n, ls)); r.status != 200 {
			t.Fatalf("size %d: %+v, want 200", n, r)
		}
		data, _ := os.ReadFile(path)
		if st, err := witness.ParseState(data); err != nil || st.Get(lv.Name()).Size != n {
			t.Fatalf("size %d: state %s, %v", n, data, err)
		}
	}
}
