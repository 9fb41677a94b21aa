package main

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// TestCLIRefusedFlags runs each command line that a command refuses before
// doing any work (a missing required flag, flags that exclude each other, a
// field a tlog policy cannot hold, an unreadable policy) and checks the
// refusal is the one of that line: its exit code and its own diagnostic.
// A row that reached another check than its own would fail (the rows that
// share a message differ in their command); the controls first run the
// honest lines the rows spoil, which pass those checks.
func TestCLIRefusedFlags(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("thelog")
	bundle := exampleBundleFile(t, e.dir)
	tp := writeTestFile(t, e.dir, "tlog-policy.txt", []byte("log "+e.vkey("log")+"\nwitness w1 "+e.vkey("w1")+"\n"), 0o644)
	badTP := writeTestFile(t, e.dir, "bad-tlog-policy.txt", []byte("quorum nobody\n"), 0o644)
	state := writeTestFile(t, e.dir, "w.state.json", []byte(`{}`), 0o644)
	policy := e.p("policy.json")

	// Controls: the honest lines the rows below spoil pass these checks.
	e.run("policy", "init", policy, "--id", "example/policy",
		"--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2027-01-01T00:00:00.000Z",
		"--evaluated-at", "2026-06-01T00:00:00.000Z")
	// A policy at the largest version a JSON reader keeps exactly.
	_, pdoc, err := canonjson.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	pdoc.Set("version", canonjson.NewInt(canonjson.MaxSafeInteger))
	maxed, err := canonjson.Pretty(pdoc)
	if err != nil {
		t.Fatal(err)
	}
	maxPolicy := writeTestFile(t, e.dir, "max-policy.json", maxed, 0o644)
	emptyJSON := writeTestFile(t, e.dir, "empty.json", []byte("{}"), 0o644)
	e.run("policy", "tlog", "add-group", tp, "--name", "g", "--threshold", "any", "w1")
	e.run("policy", "tlog", "set-quorum", tp, "g")
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), bundle, "-o", e.p("ref.json"))
	e.run("log", "proof", "--dir", dir, "--index", "0", "--log-key", e.p("log.vkey"), "-o", e.p("ref0.json"))

	tests := []struct {
		name string
		code int
		want string
		args []string
		fail bool // a command error (exit 2 without the pointer to --help), not a usage error
	}{
		{"log keygen without --origin", exitInput, "--origin is required", []string{"log", "keygen", "--out-base", e.p("k")}, false},
		{"log keygen without --out-base", exitInput, "--out-base NAME is required", []string{"log", "keygen", "--origin", "example.org/l"}, false},
		{"witness keygen without --name", exitInput, "--name is required", []string{"witness", "keygen", "--out-base", e.p("k")}, false},
		{"witness keygen without --out-base", exitInput, "--out-base NAME is required", []string{"witness", "keygen", "--name", "example.org/w"}, false},
		{"witness cosign without --log", exitInput, "--log is required", []string{"witness", "cosign", "--log-key", e.p("log.vkey"), "--state", state, "-o", e.p("c")}, false},
		{"witness cosign without --log-key", exitInput, "--log-key is required", []string{"witness", "cosign", "--log", dir, "--state", state, "-o", e.p("c")}, false},
		{"witness cosign without --state", exitInput, "--state is required", []string{"witness", "cosign", "--log", dir, "--log-key", e.p("log.vkey"), "-o", e.p("c")}, false},
		{"witness cosign without -o", exitInput, "-o/--output is required", []string{"witness", "cosign", "--log", dir, "--log-key", e.p("log.vkey"), "--state", state}, false},
		{"witness cosign -o is the state", exitInput, "--state and -o name the same file", []string{"witness", "cosign", "--log", dir, "--log-key", e.p("log.vkey"), "--state", state, "-o", state}, false},
		{"witness serve without --state", exitInput, "--state DIR is required", []string{"witness", "serve", "--key", e.p("w1.key"), "--log", e.p("log.vkey")}, false},
		{"witness serve without --log", exitInput, "--log is required (the verifier key file of each log to witness)", []string{"witness", "serve", "--key", e.p("w1.key"), "--state", e.p("ws")}, false},
		{"log add with two targets", exitInput, "give one of --dir (a local log), --s3 (a log on object storage) and --server", []string{"log", "add", "--dir", dir, "--server", "http://127.0.0.1:9", bundle, "-o", e.p("r")}, false},
		{"log add --server with --witness-policy", exitInput, "--witness-policy goes with --dir", []string{"log", "add", "--server", "http://127.0.0.1:9", "--log-key", e.p("log.vkey"), "--witness-policy", tp, bundle, "-o", e.p("r")}, false},
		{"log add --witness-timeout 0", exitInput, "--witness-timeout must be positive", []string{"log", "add", "--dir", dir, "--key", e.p("log.key"), "--witness-policy", tp, "--witness-timeout", "0", bundle, "-o", e.p("r")}, false},
		{"log add an invalid witness policy", exitInput, "witness policy " + badTP + " is not a valid tlog policy", []string{"log", "add", "--dir", dir, "--key", e.p("log.key"), "--witness-policy", badTP, bundle, "-o", e.p("r")}, true},
		{"log proof an invalid --require-quorum", exitInput, "--require-quorum: " + badTP + " is not a valid tlog policy", []string{"log", "proof", "--dir", dir, "--index", "0", "--require-quorum", badTP}, true},
		{"log proof --dir and --url", exitInput, "give one of --dir, --s3, --mysql and --url", []string{"log", "proof", "--dir", dir, "--url", "http://127.0.0.1:9/", "--index", "0"}, false},
		{"log proof --url with --witness-policy", exitInput, "--witness-policy cannot go with --url", []string{"log", "proof", "--url", "http://127.0.0.1:9/", "--log-key", e.p("log.vkey"), "--witness-policy", tp, "--index", "0"}, false},
		{"log proof --url not a URL", exitInput, "--url: ", []string{"log", "proof", "--url", "ftp://127.0.0.1/", "--log-key", e.p("log.vkey"), "--index", "0"}, false},
		{"log proof -o and --proof the same file", exitInput, "is given as two outputs", []string{"log", "proof", "--dir", dir, "--index", "0", "-o", e.p("p"), "--proof", e.p("p")}, false},
		{"log migrate without --to-s3", exitInput, "--from-mysql and --to-s3 are required", []string{"log", "migrate", "--from-mysql", "env:NOPE"}, false},
		{"official import bad --format", exitInput, `--format must be json or text, not "yaml"`, []string{"official", "import", e.p("o.json"), "--format", "yaml", "--config", e.p("c.json"), "-o", e.p("a.json")}, false},
		{"official import without --config", exitInput, "--config is required", []string{"official", "import", e.p("o.json"), "-o", e.p("a.json")}, false},
		{"official import without -o", exitInput, "-o/--output is required", []string{"official", "import", e.p("o.json"), "--config", e.p("c.json")}, false},
		{"policy init without --id", exitInput, "--id is required", []string{"policy", "init", e.p("p2.json"), "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2027-01-01T00:00:00.000Z"}, false},
		{"policy init without --valid-from", exitInput, "--valid-from is required", []string{"policy", "init", e.p("p2.json"), "--id", "x/y", "--valid-until", "2027-01-01T00:00:00.000Z"}, false},
		{"policy init without --valid-until", exitInput, "--valid-until is required", []string{"policy", "init", e.p("p2.json"), "--id", "x/y", "--valid-from", "2026-01-01T00:00:00.000Z"}, false},
		{"policy init --evaluated-at not a time", exitInput, `--evaluated-at "yesterday"`, []string{"policy", "init", e.p("p2.json"), "--id", "x/y", "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2027-01-01T00:00:00.000Z", "--evaluated-at", "yesterday"}, false},
		{"policy add-signer --valid-from not a time", exitInput, "--valid-from", []string{"policy", "add-signer", policy, "--name", "n", "--identity", "https://example.org/i", "--key", e.p("w1.vkey"), "--valid-from", "soon"}, false},
		{"policy add-signer --identity-regexp without --issuer", exitInput, "--issuer is required for an identity signer", []string{"policy", "add-signer", policy, "--name", "n", "--identity-regexp", "^https://example[.]org/i$"}, false},
		{"policy set-transparency --remove with a TLOG-POLICY", exitInput, "accepts 1 arg(s), received 2", []string{"policy", "set-transparency", "--remove", policy, tp}, false},
		{"policy tlog add-log without --key", exitInput, "--key is required (the log's verifier key file)", []string{"policy", "tlog", "add-log", tp}, false},
		{"policy tlog add-log --url with a space", exitInput, `--url "http://a b" must be one field`, []string{"policy", "tlog", "add-log", tp, "--key", e.p("other-log.vkey"), "--url", "http://a b"}, false},
		{"policy tlog add-witness without --key", exitInput, "--key is required (the witness's verifier key file)", []string{"policy", "tlog", "add-witness", tp, "--name", "w9"}, false},
		{"policy tlog add-witness --name with a space", exitInput, `--name "w 9" must be one field`, []string{"policy", "tlog", "add-witness", tp, "--name", "w 9", "--key", e.p("w2.vkey")}, false},
		{"policy tlog add-group --name with a #", exitInput, `--name "g#" must be one field`, []string{"policy", "tlog", "add-group", tp, "--name", "g#", "--threshold", "1", "w1"}, false},
		{"policy tlog add-group empty --threshold", exitInput, `--threshold "" must be one field`, []string{"policy", "tlog", "add-group", tp, "--name", "g2", "w1"}, false},
		{"policy tlog add-group a MEMBER with a tab", exitInput, "MEMBER \"w\\t1\" must be one field", []string{"policy", "tlog", "add-group", tp, "--name", "g2", "--threshold", "1", "w\t1"}, false},
		{"policy tlog set-quorum NAME with a newline", exitInput, `NAME "g\n" must be one field`, []string{"policy", "tlog", "set-quorum", tp, "g\n"}, false},
		{"policy tlog set-url empty --name", exitInput, `--name "" must be one field`, []string{"policy", "tlog", "set-url", tp, "--url", "https://w.example.org/"}, false},
		{"report --evaluated-at empty", exitInput, `invalid argument "" for "--evaluated-at" flag: an empty value is refused`, []string{"report", bundle, "-o", e.p("r.html"), "--evaluated-at", ""}, false},
		{"log proof --log-key missing", exitInput, "log key " + e.p("missing.vkey") + ": cannot read", []string{"log", "proof", "--url", "http://127.0.0.1:9/", "--log-key", e.p("missing.vkey"), "--index", "0"}, true},
		{"log proof --log-key a witness key", exitInput, "log key " + e.p("w1.vkey") + ": this is a cosignature/v1 witness verifier key", []string{"log", "proof", "--url", "http://127.0.0.1:9/", "--log-key", e.p("w1.vkey"), "--index", "0"}, true},
		{"key public -o is KEY", exitInput, "refusing to write " + e.p("w1.key") + ": it is an input of this command", []string{"key", "public", e.p("w1.key"), "-o", e.p("w1.key"), "--force"}, true},
		{"attest sign --require-quorum without --transparency", exitInput, "--require-quorum goes with --transparency", []string{"attest", "sign", bundle, "--key", e.p("w1.key"), "--identity", "https://example.org/i", "--policy-id", "x/y", "-o", e.p("a.json"), "--require-quorum", tp}, false},
		{"validate --profiles missing", exitInput, "--profiles: ", []string{"validate", "--profiles", e.p("no-profiles"), bundle}, true},
		{"report --require-level not a level", exitInput, "--require-level: ", []string{"report", bundle, "-o", e.p("r.html"), "--policy", policy, "--require-level", "PLATINUM"}, false},
		{"report --require-level below identity", exitInput, "--require-level SIGNED is below SIGNED_WITH_IDENTITY", []string{"report", bundle, "-o", e.p("r.html"), "--policy", policy, "--require-level", "SIGNED"}, false},
		{"policy add-signer --trusted-root missing", exitInput, "--trusted-root " + e.p("missing.json") + ": ", []string{"policy", "add-signer", policy, "--name", "n", "--issuer", "https://token.actions.githubusercontent.com", "--identity", "https://example.org/i", "--trusted-root", e.p("missing.json")}, true},
		{"policy add-signer --trusted-root not one", exitInput, "--trusted-root " + emptyJSON + ": ", []string{"policy", "add-signer", policy, "--name", "n", "--issuer", "https://token.actions.githubusercontent.com", "--identity", "https://example.org/i", "--trusted-root", emptyJSON}, true},
		{"policy edit past the largest version", exitInput, maxPolicy + ": version 9007199254740991 cannot be incremented", []string{"policy", "set-transparency", maxPolicy, tp}, true},
		{"policy tlog edit of a policy with problems", exitInvalid, badTP + " has problems; it is unchanged", []string{"policy", "tlog", "set-quorum", badTP, "none"}, true},
		{"seal without -o", exitInput, "-o/--output is required", []string{"seal", bundle}, false},
		{"attest sign --signing-time empty", exitInput, `invalid argument "" for "--signing-time" flag: an empty value is refused`, []string{"attest", "sign", bundle, "--key", e.p("w1.key"), "--identity", "https://example.org/i", "--policy-id", "x/y", "-o", e.p("a.json"), "--signing-time", ""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("mcpres %q: exit %d (want %d)\nstdout %s\nstderr %s\nwant stderr to contain %q", tt.args, code, tt.code, stdout, stderr, tt.want)
			}
			if tt.code == exitInput && strings.HasSuffix(stderr, usagePointer) == tt.fail {
				t.Errorf("stderr %q: a usage error ends with the pointer to --help, a command error does not", stderr)
			}
		})
	}
	for _, p := range []string{"r", "a.json", "c", "p", "p2.json", "r.html", "k.key", "k.vkey"} {
		if _, err := os.Stat(e.p(p)); err == nil {
			t.Errorf("%s was written by a refused command", p)
		}
	}
}
