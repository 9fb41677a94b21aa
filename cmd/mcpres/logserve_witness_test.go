package main

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// TestCLILogServeWitnesses: 'log serve --witness-policy' has two
// 'mcpres witness serve' cosign each new checkpoint, and 'log add
// --server' gets a reference that carries both cosignatures, which
// 'attest verify --policy' counts toward a 2-of-2 quorum. With one witness
// stopped, the next submission is answered within its deadline with the
// other's cosignature only, the server warns, and the quorum fails naming
// the missing witness.
func TestCLILogServeWitnesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs log serve and two witnesses; skipped in -short mode")
	}
	e := newLogEnv(t)
	dir := e.initLog("log")
	logServeWitnessTest(t, e, []string{"--dir", dir})
}

// TestCLILogServeWitnessesMySQL is TestCLILogServeWitnesses on a log in
// MariaDB/MySQL.
func TestCLILogServeWitnessesMySQL(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	e := newLogEnv(t)
	t.Setenv("MCPRES_TEST_LOG_DSN", dsn)
	e.run("log", "init", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("log.key"))
	logServeWitnessTest(t, e, []string{"--mysql", "env:MCPRES_TEST_LOG_DSN"})
}

func logServeWitnessTest(t *testing.T, e *logEnv, storeArgs []string) {
	bin := buildBinary(t)
	p := e.p
	runExpect(t, 0, "witness", "keygen", "--name", "example.org/witness-one", "--out-base", p("wone"))
	runExpect(t, 0, "witness", "keygen", "--name", "example.org/witness-two", "--out-base", p("wtwo"))
	w1URL, _ := startWitnessServeStop(t, "--key", p("wone.key"), "--state", p("w1-state"), "--log", p("log.vkey"))
	w2URL, stopW2 := startWitnessServeStop(t, "--key", p("wtwo.key"), "--state", p("w2-state"), "--log", p("log.vkey"))
	pol := p("witnesses.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", pol, "--key", p("log.vkey"))
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("wone.vkey"), "--url", w1URL)
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w2", "--key", p("wtwo.vkey"), "--url", w2URL)
	runExpect(t, 0, "policy", "tlog", "add-group", pol, "--name", "both", "--threshold", "2", "w1", "w2")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "both")

	// A usage error before anything starts: a deadline longer than a
	// submission may wait.
	e.fail(exitInput, "--witness-timeout 20s: at most", append([]string{"log", "serve", "--key", p("log.key"), "--witness-policy", pol, "--witness-timeout", "20s"}, storeArgs...)...)

	srv := startServe(t, bin, append([]string{"--key", p("log.key"), "--witness-policy", pol, "--witness-timeout", "2s"}, storeArgs...)...)
	bundles := distinctBundles(t, 2)
	files := make([]string, len(bundles))
	for i, b := range bundles {
		files[i] = writeTestFile(t, e.dir, fmt.Sprintf("b%d.json", i), b, 0o644)
	}
	e.run("log", "add", "--server", srv.url, "--log-key", p("log.vkey"), files[0], "-o", p("ref-0.json"))

	pub, _ := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	os.WriteFile(p("one.pub"), pub, 0o644)
	writeTestKey(t, e.dir, "one.key", attesttest.TestOnlyKeyOne())
	runExpect(t, 0, "policy", "init", p("policy.json"), "--id", attesttest.TrustPolicyID, "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2100-01-01T00:00:00.000Z")
	runExpect(t, 0, "policy", "add-signer", p("policy.json"), "--name", "one", "--identity", attesttest.IdentityOne, "--key", p("one.pub"))
	runExpect(t, 0, "policy", "set-transparency", p("policy.json"), pol)
	evalAt := time.Now().UTC().Add(time.Minute).Format("2006-01-02T15:04:05.000Z")
	verify := func(file, ref string) (*canonjson.Value, string) {
		t.Helper()
		runExpect(t, 0, "attest", "sign", file, "--key", p("one.key"), "--identity", attesttest.IdentityOne,
			"--policy-id", attesttest.TrustPolicyID, "--signing-time", attesttest.SigningTime,
			"--claim", "TRANSPARENCY_RECORDED", "--transparency", p(ref), "-o", p(ref+".attested.json"), "--force")
		stdout, _, _ := runCLI(t, "attest", "verify", "--policy", p("policy.json"), "--evaluated-at", evalAt, p(ref+".attested.json"))
		v, err := canonjson.Parse([]byte(stdout))
		if err != nil {
			t.Fatalf("verify output: %v\n%s", err, stdout)
		}
		text, _, _ := runCLI(t, "attest", "verify", "--format", "text", "--policy", p("policy.json"), "--evaluated-at", evalAt, p(ref+".attested.json"))
		return v, text
	}
	res, text := verify(files[0], "ref-0.json")
	if !res.Get("valid").Bool || res.Get("authenticityClassification").Str != "TRANSPARENCY_RECORDED" {
		t.Fatalf("2 of 2 through log serve: %s\n%s\nserver: %s", mustCompact(res), text, srv.log())
	}
	if !strings.Contains(srv.log(), "cosigned by 2 of 2 witness(es) asked (w1, w2)") {
		t.Errorf("server log: %s", srv.log())
	}

	// w2 stopped: the next answer comes within its deadline, with w1's
	// cosignature only.
	stopW2()
	start := time.Now()
	e.run("log", "add", "--server", srv.url, "--log-key", p("log.vkey"), files[1], "-o", p("ref-1.json"))
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("log add --server with a witness down took %v", d)
	}
	res, text = verify(files[1], "ref-1.json")
	if res.Get("valid").Bool || !strings.Contains(text, "cosignatures: 1 of 2 required (w2 missing)") {
		t.Fatalf("quorum without w2: %s\n%s", mustCompact(res), text)
	}
	if log := srv.log(); !strings.Contains(log, "witness w2 gave no cosignature") || !strings.Contains(log, "cosigned by 1 of 2 witness(es) asked (w1)") {
		t.Errorf("server log: %s", log)
	}
	if err := srv.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, srv.log())
	}
}

