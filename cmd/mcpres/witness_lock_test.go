//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
	"github.com/mcpres/mcpres/witness/witnesshttp"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
	"golang.org/x/mod/sumdb/note"
)

// raceRounds is how many rounds each race test runs: each round is a few
// processes, well under a second.
const raceRounds = 8

// tinyLog is a tlog-tiles log of fewer than 256 entries: its signed
// checkpoint and its one (partial) level-0 tile.
type tinyLog struct {
	checkpoint []byte
	tilePath   string
	tile       []byte
	state      witness.LogState // what a witness records when it cosigns it
}

func newTinyLog(t testing.TB, signer *signednote.LogSigner, leaves ...string) *tinyLog {
	t.Helper()
	var hashes [][]byte
	for _, l := range leaves {
		hashes = append(hashes, rfc6962.DefaultHasher.HashLeaf([]byte(l)))
	}
	root := treeHash(hashes)
	cp, err := note.Sign(&note.Note{Text: fmt.Sprintf("%s\n%d\n%s\n", signer.Name(), len(leaves), base64.StdEncoding.EncodeToString(root))}, signer)
	if err != nil {
		t.Fatal(err)
	}
	return &tinyLog{
		checkpoint: cp,
		tilePath:   layout.TilePath(0, 0, uint8(len(leaves))),
		tile:       bytes.Join(hashes, nil),
		state:      witness.LogState{Origin: signer.Name(), Size: uint64(len(leaves)), Hash: signednote.Hash(root)},
	}
}

// treeHash is RFC 6962's MTH of leaf hashes.
func treeHash(h [][]byte) []byte {
	if len(h) == 1 {
		return h[0]
	}
	k := 1
	for k*2 < len(h) {
		k *= 2
	}
	return rfc6962.DefaultHasher.HashChildren(treeHash(h[:k]), treeHash(h[k:]))
}

// gate holds the checkpoint reads of the witnesses of one round until
// want of them have arrived, or each for at most hold: without a lock,
// racing processes have all read the state by then (they read it before
// the log), so they decide on the same recorded tree. With the lock the
// first waits hold in vain (the others wait for its lock), then proceeds.
type gate struct {
	mu      sync.Mutex
	want    int
	arrived int
	hold    time.Duration
	open    chan struct{}
	closed  bool
	seen    chan struct{}
}

func newGate() *gate { return &gate{seen: make(chan struct{}, 64)} }

func (g *gate) reset(want int, hold time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.want, g.arrived, g.hold, g.open, g.closed = want, 0, hold, make(chan struct{}), false
	for len(g.seen) > 0 {
		<-g.seen
	}
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		close(g.open)
		g.closed = true
	}
}

func (g *gate) wait() {
	g.mu.Lock()
	g.arrived++
	open, hold, full := g.open, g.hold, g.arrived >= g.want
	g.mu.Unlock()
	if full {
		g.release()
	}
	select {
	case g.seen <- struct{}{}:
	default:
	}
	select {
	case <-open:
	case <-time.After(hold):
	}
}

