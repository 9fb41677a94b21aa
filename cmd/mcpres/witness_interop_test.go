package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/doctest"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/tessera"
	tposix "github.com/transparency-dev/tessera/storage/posix"
	"golang.org/x/crypto/ssh"
	"golang.org/x/mod/sumdb/note"
)

// torchwoodVersion is the independent C2SP tlog-witness implementation the
// interop tests run: litewitness and witnessctl.
const torchwoodVersion = "v0.6.1"

// buildTorchwood builds litewitness and witnessctl into a temporary
// folder, from the module cache when it has them (GOPROXY=off: no network),
// else from the module proxy. Compiled packages stay in GOCACHE, so after
// the first run (about a minute on two cores, mostly modernc.org/sqlite)
// this is a link step. It skips the test when they cannot be built.
func buildTorchwood(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH: cannot build litewitness")
	}
	bin := t.TempDir()
	build := func(proxy string) ([]byte, error) {
		cmd := exec.Command(goTool, "install",
			"filippo.io/torchwood/cmd/litewitness@"+torchwoodVersion,
			"filippo.io/torchwood/cmd/witnessctl@"+torchwoodVersion)
		cmd.Dir = bin // outside this module
		cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod", "GOWORK=off")
		if proxy != "" {
			cmd.Env = append(cmd.Env, "GOPROXY="+proxy)
		}
		return cmd.CombinedOutput()
	}
	start := time.Now()
	if _, err := build("off"); err != nil {
		if out, err := build(""); err != nil {
			t.Skipf("cannot build litewitness %s (no module proxy?): %v\n%s", torchwoodVersion, err, out)
		}
	}
	t.Logf("built litewitness and witnessctl %s in %v", torchwoodVersion, time.Since(start).Round(time.Millisecond))
	return bin
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWitnessServe runs 'mcpres witness serve' in-process on 127.0.0.1
// (a free port) until the test ends, and returns its base URL.
func startWitnessServe(t *testing.T, args ...string) string {
	t.Helper()
	u, _ := startWitnessServeStop(t, args...)
	return u
}