// TestCLILogProofStorageFlags: 'log proof' and 'log add-cosignature' take
// exactly one of --dir and --mysql.
func TestCLILogProofStorageFlags(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	e.fail(exitInput, "give one of --dir, --s3 and --mysql", "log", "proof", "--index", "0")
	e.fail(exitInput, "give one of --dir, --s3 and --mysql", "log", "proof", "--dir", dir, "--mysql", "env:MCPRES_NO_SUCH_DSN", "--index", "0")
	e.fail(exitInput, "give one of --dir, --s3 and --mysql", "log", "add-cosignature", "--witness-key", e.p("w1.vkey"), e.p("x.cosig"))
	e.fail(exitInput, "the DSN env:MCPRES_NO_SUCH_DSN: the environment variable MCPRES_NO_SUCH_DSN is not set or empty", "log", "proof", "--mysql", "env:MCPRES_NO_SUCH_DSN", "--index", "0")
	// Control: --dir alone is accepted (the log is empty: no entry 0).
	e.fail(exitInput, "proof of entry 0 in "+dir, "log", "proof", "--dir", dir, "--index", "0")
}

// TestCLILogProofMySQL: on a log in MariaDB/MySQL, 'log proof --mysql'
// writes the reference 'log serve' answered, 'log add-cosignature --mysql'
// attaches a witness's cosignature while the server runs (one transaction
// on the checkpoint row), after which both the served checkpoint and 'log
// proof --mysql' carry it; a cosignature of another checkpoint is refused.
func TestCLILogProofMySQL(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	bin := buildBinary(t)
	e := newLogEnv(t)
	t.Setenv("MCPRES_TEST_LOG_DSN", dsn)
	e.run("log", "init", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("log.key"))
	srv := startServe(t, bin, "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("log.key"))
	bundles := distinctBundles(t, 2)
	f0 := writeTestFile(t, e.dir, "b0.json", bundles[0], 0o644)
	f1 := writeTestFile(t, e.dir, "b1.json", bundles[1], 0o644)
	e.run("log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), f0, "-o", e.p("s0.json"))
	e.run("log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), f1, "-o", e.p("s1.json"))

	// The recorded key authenticates the log; the proof is the server's.
	stdout, _ := e.run("log", "proof", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--index", "1")
	if stdout != string(mustRead(t, e.p("s1.json"))) {
		t.Fatalf("log proof --mysql differs from the server's answer:\n%s\n%s", stdout, mustRead(t, e.p("s1.json")))
	}
	e.fail(exitInput, "is not the key of the log in the database", "log", "proof", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--log-key", e.p("other-log.vkey"), "--index", "1")

	// A stale cosignature (of size 1) is refused, the checkpoint unchanged.
	e.run("witness", "cosign", "--log", srv.url, "--log-key", e.p("log.vkey"), "--key", e.p("w1.key"), "--state", e.p("w1.state.json"), "--init", "-o", e.p("w1.cosig"))
	e.run("witness", "cosign", "--log", srv.url, "--log-key", e.p("log.vkey"), "--key", e.p("w2.key"), "--state", e.p("w2.state.json"), "--init", "-o", e.p("w2.cosig"))
	bundles = distinctBundles(t, 3)
	f2 := writeTestFile(t, e.dir, "b2.json", bundles[2], 0o644)
	e.run("log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), f2, "-o", e.p("s2.json"))
	e.fail(exitInvalid, "", "log", "add-cosignature", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--witness-key", e.p("w2.vkey"), e.p("w2.cosig"))
	e.run("witness", "cosign", "--log", srv.url, "--log-key", e.p("log.vkey"), "--key", e.p("w1.key"), "--state", e.p("w1.state.json"), "-o", e.p("w1.cosig"), "--force")
	_, stderr := e.run("log", "add-cosignature", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--witness-key", e.p("w1.vkey"), e.p("w1.cosig"))
	if !strings.Contains(stderr, "at size 3: 1 cosignature(s) added") {
		t.Errorf("add-cosignature: %s", stderr)
	}
	e.run("log", "proof", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--index", "0", "-o", e.p("p0.json"))
	n := checkReference(t, e.p("p0.json"), f0, e.vkey("log"), 0, 3, e.vkey("w1"))
	if len(n.Sigs) != 2 {
		t.Fatalf("proof's checkpoint: %d verified signatures, want the log's and w1's", len(n.Sigs))
	}
	// Tessera's MySQL driver signs the unchanged tree again every second;
	// the cosignatures stay with it.
	time.Sleep(2500 * time.Millisecond)
	resp, err := http.Get(srv.url + "/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(served), "— "+strings.SplitN(e.vkey("w1"), "+", 2)[0]+" ") {
		t.Errorf("served checkpoint without w1's cosignature:\n%s", served)
	}
	p0again, _ := e.run("log", "proof", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--index", "0")
	if p0again != string(mustRead(t, e.p("p0.json"))) {
		t.Errorf("a second later, log proof --mysql gives another reference:\n%s", p0again)
	}
	if err := srv.stop(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// TestCLILogServeRequireQuorum: with a 3-of-3 log quorum and one witness
// down, 'log add --server --require-quorum' exits 1 and writes nothing,
// naming who cosigned and who is missing; without the flag the reference
// is written and its unverified cosignatures named, and attest sign
// --claim TRANSPARENCY_RECORDED warns about it, or with --require-quorum
// refuses it. Once the witness is back, submitting the same bundle again
// is answered "already logged" with a reference the server had
// re-witnessed (only the missing witness asked), which meets the quorum.
func TestCLILogServeRequireQuorum(t *testing.T) {
	if testing.Short() {
		t.Skip("runs log serve and three witnesses; skipped in -short mode")
	}
	bin := buildBinary(t)
	e := newLogEnv(t)
	dir := e.initLog("log")
	p := e.p
	for _, n := range []string{"one", "two", "three"} {
		runExpect(t, 0, "witness", "keygen", "--name", "example.org/witness-"+n, "--out-base", p("w"+n))
	}
	w1URL := startWitnessServe(t, "--key", p("wone.key"), "--state", p("w1-state"), "--log", p("log.vkey"))
	w2URL := startWitnessServe(t, "--key", p("wtwo.key"), "--state", p("w2-state"), "--log", p("log.vkey"))
	w3URL := startWitnessServe(t, "--key", p("wthree.key"), "--state", p("w3-state"), "--log", p("log.vkey"))
	// w3 is reached through a switch: down (503) until it is turned on.
	var up atomic.Bool
	target, _ := url.Parse(w3URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	sw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down for the test", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(sw.Close)
	pol := p("witnesses.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", pol, "--key", p("log.vkey"))
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("wone.vkey"), "--url", w1URL)
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w2", "--key", p("wtwo.vkey"), "--url", w2URL)
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w3", "--key", p("wthree.vkey"), "--url", sw.URL)
	runExpect(t, 0, "policy", "tlog", "add-group", pol, "--name", "every", "--threshold", "3", "w1", "w2", "w3")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "every")

	srv := startServe(t, bin, "--dir", dir, "--key", p("log.key"), "--witness-policy", pol, "--witness-timeout", "2s")
	b := writeTestFile(t, e.dir, "b.json", distinctBundles(t, 1)[0], 0o644)
	add := func(extra ...string) []string {
		return append([]string{"log", "add", "--server", srv.url, "--log-key", p("log.vkey"), b}, extra...)
	}

	stderr := e.fail(exitInvalid, "cosigned by 2 of 3: w1, w2; missing: w3; quorum every not satisfied", add("--require-quorum", pol, "-o", p("ref-q.json"))...)
	if !strings.Contains(stderr, "logged as entry 0 of "+testLogOrigin) || !strings.Contains(stderr, "nothing written") {
		t.Errorf("stderr %s", stderr)
	}
	if _, err := os.Stat(p("ref-q.json")); err == nil {
		t.Fatal("a reference that fails the quorum was written")
	}
	// Without --require-quorum: written, its cosignatures named unverified;
	// the bundle is already in the log.
	_, stderr = e.run(add("-o", p("ref-2.json"))...)
	if !strings.Contains(stderr, "already logged as entry 0") || !strings.Contains(stderr, "carries 2 cosignature(s), not verified here: example.org/witness-one+") {
		t.Errorf("without --require-quorum: %s", stderr)
	}
	// attest sign: a warning, or with --require-quorum a refusal.
	writeTestKey(t, e.dir, "one.key", attesttest.TestOnlyKeyOne())
	sign := func(ref string, extra ...string) []string {
		return append([]string{"attest", "sign", b, "--key", p("one.key"), "--identity", attesttest.IdentityOne, "--policy-id", attesttest.TrustPolicyID,
			"--signing-time", attesttest.SigningTime, "--claim", "TRANSPARENCY_RECORDED", "--transparency", p(ref), "--force"}, extra...)
	}
	_, stderr = e.run(sign("ref-2.json", "-o", p("signed.json"))...)
	if !strings.Contains(stderr, "warning: "+p("ref-2.json")+": --claim TRANSPARENCY_RECORDED: the transparency reference's checkpoint carries 2 cosignature(s)") {
		t.Errorf("attest sign without --require-quorum: %s", stderr)
	}
	e.fail(exitInvalid, "does not satisfy the required witness quorum: cosigned by 2 of 3: w1, w2; missing: w3", sign("ref-2.json", "--require-quorum", pol, "-o", p("signed-q.json"))...)
	if _, err := os.Stat(p("signed-q.json")); err == nil {
		t.Fatal("attest sign --require-quorum signed an under-cosigned reference")
	}
	e.fail(exitInput, "--require-quorum goes with --transparency", "attest", "sign", b, "--key", p("one.key"), "--identity", "i", "--policy-id", "p", "--require-quorum", pol, "-o", p("x.json"))

	// w3 back: the same submission is re-witnessed by the server.
	up.Store(true)
	_, stderr = e.run(add("--require-quorum", pol, "-o", p("ref-3.json"))...)
	if !strings.Contains(stderr, "already logged as entry 0") || !strings.Contains(stderr, "cosigned by 3 of 3: w1, w2, w3; quorum every satisfied") {
		t.Errorf("after w3 is back: %s\nserver: %s", stderr, srv.log())
	}
	// The server asked w3 again for the entry already logged. The round
	// that got w3's cosignature may be the server's own witnessing of the
	// checkpoint rather than the resubmission's (which then finds w3's
	// cosignature attached), and it may log after the answer is sent:
	// wait for its line, at most 10 s.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		log := srv.log()
		if strings.Contains(log, "again, for an entry already logged") && strings.Contains(log, "cosigned by 1 of 1 witness(es) asked (w3); already cosigned by w1, w2") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("server log: %s", log)
			break
		}
	}
	_, stderr = e.run(sign("ref-3.json", "--require-quorum", pol, "-o", p("signed-3.json"))...)
	if !strings.Contains(stderr, "cosigned by 3 of 3") || strings.Contains(stderr, "warning") {
		t.Errorf("attest sign --require-quorum, re-witnessed: %s", stderr)
	}
	// A tlog policy that does not trust this log refuses too.
	other := p("other-policy.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", other, "--key", p("other-log.vkey"))
	runExpect(t, 0, "policy", "tlog", "set-quorum", other, "none")
	e.fail(exitInvalid, "does not verify against the tlog policy", add("--require-quorum", other, "-o", p("ref-4.json"))...)
	if err := srv.stop(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}
