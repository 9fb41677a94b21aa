package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPolicyTLog: a tlog policy written with the commands loads; each
// refusal of the loader fires (the file is left unchanged), and the control
// edit next to it succeeds.
func TestPolicyTLog(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	runExpect(t, 0, "log", "keygen", "--origin", "example.org/tlog-policy-log", "--out-base", p("log"))
	for _, w := range []string{"w1", "w2", "w3", "w4"} {
		runExpect(t, 0, "witness", "keygen", "--name", "example.org/"+w, "--out-base", p(w))
	}
	pol := p("tlog-policy.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", pol, "--key", p("log.vkey"))
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("w1.vkey"), "--url", "https://w1.example.org/")
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w2", "--key", p("w2.vkey"), "--url", "http://127.0.0.1:1234")
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w3", "--key", p("w3.vkey"))
	// Incomplete (no quorum yet): check says so.
	if out := runExpect(t, 1, "policy", "tlog", "check", pol); !strings.Contains(out, "no quorum line") {
		t.Errorf("check without quorum: %s", out)
	}
	runExpect(t, 0, "policy", "tlog", "add-group", pol, "--name", "a", "--threshold", "any", "w1", "w2")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "w1")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "a") // replaces
	if out := runExpect(t, 0, "policy", "tlog", "check", pol); !strings.Contains(out, "valid: 1 log(s), 3 witness(es) (2 with a URL), 1 group(s), quorum a") {
		t.Errorf("check: %s", out)
	}
	before, _ := os.ReadFile(pol)
	if strings.Count(string(before), "quorum") != 1 {
		t.Fatalf("set-quorum did not replace:\n%s", before)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"same key under another name", []string{"add-witness", pol, "--name", "w5", "--key", p("w1.vkey")}, "the same key is already listed"},
		{"name defined twice", []string{"add-witness", pol, "--name", "w1", "--key", p("w4.vkey")}, `name "w1" is already defined`},
		{"witness reachable twice", []string{"add-group", pol, "--name", "g", "--threshold", "2", "a", "w1"}, "reachable through both"},
		{"unknown member", []string{"add-group", pol, "--name", "g", "--threshold", "1", "nobody"}, "unknown member"},
		{"threshold too high", []string{"add-group", pol, "--name", "g", "--threshold", "3", "a", "w3"}, "outside 1..2"},
		{"bad URL", []string{"add-witness", pol, "--name", "w4", "--key", p("w4.vkey"), "--url", "ftp://w4.example.org/"}, "not an absolute http or https URL"},
		{"unknown quorum", []string{"set-quorum", pol, "nobody"}, "unknown witness or group"},
		// A key file of the wrong kind is refused before the edit (exit 2),
		// naming what it is and what --key takes.
		{"log key as a witness", []string{"add-witness", pol, "--name", "w4", "--key", p("log.vkey")}, "this is a signed-note log verifier key (NAME.vkey of `mcpres log keygen`)"},
		{"witness key as a log", []string{"add-log", pol, "--key", p("w4.vkey")}, "--key takes a signed-note log verifier key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code := 1
			if strings.HasSuffix(tc.name, "as a witness") || strings.HasSuffix(tc.name, "as a log") {
				code = 2
			}
			out := runExpect(t, code, append([]string{"policy", "tlog"}, tc.args...)...)
			if !strings.Contains(out, tc.want) {
				t.Errorf("got %s\nwant %q", out, tc.want)
			}
			if after, _ := os.ReadFile(pol); string(after) != string(before) {
				t.Errorf("the file changed:\n%s", after)
			}
		})
	}
	// Controls: the same edits done right.
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w4", "--key", p("w4.vkey"), "--url", "https://w4.example.org/")
	runExpect(t, 0, "policy", "tlog", "add-group", pol, "--name", "g", "--threshold", "2", "a", "w3", "w4")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "g")
	runExpect(t, 0, "policy", "tlog", "check", pol)
	// The text is what set-transparency puts in a v1 policy.
	runExpect(t, 0, "policy", "init", p("policy.json"), "--id", "example/tlog", "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2027-01-01T00:00:00.000Z")
	runExpect(t, 0, "policy", "set-transparency", p("policy.json"), pol)
	// The maximum cosignature age: whole seconds, at most ten years (the
	// schema's bound, from the loader).
	runExpect(t, 0, "policy", "set-transparency", p("policy.json"), pol, "--max-cosignature-age", "720h")
	if b, _ := os.ReadFile(p("policy.json")); !strings.Contains(string(b), `"maxCosignatureAgeSeconds": 2592000`) {
		t.Errorf("max age not written:\n%s", b)
	}
	runExpect(t, 1, "policy", "set-transparency", p("policy.json"), pol, "--max-cosignature-age", "100000h")
	runExpect(t, 2, "policy", "set-transparency", p("policy.json"), pol, "--max-cosignature-age", "1.5s")
	runExpect(t, 0, "policy", "check", p("policy.json"))
}

