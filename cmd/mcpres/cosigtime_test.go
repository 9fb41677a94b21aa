package main

import (
	"context"
	"crypto/ed25519"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
	"github.com/mcpres/mcpres/witness/witnesshttp"
)

// startClockWitness serves a C2SP tlog-witness (package witnesshttp) on
// 127.0.0.1 with the witness key file skey, for the log key vkey, whose
// clock reads now(): it signs correctly, dated now().
func startClockWitness(t *testing.T, skey, vkey string, now func() time.Time) string {
	t.Helper()
	ws, err := signednote.ParseWitnessSigner(strings.TrimSpace(readFile(t, skey)))
	if err != nil {
		t.Fatal(err)
	}
	lv, err := signednote.ParseLogVerifier(strings.TrimSpace(readFile(t, vkey)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := witnesshttp.New(ws, []*signednote.Verifier{lv}, t.TempDir(), now, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPServer("").Handler)
	t.Cleanup(srv.Close)
	return srv.URL
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// aYearAhead is the clock of a witness that dates its cosignatures a year
// in the future.
func aYearAhead() time.Time { return time.Now().AddDate(1, 0, 0) }

// TestCLIFutureCosignature: one time rule for a witness's cosignature at
// logging, signing and verifying time. A witness (wf) that signs
// correctly but dates its cosignature a year ahead:
//
//   - at logging time, 'log add --dir --witness-policy' does not attach it
//     and says which witness and why, and with --require-quorum exits 1
//     and writes no reference (wf missing); the honest witness (w1) is
//     attached and counted (control);
//   - a reference whose checkpoint does carry wf's cosignature (attached
//     behind the log's back) is refused by 'log proof --require-quorum'
//     and 'attest sign --require-quorum' (exit 1, nothing written), naming
//     wf and its date; with a quorum of w1 alone both succeed (control);
//   - at verifying time, 'attest verify' does not count it now, and counts
//     it two years later (control: only its date was wrong).
func TestCLIFutureCosignature(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	p := e.p
	w1URL := startClockWitness(t, p("w1.key"), p("log.vkey"), time.Now)
	wfURL := startClockWitness(t, p("w2.key"), p("log.vkey"), aYearAhead)
	pol, pol1 := p("both.txt"), p("w1-only.txt")
	for _, f := range []string{pol, pol1} {
		runExpect(t, 0, "policy", "tlog", "add-log", f, "--key", p("log.vkey"))
		runExpect(t, 0, "policy", "tlog", "add-witness", f, "--name", "w1", "--key", p("w1.vkey"), "--url", w1URL)
		runExpect(t, 0, "policy", "tlog", "add-witness", f, "--name", "wf", "--key", p("w2.vkey"), "--url", wfURL)
	}
	runExpect(t, 0, "policy", "tlog", "add-group", pol, "--name", "both", "--threshold", "2", "w1", "wf")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "both")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol1, "w1")
	b := writeTestFile(t, e.dir, "b.json", distinctBundles(t, 1)[0], 0o644)

	// Logging time.
	stderr := e.fail(exitInvalid, "cosigned by 1 of 2: w1; missing: wf; quorum both not satisfied",
		"log", "add", "--dir", dir, "--key", p("log.key"), "--witness-policy", pol, "--require-quorum", pol, b, "-o", p("ref-q.json"))
	for _, want := range []string{
		"warning: witness wf gave a cosignature that does not count, not attached (POST " + wfURL + "/add-checkpoint): cosignature of wf dated ",
		" is not counted: dated after the evaluation time ",
		"cosigned by 1 of 2 witness(es) asked (w1)",
		"nothing written",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("log add --require-quorum: want %q in\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(p("ref-q.json")); err == nil {
		t.Fatal("log add --require-quorum wrote a reference whose quorum is unmet")
	}
	// Control: the honest witness counts, for a quorum of w1.
	out := runExpect(t, 0, "log", "proof", "--dir", dir, "--index", "0", "--witness-policy", pol, "--require-quorum", pol1, "-o", p("ref-w1.json"))
	if !strings.Contains(out, "cosigned by 1 of 2: w1; missing: wf; quorum w1 satisfied") || !strings.Contains(out, "witness wf gave a cosignature that does not count") {
		t.Errorf("log proof, quorum w1: %s", out)
	}

	// wf's cosignature attached behind the log's back.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lv, _ := signednote.ParseLogVerifier(e.vkey("log"))
	wfv, _ := signednote.ParseWitnessVerifier(e.vkey("w2"))
	wf, _ := signednote.ParseWitnessSigner(strings.TrimSpace(readFile(t, p("w2.key"))))
	if _, err := tlog.Open(posix.New(dir), lv).UpdateCheckpoint(ctx, func(cp *signednote.Checkpoint) ([]byte, error) {
		c, err := witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp.Note}, lv, wf, nil, aYearAhead())
		if err != nil {
			return nil, err
		}
		a, err := witness.Attach(cp.Note, lv, []*signednote.Verifier{wfv}, []witness.CosignatureInput{{Source: "wf", Data: c.Line}})
		if err != nil {
			return nil, err
		}
		return a.Checkpoint, nil
	}); err != nil {
		t.Fatal(err)
	}
	stderr = e.fail(exitInvalid, "not counted: wf (cosigned ", "log", "proof", "--dir", dir, "--index", "0", "--require-quorum", pol, "-o", p("ref-f.json"))
	if !strings.Contains(stderr, ": dated after the evaluation time ") || !strings.Contains(stderr, "quorum both not satisfied") || !strings.Contains(stderr, "nothing written") {
		t.Errorf("log proof --require-quorum: %s", stderr)
	}
	if _, err := os.Stat(p("ref-f.json")); err == nil {
		t.Fatal("log proof --require-quorum wrote a reference whose quorum is unmet")
	}
	runExpect(t, 0, "log", "proof", "--dir", dir, "--index", "0", "-o", p("ref-f.json"))

	// Signing time.
	writeTestKey(t, e.dir, "one.key", attesttest.TestOnlyKeyOne())
	sign := func(out string, extra ...string) []string {
		return append([]string{"attest", "sign", b, "--key", p("one.key"), "--identity", attesttest.IdentityOne, "--policy-id", attesttest.TrustPolicyID,
			"--signing-time", attesttest.SigningTime, "--claim", "TRANSPARENCY_RECORDED", "--transparency", p("ref-f.json"), "-o", p(out)}, extra...)
	}
	stderr = e.fail(exitInvalid, "does not satisfy the required witness quorum", sign("signed-q.json", "--require-quorum", pol)...)
	if !strings.Contains(stderr, "cosigned by 1 of 2: w1; missing: wf; not counted: wf (cosigned ") || !strings.Contains(stderr, ": dated after the evaluation time ") {
		t.Errorf("attest sign --require-quorum: %s", stderr)
	}
	if _, err := os.Stat(p("signed-q.json")); err == nil {
		t.Fatal("attest sign --require-quorum signed a reference whose quorum is unmet")
	}
	out = runExpect(t, 0, sign("signed-w1.json", "--require-quorum", pol1)...)
	if !strings.Contains(out, "quorum w1 satisfied") {
		t.Errorf("attest sign --require-quorum, quorum w1: %s", out)
	}

	// Verifying time: the same rule, unchanged.
	runExpect(t, 0, sign("signed.json")...)
	pub, _ := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	writeTestFile(t, e.dir, "one.pub", pub, 0o644)
	runExpect(t, 0, "policy", "init", p("policy.json"), "--id", attesttest.TrustPolicyID, "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2100-01-01T00:00:00.000Z")
	runExpect(t, 0, "policy", "add-signer", p("policy.json"), "--name", "one", "--identity", attesttest.IdentityOne, "--key", p("one.pub"))
	runExpect(t, 0, "policy", "set-transparency", p("policy.json"), pol)
	verify := func(at time.Time) (string, int) {
		stdout, _, code := runCLI(t, "attest", "verify", "--format", "text", "--policy", p("policy.json"), "--evaluated-at", at.UTC().Format("2006-01-02T15:04:05.000Z"), p("signed.json"))
		return stdout, code
	}
	if text, code := verify(time.Now()); code != exitInvalid || !strings.Contains(text, "dated after the evaluation time") {
		t.Errorf("attest verify now: exit %d\n%s", code, text)
	}
	if text, code := verify(time.Now().AddDate(2, 0, 0)); code != 0 || !strings.Contains(text, "TRANSPARENCY_RECORDED") {
		t.Errorf("attest verify two years later: exit %d\n%s", code, text)
	}
}

