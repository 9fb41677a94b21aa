package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCLICompletionAndMan(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		stdout, stderr, code := runCLI(t, "completion", shell)
		if code != 0 || !strings.Contains(stdout, "mcpres") || stderr != "" {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, code, len(stdout), stderr)
		}
	}
	// bash's script needs the bash-completion package: both helps say so.
	for _, args := range [][]string{{"completion", "--help"}, {"completion", "bash", "--help"}} {
		if stdout, _, code := runCLI(t, args...); code != 0 || !strings.Contains(stdout, "bash-completion") {
			t.Errorf("%q: exit %d, does not name the bash-completion package:\n%s", args, code, stdout)
		}
	}
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "man", "--dir", dir); code != 0 {
		t.Fatalf("man: exit %d: %s", code, stderr)
	}
	for _, page := range []string{"mcpres.1", "mcpres-validate.1", "mcpres-attest-sign.1", "mcpres-attest-verify.1", "mcpres-policy-check.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Errorf("missing man page %s", page)
			continue
		}
		if !strings.HasPrefix(string(b), ".nh") && !strings.Contains(string(b), ".TH") {
			t.Errorf("%s is not a man page", page)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "mcpres-attest-verify.1"))
	if !strings.Contains(string(b), "--require-level") {
		t.Error("attest verify man page lacks --require-level")
	}
	if _, stderr, code := runCLI(t, "man"); code != exitInput || !strings.Contains(stderr, "--dir is required") {
		t.Errorf("man without --dir: exit %d %q", code, stderr)
	}
}