// serveTinyLogs serves each log under /NAME/ on 127.0.0.1, its checkpoint
// behind g.
func serveTinyLogs(t *testing.T, g *gate, logs map[string]*tinyLog) string {
	t.Helper()
	mux := http.NewServeMux()
	for name, l := range logs {
		mux.HandleFunc("/"+name+"/"+layout.CheckpointPath, func(w http.ResponseWriter, r *http.Request) {
			g.wait()
			w.Write(l.checkpoint)
		})
		mux.HandleFunc("/"+name+"/"+l.tilePath, func(w http.ResponseWriter, r *http.Request) { w.Write(l.tile) })
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeWitnessState(t testing.TB, path string, logs ...witness.LogState) {
	t.Helper()
	st := &witness.State{}
	for _, l := range logs {
		st.Put(l)
	}
	data, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readWitnessStateFile(t testing.TB, path string) *witness.State {
	t.Helper()
	st, err := witness.ParseState(mustRead(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

type procResult struct {
	code   int
	stderr string
}

// runProcs runs the command lines of bin at once and waits for them all
// (each killed after two minutes, a hang guard).
func runProcs(t *testing.T, bin string, cmds ...[]string) []procResult {
	t.Helper()
	res := make([]procResult, len(cmds))
	var wg sync.WaitGroup
	for i, args := range cmds {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Stderr = &stderr
			err := cmd.Run()
			res[i] = procResult{code: cmd.ProcessState.ExitCode(), stderr: stderr.String()}
			if err != nil && cmd.ProcessState.ExitCode() < 0 {
				res[i].stderr += "\n" + err.Error()
			}
		})
	}
	wg.Wait()
	return res
}

// TestWitnessProcessesRace runs mcpres witness processes (one build of the
// binary) that share a state, racing.
func TestWitnessProcessesRace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpres and races its processes; skipped in -short mode")
	}
	bin := buildMcpres(t, t.TempDir())
	t.Run("cosign and cosign", func(t *testing.T) { testCosignProcessesRace(t, bin) })
	t.Run("serve and serve", func(t *testing.T) { testServeProcessesExclusive(t, bin) })
	t.Run("serve and cosign", func(t *testing.T) { testServeAndCosignShareALogState(t, bin) })
}

// testCosignProcessesRace: 'witness cosign' processes sharing a
// state file, started together and held at the log until all have read
// what they read first. Split view: two logs under one key extend the
// recorded size 1 to two different roots of size 2: exactly one is
// cosigned, the other refused as a fork, in every round (unlocked, both
// were cosigned). Lost update: two logs of a multi-log state each grow
// from 1 to 2: both are cosigned and the state holds both (unlocked, one
// update was lost: its log's recorded size fell back to 1).
func testCosignProcessesRace(t *testing.T, bin string) {
	e := newLogEnv(t)
	e.writeKey("second-log", signednote.TypeEd25519, "example.org/mcpres-cli-second-log", bytes.Repeat([]byte{0x7a}, 32))
	signer := func(name string) *signednote.LogSigner {
		s, err := signednote.ParseLogSigner(strings.TrimSpace(string(mustRead(t, e.p(name+".key")))))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ls, ls2 := signer("log"), signer("second-log")
	at1 := newTinyLog(t, ls, "x1")
	a, b := newTinyLog(t, ls, "x1", "x2"), newTinyLog(t, ls, "x1", "y2")
	q1, q := newTinyLog(t, ls2, "z1"), newTinyLog(t, ls2, "z1", "z2")
	g := newGate()
	host := serveTinyLogs(t, g, map[string]*tinyLog{"a": a, "b": b, "q": q})
	cosign := func(log, vkey, state, out string) []string {
		return []string{"witness", "cosign", "--log", host + "/" + log + "/", "--log-key", e.p(vkey), "--key", e.p("w1.key"), "--state", state, "-o", out}
	}

	t.Run("split view", func(t *testing.T) {
		for round := range raceRounds {
			state := e.p(fmt.Sprintf("fork-%d.state.json", round))
			writeWitnessState(t, state, at1.state)
			outA, outB := e.p(fmt.Sprintf("fork-%d-a.cosig", round)), e.p(fmt.Sprintf("fork-%d-b.cosig", round))
			g.reset(2, 300*time.Millisecond)
			res := runProcs(t, bin, cosign("a", "log.vkey", state, outA), cosign("b", "log.vkey", state, outB))
			won := -1
			for i, r := range res {
				switch {
				case r.code == 0 && won < 0:
					won = i
				case r.code == 0:
					t.Fatalf("round %d: both forks were cosigned at size 2 (two roots at one size):\n%s\n%s", round, res[0].stderr, res[1].stderr)
				case r.code != exitInvalid || !strings.Contains(r.stderr, "refused: the log forked"):
					t.Fatalf("round %d: process %d: exit %d, want 0 or a fork refusal (1):\n%s", round, i, r.code, r.stderr)
				}
			}
			if won < 0 {
				t.Fatalf("round %d: neither fork was cosigned:\n%s\n%s", round, res[0].stderr, res[1].stderr)
			}
			winner, outs := []*tinyLog{a, b}[won], []string{outA, outB}
			if got := readWitnessStateFile(t, state).Get(testLogOrigin); got == nil || got.Size != 2 || got.Hash != winner.state.Hash {
				t.Fatalf("round %d: state %+v, want the cosigned tree %+v", round, got, winner.state)
			}
			if _, err := os.Stat(outs[1-won]); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("round %d: the refused fork's cosignature exists: %v", round, err)
			}
		}
	})

	t.Run("lost update", func(t *testing.T) {
		for round := range raceRounds {
			state := e.p(fmt.Sprintf("multi-%d.state.json", round))
			writeWitnessState(t, state, at1.state, q1.state)
			g.reset(2, 300*time.Millisecond)
			res := runProcs(t, bin,
				cosign("a", "log.vkey", state, e.p(fmt.Sprintf("multi-%d-a.cosig", round))),
				cosign("q", "second-log.vkey", state, e.p(fmt.Sprintf("multi-%d-q.cosig", round))))
			for i, r := range res {
				if r.code != 0 {
					t.Fatalf("round %d: process %d: exit %d:\n%s", round, i, r.code, r.stderr)
				}
			}
			st := readWitnessStateFile(t, state)
			for _, want := range []witness.LogState{a.state, q.state} {
				if got := st.Get(want.Origin); got == nil || got.Size != want.Size || got.Hash != want.Hash {
					t.Fatalf("round %d: %s recorded as %+v, want size %d: an update was lost", round, want.Origin, got, want.Size)
				}
			}
		}
	})
}

// witnessProc is a 'mcpres witness serve' process started by a test.
type witnessProc struct {
	cmd    *exec.Cmd
	url    string // set once it serves
	stderr *syncBuffer
	exited chan struct{}
}

var witnessServingLine = regexp.MustCompile(`serving \d+ log\(s\) at (http://127\.0\.0\.1:\d+)/ \(POST /add-checkpoint\)`)

// startWitnessProc starts bin's 'witness serve' on 127.0.0.1:0; it is
// killed (by its pid) when the test ends. wait tells whether it serves
// (and where) or exited.
func startWitnessProc(t *testing.T, bin string, args ...string) (*witnessProc, func() bool) {
	t.Helper()
	p := &witnessProc{stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"witness", "serve", "--listen", "127.0.0.1:0"}, args...)...)
	pr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.stderr.Write([]byte(sc.Text() + "\n"))
			if m := witnessServingLine.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
		io.Copy(io.Discard, pr)
		close(scanned)
	}()
	go func() { <-scanned; p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p, func() bool {
		select {
		case p.url = <-urlc:
			return true
		case <-p.exited:
			return false
		case <-time.After(time.Minute):
			t.Fatalf("witness serve neither served nor exited: %s", p.stderr.String())
			return false
		}
	}
}