// TestCLILogServeFutureCosignature: 'log serve' does not attach the
// cosignature of a witness that dates it a year ahead, and logs which
// witness and why; 'log add --server --require-quorum' then exits 1,
// writes nothing and names it missing. Control: the honest witness's
// cosignature is attached and satisfies a quorum of it alone.
func TestCLILogServeFutureCosignature(t *testing.T) {
	if testing.Short() {
		t.Skip("runs log serve; skipped in -short mode")
	}
	bin := buildBinary(t)
	e := newLogEnv(t)
	dir := e.initLog("log")
	p := e.p
	w1URL := startClockWitness(t, p("w1.key"), p("log.vkey"), time.Now)
	wfURL := startClockWitness(t, p("w2.key"), p("log.vkey"), aYearAhead)
	pol, pol1 := p("both.txt"), p("w1-only.txt")
	for _, f := range []string{pol, pol1} {
		runExpect(t, 0, "policy", "tlog", "add-log", f, "--key", p("log.vkey"))
		runExpect(t, 0, "policy", "tlog", "add-witness", f, "--name", "w1", "--key", p("w1.vkey"), "--url", w1URL)
		runExpect(t, 0, "policy", "tlog", "add-witness", f, "--name", "wf", "--key", p("w2.vkey"), "--url", wfURL)
	}
	runExpect(t, 0, "policy", "tlog", "add-group", pol, "--name", "both", "--threshold", "2", "w1", "wf")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "both")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol1, "w1")
	srv := startServe(t, bin, "--dir", dir, "--key", p("log.key"), "--witness-policy", pol, "--witness-timeout", "2s")
	b := writeTestFile(t, e.dir, "b.json", distinctBundles(t, 1)[0], 0o644)
	add := func(extra ...string) []string {
		return append([]string{"log", "add", "--server", srv.url, "--log-key", p("log.vkey"), b}, extra...)
	}
	e.fail(exitInvalid, "cosigned by 1 of 2: w1; missing: wf; quorum both not satisfied", add("--require-quorum", pol, "-o", p("ref-q.json"))...)
	if _, err := os.Stat(p("ref-q.json")); err == nil {
		t.Fatal("log add --server --require-quorum wrote a reference whose quorum is unmet")
	}
	if log := srv.log(); !strings.Contains(log, "warning: witness wf gave a cosignature that does not count, not attached (POST "+wfURL+"/add-checkpoint): cosignature of wf dated ") ||
		!strings.Contains(log, "cosigned by 1 of 2 witness(es) asked (w1)") {
		t.Errorf("server log: %s", log)
	}
	_, stderr := e.run(add("--require-quorum", pol1, "-o", p("ref-w1.json"))...)
	if !strings.Contains(stderr, "already logged as entry 0") || !strings.Contains(stderr, "cosigned by 1 of 2: w1; missing: wf; quorum w1 satisfied") {
		t.Errorf("quorum w1: %s", stderr)
	}
	if err := srv.stop(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// TestCLILogAddCosignatureFuture: 'log add-cosignature' refuses a
// correctly signed cosignature dated a year ahead (exit 1, naming the
// witness key and the date) and leaves the checkpoint as it was; the same
// witness's cosignature dated now is attached (control).
func TestCLILogAddCosignatureFuture(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	p := e.p
	b := writeTestFile(t, e.dir, "b.json", distinctBundles(t, 1)[0], 0o644)
	e.run("log", "add", "--dir", dir, "--key", p("log.key"), b, "-o", p("ref.json"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lv, _ := signednote.ParseLogVerifier(e.vkey("log"))
	cp, err := tlog.Open(posix.New(dir), lv).Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := signednote.ParseWitnessSigner(strings.TrimSpace(readFile(t, p("w2.key"))))
	cosign := func(name string, at time.Time) string {
		c, err := witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp.Note}, lv, w, nil, at)
		if err != nil {
			t.Fatal(err)
		}
		return writeTestFile(t, e.dir, name, c.Line, 0o644)
	}
	ahead := cosign("ahead.cosig", aYearAhead())
	stderr := e.fail(exitInvalid, ahead+": cosignature of example.org/witness-2 dated ", "log", "add-cosignature", "--dir", dir, "--witness-key", p("w2.vkey"), ahead)
	if !strings.Contains(stderr, " is not counted: dated after the evaluation time ") {
		t.Errorf("log add-cosignature: %s", stderr)
	}
	if now, err := tlog.Open(posix.New(dir), lv).Checkpoint(ctx); err != nil || now.Text != cp.Text || string(now.Note) != string(cp.Note) {
		t.Fatalf("the checkpoint changed: %v", err)
	}
	_, stderr = e.run("log", "add-cosignature", "--dir", dir, "--witness-key", p("w2.vkey"), cosign("now.cosig", time.Now()))
	if !strings.Contains(stderr, "1 cosignature(s) added") {
		t.Errorf("control: %s", stderr)
	}
}