// `mcpres man` writes the pages of `mcpres policy tuf` and `mcpres oci`
// and their commands through mcpres-tuf and mcpres-oci; without them,
// only the pass-through pages, with a warning.
func TestCLIManPolicyTUF(t *testing.T) {
	buildTUFBinary(t)
	buildOCIBinary(t)
	dir := t.TempDir()
	_, stderr, code := runCLI(t, "man", "--dir", dir)
	if code != 0 {
		t.Fatalf("man: exit %d: %s", code, stderr)
	}
	// One message, from mcpres (mcpres-tuf's own is not repeated).
	if want := "mcpres: man pages written to " + dir + "\n"; stderr != want {
		t.Errorf("man: stderr %q, want %q", stderr, want)
	}
	// No page for mcpres-tuf's own man command: `mcpres man` writes them.
	for _, page := range []string{"mcpres-policy-tuf-man.1", "mcpres-oci-man.1", "mcpres-oci-attest-verify.1"} {
		if _, err := os.Stat(filepath.Join(dir, page)); err == nil {
			t.Errorf("%s was written", page)
		}
	}
	// Each page's header names the page, not MCPRES(1) for every one.
	for page, th := range map[string]string{
		"mcpres.1":                  `.TH "MCPRES" "1" `,
		"mcpres-attest-verify.1":    `.TH "MCPRES-ATTEST-VERIFY" "1" `,
		"mcpres-policy-tuf-fetch.1": `.TH "MCPRES-POLICY-TUF-FETCH" "1" `,
		"mcpres-oci-attach.1":       `.TH "MCPRES-OCI-ATTACH" "1" `,
	} {
		if b, _ := os.ReadFile(filepath.Join(dir, page)); !strings.Contains(string(b), "\n"+th) || !strings.Contains(string(b), `"mcpres" "mcpres manual"`) {
			t.Errorf("%s: header is not %s... \"mcpres\" \"mcpres manual\":\n%.200s", page, th, b)
		}
	}
	for _, page := range []string{"mcpres.1", "mcpres-policy-tuf.1", "mcpres-policy-tuf-fetch.1", "mcpres-policy-tuf-init.1", "mcpres-policy-tuf-add-target.1", "mcpres-policy-tuf-sign.1", "mcpres-version.1", "mcpres-log-add.1",
		"mcpres-oci.1", "mcpres-oci-attach.1", "mcpres-oci-discover.1", "mcpres-oci-pull.1"} {
		if _, err := os.Stat(filepath.Join(dir, page)); err != nil {
			t.Errorf("missing man page %s", page)
		}
	}
	// mcpres.1 is mcpres's own page, not a stub from mcpres-tuf's parents.
	if b, _ := os.ReadFile(filepath.Join(dir, "mcpres.1")); !strings.Contains(string(b), "attest") {
		t.Error("mcpres.1 does not list the attest command")
	}
	// `policy tuf` passes a mistyped command to mcpres-tuf, which rejects
	// it as mcpres would (exit 2, cobra's suggestion, under the mcpres name).
	stdout, stderr, code := runCLI(t, "policy", "tuf", "fetchh")
	if code != exitInput || stdout != "" || !strings.Contains(stderr, `unknown command "fetchh" for "mcpres policy tuf"`) || !strings.Contains(stderr, "\tfetch\n") {
		t.Errorf("policy tuf fetchh: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// `policy tuf <Tab>` completes mcpres-tuf's commands (not files), and
	// their flags and values, through mcpres-tuf's own completion.
	for _, c := range []struct {
		args      []string
		want, not []string
		directive string
	}{
		{[]string{"policy", "tuf", ""}, []string{"init", "add-target", "sign", "fetch"}, []string{"man", "help"}, ":4"},
		{[]string{"policy", "tuf", "fetch", "--policy-t"}, []string{"--policy-target", "--policy-tuf"}, []string{"--policy-repo"}, ":4"},
		{[]string{"policy", "tuf", "fetch", "--format", ""}, []string{"raw", "json"}, nil, ":4"},
	} {
		stdout, stderr, code := runCLI(t, append([]string{"__complete"}, c.args...)...)
		var names []string
		for _, l := range strings.Split(stdout, "\n") {
			name, _, _ := strings.Cut(l, "\t")
			names = append(names, name)
		}
		if code != 0 || !slices.Contains(names, c.directive) {
			t.Errorf("%q: exit %d, %q, %s; want directive %s", c.args, code, stdout, stderr, c.directive)
		}
		for _, w := range c.want {
			if !slices.Contains(names, w) {
				t.Errorf("%q: %q not offered: %q", c.args, w, stdout)
			}
		}
		for _, w := range c.not {
			if slices.Contains(names, w) {
				t.Errorf("%q: %q offered: %q", c.args, w, stdout)
			}
		}
	}
	// mcpres-oci.1 is mcpres-oci's page of `mcpres oci`, listing its
	// commands, not the pass-through page.
	if b, _ := os.ReadFile(filepath.Join(dir, "mcpres-oci.1")); !strings.Contains(string(b), "mcpres-oci-attach(1)") {
		t.Errorf("mcpres-oci.1 does not refer to mcpres-oci-attach(1):\n%.400s", b)
	}
	t.Setenv("MCPRES_TUF", filepath.Join(t.TempDir(), "absent"))
	dir2 := t.TempDir()
	// An absent $MCPRES_TUF binary: the run fails to start it.
	if _, stderr, code := runCLI(t, "man", "--dir", dir2); code == 0 || !strings.Contains(stderr, "absent") {
		t.Errorf("man with a missing mcpres-tuf: exit %d, %q", code, stderr)
	}
}

// Every enumerated flag offers its values to shell completion, and only
// the values its command accepts.
func TestCLICompletionValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"attest", "verify", "--require-level", ""}, []string{"SIGNED", "WITNESSED", "TRANSPARENCY_RECORDED"}, nil},
		{[]string{"attest", "verify", "--require-evidence-class", ""}, []string{"GENUINE_RUNTIME", "DOCUMENTED_ONLY"}, nil},
		{[]string{"attest", "verify", "--format", ""}, []string{"json", "text", "markdown"}, []string{"mcp-res-0.2.0"}},
		{[]string{"attest", "sign", "--claim", ""}, []string{"SIGNED", "WITNESSED"}, nil},
		{[]string{"validate", "--format", ""}, []string{"json", "text", "markdown"}, nil},
		{[]string{"official", "import", "--format", ""}, []string{"json", "text"}, []string{"markdown"}},
		{[]string{"policy", "export", "--format", ""}, []string{"mcp-res-0.2.0"}, []string{"json"}},
	} {
		stdout, stderr, code := runCLI(t, append([]string{"__complete"}, c.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d %s", c.args, code, stderr)
			continue
		}
		lines := strings.Split(stdout, "\n")
		for _, w := range c.want {
			if !slices.Contains(lines, w) {
				t.Errorf("%v: %q not offered: %q", c.args, w, stdout)
			}
		}
		for _, w := range c.not {
			if slices.Contains(lines, w) {
				t.Errorf("%v: %q offered: %q", c.args, w, stdout)
			}
		}
	}
	// Control: a flag that is not enumerated offers no values.
	stdout, _, _ := runCLI(t, "__complete", "attest", "verify", "--policy", "")
	if strings.Contains(stdout, "SIGNED") {
		t.Errorf("--policy offers levels: %q", stdout)
	}
}