// testServeProcessesExclusive: two 'witness serve' processes
// started together on one state directory: in every round exactly one
// serves and the other refuses to start (status 2, naming the folder and
// its lock). A witness killed with SIGKILL leaves no stale lock: the next
// one starts.
func testServeProcessesExclusive(t *testing.T, bin string) {
	e := newLogEnv(t)
	for round := range raceRounds {
		state := e.p(fmt.Sprintf("state-%d", round))
		args := []string{"--key", e.p("w1.key"), "--state", state, "--log", e.p("log.vkey")}
		p1, wait1 := startWitnessProc(t, bin, args...)
		p2, wait2 := startWitnessProc(t, bin, args...)
		served := []bool{wait1(), wait2()}
		procs := []*witnessProc{p1, p2}
		if served[0] == served[1] {
			t.Fatalf("round %d: serving %v, want exactly one:\n%s\n%s", round, served, p1.stderr.String(), p2.stderr.String())
		}
		running, refused := procs[0], procs[1]
		if served[1] {
			running, refused = procs[1], procs[0]
		}
		if code := refused.cmd.ProcessState.ExitCode(); code != exitInput ||
			!strings.Contains(refused.stderr.String(), "state directory "+state+" is in use by another witness server ("+filepath.Join(state, witnesshttp.ServeLockName)+" is locked)") {
			t.Fatalf("round %d: the second witness: exit %d:\n%s", round, code, refused.stderr.String())
		}
		running.cmd.Process.Signal(syscall.SIGKILL)
		<-running.exited
		next, wait := startWitnessProc(t, bin, args...)
		if !wait() {
			t.Fatalf("round %d: after the first was killed, a new witness does not start:\n%s", round, next.stderr.String())
		}
		next.cmd.Process.Signal(syscall.SIGTERM)
		<-next.exited
	}
}

