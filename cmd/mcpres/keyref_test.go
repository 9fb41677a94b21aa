package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/internal/doctest"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/keyreftest"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/server"
	"golang.org/x/crypto/ssh"
)

// buildPKCS11Helper builds cmd/mcpres-pkcs11 into a temporary directory
// and points $MCPRES_PKCS11_HELPER at it for the rest of the test.
func buildPKCS11Helper(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not available to build mcpres-pkcs11")
	}
	bin := filepath.Join(t.TempDir(), "mcpres-pkcs11")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/mcpres/mcpres/cmd/mcpres-pkcs11").CombinedOutput(); err != nil {
		t.Fatalf("building mcpres-pkcs11: %v\n%s", err, out)
	}
	t.Setenv(keyref.HelperEnv, bin)
	return bin
}

// signAndVerify signs the example bundle with key (a reference) and
// verifies it against pub with identity: SIGNED_WITH_IDENTITY.
func signAndVerify(t *testing.T, dir, key, pub string) {
	t.Helper()
	b := exampleBundleFile(t, dir)
	out := filepath.Join(dir, "bundle.attested.json")
	runExpect(t, 0, "attest", "sign", b, "--key", key, "--identity", attesttest.IdentityOne,
		"--policy-id", attesttest.TrustPolicyID, "-o", out, "--force")
	got := runExpect(t, 0, "attest", "verify", out, "--key", pub, "--identity", attesttest.IdentityOne, "--format", "text")
	if !strings.Contains(got, "SIGNED_WITH_IDENTITY") {
		t.Fatalf("attest verify: %s", got)
	}
}

// refused runs a command that must exit 2 naming want on stderr, write
// nothing to out and never show secret.
func refused(t *testing.T, out, want, secret string, args ...string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, args...)
	if code != exitInput || !strings.Contains(stderr, want) {
		t.Fatalf("mcpres %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(args, " "), code, stderr, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("mcpres %s wrote %s", strings.Join(args, " "), out)
	}
	if secret != "" && strings.Contains(stdout+stderr, secret) {
		t.Fatalf("mcpres %s shows the secret %q: %s", strings.Join(args, " "), secret, stderr)
	}
}