// TestPolicyTLogWitnessURL: add-witness and set-url refuse the endpoint URL
// that 'witness serve' used to print (exit 1, the file unchanged, the base
// URL named); set-url replaces a witness's URL; remove-witness refuses a
// witness a group or the quorum names and removes one nothing names. Each
// refusal has its control beside it.
func TestPolicyTLogWitnessURL(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	runExpect(t, 0, "log", "keygen", "--origin", "example.org/tlog-policy-log", "--out-base", p("log"))
	for _, w := range []string{"w1", "w2", "w3"} {
		runExpect(t, 0, "witness", "keygen", "--name", "example.org/"+w, "--out-base", p(w))
	}
	pol := p("tlog-policy.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", pol, "--key", p("log.vkey"))
	unchanged := func(t *testing.T, before []byte) {
		t.Helper()
		if after, _ := os.ReadFile(pol); string(after) != string(before) {
			t.Errorf("the file changed:\n%s", after)
		}
	}
	before, _ := os.ReadFile(pol)
	out := runExpect(t, 1, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("w1.vkey"), "--url", "http://127.0.0.1:7380/add-checkpoint")
	if !strings.Contains(out, `witness "w1": URL "http://127.0.0.1:7380/add-checkpoint" ends in /add-checkpoint, the submission endpoint: give the witness's base URL "http://127.0.0.1:7380/"`) {
		t.Errorf("add-witness with the endpoint URL: %s", out)
	}
	unchanged(t, before)
	// Control: the base URL.
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("w1.vkey"), "--url", "http://127.0.0.1:7380/")
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w2", "--key", p("w2.vkey"))
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w3", "--key", p("w3.vkey"), "--url", "https://w3.example.org/")
	runExpect(t, 0, "policy", "tlog", "add-group", pol, "--name", "g", "--threshold", "any", "w1", "w2")
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "g")

	// set-url: a witness with a URL and one without.
	if out := runExpect(t, 0, "policy", "tlog", "set-url", pol, "--name", "w1", "--url", "http://127.0.0.1:7381/"); !strings.Contains(out, pol+": witness w1: URL http://127.0.0.1:7381/") {
		t.Errorf("set-url: %s", out)
	}
	runExpect(t, 0, "policy", "tlog", "set-url", pol, "--name", "w2", "--url", "https://w2.example.org/")
	if out := runExpect(t, 0, "policy", "tlog", "check", pol); !strings.Contains(out, "3 witness(es) (3 with a URL)") {
		t.Errorf("check after set-url: %s", out)
	}
	if b, _ := os.ReadFile(pol); !strings.Contains(string(b), " http://127.0.0.1:7381/\n") || strings.Contains(string(b), "7380") {
		t.Errorf("set-url did not replace the URL:\n%s", b)
	}
	before, _ = os.ReadFile(pol)
	for _, tc := range []struct {
		name string
		code int
		args []string
		want string
	}{
		{"set-url to the endpoint", 1, []string{"set-url", pol, "--name", "w1", "--url", "http://127.0.0.1:7381/add-checkpoint"}, `give the witness's base URL "http://127.0.0.1:7381/"`},
		{"set-url of an unknown witness", 1, []string{"set-url", pol, "--name", "w9", "--url", "https://w9.example.org/"}, `the change is refused; the file is unchanged: no witness "w9" (the witnesses are w1, w2, w3)`},
		{"set-url of a group", 1, []string{"set-url", pol, "--name", "g", "--url", "https://g.example.org/"}, `no witness "g"`},
		{"set-url without --url", 2, []string{"set-url", pol, "--name", "w1"}, `--url "" must be one field`},
		{"remove-witness in a group", 1, []string{"remove-witness", pol, "--name", "w1"}, `witness "w1" is named by group "g" (line 5): removing it would leave them naming an unknown witness; change them first`},
		{"remove-witness of an unknown witness", 1, []string{"remove-witness", pol, "--name", "w9"}, `no witness "w9"`},
		{"remove-witness without --name", 2, []string{"remove-witness", pol}, `--name "" must be one field`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out := runExpect(t, tc.code, append([]string{"policy", "tlog"}, tc.args...)...); !strings.Contains(out, tc.want) {
				t.Errorf("got %s\nwant %q", out, tc.want)
			}
			unchanged(t, before)
		})
	}
	// remove-witness: the quorum names g, not w3, so w3 goes.
	if out := runExpect(t, 0, "policy", "tlog", "remove-witness", pol, "--name", "w3"); !strings.Contains(out, pol+": removed witness w3") {
		t.Errorf("remove-witness: %s", out)
	}
	if out := runExpect(t, 0, "policy", "tlog", "check", pol); !strings.Contains(out, "2 witness(es) (2 with a URL), 1 group(s), quorum g") {
		t.Errorf("check after remove-witness: %s", out)
	}
	// The quorum naming a witness is reported too.
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w3", "--key", p("w3.vkey"))
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "w3")
	if out := runExpect(t, 1, "policy", "tlog", "remove-witness", pol, "--name", "w3"); !strings.Contains(out, `witness "w3" is named by the quorum`) {
		t.Errorf("remove-witness of the quorum: %s", out)
	}
}