// testServeAndCosignShareALogState: 'witness cosign' pointed at a
// log's state file in a 'witness serve' directory, while the server gets
// another tree of the same size for that log: the server's request waits
// for the cosign run's lock and then sees the tree it recorded (409), so
// only one root is cosigned at size 2 (unlocked, both were).
func testServeAndCosignShareALogState(t *testing.T, bin string) {
	e := newLogEnv(t)
	ls, err := signednote.ParseLogSigner(strings.TrimSpace(string(mustRead(t, e.p("log.key")))))
	if err != nil {
		t.Fatal(err)
	}
	at1 := newTinyLog(t, ls, "x1")
	a, b := newTinyLog(t, ls, "x1", "x2"), newTinyLog(t, ls, "x1", "y2")
	g := newGate()
	host := serveTinyLogs(t, g, map[string]*tinyLog{"a": a})
	stateDir := e.p("serve-state")
	srv, wait := startWitnessProc(t, bin, "--key", e.p("w1.key"), "--state", stateDir, "--log", e.p("log.vkey"))
	if !wait() {
		t.Fatalf("witness serve: %s", srv.stderr.String())
	}
	state := witnesshttp.StatePath(stateDir, testLogOrigin)
	body := (&witness.AddRequest{OldSize: 1, Proof: [][]byte{rfc6962.DefaultHasher.HashLeaf([]byte("y2"))}, Checkpoint: b.checkpoint}).Marshal()
	for round := range 3 {
		writeWitnessState(t, state, at1.state)
		g.reset(1<<30, time.Minute) // held until released
		cosigned := make(chan procResult, 1)
		go func() {
			cosigned <- runProcs(t, bin, []string{"witness", "cosign", "--log", host + "/a/", "--log-key", e.p("log.vkey"), "--key", e.p("w1.key"),
				"--state", state, "-o", e.p(fmt.Sprintf("serve-%d.cosig", round))})[0]
		}()
		select {
		case <-g.seen: // the cosign run has read the state (and holds its lock)
		case <-time.After(time.Minute):
			t.Fatal("witness cosign did not read the log")
		}
		answered := make(chan int, 1)
		go func() {
			resp, err := http.Post(srv.url+"/add-checkpoint", "text/plain", bytes.NewReader(body))
			if err != nil {
				t.Error(err)
				answered <- 0
				return
			}
			resp.Body.Close()
			answered <- resp.StatusCode
		}()
		time.Sleep(300 * time.Millisecond) // the request waits for the lock (or, unlocked, is answered)
		g.release()
		r, status := <-cosigned, <-answered
		if r.code != 0 || status != http.StatusConflict {
			t.Fatalf("round %d: cosign exit %d, witness serve answered %d; want 0 and 409 (one root at size 2):\n%s\n%s", round, r.code, status, r.stderr, srv.stderr.String())
		}
		if got := readWitnessStateFile(t, state).Get(testLogOrigin); got == nil || got.Hash != a.state.Hash {
			t.Fatalf("round %d: state %+v, want the tree cosign cosigned", round, got)
		}
	}
}

// TestWitnessCosignFIFO: a state file or a log checkpoint that is a FIFO
// is refused at once (status 2, naming it), where reading it would wait
// for a writer forever.
func TestWitnessCosignFIFO(t *testing.T) {
	e := newLogEnv(t)
	logDir := e.initLog("log")
	e.run("log", "add", "--dir", logDir, "--key", e.p("log.key"), exampleBundleFile(t, e.dir), "-o", e.p("ref.json"))
	stateFIFO := e.p("fifo.state.json")
	if err := syscall.Mkfifo(stateFIFO, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	fifoLog := e.p("fifo-log")
	os.Mkdir(fifoLog, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifoLog, layout.CheckpointPath), 0o644); err != nil {
		t.Fatal(err)
	}
	cosign := func(log, state string) []string {
		return []string{"witness", "cosign", "--log", log, "--log-key", e.p("log.vkey"), "--key", e.p("w1.key"), "--state", state, "--init", "-o", e.p("w.cosig"), "--force"}
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"state", cosign(logDir, stateFIFO), stateFIFO + " is a FIFO"},
		{"log checkpoint", cosign(fifoLog, e.p("w.state.json")), filepath.Join(fifoLog, layout.CheckpointPath) + " is a FIFO"},
	} {
		done := make(chan procResult, 1)
		go func() {
			_, stderr, code := runLogCLI(t, c.args...)
			done <- procResult{code, stderr}
		}()
		select {
		case r := <-done:
			if r.code != exitInput || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%s: exit %d, %q; want 2 and %q", c.name, r.code, r.stderr, c.want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: witness cosign blocks on a FIFO", c.name)
		}
	}
	// Control: the same command with regular files cosigns.
	e.run(cosign(logDir, e.p("w.state.json"))...)
}

// TestWitnessCosignOutputNotTheLock: -o may not name the state's lock file
// (replacing it while it is held would let another run lock the new one);
// the control is the same command with another output.
func TestWitnessCosignOutputNotTheLock(t *testing.T) {
	e := newLogEnv(t)
	logDir := e.initLog("log")
	state := e.p("w.state.json")
	args := []string{"witness", "cosign", "--log", logDir, "--log-key", e.p("log.vkey"), "--key", e.p("w1.key"), "--state", state, "--init", "--force", "-o"}
	e.fail(exitInput, "-o names the lock file of --state", append(args, state+witness.StateLockSuffix)...)
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused run wrote the state: %v", err)
	}
	e.run(append(args, e.p("w.cosig"))...)
	e.fail(exitInput, "-o names the lock file of --state", append(args, state+witness.StateLockSuffix)...)
}
