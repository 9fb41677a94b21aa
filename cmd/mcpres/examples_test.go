package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const examplesDir = "../../examples"

// TestExamplePipelineScript runs examples/pipeline.sh with freshly built
// binaries, so the documented pipeline cannot rot.
func TestExamplePipelineScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries; skipped in -short mode")
	}
	for _, tool := range []string{"go", "bash", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not available: %v", tool, err)
		}
	}
	bin := t.TempDir()
	for _, pkg := range []string{"github.com/mcpres/mcpres/cmd/mcpres", "github.com/mcpres/mcpres/cmd/mcpres-tuf"} {
		out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	cmd := exec.Command("bash", filepath.Join(examplesDir, "pipeline.sh"))
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "WORK="+filepath.Join(t.TempDir(), "work"),
		"MCPRES_PASSWORD=", "XDG_CACHE_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, "MCPRES_PASSWORD=example-only-passphrase")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("examples/pipeline.sh failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"| PASSED | WITNESSED | FIXTURE_BACKED_PROTOCOL | – |",
		"gate: FAILED: the attested bundle is invalid (MCP_RES_ATTESTED_EVIDENCE_INVALID",
		"the gate refused the tampered bundle, as it must",
		"gate: FAILED: MCPRES_SUBJECT_MISMATCH: digest: expected sha256:" + strings.Repeat("0", 64),
		"the gate refused the bundle for another artifact, as it must",
		"checks: digest passed, name passed, version passed",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("pipeline output lacks %q:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte("PRIVATE KEY")) {
		t.Error("the pipeline output shows a private key")
	}
}

// TestExampleWorkflows checks that the workflows are valid YAML with jobs
// and steps, and that every mcpres command they (and the script) run exists
// with exactly the flags used.
func TestExampleWorkflows(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(examplesDir, "github-actions", "*.yml"))
	for _, want := range []string{"release.yml", "consume.yml", "tuf-refresh.yml", "monitor.yml"} {
		if !slices.Contains(files, filepath.Join(examplesDir, "github-actions", want)) {
			t.Errorf("no workflow %s among %q", want, files)
		}
	}
	var scripts []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Name string `yaml:"name"`
			On   any    `yaml:"on"`
			Jobs map[string]struct {
				RunsOn string `yaml:"runs-on"`
				Steps  []struct {
					Name string `yaml:"name"`
					Uses string `yaml:"uses"`
					Run  string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s is not valid YAML: %v", f, err)
		}
		if wf.Name == "" || wf.On == nil || len(wf.Jobs) == 0 {
			t.Errorf("%s lacks name, on or jobs", f)
		}
		for job, j := range wf.Jobs {
			if j.RunsOn == "" || len(j.Steps) == 0 {
				t.Errorf("%s: job %s lacks runs-on or steps", f, job)
			}
			for _, s := range j.Steps {
				if (s.Run == "") == (s.Uses == "") {
					t.Errorf("%s: step %q needs exactly one of run and uses", f, s.Name)
				}
				scripts = append(scripts, s.Run)
			}
		}
	}
	script, err := os.ReadFile(filepath.Join(examplesDir, "pipeline.sh"))
	if err != nil {
		t.Fatal(err)
	}
	scripts = append(scripts, strings.ReplaceAll(string(script), `"$mcpres"`, "mcpres"))
	n := 0
	for _, s := range scripts {
		for _, line := range mcpresInvocations(s) {
			n++
			checkInvocation(t, line)
		}
	}
	if n < 15 {
		t.Errorf("found only %d mcpres invocations in the examples", n)
	}

	draft, _ := os.ReadFile(filepath.Join(examplesDir, "evidence", "draft.json"))
	fixture, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "drafts", "example.draft.json"))
	if len(draft) == 0 || !bytes.Equal(draft, fixture) {
		t.Error("examples/evidence/draft.json differs from testdata/drafts/example.draft.json")
	}
}

// mcpresInvocations returns the mcpres command lines of a shell script,
// with backslash continuations joined.
func mcpresInvocations(script string) []string {
	joined := strings.ReplaceAll(script, "\\\n", " ")
	var out []string
	for _, line := range strings.Split(joined, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "mcpres "); i >= 0 && !strings.HasPrefix(line, "#") && !strings.Contains(line[:i], "echo") && !strings.Contains(line, "go install") {
			out = append(out, line[i:])
		}
	}
	return out
}

var flagRE = regexp.MustCompile(`^--?([a-zA-Z][a-zA-Z0-9-]*)`)

// checkInvocation finds the command of an mcpres command line in the real
// command tree and checks every flag it uses.
func checkInvocation(t *testing.T, line string) {
	t.Helper()
	if i := strings.IndexAny(line, "|>;&"); i >= 0 {
		line = line[:i] // the rest belongs to the shell (pipes, redirections)
	}
	words := strings.Fields(line)[1:]
	root := (&app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}).rootCommand()
	cmd, rest, err := root.Find(words)
	if err != nil || cmd == root {
		t.Errorf("%q: no such mcpres command (%v)", line, err)
		return
	}
	_ = rest
	lookup := func(name string) bool {
		return cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil
	}
	short := func(letter string) bool { return cmd.Flags().ShorthandLookup(letter) != nil }
	if cmd.DisableFlagParsing {
		// A bridge to a companion (policy tuf …: mcpres-tuf, oci …:
		// mcpres-oci): its flags are defined in that separate main
		// package.
		companion := map[string]string{"tuf": "mcpres-tuf", "oci": "mcpres-oci"}[cmd.Name()]
		if companion == "" {
			t.Fatalf("%q: %s passes its arguments to no known companion", line, cmd.CommandPath())
		}
		src, _ := filepath.Glob(filepath.Join("..", companion, "*.go"))
		var defs []byte
		for _, f := range src {
			if !strings.HasSuffix(f, "_test.go") {
				b, _ := os.ReadFile(f)
				defs = append(defs, b...)
			}
		}
		lookup = func(name string) bool { return bytes.Contains(defs, []byte(`"`+name+`"`)) }
		short = func(letter string) bool { return bytes.Contains(defs, []byte(`", "`+letter+`", `)) }
	}
	for _, w := range words {
		m := flagRE.FindStringSubmatch(w)
		if m == nil {
			continue
		}
		name := m[1]
		if strings.HasPrefix(w, "--") {
			if !lookup(name) {
				t.Errorf("%q: %s has no flag --%s", line, cmd.CommandPath(), name)
			}
		} else if !short(name[:1]) {
			t.Errorf("%q: %s has no flag -%s", line, cmd.CommandPath(), name[:1])
		}
	}
}