// TestCLIPKCS11: a key generated in a SoftHSM2 token by pkcs11-tool is
// used through its pkcs11: URI: key public and key fingerprint give the
// key pkcs11-tool exports, attest sign makes an envelope attest verify
// takes at SIGNED_WITH_IDENTITY, a wrong PIN and an ECDSA key exit 2 and
// write nothing, and log serve signs checkpoints with a token key that
// log add --server --log-key accepts.
func TestCLIPKCS11(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	buildPKCS11Helper(t)
	tok.Generate(t, "EC:edwards25519", "release", "01")
	tok.Generate(t, "EC:edwards25519", "checkpoints", "02")
	tok.Generate(t, "EC:prime256v1", "ecdsa", "03")
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	uri := tok.URI("release")

	runExpect(t, 0, "key", "public", uri, "-o", p("release.pub"))
	got, _ := os.ReadFile(p("release.pub"))
	exported := tok.PublicPEM(t, "release")
	if !bytes.Equal(got, exported) {
		t.Fatalf("key public wrote\n%s\npkcs11-tool exported\n%s", got, exported)
	}
	os.WriteFile(p("exported.pub"), exported, 0o644)
	fpURI := runExpect(t, 0, "key", "fingerprint", uri)
	fpFile := runExpect(t, 0, "key", "fingerprint", p("exported.pub"))
	if fpURI != fpFile || len(strings.TrimSpace(fpURI)) != 64 {
		t.Fatalf("key fingerprint: %q of the URI, %q of the exported key", fpURI, fpFile)
	}
	signAndVerify(t, dir, uri, p("exported.pub"))

	// A policy's signer from the token.
	runExpect(t, 0, "policy", "init", p("policy.json"), "--id", attesttest.TrustPolicyID, "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2100-01-01T00:00:00.000Z")
	runExpect(t, 0, "policy", "add-signer", p("policy.json"), "--name", "release", "--identity", attesttest.IdentityOne, "--key", uri)
	spki := strings.Split(string(exported), "\n")[1] // the one base64 line of the SPKI PEM
	if pol, _ := os.ReadFile(p("policy.json")); !bytes.Contains(pol, []byte(`"publicKey": "`+spki+`"`)) {
		t.Fatalf("policy add-signer --key URI: %s", pol)
	}

	wrongPIN := p("wrong-pin")
	os.WriteFile(wrongPIN, []byte("86420\n"), 0o600)
	b := exampleBundleFile(t, dir)
	bad := "pkcs11:token=mcpres;object=release?module-path=" + tok.Module + "&pin-source=" + wrongPIN
	refused(t, p("wrong.json"), "PKCS#11 PIN incorrect", "86420", "attest", "sign", b, "--key", bad, "--identity", "x", "--policy-id", "p", "-o", p("wrong.json"))
	refused(t, p("wrong.json"), "PKCS#11 PIN incorrect", "86420", "attest", "sign", b, "--key", "pkcs11:token=mcpres;object=release?module-path="+tok.Module+"&pin-value=86420", "--identity", "x", "--policy-id", "p", "-o", p("wrong.json"))
	refused(t, p("wrong.json"), "is an ECDSA key", "", "attest", "sign", b, "--key", tok.URI("ecdsa"), "--identity", "x", "--policy-id", "p", "-o", p("wrong.json"))
	refused(t, p("wrong.json"), "no token of module", "", "attest", "sign", b, "--key", strings.Replace(uri, "token=mcpres", "token=absent", 1), "--identity", "x", "--policy-id", "p", "-o", p("wrong.json"))
	refused(t, p("wrong.json"), "PKCS#11 module: /nonexistent.so: not found", "", "attest", "sign", b, "--key", "pkcs11:object=release?module-path=/nonexistent.so", "--identity", "x", "--policy-id", "p", "-o", p("wrong.json"))
	helper := os.Getenv(keyref.HelperEnv)
	t.Setenv(keyref.HelperEnv, p("absent"))
	refused(t, p("wrong.json"), "no PKCS#11 support: starting the PKCS#11 helper", "", "attest", "sign", b, "--key", uri, "--identity", "x", "--policy-id", "p", "-o", p("wrong.json"))
	t.Setenv(keyref.HelperEnv, helper)

	// The log: init, vkey, serve with the token key.
	origin := testLogOrigin
	logKey := tok.URI("checkpoints")
	e := &logEnv{t: t, dir: dir}
	refused(t, p("log"), "give the log's with --origin", "", "log", "init", "--dir", p("log"), "--key", logKey)
	stdout, _ := e.run("log", "init", "--dir", p("log"), "--key", logKey, "--origin", origin)
	vkey, _ := e.run("log", "vkey", "--key", logKey, "--origin", origin)
	if vkey != stdout || !strings.HasPrefix(vkey, origin+"+") {
		t.Fatalf("log vkey %q, log init printed %q", vkey, stdout)
	}
	if _, err := signednote.ParseLogVerifier(strings.TrimSpace(vkey)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p("log.vkey"), []byte(vkey), 0o644)
	srv := startServe(t, buildBinary(t), "--dir", p("log"), "--key", logKey, "--origin", origin)
	b1, b2 := exampleBundleFile(t, dir), variantBundleFile(t, dir)
	e.run("log", "add", "--server", srv.url, "--log-key", p("log.vkey"), b1, "-o", p("ref1.json"))
	checkReference(t, p("ref1.json"), b1, strings.TrimSpace(vkey), 0, 1)

	// The token goes away (its store moved aside): 503 at once; back: served.
	tokens := filepath.Join(tok.Dir, "tokens")
	if err := os.Rename(tokens, tokens+".away"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(server.ProbeInterval) // the log notices within that
	body, _ := os.ReadFile(b2)
	if code, answer := postBody(t, srv.url+"/add", "application/json", body); code != http.StatusServiceUnavailable || !strings.Contains(answer, "signing key is unavailable") {
		t.Fatalf("log serve with the token gone: %d %s\n%s", code, answer, srv.log())
	}
	if err := os.Rename(tokens+".away", tokens); err != nil {
		t.Fatal(err)
	}
	e.run("log", "add", "--server", srv.url, "--log-key", p("log.vkey"), b2, "-o", p("ref2.json"))
	checkReference(t, p("ref2.json"), b2, strings.TrimSpace(vkey), 1, 2)
	if err := srv.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, srv.log())
	}
	b3 := osVariantBundleFile(t, dir, "openbsd")
	e.run("log", "add", "--dir", p("log"), "--key", logKey, "--origin", origin, b3, "-o", p("ref3.json"))
	checkReference(t, p("ref3.json"), b3, strings.TrimSpace(vkey), 2, 3)
}

