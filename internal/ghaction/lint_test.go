package ghaction

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const actionlintVersion = "v1.7.12"

// actionlint returns an actionlint v1.7.12 binary: one on PATH or in
// $GOPATH/bin of that version (.ci/run installs it), else one built from
// the module cache with the proxy off (tests use no network). It skips
// the test when none can be had.
func actionlint(t *testing.T) string {
	t.Helper()
	candidates := []string{}
	if p, err := exec.LookPath("actionlint"); err == nil {
		candidates = append(candidates, p)
	}
	if gopath, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		candidates = append(candidates, filepath.Join(strings.TrimSpace(string(gopath)), "bin", "actionlint"))
	}
	for _, c := range candidates {
		if out, err := exec.Command(c, "-version").Output(); err == nil && strings.HasPrefix(string(out), actionlintVersion+"\n") {
			return c
		}
	}
	dir := t.TempDir()
	install := exec.Command("go", "install", "github.com/rhysd/actionlint/cmd/actionlint@"+actionlintVersion)
	install.Env = append(os.Environ(), "GOBIN="+dir, "GOPROXY=off", "GOFLAGS=-mod=mod")
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("actionlint %s is not installed and not in the module cache (go install github.com/rhysd/actionlint/cmd/actionlint@%s; .ci/run does): %v\n%s",
			actionlintVersion, actionlintVersion, err, out)
	}
	return filepath.Join(dir, "actionlint")
}

func shellcheck(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("shellcheck is not installed (Debian package shellcheck; .ci/run installs it when it can)")
	}
	return p
}

func workflows(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(repoRoot, "examples", "github-actions", "*.yml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("example workflows: %q %v", files, err)
	}
	return files
}

// TestWorkflowsLint runs actionlint (with shellcheck on every run: script)
// over the example workflows, and shellcheck over examples/pipeline.sh, the
// example scripts (examples/github-actions/*.sh), the action's install
// script (action/install.sh) and the action's run: steps.
func TestWorkflowsLint(t *testing.T) {
	sc := shellcheck(t)
	t.Run("actionlint", func(t *testing.T) {
		al := actionlint(t)
		out, err := exec.Command(al, append([]string{"-no-color", "-shellcheck", sc}, workflows(t)...)...).CombinedOutput()
		if err != nil {
			t.Errorf("actionlint: %v\n%s", err, out)
		}
	})
	t.Run("scripts", func(t *testing.T) {
		scripts, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "github-actions", "*.sh"))
		scripts = append(scripts, filepath.Join(repoRoot, "examples", "pipeline.sh"), filepath.Join(repoRoot, "action", "install.sh"))
		for _, f := range scripts {
			out, err := exec.Command(sc, f).CombinedOutput()
			if err != nil {
				t.Errorf("shellcheck %s: %v\n%s", f, err, out)
			}
		}
	})
	t.Run("action.yml", func(t *testing.T) {
		for _, s := range loadAction(t).Runs.Steps {
			if s.Run == "" {
				continue
			}
			f := filepath.Join(t.TempDir(), "step.sh")
			os.WriteFile(f, []byte("#!/usr/bin/env bash\n"+s.Run), 0o644)
			out, err := exec.Command(sc, f).CombinedOutput()
			if err != nil {
				t.Errorf("shellcheck action.yml step %q: %v\n%s", s.Name, err, out)
			}
		}
	})
	// Control: the linters do fire. A workflow with an interpolated input
	// and a tag-pinned action must be reported.
	t.Run("control", func(t *testing.T) {
		al := actionlint(t)
		bad := filepath.Join(t.TempDir(), "bad.yml")
		os.WriteFile(bad, []byte("on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.head_commit.message }}\n"), 0o644)
		if out, err := exec.Command(al, "-no-color", "-shellcheck", sc, bad).CombinedOutput(); err == nil || !bytes.Contains(out, []byte("untrusted")) {
			t.Errorf("actionlint accepted an injection: %v\n%s", err, out)
		}
	})
}

