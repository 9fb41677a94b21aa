//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
)

// fifoHangGuard is how long one command line may take before the test
// calls it blocked: a generous bound on a refusal that takes milliseconds.
const fifoHangGuard = time.Minute

// fifoRow is one input of one command given as a FIFO: every occurrence of
// "@FIFO@" in args is replaced by the path of a fresh FIFO with no writer.
// "@OUT@" stands for a fresh directory of the row's own, where outputs go.
type fifoRow struct {
	name  string
	args  []string
	code  int  // the exit code; 0 stands for 2
	chdir bool // run in the row's directory (migrate writes only below it)
}

// Every input a command reads (keys, verifier keys, tokens, policies,
// tlog policies, cosignatures, documents, TUF roots) given as a FIFO with
// no writer is refused at once, exit 2, with a message that says it is a
// FIFO: nothing blocks in open(2) or read(2). The inputs of the witness
// commands have their own test (witness*_test.go).
func TestCLIInputFIFORefusedAtOnce(t *testing.T) {
	e := newLogEnv(t)
	d := e.dir
	bundle := exampleBundleFile(t, d)
	keyOne := writeTestKey(t, d, "one.key", attesttest.TestOnlyKeyOne())
	pubOne := filepath.Join(d, "one.pub")
	runExpect(t, exitValid, "key", "fingerprint", keyOne) // the key parses
	writeTestFile(t, d, "one.pub", policyPubPEM(t, attesttest.TestOnlyKeyOne()), 0o644)
	attested := filepath.Join(d, "attested.json")
	runExpect(t, exitValid, signArgs(bundle, keyOne, attesttest.IdentityOne, attested)...)
	policy := filepath.Join(d, "policy.json")
	runExpect(t, exitValid, "policy", "init", policy, "--id", attesttest.TrustPolicyID,
		"--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2099-01-01T00:00:00.000Z")
	tlogPolicy := filepath.Join(d, "tlog-policy.txt")
	runExpect(t, exitValid, "policy", "tlog", "add-log", tlogPolicy, "--key", e.p("log.vkey"))
	logDir := e.initLog("logdir")
	cosig := filepath.Join(d, "cosig.txt")
	writeTestFile(t, d, "cosig.txt", []byte("not used\n"), 0o644)
	token := writeTestFile(t, d, "token", []byte("test-only-token\n"), 0o600)
	tufRepo := filepath.Join(d, "tuf-repo")
	if err := os.Mkdir(tufRepo, 0o755); err != nil {
		t.Fatal(err)
	}

	rows := []fifoRow{
		// Keys.
		{"key fingerprint", []string{"key", "fingerprint", "@FIFO@"}, 0, false},
		{"attest sign --key", signArgs(bundle, "@FIFO@", attesttest.IdentityOne, "@OUT@/out.json"), 0, false},
		{"attest sign --key file:", signArgs(bundle, "file:@FIFO@", attesttest.IdentityOne, "@OUT@/out.json"), 0, false},
		{"attest verify --key", []string{"attest", "verify", attested, "--key", "@FIFO@", "--identity", attesttest.IdentityOne}, 0, false},
		{"policy add-signer --key", []string{"policy", "add-signer", policy, "--name", "n", "--identity", "i", "--key", "@FIFO@"}, 0, false},
		{"policy add-witness --key", []string{"policy", "add-witness", policy, "--name", "n", "--identity", "i", "--key", "@FIFO@"}, 0, false},
		{"policy revoke --key", []string{"policy", "revoke", policy, "--key", "@FIFO@", "--reason", "r"}, 0, false},
		{"log init --key", []string{"log", "init", "--dir", "@OUT@/new-log", "--key", "@FIFO@", "--origin", testLogOrigin}, 0, false},
		{"log add --key", []string{"log", "add", "--dir", logDir, "--key", "@FIFO@", bundle, "-o", "@OUT@/ref.json"}, 0, false},
		{"log proof --log-key", []string{"log", "proof", "--dir", logDir, "--index", "0", "--log-key", "@FIFO@"}, 0, false},
		{"log add-cosignature --witness-key", []string{"log", "add-cosignature", "--dir", logDir, "--witness-key", "@FIFO@", cosig}, 0, false},
		{"log add-cosignature --log-key", []string{"log", "add-cosignature", "--dir", logDir, "--witness-key", e.p("w1.vkey"), "--log-key", "@FIFO@", cosig}, 0, false},
		{"log serve --key", []string{"log", "serve", "--dir", logDir, "--key", "@FIFO@", "--listen", "127.0.0.1:0"}, 0, false},
		{"policy tlog add-log --key", []string{"policy", "tlog", "add-log", "@OUT@/t2.txt", "--key", "@FIFO@"}, 0, false},
		{"policy tlog add-witness --key", []string{"policy", "tlog", "add-witness", tlogPolicy, "--name", "w", "--key", "@FIFO@"}, 0, false},
		// Tokens.
		{"log serve --token-file", []string{"log", "serve", "--dir", logDir, "--key", e.p("log.key"), "--token-file", "@FIFO@", "--listen", "127.0.0.1:0"}, 0, false},
		{"log add --server --token-file", []string{"log", "add", "--server", "http://127.0.0.1:9", "--log-key", e.p("log.vkey"), "--token-file", "@FIFO@", bundle, "-o", "@OUT@/ref.json"}, 0, false},
		{"log add --server --log-key", []string{"log", "add", "--server", "http://127.0.0.1:9", "--log-key", "@FIFO@", "--token-file", token, bundle, "-o", "@OUT@/ref.json"}, 0, false},
		// tlog policies and cosignatures.
		{"policy tlog check", []string{"policy", "tlog", "check", "@FIFO@"}, 0, false},
		{"policy tlog add-log FILE", []string{"policy", "tlog", "add-log", "@FIFO@", "--key", e.p("log.vkey")}, 0, false},
		{"policy set-transparency", []string{"policy", "set-transparency", policy, "@FIFO@"}, 0, false},
		{"log serve --witness-policy", []string{"log", "serve", "--dir", logDir, "--key", e.p("log.key"), "--witness-policy", "@FIFO@", "--listen", "127.0.0.1:0"}, 0, false},
		{"log add --witness-policy", []string{"log", "add", "--dir", logDir, "--key", e.p("log.key"), "--witness-policy", "@FIFO@", bundle, "-o", "@OUT@/ref.json"}, 0, false},
		{"log add-cosignature COSIG", []string{"log", "add-cosignature", "--dir", logDir, "--witness-key", e.p("w1.vkey"), "@FIFO@"}, 0, false},
		// Trust policies and documents (the strict reader).
		{"attest verify --policy", []string{"attest", "verify", attested, "--policy", "@FIFO@"}, 0, false},
		{"attest verify FILE", []string{"attest", "verify", "@FIFO@", "--policy", policy}, 0, false},
		// Artifacts of the subject checks: refused before anything is read.
		{"attest verify --artifact", []string{"attest", "verify", attested, "--policy", policy, "--artifact", "@FIFO@"}, 0, false},
		{"report --artifact", []string{"report", attested, "--artifact", "@FIFO@", "-o", "@OUT@/report.html"}, 0, false},
		{"policy check", []string{"policy", "check", "@FIFO@"}, 0, false},
		{"policy add-signer FILE", []string{"policy", "add-signer", "@FIFO@", "--name", "n", "--identity", "i", "--key", pubOne}, 0, false},
		{"policy export", []string{"policy", "export", "@FIFO@", "--format", "mcp-res-0.2.0", "-o", "@OUT@/export.json"}, 0, false},
		{"validate", []string{"validate", "@FIFO@"}, 0, false},
		{"validate --original-result", []string{"validate", "--original-result", "@FIFO@", bundle}, 0, false},
		{"seal", []string{"seal", "@FIFO@", "-o", "@OUT@/sealed.json"}, 0, false},
		{"canonicalize", []string{"canonicalize", "@FIFO@"}, 0, false},
		{"inspect", []string{"inspect", "@FIFO@"}, 0, false},
		{"report", []string{"report", "@FIFO@", "-o", "@OUT@/report.html"}, 0, false},
		{"report --policy", []string{"report", attested, "--policy", "@FIFO@", "-o", "@OUT@/report.html"}, 0, false},
		{"attest export", []string{"attest", "export", "--sigstore-bundle", "0", "-o", "@OUT@/sigstore.json", "@FIFO@"}, 0, false},
		// So is migrate's, with its MCP_RES_MIGRATION_* code (REFERENCE §7.1).
		{"migrate --input", []string{"migrate", "--from", "0.1.0", "--to", "0.2.0", "--input", "@FIFO@", "--output", "migrated.json"}, exitInvalid, true},
		// An official output that cannot be read is the importer's
		// MCP_RES_OFFICIAL_INPUT_INVALID refusal, exit 1 (REFERENCE §8.1).
		{"official import OUTPUT", []string{"official", "import", "@FIFO@", "--config", filepath.Join(officialDir, "configs", "clean.import.json"), "-o", "@OUT@/att.json"}, exitInvalid, false},
		{"official import --config", []string{"official", "import", cosig, "--config", "@FIFO@", "-o", "@OUT@/att.json"}, 0, false},
		{"log add BUNDLE", []string{"log", "add", "--dir", logDir, "--key", e.p("log.key"), "@FIFO@", "-o", "@OUT@/ref.json"}, 0, false},
		{"log add --server BUNDLE", []string{"log", "add", "--server", "http://127.0.0.1:9", "--log-key", e.p("log.vkey"), "@FIFO@", "-o", "@OUT@/ref.json"}, 0, false},
	}
	buildTUFBinary(t)
	tufKey := writeTestKey(t, d, "tuf.key", testOnlyTUFKey("fifo"))
	tufRoles := []string{"--targets-key", tufKey, "--snapshot-key", tufKey, "--timestamp-key", tufKey}
	rows = append(rows,
		// TUF: the pinned root and the role keys, read by mcpres-tuf.
		fifoRow{"attest verify --policy-tuf", []string{"attest", "verify", attested, "--policy-tuf", "@FIFO@", "--policy-repo", tufRepo, "--policy-target", "policy.json"}, 0, false},
		fifoRow{"policy tuf init --root-key", append([]string{"policy", "tuf", "init", "--repo", "@OUT@/tuf-new", "--root-key", "@FIFO@"}, tufRoles...), 0, false},
		fifoRow{"policy tuf init --targets-key", []string{"policy", "tuf", "init", "--repo", "@OUT@/tuf-new", "--root-key", tufKey, "--targets-key", "@FIFO@", "--snapshot-key", tufKey, "--timestamp-key", tufKey}, 0, false},
		fifoRow{"policy tuf add-target FILE", append([]string{"policy", "tuf", "add-target", "--repo", tufRepo, "--name", "policy.json", "@FIFO@"}, tufRoles...), 0, false},
	)

	for i, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			dir := filepath.Join(d, "fifo", string(rune('a'+i%26))+strings.Repeat("x", i/26))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(dir, "input.json")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			if r.chdir {
				t.Chdir(dir)
			}
			args := make([]string, len(r.args))
			for j, a := range r.args {
				args[j] = strings.ReplaceAll(strings.ReplaceAll(a, "@FIFO@", fifo), "@OUT@", dir)
			}
			type result struct {
				stdout, stderr string
				code           int
			}
			done := make(chan result, 1)
			go func() {
				stdout, stderr, code := runLogCLI(t, args...)
				done <- result{stdout, stderr, code}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(fifoHangGuard):
				// Unblock the reader (a writer's open releases it) so
				// that the test binary can go on, then fail.
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatalf("mcpres %s: blocked on the FIFO for %v", strings.Join(args, " "), fifoHangGuard)
			}
			out := res.stdout + res.stderr
			want := exitInput
			if r.code != 0 {
				want = r.code
			}
			if res.code != want || !strings.Contains(out, "a FIFO") {
				t.Errorf("mcpres %s: exit %d, want %d with a message saying it is a FIFO\nstdout: %s\nstderr: %s", strings.Join(args, " "), res.code, want, res.stdout, res.stderr)
			}
		})
	}
}

// The control: the same command lines with every FIFO replaced by a
// regular file holding the wrong bytes fail without mentioning a FIFO (the
// message above comes from the file's type, not from the command failing).
func TestCLIInputFIFOControl(t *testing.T) {
	d := t.TempDir()
	junk := writeTestFile(t, d, "junk", []byte("junk\n"), 0o600)
	for _, args := range [][]string{
		{"key", "fingerprint", junk},
		{"policy", "tlog", "check", junk},
		{"validate", junk},
	} {
		stdout, stderr, code := runCLI(t, args...)
		if code == exitValid || strings.Contains(stdout+stderr, "a FIFO") {
			t.Errorf("mcpres %s: exit %d, output %q %q: want a failure that does not mention a FIFO", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