// TestCLISSHAgent: a key of a real ssh-agent is used through
// ssh-agent:SHA256:…: key public gives the key of ssh-keygen's .pub file,
// attest sign makes an envelope attest verify takes at
// SIGNED_WITH_IDENTITY, and a key not in the agent, an ECDSA key or no
// agent exit 2 and write nothing.
func TestCLISSHAgent(t *testing.T) {
	ag := keyreftest.SSHAgent(t)
	sk := ag.AddNew(t, "ed25519")
	t.Setenv(keyref.EnvSSHAuthSock, ag.Sock)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }

	runExpect(t, 0, "key", "public", sk.Ref(), "-o", p("agent.pub"))
	data, _ := os.ReadFile(p("agent.pub"))
	pub, err := keyfile.ParsePublicKeyPEM(data)
	if err != nil {
		t.Fatal(err)
	}
	authorized, _ := os.ReadFile(sk.File + ".pub")
	pk, _, _, _, err := ssh.ParseAuthorizedKey(authorized)
	if err != nil {
		t.Fatal(err)
	}
	if want := pk.(ssh.CryptoPublicKey).CryptoPublicKey().(ed25519.PublicKey); !pub.Equal(want) {
		t.Fatalf("key public %x, ssh-keygen's key %x", pub, want)
	}
	signAndVerify(t, dir, sk.Ref(), p("agent.pub"))

	b := exampleBundleFile(t, dir)
	absent := ag.NewKey(t, "ed25519")
	ec := ag.AddNew(t, "ecdsa")
	sign := func(key string) []string {
		return []string{"attest", "sign", b, "--key", key, "--identity", "x", "--policy-id", "p", "-o", p("wrong.json")}
	}
	refused(t, p("wrong.json"), "key not in the ssh-agent", "", sign(absent.Ref())...)
	refused(t, p("wrong.json"), "it is ecdsa-sha2-nistp256", "", sign(ec.Ref())...)
	refused(t, p("wrong.json"), "malformed key reference", "", sign("ssh-agent:SHA256:short")...)
	t.Setenv(keyref.EnvSSHAuthSock, p("no-agent.sock"))
	refused(t, p("wrong.json"), "ssh-agent not reachable", "", sign(sk.Ref())...)
}

// post POSTs body to url and returns the status.
func post(t *testing.T, url, contentType string, body []byte) int {
	t.Helper()
	code, _ := postBody(t, url, contentType, body)
	return code
}