// startWitnessServeStop is startWitnessServe, and also returns a function
// that stops the witness (idempotent; also run when the test ends).
func startWitnessServeStop(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	var stderr syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: &stderr, stderr: &stderr}
	root := a.rootCommand()
	root.SetArgs(append([]string{"witness", "serve", "--listen", "127.0.0.1:0"}, args...))
	root.SetOut(&stderr)
	root.SetErr(&stderr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("witness serve did not stop")
			}
		})
	}
	t.Cleanup(stop)
	re := regexp.MustCompile(`at http://(127\.0\.0\.1:[0-9]+)/ \(POST /add-checkpoint\)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return "http://" + m[1], stop
		}
		select {
		case err := <-done:
			t.Fatalf("witness serve exited: %v\n%s", err, stderr.String())
		default:
		}
	}
	t.Fatalf("witness serve did not start:\n%s", stderr.String())
	return "", nil
}

// freePort returns a 127.0.0.1 address that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitTCP(t *testing.T, addr string, p *os.Process) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens on %s", addr)
}

// startProcess starts a long-running helper and kills it (by its own pid)
// when the test ends.
func startProcess(t *testing.T, out *syncBuffer, env []string, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// sshEd25519Public reads the public key of an OpenSSH "ssh-ed25519" .pub file.
func sshEd25519Public(t *testing.T, path string) ed25519.PublicKey {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pk, _, _, _, err := ssh.ParseAuthorizedKey(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	cpk, ok := pk.(ssh.CryptoPublicKey)
	if !ok || pk.Type() != ssh.KeyAlgoED25519 {
		t.Fatalf("%s is a %s key, not ssh-ed25519", path, pk.Type())
	}
	pub, ok := cpk.CryptoPublicKey().(ed25519.PublicKey)
	if !ok {
		t.Fatalf("%s: not an Ed25519 key", path)
	}
	return pub
}

// startLitewitness runs litewitness with a test-generated key held by an
// ssh-agent of the test, witnessing the log of logVKeyFile, and returns its
// URL and verifier key file.
func startLitewitness(t *testing.T, bin, dir, origin, logVKeyFile string) (url, vkeyFile string, proc *exec.Cmd, restart func() *exec.Cmd) {
	t.Helper()
	var tools []string
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not found (openssh-client): litewitness takes its key from an ssh-agent", tool)
		}
		tools = append(tools, p)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	key := p("litewitness-key")
	if out, err := exec.Command(tools[2], "-q", "-t", "ed25519", "-N", "", "-C", "test-only litewitness key", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	sock := p("agent.sock")
	var agentOut syncBuffer
	startProcess(t, &agentOut, nil, tools[0], "-D", "-a", sock)
	// The socket file appears when the agent binds, before it listens:
	// wait until a connection is accepted, or ssh-add may be refused.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ssh-agent did not start: %s", agentOut.String())
		}
	}
	add := exec.Command(tools[1], key)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
	fpOut, err := exec.Command(tools[2], "-l", "-E", "sha256", "-f", key+".pub").Output()
	if err != nil {
		t.Fatalf("ssh-keygen -l: %v", err)
	}
	fp := strings.Fields(string(fpOut))[1]

	db := p("litewitness.db")
	logVKey := strings.TrimSpace(string(mustRead(t, logVKeyFile)))
	for _, args := range [][]string{
		{"add-log", "-db", db, "-origin", origin},
		{"add-key", "-db", db, "-origin", origin, "-key", logVKey},
	} {
		if out, err := exec.Command(filepath.Join(bin, "witnessctl"), args...).CombinedOutput(); err != nil {
			t.Fatalf("witnessctl %s: %v\n%s", args[0], err, out)
		}
	}
	const name = "example.org/litewitness"
	addr := freePort(t)
	var out syncBuffer
	restart = func() *exec.Cmd {
		proc := startProcess(t, &out, nil, filepath.Join(bin, "litewitness"),
			"-db", db, "-ssh-agent", sock, "-name", name, "-key", fp, "-listen", addr)
		waitTCP(t, addr, proc.Process)
		return proc
	}
	proc = restart()
	// Its verifier key, from the public key in the agent.
	vkeyFile = p("litewitness.vkey")
	vkey := signednote.FormatVerifierKey(name, signednote.TypeCosignatureV1, sshEd25519Public(t, key+".pub"))
	if err := os.WriteFile(vkeyFile, []byte(vkey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if logged := out.String(); !strings.Contains(logged, vkey) {
		t.Logf("litewitness output does not show the vkey %s:\n%s", vkey, logged)
	}
	return "http://" + addr, vkeyFile, proc, restart
}

// TestLitewitnessCosignsMcpresLog: an mcpres log asks litewitness (torchwood,
// an independent C2SP tlog-witness) and an mcpres witness through the
// protocol, and attest verify counts both toward a 2-of-2 quorum; with
// litewitness down, the log still publishes within the deadline, with the
// one cosignature obtained, and the same quorum then fails naming it.
func TestLitewitnessCosignsMcpresLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs litewitness; skipped in -short mode")
	}
	bin := buildTorchwood(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	const origin = "example.org/interop-log"
	runExpect(t, 0, "log", "keygen", "--origin", origin, "--out-base", p("log"))
	runExpect(t, 0, "log", "init", "--dir", p("log-dir"), "--key", p("log.key"))
	lwURL, lwVKey, lw, restartLW := startLitewitness(t, bin, dir, origin, p("log.vkey"))
	runExpect(t, 0, "witness", "keygen", "--name", "example.org/mcpres-witness", "--out-base", p("mw"))
	mwURL := startWitnessServe(t, "--key", p("mw.key"), "--state", p("mw-state"), "--log", p("log.vkey"))

	pol := p("witnesses.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", pol, "--key", p("log.vkey"))
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "litewitness", "--key", lwVKey, "--url", lwURL)
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "mcpres", "--key", p("mw.vkey"), "--url", mwURL+"/")
	runExpect(t, 0, "policy", "tlog", "add-group", pol, "--name", "both", "--threshold", "2", "litewitness", "mcpres")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "both")

	// Two distinct bundles (the log deduplicates), so two entries: the
	// second is sent with the proof from size 1, the size each witness
	// last cosigned.
	bundleFile := func(i int) string {
		example := bundletest.Example(t)
		example.Path("evidence", "run", "environment").Set("os", canonjson.NewString(fmt.Sprintf("interop-os-%d", i)))
		if err := bundle.SealFrom(example, bundle.StageEvidence); err != nil {
			t.Fatal(err)
		}
		b, _ := canonjson.Pretty(example)
		file := p(fmt.Sprintf("example-%d.json", i))
		os.WriteFile(file, b, 0o644)
		return file
	}
	for i, ref := range []string{"ref-1.json", "ref-2.json"} {
		file := bundleFile(i)
		out := runExpect(t, 0, "log", "add", "--dir", p("log-dir"), "--key", p("log.key"), "--witness-policy", pol, file, "-o", p(ref))
		if !strings.Contains(out, "cosigned by 2 of 2 witness(es) asked (litewitness, mcpres)") {
			t.Fatalf("log add: %s", out)
		}
	}
	// log proof asks only the witnesses missing from the checkpoint: none,
	// both have cosigned size 2 already; the quorum is met.
	if out := runExpect(t, 0, "log", "proof", "--dir", p("log-dir"), "--index", "1", "--witness-policy", pol, "--require-quorum", pol, "-o", p("ref-proof.json")); !strings.Contains(out, "already cosigned by litewitness, mcpres") ||
		!strings.Contains(out, "entry 1: cosigned by 2 of 2: litewitness, mcpres; quorum both satisfied") {
		t.Fatalf("log proof: %s", out)
	}

	pub, _ := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	os.WriteFile(p("one.pub"), pub, 0o644)
	writeTestKey(t, dir, "one.key", attesttest.TestOnlyKeyOne())
	runExpect(t, 0, "policy", "init", p("policy.json"), "--id", attesttest.TrustPolicyID, "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2100-01-01T00:00:00.000Z")
	runExpect(t, 0, "policy", "add-signer", p("policy.json"), "--name", "one", "--identity", attesttest.IdentityOne, "--key", p("one.pub"))
	runExpect(t, 0, "policy", "set-transparency", p("policy.json"), pol)
	evalAt := time.Now().UTC().Add(time.Minute).Format("2006-01-02T15:04:05.000Z")
	verify := func(file, ref string) *canonjson.Value {
		t.Helper()
		runExpect(t, 0, "attest", "sign", file, "--key", p("one.key"), "--identity", attesttest.IdentityOne,
			"--policy-id", attesttest.TrustPolicyID, "--signing-time", attesttest.SigningTime,
			"--claim", "TRANSPARENCY_RECORDED", "--transparency", p(ref), "-o", p(ref+".attested.json"), "--force")
		stdout, _, _ := runCLI(t, "attest", "verify", "--policy", p("policy.json"), "--evaluated-at", evalAt, p(ref+".attested.json"))
		v, err := canonjson.Parse([]byte(stdout))
		if err != nil {
			t.Fatalf("verify output: %v\n%s", err, stdout)
		}
		return v
	}
	res := verify(p("example-1.json"), "ref-2.json")
	notes := mustCompact(res.Path("evaluation", "notes"))
	if !res.Get("valid").Bool || res.Get("authenticityClassification").Str != "TRANSPARENCY_RECORDED" ||
		!strings.Contains(notes, "cosigned by litewitness ") || !strings.Contains(notes, "mcpres ") {
		t.Fatalf("2 of 2 through the protocol: %s", mustCompact(res))
	}

	// litewitness down: the log publishes within the deadline with the
	// mcpres cosignature only, and the 2-of-2 quorum fails naming it.
	lw.Process.Kill()
	lw.Wait()
	start := time.Now()
	out := runExpect(t, 0, "log", "add", "--dir", p("log-dir"), "--key", p("log.key"), "--witness-policy", pol, "--witness-timeout", "2s", bundleFile(2), "-o", p("ref-3.json"))
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("log add with a witness down took %v", d)
	}
	if !strings.Contains(out, "witness litewitness gave no cosignature") || !strings.Contains(out, "cosigned by 1 of 2 witness(es) asked (mcpres)") {
		t.Fatalf("with litewitness down: %s", out)
	}
	res = verify(p("example-2.json"), "ref-3.json")
	text, _, _ := runCLI(t, "attest", "verify", "--format", "text", "--policy", p("policy.json"), "--evaluated-at", evalAt, p("ref-3.json.attested.json"))
	if res.Get("valid").Bool || !strings.Contains(text, "cosignatures: 1 of 2 required (litewitness missing)") {
		t.Fatalf("quorum without litewitness: %s\n%s", mustCompact(res), text)
	}

	// The quorum is known before anything is signed: log proof with the
	// consumers' tlog policy refuses the under-cosigned reference.
	out = runExpect(t, exitInvalid, "log", "proof", "--dir", p("log-dir"), "--index", "2", "--require-quorum", pol, "-o", p("ref-4.json"))
	if !strings.Contains(out, "entry 2: cosigned by 1 of 2: mcpres; missing: litewitness; quorum both not satisfied") || !strings.Contains(out, "nothing written") {
		t.Fatalf("--require-quorum with litewitness down: %s", out)
	}
	if _, err := os.Stat(p("ref-4.json")); err == nil {
		t.Fatal("log proof --require-quorum wrote a reference that fails the quorum")
	}

	// litewitness back: it last cosigned size 2, the client (a new
	// process) assumes 3; litewitness answers 409 with 2, and the request
	// from 2 with its proof is cosigned. Only litewitness is asked (the
	// mcpres witness's cosignature is there); the 2-of-2 quorum is met again.
	restartLW()
	out = runExpect(t, 0, "log", "proof", "--dir", p("log-dir"), "--index", "2", "--witness-policy", pol, "--require-quorum", pol, "-o", p("ref-4.json"))
	if !strings.Contains(out, "cosigned by 1 of 1 witness(es) asked (litewitness); already cosigned by mcpres") || !strings.Contains(out, "quorum both satisfied") {
		t.Fatalf("after litewitness is back: %s", out)
	}
	if res = verify(p("example-2.json"), "ref-4.json"); !res.Get("valid").Bool || res.Get("authenticityClassification").Str != "TRANSPARENCY_RECORDED" {
		t.Fatalf("2 of 2 after a 409 from litewitness: %s", mustCompact(res))
	}
}

// TestTesseraWitnessesMcpresWitness: a Tessera log configured with
// tessera.WithWitnesses (Tessera's own tlog-witness client, not ours) gets
// from 'mcpres witness serve' cosignatures that transparency-dev/formats'
// cosignature/v1 verifier accepts, for a first checkpoint (old 0) and for
// later ones (with consistency proofs).
func TestTesseraWitnessesMcpresWitness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a Tessera log; skipped in -short mode")
	}
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if _, stderr, code := runCLI(t, "log", "keygen", "--origin", "example.org/tessera-interop-log", "--out-base", p("log")); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := runCLI(t, "witness", "keygen", "--name", "example.org/mcpres-witness", "--out-base", p("mw")); code != 0 {
		t.Fatal(stderr)
	}
	url := startWitnessServe(t, "--key", p("mw.key"), "--state", p("mw-state"), "--log", p("log.vkey"))
	wvkey := strings.TrimSpace(string(mustRead(t, p("mw.vkey"))))
	group, err := tessera.NewWitnessGroupFromPolicy([]byte(fmt.Sprintf("witness mw %s %s\nquorum mw\n", wvkey, url)))
	if err != nil {
		t.Fatal(err)
	}
	skey := strings.TrimSpace(string(mustRead(t, p("log.key"))))
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	drv, err := tposix.New(ctx, tposix.Config{Path: p("tessera-log")})
	if err != nil {
		t.Fatal(err)
	}
	opts := tessera.NewAppendOptions().WithCheckpointSigner(signer).WithBatching(1, 10*time.Millisecond).
		WithCheckpointInterval(100*time.Millisecond).WithWitnesses(group, &tessera.WitnessOptions{Timeout: 10 * time.Second})
	appender, shutdown, reader, err := tessera.NewAppender(ctx, drv, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(ctx)
	awaiter := tessera.NewPublicationAwaiter(ctx, reader.ReadCheckpoint, 20*time.Millisecond)
	logV, _ := note.NewVerifier(strings.TrimSpace(string(mustRead(t, p("log.vkey")))))
	wv, err := fnote.NewVerifierForCosignatureV1(wvkey)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, _, err := awaiter.Await(ctx, appender.Add(ctx, tessera.NewEntry([]byte(fmt.Sprintf("entry %d", i))))); err != nil {
			t.Fatal(err)
		}
		cp, err := reader.ReadCheckpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, err := note.Open(cp, note.VerifierList(logV, wv))
		if err != nil || len(n.Sigs) != 2 {
			t.Fatalf("checkpoint after entry %d: %v\n%s", i, err, cp)
		}
		ts, err := fnote.CoSigV1Timestamp(n.Sigs[1])
		if err != nil || time.Since(ts) > time.Hour || time.Until(ts) > time.Minute {
			t.Fatalf("cosignature time %v, %v", ts, err)
		}
	}
	// The witness recorded the last size.
	state, err := filepath.Glob(filepath.Join(p("mw-state"), "log-*.json"))
	if err != nil || len(state) != 1 {
		t.Fatalf("state files: %v %v", state, err)
	}
	data := mustRead(t, state[0])
	if !strings.Contains(string(data), `"size": 3`) && !strings.Contains(string(data), `"size":3`) {
		t.Fatalf("witness state: %s", data)
	}
}

// TestLitewitnessRecipeDocumented: the litewitness recipe of
// docs/transparency.md pins the version the interop test builds and uses
// the commands and flags startLitewitness runs.
func TestLitewitnessRecipeDocumented(t *testing.T) {
	doc := string(mustRead(t, filepath.Join("..", "..", "docs", "transparency.md")))
	block, err := doctest.Find(doc, "### Witnessing an mcpres log with litewitness", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"filippo.io/torchwood/cmd/litewitness@" + torchwoodVersion, "filippo.io/torchwood/cmd/witnessctl@" + torchwoodVersion,
		"ssh-keygen -q -t ed25519 -N ''", "ssh-agent -D -a ", "SSH_AUTH_SOCK=", "ssh-add ", "ssh-keygen -l -E sha256 -f ",
		"witnessctl add-log -db lw.db -origin ", "witnessctl add-key -db lw.db -origin example.org/log -key \"$(cat log.vkey)\"",
		"litewitness -db lw.db -ssh-agent lw-agent.sock -name ", "-key \"$FP\" -listen ",
		"mcpres policy tlog add-witness witnesses.txt --name litewitness --key litewitness.vkey \\\n    --url http://127.0.0.1:7381/",
	} {
		if !strings.Contains(block, want) {
			t.Errorf("the litewitness recipe lacks %q:\n%s", want, block)
		}
	}
}

// TestWitnessServeListensOnLoopback: without --listen, the witness binds
// 127.0.0.1 only.
func TestWitnessServeListensOnLoopback(t *testing.T) {
	a := &app{}
	if got := a.witnessServeCommand().Flags().Lookup("listen").DefValue; got != "127.0.0.1:7380" {
		t.Fatalf("default --listen %q", got)
	}
}

// TestWitnessLockWaitDocumented: the wait the help of 'witness cosign'
// states is the one it applies, and outlasts one run's log reads.
func TestWitnessLockWaitDocumented(t *testing.T) {
	if !strings.Contains(witnessCosignLong, "up to "+witnessLockWait.String()+" ") {
		t.Errorf("witness cosign's help does not say it waits up to %v for the state lock", witnessLockWait)
	}
	if witnessLockWait <= logTimeout {
		t.Errorf("the lock wait %v does not outlast a run's log reads (%v)", witnessLockWait, logTimeout)
	}
}