// TestWitnessServePrintsBaseURL: the URL 'witness serve' prints for a
// policy, copied as it is, is accepted by add-witness, and a log asking the
// witness there gets its cosignature; the endpoint URL it used to print
// is refused.
func TestWitnessServePrintsBaseURL(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	runExpect(t, 0, "log", "keygen", "--origin", "example.org/base-url-log", "--out-base", p("log"))
	runExpect(t, 0, "log", "init", "--dir", p("L"), "--key", p("log.key"))
	runExpect(t, 0, "witness", "keygen", "--name", "example.org/w1", "--out-base", p("w1"))
	var stderr syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: &stderr, stderr: &stderr}
	root := a.rootCommand()
	root.SetArgs([]string{"witness", "serve", "--listen", "127.0.0.1:0", "--key", p("w1.key"), "--state", p("w1-state"), "--log", p("log.vkey")})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	defer func() { cancel(); <-done }()
	re := regexp.MustCompile(`at (http://127\.0\.0\.1:[0-9]+/) \(POST /add-checkpoint\); in a tlog policy its URL is that base URL: policy tlog add-witness FILE --name NAME --key W\.vkey --url (\S+)\n`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		m = re.FindStringSubmatch(stderr.String())
	}
	if m == nil || m[1] != m[2] {
		t.Fatalf("witness serve did not print its base URL:\n%s", stderr.String())
	}
	pol := p("tlog-policy.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", pol, "--key", p("log.vkey"))
	runExpect(t, 1, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("w1.vkey"), "--url", m[2]+"add-checkpoint")
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("w1.vkey"), "--url", m[2])
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "w1")
	out := runExpect(t, 0, "log", "add", "--dir", p("L"), "--key", p("log.key"), "--witness-policy", pol, exampleBundleFile(t, dir), "-o", p("ref.json"))
	if !strings.Contains(out, "cosigned by 1 of 1 witness(es) asked (w1)") {
		t.Errorf("log add --witness-policy with the printed URL:\n%s", out)
	}
}