// postBody POSTs body to url and returns the status and the answer.
func postBody(t *testing.T, url, contentType string, body []byte) (int, string) {
	t.Helper()
	resp, err := http.Post(url, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(answer)
}

// TestCLIServeKeyUnavailable: log serve and witness serve whose keys are
// in an ssh-agent answer 503 while the agent is gone, and serve again once
// an agent holding the key answers on the socket.
func TestCLIServeKeyUnavailable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs log serve and witness serve; skipped in -short mode")
	}
	ag := keyreftest.SSHAgent(t)
	lk, wk := ag.AddNew(t, "ed25519"), ag.AddNew(t, "ed25519")
	t.Setenv(keyref.EnvSSHAuthSock, ag.Sock)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	e := &logEnv{t: t, dir: dir}
	origin := testLogOrigin
	vkey, _ := e.run("log", "init", "--dir", p("log"), "--key", lk.Ref(), "--origin", origin)
	os.WriteFile(p("log.vkey"), []byte(vkey), 0o644)
	srv := startServe(t, buildBinary(t), "--dir", p("log"), "--key", lk.Ref(), "--origin", origin)
	files := make([]string, 3)
	for i, b := range distinctBundles(t, 3) {
		files[i] = writeTestFile(t, dir, "b"+string(rune('0'+i))+".json", b, 0o644)
	}
	e.run("log", "add", "--server", srv.url, "--log-key", p("log.vkey"), files[0], "-o", p("ref0.json"))

	wname := "example.org/agent-witness"
	wvkey, _ := e.run("witness", "vkey", "--key", wk.Ref(), "--name", wname)
	wURL, _ := startWitnessServeStop(t, "--key", wk.Ref(), "--name", wname, "--state", p("wstate"), "--log", p("log.vkey"))
	cp, err := os.ReadFile(filepath.Join(p("log"), "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	if code := post(t, wURL+"/add-checkpoint", "text/plain", append([]byte("old 0\n\n"), cp...)); code != http.StatusOK {
		t.Fatalf("witness add-checkpoint: %d", code)
	}
	again := append([]byte("old 1\n\n"), cp...)

	ag.Stop()
	time.Sleep(server.ProbeInterval) // the log notices within that
	body, _ := os.ReadFile(files[1])
	for range 2 {
		// At once, not after a wait for a checkpoint that cannot be signed.
		if code, answer := postBody(t, srv.url+"/add", "application/json", body); code != http.StatusServiceUnavailable || !strings.Contains(answer, "signing key is unavailable") {
			t.Fatalf("log serve with the agent gone: %d %s, want 503 naming the key\n%s", code, answer, srv.log())
		}
	}
	if resp, err := http.Get(srv.url + "/healthz"); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("healthz with the agent gone: %v %v", resp, err)
	}
	if code := post(t, wURL+"/add-checkpoint", "text/plain", again); code != http.StatusServiceUnavailable {
		t.Fatalf("witness serve with the agent gone: %d, want 503", code)
	}

	ag.Start(t)
	ag.Add(t, lk)
	ag.Add(t, wk)
	// The client retries 503 (honouring Retry-After) until the key is back.
	e.run("log", "add", "--server", srv.url, "--log-key", p("log.vkey"), files[2], "-o", p("ref2.json"))
	checkReference(t, p("ref2.json"), files[2], strings.TrimSpace(vkey), 1, 2)
	if code := post(t, wURL+"/add-checkpoint", "text/plain", again); code != http.StatusOK {
		t.Fatalf("witness serve with the agent back: %d, want 200", code)
	}
	if _, err := signednote.ParseWitnessVerifier(strings.TrimSpace(wvkey)); err != nil {
		t.Fatal(err)
	}
}

// TestDocsKeysMoveLogKey runs the commands of docs/keys.md that move a
// signed-note log key into a token: the token's key then has the log's
// verifier key, so no tlog policy changes.
func TestDocsKeysMoveLogKey(t *testing.T) {
	for _, prog := range []string{"bash", "openssl", "shred", "base64"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed", prog)
		}
	}
	tok := keyreftest.SoftHSM(t, "release")
	buildPKCS11Helper(t)
	bin := buildBinary(t)
	doc := string(mustRead(t, filepath.Join("..", "..", "docs", "keys.md")))
	block := doctest.Block(t, doc, "### A signed-note log or witness key", "sh")
	dir := t.TempDir()
	runExpect(t, 0, "log", "keygen", "--origin", testLogOrigin, "--out-base", filepath.Join(dir, "log"))
	cmd := exec.Command("bash", "-e", "-c", block)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PIN="+keyreftest.TestOnlyPIN, "MCPRES_PKCS11_PIN="+keyreftest.TestOnlyPIN,
		"MCPRES_PKCS11_MODULE="+tok.Module, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the commands of docs/keys.md: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "log.vkey"))
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") // softhsm2-util talks on stdout too
	if got := lines[len(lines)-1] + "\n"; got != string(want) {
		t.Fatalf("log vkey of the token's key %q, log.vkey %q", got, want)
	}
	for _, f := range []string{"log.der", "log.pem"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s is left behind", f)
		}
	}
}