var fullSHA = regexp.MustCompile(`^[^@]+@[0-9a-f]{40}$`)

// TestWorkflowsPolicy checks what actionlint does not: every uses: is
// pinned by full commit SHA (with the tag in a comment), every workflow
// and job says its permissions, no run: script interpolates an
// expression, the log is behind a concurrency group, mcpres is built from
// a pinned checkout, and the TUF timestamp is refreshed on a schedule.
func TestWorkflowsPolicy(t *testing.T) {
	type stepT struct {
		Name string `yaml:"name"`
		Uses string `yaml:"uses"`
		Run  string `yaml:"run"`
	}
	type job struct {
		Permissions any     `yaml:"permissions"`
		Steps       []stepT `yaml:"steps"`
	}
	var all string
	for _, f := range workflows(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all += string(data)
		var wf struct {
			On          map[string]any `yaml:"on"`
			Permissions any            `yaml:"permissions"`
			Concurrency any            `yaml:"concurrency"`
			Jobs        map[string]job `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(f)
		if wf.Permissions == nil {
			t.Errorf("%s: no top-level permissions:", name)
		}
		for jn, j := range wf.Jobs {
			if j.Permissions == nil {
				t.Errorf("%s: job %s has no permissions:", name, jn)
			}
			for _, s := range j.Steps {
				if s.Uses != "" && !strings.HasPrefix(s.Uses, "./") && !fullSHA.MatchString(s.Uses) {
					t.Errorf("%s: %q is not pinned by a full commit SHA", name, s.Uses)
				}
				if strings.Contains(s.Run, "${{") {
					t.Errorf("%s: step %q interpolates an expression into its script", name, s.Name)
				}
				if strings.Contains(s.Run, "@latest") {
					t.Errorf("%s: step %q installs an unpinned version", name, s.Name)
				}
			}
		}
		if strings.Contains(string(data), "mcpres log add") && wf.Concurrency == nil {
			t.Errorf("%s appends to the log without a concurrency group", name)
		}
		if name == "tuf-refresh.yml" {
			if _, ok := wf.On["schedule"]; !ok {
				t.Errorf("%s is not scheduled", name)
			}
		}
	}
	// The producer submits to the organisation's log server (issue 13
	// item 9): no log folder is restored, modified or published by a job.
	for _, want := range []string{"command: install", "gh release create", "mcpres log add --server \"$LOG_URL\" --token-file \"$TOKEN_FILE\"", "policy tuf add-target"} {
		if !strings.Contains(all, want) {
			t.Errorf("no workflow has %q", want)
		}
	}
	for _, notWant := range []string{"log add --dir", "log.tar", "actions/deploy-pages@"} {
		if strings.Contains(all, notWant) {
			t.Errorf("a workflow still has %q (the log is the server's)", notWant)
		}
	}
	for _, line := range strings.Split(all, "\n") {
		if strings.Contains(line, "uses: actions/") && !strings.Contains(line, "# v") {
			t.Errorf("%q: name the tag of the pinned commit in a comment", strings.TrimSpace(line))
		}
	}
}

// Every step of the example workflows that uses the repository's own
// action (./.mcpres, the checkout of mcpres) gives it only inputs that
// action.yml declares, and every gate of the consumer binds the evidence
// to the artifact it admits (a subject digest or artifact, or the image of
// oci) and takes its policy through TUF.
func TestWorkflowsUseTheAction(t *testing.T) {
	inputs := loadAction(t).Inputs
	type stepT struct {
		Name string            `yaml:"name"`
		Uses string            `yaml:"uses"`
		With map[string]string `yaml:"with"`
	}
	gates := 0
	for _, f := range workflows(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []stepT `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(f)
		for jn, j := range wf.Jobs {
			for _, s := range j.Steps {
				if s.Uses != "./.mcpres" {
					continue
				}
				for k := range s.With {
					if _, ok := inputs[k]; !ok {
						t.Errorf("%s: job %s step %q gives input %q, which action.yml does not declare", name, jn, s.Name, k)
					}
				}
				if name != "consume.yml" {
					continue
				}
				gates++
				if s.With["subject-digest"] == "" && s.With["artifact"] == "" && s.With["oci"] == "" {
					t.Errorf("%s: step %q does not bind the evidence to the artifact it admits (subject-digest, artifact or oci)", name, s.Name)
				}
				if s.With["policy-tuf"] == "" || s.With["policy"] != "" {
					t.Errorf("%s: step %q does not take its policy through TUF", name, s.Name)
				}
			}
		}
	}
	if gates < 2 {
		t.Errorf("consume.yml has %d gates through the repository's action, want 2 (the release's bundle, the image's)", gates)
	}
}

// The example release pipeline shows real roles (docs/release-pipeline.md):
// the release key and the witness key are secrets of two jobs in two
// environments, never both in one job; the witness job runs after the
// release job, checks the signed bundle bound to an image digest it
// resolved itself (its own step, not the release job's output) before it
// co-signs, and every publishing job waits for it.
func TestReleaseRoles(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "github-actions", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	type stepT struct {
		Name string            `yaml:"name"`
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		Env  map[string]string `yaml:"env"`
		With map[string]string `yaml:"with"`
	}
	var wf struct {
		Jobs map[string]struct {
			Needs       yaml.Node `yaml:"needs"`
			Environment string    `yaml:"environment"`
			Steps       []stepT   `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	holder := map[string]string{} // secret → the job that references it
	for jn, j := range wf.Jobs {
		for _, s := range j.Steps {
			for _, v := range s.Env {
				for _, m := range regexp.MustCompile(`secrets\.([A-Z_]+)`).FindAllStringSubmatch(v, -1) {
					if prev, ok := holder[m[1]]; ok && prev != jn {
						t.Errorf("secret %s is referenced by jobs %s and %s", m[1], prev, jn)
					}
					holder[m[1]] = jn
				}
			}
		}
	}
	signer, witness := holder["MCPRES_SIGNING_KEY"], holder["MCPRES_WITNESS_BUNDLE_KEY"]
	if signer == "" || witness == "" || signer == witness {
		t.Fatalf("the release key is held by job %q and the witness key by job %q: want two jobs", signer, witness)
	}
	sj, wj := wf.Jobs[signer], wf.Jobs[witness]
	if sj.Environment == "" || wj.Environment == "" || sj.Environment == wj.Environment {
		t.Errorf("environments %q and %q: want each key in an environment of its own", sj.Environment, wj.Environment)
	}
	if wj.Needs.Value != signer {
		t.Errorf("job %s needs %q, want the release job %s", witness, wj.Needs.Value, signer)
	}
	checked, resolved := false, false
	for _, s := range wj.Steps {
		if strings.Contains(s.Run, "mcpres oci resolve") {
			resolved = true
		}
		if s.Uses == "./.mcpres" && strings.HasPrefix(s.With["subject-digest"], "${{ steps.") && s.With["paths"] == "dist/bundle.signed.json" {
			if !resolved {
				t.Error("the witness checks the subject before resolving the image digest itself")
			}
			checked = true
		}
		if strings.Contains(s.Run, "mcpres attest sign") && !checked {
			t.Errorf("job %s co-signs before it checked the signed bundle bound to the image digest", witness)
		}
	}
	if !checked {
		t.Errorf("job %s never checks the signed bundle bound to an image digest of its own", witness)
	}
	for jn, j := range wf.Jobs {
		publishes := false
		for _, s := range j.Steps {
			publishes = publishes || strings.Contains(s.Run, "gh release upload") || strings.Contains(s.Run, "oci attach")
		}
		if publishes && j.Needs.Value != witness {
			t.Errorf("job %s publishes without waiting for the witness (needs %q)", jn, j.Needs.Value)
		}
	}
}
