// Package keyreftest starts the real key holders the tests of key
// references use: a SoftHSM2 token in a temporary SOFTHSM2_CONF directory
// (keys made with OpenSC's pkcs11-tool or imported with softhsm2-util)
// and an OpenSSH ssh-agent on a socket in the test's temporary folder.
// Each skips the test, saying which Debian package is missing (softhsm2,
// opensc, openssh-client), when its programs are not installed. No mock
// stands in for either.
package keyreftest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// SoftHSMModule is where Debian's softhsm2 puts its PKCS#11 module.
const SoftHSMModule = "/usr/lib/softhsm/libsofthsm2.so"

// TestOnlyPIN and TestOnlySOPIN are the PINs of every test token.
const (
	TestOnlyPIN   = "1234"
	TestOnlySOPIN = "5678"
)

// A Token is an initialised SoftHSM2 token. Its SOFTHSM2_CONF is set in
// the test's environment (t.Setenv: the test cannot be parallel).
type Token struct {
	Dir, Conf, Label, Module string
	// PINFile holds TestOnlyPIN and a newline.
	PINFile string
}

func need(t testing.TB, prog, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		t.Skipf("%s is not installed (Debian package %s; .ci/run installs it): skipping the test that needs it", prog, pkg)
	}
	return p
}

// SoftHSM initialises a token labelled label in a new SoftHSM2 store.
func SoftHSM(t testing.TB, label string) *Token {
	t.Helper()
	need(t, "softhsm2-util", "softhsm2")
	need(t, "pkcs11-tool", "opensc")
	if _, err := os.Stat(SoftHSMModule); err != nil {
		t.Skipf("%s is missing (Debian package softhsm2): skipping", SoftHSMModule)
	}
	dir := t.TempDir()
	tok := &Token{Dir: dir, Conf: filepath.Join(dir, "softhsm2.conf"), Label: label, Module: SoftHSMModule, PINFile: filepath.Join(dir, "pin")}
	if err := os.MkdirAll(filepath.Join(dir, "tokens"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n", filepath.Join(dir, "tokens"))
	if err := os.WriteFile(tok.Conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tok.PINFile, []byte(TestOnlyPIN+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOFTHSM2_CONF", tok.Conf)
	tok.run(t, "softhsm2-util", "--init-token", "--free", "--label", label, "--pin", TestOnlyPIN, "--so-pin", TestOnlySOPIN)
	return tok
}

func (tok *Token) run(t testing.TB, prog string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), "SOFTHSM2_CONF="+tok.Conf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return out
}

// Tool runs pkcs11-tool on the token, logged in.
func (tok *Token) Tool(t testing.TB, args ...string) []byte {
	t.Helper()
	return tok.run(t, "pkcs11-tool", append([]string{"--module", tok.Module, "--token-label", tok.Label, "--login", "--pin", TestOnlyPIN}, args...)...)
}

// Generate makes a key pair in the token with pkcs11-tool --keypairgen:
// keyType is pkcs11-tool's (EC:edwards25519, EC:prime256v1, rsa:2048).
func (tok *Token) Generate(t testing.TB, keyType, label, id string) {
	t.Helper()
	tok.Tool(t, "--keypairgen", "--key-type", keyType, "--label", label, "--id", id)
}

// PublicPEM exports the public key object labelled label with pkcs11-tool
// (SPKI PEM), as a person would.
func (tok *Token) PublicPEM(t testing.TB, label string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pub.pem")
	tok.run(t, "pkcs11-tool", "--module", tok.Module, "--token-label", tok.Label, "--read-object", "--type", "pubkey", "--label", label, "-o", out)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// PublicKey is PublicPEM parsed.
func (tok *Token) PublicKey(t testing.TB, label string) ed25519.PublicKey {
	t.Helper()
	block, _ := pem.Decode(tok.PublicPEM(t, label))
	if block == nil {
		t.Fatal("pkcs11-tool wrote no PEM")
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		t.Fatalf("pkcs11-tool exported a %T", k)
	}
	return pub
}

// Import imports a PKCS#8 PEM private key file into the token with
// softhsm2-util --import (the public key object is created beside it).
func (tok *Token) Import(t testing.TB, pemFile, label, id string) {
	t.Helper()
	tok.run(t, "softhsm2-util", "--import", pemFile, "--token", tok.Label, "--label", label, "--id", id, "--pin", TestOnlyPIN)
}

// URI is the pkcs11: reference of the key labelled object, with the
// module and the PIN file in its query.
func (tok *Token) URI(object string) string {
	return fmt.Sprintf("pkcs11:token=%s;object=%s?module-path=%s&pin-source=%s", tok.Label, object, tok.Module, tok.PINFile)
}

// An Agent is an OpenSSH ssh-agent on a socket in a temporary folder,
// stopped when the test ends.
type Agent struct {
	Sock string
	dir  string
	cmd  *exec.Cmd
}

// SSHAgent starts an ssh-agent.
func SSHAgent(t testing.TB) *Agent {
	t.Helper()
	need(t, "ssh-agent", "openssh-client")
	need(t, "ssh-add", "openssh-client")
	need(t, "ssh-keygen", "openssh-client")
	// A unix socket path is at most 107 bytes: t.TempDir may be longer.
	dir, err := os.MkdirTemp("", "mcpres-agent")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	a := &Agent{Sock: filepath.Join(dir, "agent.sock"), dir: dir}
	a.Start(t)
	t.Cleanup(a.Stop)
	return a
}

// Start starts the agent (again) on its socket, with no keys.
func (a *Agent) Start(t testing.TB) {
	t.Helper()
	os.Remove(a.Sock)
	a.cmd = exec.Command("ssh-agent", "-D", "-a", a.Sock)
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("unix", a.Sock); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("ssh-agent did not start listening")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the agent (its keys are gone).
func (a *Agent) Stop() {
	if a.cmd != nil && a.cmd.Process != nil {
		a.cmd.Process.Kill()
		a.cmd.Wait()
		a.cmd = nil
	}
	os.Remove(a.Sock)
}

// Env is the environment entry that points at the agent.
func (a *Agent) Env() string { return "SSH_AUTH_SOCK=" + a.Sock }

// A SSHKey is a key generated by ssh-keygen.
type SSHKey struct {
	File        string // the private key file
	Fingerprint string // as ssh-keygen -l prints it
}

// Ref is the key's ssh-agent: reference.
func (k SSHKey) Ref() string { return "ssh-agent:" + k.Fingerprint }

// NewKey generates a key with ssh-keygen -t typ (ed25519, ecdsa, rsa)
// in the agent's folder, without adding it.
func (a *Agent) NewKey(t testing.TB, typ string) SSHKey {
	t.Helper()
	f, err := os.CreateTemp(a.dir, "id_"+typ+"_")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Remove(f.Name())
	if out, err := exec.Command("ssh-keygen", "-q", "-t", typ, "-N", "", "-C", "mcpres test", "-f", f.Name()).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	out, err := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", f.Name()+".pub").Output()
	if err != nil {
		t.Fatalf("ssh-keygen -l: %v", err)
	}
	fields := bytes.Fields(out)
	if len(fields) < 2 {
		t.Fatalf("ssh-keygen -l printed %q", out)
	}
	return SSHKey{File: f.Name(), Fingerprint: string(fields[1])}
}

// Add adds a key to the agent with ssh-add.
func (a *Agent) Add(t testing.TB, k SSHKey) {
	t.Helper()
	cmd := exec.Command("ssh-add", "-q", k.File)
	cmd.Env = append(os.Environ(), a.Env())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
}

// AddNew generates a key of type typ and adds it.
func (a *Agent) AddNew(t testing.TB, typ string) SSHKey {
	t.Helper()
	k := a.NewKey(t, typ)
	a.Add(t, k)
	return k
}
