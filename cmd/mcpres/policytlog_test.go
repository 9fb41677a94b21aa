package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
