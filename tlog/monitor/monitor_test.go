package monitor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/internal/filelock"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/monitor"
	"github.com/mcpres/mcpres/tlog/posix/posixtest"
	"github.com/mcpres/mcpres/trustpolicy"
	"golang.org/x/mod/sumdb/note"
)

const origin = "log.example.org/monitor"

// testLog is a real Tessera POSIX log directory.
type testLog struct {
	dir    string
	signer note.Signer
	key    *signednote.Verifier
}

func newLog(t testing.TB, label string) *testLog {
	t.Helper()
	vkey, s := offlinetest.LogKey(origin, label)
	k, err := signednote.ParseLogVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return &testLog{dir: t.TempDir(), signer: s, key: k}
}

func (l *testLog) add(t testing.TB, entries ...[]byte) {
	t.Helper()
	posixtest.BulkAppend(t, context.Background(), l.dir, l.signer, entries)
}

func (l *testLog) checkpoint(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(l.dir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (l *testLog) setCheckpoint(t testing.TB, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(l.dir, "checkpoint"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// entry is the leaf of an mcpres.transparency-entry/v1 about subject.
func entry(t testing.TB, subject, bundleDigest string) []byte {
	t.Helper()
	e := offline.Entry{
		SchemaVersion:           offline.SchemaVersionEntry,
		Subject:                 offline.EntrySubject{Name: subject, Sha256: strings.Repeat("ab", 32)},
		EvidenceBundleDigest:    bundleDigest,
		ScenarioFingerprint:     strings.Repeat("cd", 32),
		ExecutionInstanceDigest: strings.Repeat("ef", 32),
	}
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func digest(c byte) string { return strings.Repeat(string([]byte{c}), 64) }

// byDigest authorises the entries whose bundle digest it lists: a stand-in
// for a judgement of signers, which the tests here do not exercise.
type byDigest map[string]bool

func (a byDigest) Authorise(e offline.Entry) error {
	if a[e.EvidenceBundleDigest] {
		return nil
	}
	return fmt.Errorf("bundle %s is not one of ours", e.EvidenceBundleDigest)
}

func watch(t *testing.T, patterns ...string) monitor.Watch {
	var w monitor.Watch
	for _, p := range patterns {
		s, err := trustpolicy.ParseScope(p)
		if err != nil {
			t.Fatal(err)
		}
		w.Subjects = append(w.Subjects, s)
	}
	return w
}

type harness struct {
	cfg    monitor.Config
	alerts []*monitor.Alert
}

func newHarness(t *testing.T, key *signednote.Verifier) *harness {
	return &harness{cfg: monitor.Config{LogKey: key, StateDir: t.TempDir(),
		Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}}
}

func (h *harness) run(t *testing.T, sources ...monitor.Source) (*monitor.Result, []*monitor.Alert) {
	t.Helper()
	h.alerts = nil
	res, err := monitor.Run(context.Background(), h.cfg, sources, func(a *monitor.Alert) error {
		h.alerts = append(h.alerts, a)
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, h.alerts
}

func (h *harness) stateFile(t *testing.T) []byte {
	t.Helper()
	name := monitor.StateName(h.cfg.LogKey.Name(), h.cfg.LogKey.KeyHash())
	b, err := os.ReadFile(filepath.Join(h.cfg.StateDir, name+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dir(t testing.TB, l *testLog) monitor.Source {
	t.Helper()
	s, err := monitor.NewDirSource(l.dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func kinds(as []*monitor.Alert) string {
	var ks []string
	for _, a := range as {
		ks = append(ks, string(a.Kind))
	}
	return strings.Join(ks, ",")
}

func wantKinds(t *testing.T, as []*monitor.Alert, want string) {
	t.Helper()
	if got := kinds(as); got != want {
		for _, a := range as {
			t.Logf("alert: %s", a.Text())
		}
		t.Fatalf("alerts %q, want %q", got, want)
	}
}

func TestHonestLogNoAlert(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/server", digest('1')), entry(t, "other/server", digest('2')))
	h := newHarness(t, l.key)
	h.cfg.Watch = watch(t, "acme/*")
	h.cfg.Authoriser = byDigest{digest('1'): true}
	res, as := h.run(t, dir(t, l))
	wantKinds(t, as, "")
	if res.Tree.Size != 2 || res.Next != 2 || res.Entries != 2 || res.Watched != 1 {
		t.Fatalf("result %+v", res)
	}
	_, as = h.run(t, dir(t, l))
	wantKinds(t, as, "")
}

func TestUnauthorisedEntryOneAlertNoRepeat(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/server", digest('1')))
	h := newHarness(t, l.key)
	h.cfg.Watch = watch(t, "acme/*")
	h.cfg.Authoriser = byDigest{digest('1'): true}
	_, as := h.run(t, dir(t, l))
	wantKinds(t, as, "")

	l.add(t, entry(t, "acme/server", digest('9')), entry(t, "elsewhere/x", digest('8')))
	res, as := h.run(t, dir(t, l))
	wantKinds(t, as, "unauthorised-entry")
	if e := as[0].Entry; e.Index != 1 || e.EvidenceBundleDigest != digest('9') || e.Watch != "subject acme/*" {
		t.Fatalf("entry %+v", e)
	}
	if res.Next != 3 {
		t.Fatalf("next %d", res.Next)
	}
	// A restart resumes: the alert is not raised again.
	_, as = h.run(t, dir(t, l))
	wantKinds(t, as, "")
	// Control: without an authoriser every watched entry is reported.
	h2 := newHarness(t, l.key)
	h2.cfg.Watch = watch(t, "acme/*")
	_, as = h2.run(t, dir(t, l))
	wantKinds(t, as, "watched-entry,watched-entry")
	// A digest rule.
	h3 := newHarness(t, l.key)
	d, err := monitor.ParseDigest("sha256:" + strings.Repeat("AB", 32))
	if err != nil {
		t.Fatal(err)
	}
	h3.cfg.Watch = monitor.Watch{Digests: []string{d}}
	_, as = h3.run(t, dir(t, l))
	wantKinds(t, as, "watched-entry,watched-entry,watched-entry")
}

func TestUndecodableEntry(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/server", digest('1')), []byte(`{"schemaVersion":"something else"}`))
	h := newHarness(t, l.key)
	_, as := h.run(t, dir(t, l))
	wantKinds(t, as, "entry-undecodable")
	if as[0].Entry.Index != 1 {
		t.Fatalf("entry %+v", as[0].Entry)
	}
}

// fork: two logs with one origin and key and different contents.
func TestForkAndRollbackLeaveStateUnchanged(t *testing.T) {
	a := newLog(t, "log")
	a.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')))
	cp2 := a.checkpoint(t)
	a.add(t, entry(t, "acme/c", digest('3')))
	h := newHarness(t, a.key)
	_, as := h.run(t, dir(t, a))
	wantKinds(t, as, "")
	before := h.stateFile(t)

	for _, tc := range []struct {
		name    string
		entries [][]byte
	}{
		{"same size", [][]byte{entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')), entry(t, "acme/X", digest('4'))}},
		{"larger", [][]byte{entry(t, "acme/a", digest('1')), entry(t, "acme/X", digest('4')), entry(t, "acme/c", digest('3')), entry(t, "acme/d", digest('5'))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newLog(t, "log")
			b.add(t, tc.entries...)
			_, as := h.run(t, dir(t, b))
			wantKinds(t, as, "fork")
			if !bytes.Equal(h.stateFile(t), before) {
				t.Fatal("state changed")
			}
		})
	}

	t.Run("rollback", func(t *testing.T) {
		cur := a.checkpoint(t)
		a.setCheckpoint(t, cp2)
		defer a.setCheckpoint(t, cur)
		_, as := h.run(t, dir(t, a))
		wantKinds(t, as, "rollback")
		if !bytes.Equal(h.stateFile(t), before) {
			t.Fatal("state changed")
		}
	})
	// Control: the honest log still verifies, with no alert.
	_, as = h.run(t, dir(t, a))
	wantKinds(t, as, "")
}

func TestQuorum(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/a", digest('1')))
	w := offlinetest.NewWitness("W", "witness.example.org", "witness", 1_700_000_000)
	pol, errs := trustpolicy.ParseTLogPolicy("log " + signednote.FormatVerifierKey(origin, signednote.TypeEd25519, l.key.PublicKey()) +
		"\nwitness W " + w.VKey + "\nquorum W\n")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	h := newHarness(t, l.key)
	h.cfg.TLogPolicy = pol
	_, as := h.run(t, dir(t, l))
	wantKinds(t, as, "below-quorum")
	if h.stateFile(t) != nil {
		t.Fatal("state written for a checkpoint below quorum")
	}
	// Cosigned by the witness: accepted.
	text, _, err := signednote.Split(l.checkpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	l.setCheckpoint(t, offlinetest.Sign(text, l.signer, w))
	res, as := h.run(t, dir(t, l))
	wantKinds(t, as, "")
	if res.Tree.Size != 1 {
		t.Fatalf("result %+v", res)
	}
	// A cosignature dated after now does not count (JudgeCosignature).
	l.setCheckpoint(t, offlinetest.Sign(text, l.signer, w.At(1_900_000_000)))
	_, as = h.run(t, dir(t, l))
	wantKinds(t, as, "below-quorum")
}

func TestSplitView(t *testing.T) {
	a := newLog(t, "log")
	a.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')))
	b := newLog(t, "log")
	b.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/X", digest('3')), entry(t, "acme/c", digest('4')))
	h := newHarness(t, a.key)
	_, as := h.run(t, dir(t, a), dir(t, b))
	wantKinds(t, as, "split-view")
	if as[0].Other == nil || as[0].Other.Source != a.dir || as[0].Source != b.dir {
		t.Fatalf("alert %+v", as[0])
	}
	if h.stateFile(t) != nil {
		t.Fatal("state written on a split view")
	}
	// Control: two copies of one log are one view.
	c := newLog(t, "log")
	c.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')))
	_, as = h.run(t, dir(t, a), dir(t, c))
	wantKinds(t, as, "")
}

func TestWrongKey(t *testing.T) {
	l := newLog(t, "other-label")
	l.add(t, entry(t, "acme/a", digest('1')))
	good := newLog(t, "log")
	h := newHarness(t, good.key)
	_, as := h.run(t, dir(t, l))
	wantKinds(t, as, "checkpoint-signature")
	if h.stateFile(t) != nil {
		t.Fatal("state written")
	}
}

func TestResumeAcrossChunks(t *testing.T) {
	l := newLog(t, "log")
	var es [][]byte
	for i := range 600 {
		es = append(es, entry(t, fmt.Sprintf("acme/s%d", i), digest('1')))
	}
	l.add(t, es...)
	h := newHarness(t, l.key)
	h.cfg.ChunkBundles = 1
	h.cfg.Watch = watch(t, "acme/s599", "acme/s3")
	res, as := h.run(t, dir(t, l))
	wantKinds(t, as, "watched-entry,watched-entry")
	if res.Next != 600 || res.Entries != 600 {
		t.Fatalf("result %+v", res)
	}
	l.add(t, entry(t, "acme/s3", digest('2')))
	res, as = h.run(t, dir(t, l))
	wantKinds(t, as, "watched-entry")
	if res.Next != 601 || res.Entries != 1 || as[0].Entry.Index != 600 {
		t.Fatalf("result %+v, alert %+v", res, as[0].Entry)
	}
}

func TestStateLocked(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/a", digest('1')))
	h := newHarness(t, l.key)
	name := monitor.StateName(l.key.Name(), l.key.KeyHash())
	lk, err := filelock.Acquire(filepath.Join(h.cfg.StateDir, name+".lock"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = monitor.Run(context.Background(), h.cfg, []monitor.Source{dir(t, l)}, func(*monitor.Alert) error { return nil })
	if !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("err %v, want the state locked", err)
	}
	lk.Release()
	// Control: released, the run goes through.
	_, as := h.run(t, dir(t, l))
	wantKinds(t, as, "")
}

func TestStateOfAnotherLogRefused(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/a", digest('1')))
	h := newHarness(t, l.key)
	h.run(t, dir(t, l))
	other := newLog(t, "other")
	cfg := h.cfg
	cfg.LogKey = other.key
	name := monitor.StateName(other.key.Name(), other.key.KeyHash())
	if err := os.Rename(filepath.Join(h.cfg.StateDir, monitor.StateName(l.key.Name(), l.key.KeyHash())+".json"), filepath.Join(h.cfg.StateDir, name+".json")); err != nil {
		t.Fatal(err)
	}
	_, err := monitor.Run(context.Background(), cfg, []monitor.Source{dir(t, other)}, func(*monitor.Alert) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "is for log key") {
		t.Fatalf("err %v", err)
	}
}

// hostile serves a log directory over HTTP, changing what tamper says.
func hostile(t *testing.T, l *testLog, tamper func(w http.ResponseWriter, r *http.Request) bool) monitor.Source {
	t.Helper()
	fs := http.FileServer(http.Dir(l.dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tamper != nil && tamper(w, r) {
			return
		}
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s, err := monitor.NewHTTPSource(srv.URL, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHostileServer(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')))
	h := newHarness(t, l.key)
	_, as := h.run(t, hostile(t, l, nil))
	wantKinds(t, as, "")
	l.add(t, entry(t, "acme/c", digest('3')))
	before := h.stateFile(t)
	other := newLog(t, "evil")
	other.add(t, entry(t, "acme/a", digest('1')), entry(t, "acme/b", digest('2')), entry(t, "acme/c", digest('3')))

	flipBundle := func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasPrefix(r.URL.Path, "/tile/entries/") {
			return false
		}
		b, err := os.ReadFile(filepath.Join(l.dir, r.URL.Path))
		if err != nil {
			http.NotFound(w, r)
			return true
		}
		b = bytes.Clone(b)
		b[len(b)-3] ^= 1
		w.Write(b)
		return true
	}
	for _, tc := range []struct {
		name   string
		tamper func(w http.ResponseWriter, r *http.Request) bool
		want   string
	}{
		{"redirect", func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == "/checkpoint" {
				http.Redirect(w, r, "http://127.0.0.1:1/checkpoint", http.StatusFound)
				return true
			}
			return false
		}, "log-unreadable"},
		{"endless checkpoint", func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/checkpoint" {
				return false
			}
			chunk := bytes.Repeat([]byte("x"), 4096)
			for range 1000 {
				if _, err := w.Write(chunk); err != nil {
					break
				}
			}
			return true
		}, "log-unreadable"},
		{"lying size", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/tile/0/") {
				return false
			}
			w.Header().Set("Content-Length", "999999999")
			w.Write([]byte("short"))
			return true
		}, "log-unreadable"},
		{"tile of the wrong size", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/tile/0/") {
				return false
			}
			w.Write(make([]byte, 33))
			return true
		}, "log-unreadable"},
		{"tile that does not hash", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/tile/0/") {
				return false
			}
			b, _ := os.ReadFile(filepath.Join(l.dir, r.URL.Path))
			b = bytes.Clone(b)
			if len(b) > 0 {
				b[len(b)-1] ^= 1 // the newest leaf: the consistency proof uses it
			}
			w.Write(b)
			return true
		}, "fork"},
		{"entry bundle that does not hash", flipBundle, "tiles"},
		{"huge entry bundle", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/tile/entries/") {
				return false
			}
			big := make([]byte, 0, monitor.MaxEntryBundleBytes+70000)
			for len(big) < monitor.MaxEntryBundleBytes+1 {
				big = append(big, 0xff, 0xff)
				big = append(big, make([]byte, 0xffff)...)
			}
			w.Write(big)
			return true
		}, "tiles"},
		{"another key", func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/checkpoint" {
				return false
			}
			w.Write(other.checkpoint(t))
			return true
		}, "checkpoint-signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, as := h.run(t, hostile(t, l, tc.tamper))
			wantKinds(t, as, tc.want)
			if !bytes.Equal(h.stateFile(t), before) {
				t.Fatal("state changed")
			}
		})
	}
	// Control: the honest server moves the state on.
	res, as := h.run(t, hostile(t, l, nil))
	wantKinds(t, as, "")
	if res.Next != 3 {
		t.Fatalf("result %+v", res)
	}
}

// TestChunkAlertsBounded: a chunk ends after the bundle in which its
// alerts reach MaxChunkAlerts, so the alerts held before a chunk
// verifies are bounded however many entries alert. Seen from outside: a
// run whose emit fails after the first MaxChunkAlerts alerts has recorded
// those bundles in its state (with one chunk for the whole log, as
// before, it would have recorded nothing); the next run alerts only for
// the rest. The control: the same log with few watched entries is read in
// one chunk.
func TestChunkAlertsBounded(t *testing.T) {
	n := monitor.MaxChunkAlerts + 300
	l := newLog(t, "log")
	var es [][]byte
	for i := range n {
		es = append(es, entry(t, fmt.Sprintf("acme/s%d", i), digest('1')))
	}
	l.add(t, es...)
	h := newHarness(t, l.key)
	h.cfg.Watch = watch(t, "acme/*")
	emitted := 0
	_, err := monitor.Run(context.Background(), h.cfg, []monitor.Source{dir(t, l)}, func(*monitor.Alert) error {
		if emitted == monitor.MaxChunkAlerts {
			return errors.New("the hook is down")
		}
		emitted++
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "the hook is down") {
		t.Fatalf("Run: %v", err)
	}
	var st monitor.State
	if err := json.Unmarshal(h.stateFile(t), &st); err != nil {
		t.Fatal(err)
	}
	if st.Next != uint64(monitor.MaxChunkAlerts) {
		t.Fatalf("state at entry %d after %d alerts, want %d (the end of the bundle in which the alerts reached the bound)", st.Next, emitted, monitor.MaxChunkAlerts)
	}
	res, as := h.run(t, dir(t, l))
	if len(as) != n-monitor.MaxChunkAlerts || res.Next != uint64(n) || as[0].Entry.Index != uint64(monitor.MaxChunkAlerts) {
		t.Fatalf("resumed run: %d alerts from entry %d, next %d; want %d from %d", len(as), as[0].Entry.Index, res.Next, n-monitor.MaxChunkAlerts, monitor.MaxChunkAlerts)
	}

	// Control: two watched entries, one chunk, one state write at the end.
	h = newHarness(t, l.key)
	h.cfg.Watch = watch(t, "acme/s1", "acme/s1100")
	res, as = h.run(t, dir(t, l))
	wantKinds(t, as, "watched-entry,watched-entry")
	if res.Next != uint64(n) {
		t.Fatalf("control: next %d, want %d", res.Next, n)
	}
}
