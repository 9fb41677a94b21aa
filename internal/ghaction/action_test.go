package ghaction

import (
	"bufio"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/oci/ocitest"
	"go.yaml.in/yaml/v3"
)

// repoRoot is the repository root, where action.yml is.
const repoRoot = "../.."

type action struct {
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
}

type step struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
}

func loadAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// runner is a simulated GitHub Actions runner for one run of the action.
type runner struct {
	t                           *testing.T
	temp, workspace, actionPath string
	output, summary, path       string
	inputs                      map[string]string
}

var expr = regexp.MustCompile(`\$\{\{\s*([a-z_.-]+(?:\s*\|\|\s*[a-z_.-]+)*)\s*\}\}`)

// eval replaces the ${{ … }} expressions the action uses (a name, or
// names joined by ||: the first non-empty); any other expression is a
// test failure, so that the action cannot come to depend on something
// this simulation does not model. github.action_repository is empty, as
// for an action used from a checkout (uses: ./PATH).
func (r *runner) eval(s string) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string {
		for _, name := range strings.Split(expr.FindStringSubmatch(m)[1], "||") {
			var v string
			switch name = strings.TrimSpace(name); {
			case name == "github.action_path":
				v = r.actionPath
			case name == "github.workspace":
				v = r.workspace
			case name == "github.action_repository":
			case strings.HasPrefix(name, "inputs."):
				v = r.inputs[strings.TrimPrefix(name, "inputs.")]
			default:
				r.t.Fatalf("expression %s is not simulated", m)
			}
			if v != "" {
				return v
			}
		}
		return ""
	})
}

// split returns the action's install steps and its check step (id
// check) with what follows it.
func split(t *testing.T, a action) (install, check action) {
	t.Helper()
	for i, s := range a.Runs.Steps {
		if s.ID == "check" {
			install, check = a, a
			install.Runs.Steps, check.Runs.Steps = a.Runs.Steps[:i], a.Runs.Steps[i:]
			return install, check
		}
	}
	t.Fatal("action.yml has no step with id check")
	return
}

// run executes the action's run: steps with bash, as the runner does
// (bash --noprofile --norc -eo pipefail), and returns the exit status of
// the first failing step (0 when all pass). uses: steps are skipped: the
// test machine has Go already.
func (r *runner) run(a action) int {
	r.t.Helper()
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			continue
		}
		if strings.Contains(s.Run, "${{") {
			r.t.Fatalf("step %q interpolates an expression into its script (template injection): pass it through env:", s.Name)
		}
		if s.Shell != "bash" {
			r.t.Fatalf("step %q: shell %q, want bash", s.Name, s.Shell)
		}
		script := filepath.Join(r.temp, "step.sh")
		if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
			r.t.Fatal(err)
		}
		c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		c.Dir = r.workspace
		if s.WorkingDirectory != "" {
			c.Dir = r.eval(s.WorkingDirectory)
		}
		path := os.Getenv("PATH")
		if extra := r.readPath(); extra != "" {
			path = extra + string(os.PathListSeparator) + path
		}
		c.Env = append(os.Environ(), "PATH="+path, "RUNNER_TEMP="+r.temp, "GITHUB_WORKSPACE="+r.workspace,
			"GITHUB_OUTPUT="+r.output, "GITHUB_STEP_SUMMARY="+r.summary, "GITHUB_PATH="+r.path, "GITHUB_ACTIONS=true", "CI=true")
		for k, v := range s.Env {
			c.Env = append(c.Env, k+"="+r.eval(v))
		}
		out, err := c.CombinedOutput()
		r.t.Logf("step %q:\n%s", s.Name, out)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		} else if err != nil {
			r.t.Fatal(err)
		}
	}
	return 0
}

func (r *runner) readPath() string {
	data, err := os.ReadFile(r.path)
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(data)), string(os.PathListSeparator))
}

// outputs parses $GITHUB_OUTPUT (name=value lines).
func (r *runner) outputs() map[string]string {
	f, err := os.Open(r.output)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			r.t.Fatalf("GITHUB_OUTPUT line %q is not name=value", sc.Text())
		}
		m[k] = v
	}
	return m
}

func newRunner(t *testing.T, temp string, inputs map[string]string, a action) *runner {
	dir := t.TempDir()
	r := &runner{t: t, temp: temp, workspace: filepath.Join(dir, "workspace"), inputs: map[string]string{},
		output: filepath.Join(dir, "output"), summary: filepath.Join(dir, "summary"), path: filepath.Join(dir, "path")}
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	r.actionPath = abs
	for name, in := range a.Inputs {
		r.inputs[name] = in.Default
	}
	for k, v := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("input %q is not declared in action.yml", k)
		}
		r.inputs[k] = v
	}
	for _, p := range []string{r.workspace} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{r.output, r.summary, r.path} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// demoFixtures runs `mcpres demo --keep` with the installed binary and
// copies its policy and attested bundles into workspace.
func demoFixtures(t *testing.T, bin, workspace string) {
	t.Helper()
	out, err := exec.Command(bin, "demo", "--keep").Output()
	if err != nil {
		t.Fatalf("mcpres demo: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^# working in (.*) \(kept\)$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("mcpres demo did not say where it worked:\n%s", out)
	}
	dir := string(m[1])
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, name := range []string{"policy.json", "example.signed.json", "example.witnessed.json", "example.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(workspace, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// attestedAbout is the example bundle about digest with statement result
// result, sealed and signed by key as identity.
func attestedAbout(t *testing.T, digest, result string, key ed25519.PrivateKey, identity string) []byte {
	t.Helper()
	b := bundletest.ExampleWithResult(t, result)
	b.Path("evidence", "subject").Set("artifactSha256", canonjson.NewString(strings.TrimPrefix(digest, "sha256:")))
	if err := bundle.SealFrom(b, bundle.StageSubject); err != nil {
		t.Fatal(err)
	}
	s, err := attest.SignBundle(b, key, attest.BundleSignOptions{SignOptions: attesttest.Options(identity)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := canonjson.Pretty(s.Attested)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAction runs action.yml's steps as a runner would, with a passing
// and a failing gate, and checks $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY and
// the step's exit status.
func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("installs mcpres with go install")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not available")
	}
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	for _, o := range []string{"valid", "level", "report"} {
		if !strings.Contains(a.Outputs[o].Value, "steps.check.outputs."+o) {
			t.Errorf("output %s is not the check step's", o)
		}
	}
	temp := t.TempDir() // RUNNER_TEMP, shared: mcpres is installed once

	cases := []struct {
		name      string
		inputs    map[string]string
		code      int
		valid     string
		level     string
		summary   []string
		noSummary []string
		report    string // the report output, and a file holding an HTML report
	}{
		{"passing gate", map[string]string{"paths": "example.witnessed.json", "policy": "policy.json", "require-level": "WITNESSED"},
			0, "true", "WITNESSED", []string{"| example.witnessed.json | PASSED | WITNESSED |"}, nil, ""},
		{"failing gate", map[string]string{"paths": "example.witnessed.json\nexample.signed.json\n", "policy": "policy.json", "require-level": "WITNESSED"},
			1, "false", "SIGNED_WITH_IDENTITY", []string{"example.signed.json", "gate"}, nil, ""},
		{"validate a directory", map[string]string{"command": "validate", "paths": "."},
			1, "false", "", []string{"| example.json | VALID |"}, nil, ""},
		{"validate a file", map[string]string{"command": "validate", "paths": "example.json"},
			0, "true", "", []string{"| example.json | VALID |"}, nil, ""},
		{"report of the first file", map[string]string{"paths": "example.witnessed.json\nexample.signed.json", "policy": "policy.json", "report": "out/report.html"},
			0, "true", "SIGNED_WITH_IDENTITY", []string{"HTML report of `example.witnessed.json`: `out/report.html`"}, nil, "out/report.html"},
		{"no report of a directory", map[string]string{"command": "validate", "paths": ".", "report": "report.html"},
			1, "false", "", []string{"| example.json | VALID |"}, []string{"HTML report"}, ""},
		{"a gate with validate is refused", map[string]string{"command": "validate", "paths": "example.json", "require-level": "SIGNED"},
			2, "", "", nil, []string{"VALID"}, ""},
		// An input that would run a command if it were interpolated into
		// the script is only ever a (missing) file name.
		{"no injection", map[string]string{"paths": "$(touch injected)`touch injected2`", "policy": "policy.json"},
			2, "false", "", nil, nil, ""},
	}
	var bin string
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRunner(t, temp, c.inputs, a)
			if i == 0 {
				// The first run installs mcpres; the fixtures come from its demo.
				bin = filepath.Join(temp, "mcpres-bin", "mcpres")
				a0, _ := split(t, a)
				if code := r.run(a0); code != 0 {
					t.Fatalf("install step: exit %d", code)
				}
			}
			if bin == "" {
				t.Skip("mcpres was not installed")
			}
			demoFixtures(t, bin, r.workspace)
			_, check := split(t, a)
			code := r.run(check)
			if code != c.code {
				t.Errorf("exit status %d, want %d", code, c.code)
			}
			out := r.outputs()
			if c.code != 2 || c.valid != "" {
				if out["valid"] != c.valid || out["level"] != c.level {
					t.Errorf("outputs %q, want valid=%s level=%s", out, c.valid, c.level)
				}
			}
			summary, _ := os.ReadFile(r.summary)
			for _, s := range c.summary {
				if !strings.Contains(string(summary), s) {
					t.Errorf("step summary lacks %q:\n%s", s, summary)
				}
			}
			for _, s := range c.noSummary {
				if strings.Contains(string(summary), s) {
					t.Errorf("step summary has %q:\n%s", s, summary)
				}
			}
			if out["report"] != c.report {
				t.Errorf("report output %q, want %q", out["report"], c.report)
			}
			if c.report != "" {
				if page, err := os.ReadFile(filepath.Join(r.workspace, c.report)); err != nil || !strings.Contains(string(page), "Content-Security-Policy") {
					t.Errorf("the report %s is not an mcpres HTML report: %v", c.report, err)
				}
			}
			for _, f := range []string{"injected", "injected2"} {
				if _, err := os.Stat(filepath.Join(r.workspace, f)); err == nil {
					t.Errorf("an input was executed as a command (%s exists)", f)
				}
			}
		})
	}

	// The subject checks: a bundle about an artifact file passes with that
	// artifact, its digest, name and version, and fails with another's;
	// the report gets the same checks.
	t.Run("subject", func(t *testing.T) {
		if bin == "" {
			t.Skip("mcpres was not installed")
		}
		ws := t.TempDir()
		art := filepath.Join(ws, "server.tar")
		other := filepath.Join(ws, "other.tar")
		os.WriteFile(art, []byte("the artifact that ships\n"), 0o644)
		os.WriteFile(other, []byte("another artifact\n"), 0o644)
		sum := sha256.Sum256([]byte("the artifact that ships\n"))
		// A key made now, test-only, that no policy of the test trusts.
		_, rogueKey, err := ed25519.GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		digest := "sha256:" + hex.EncodeToString(sum[:])
		for _, c := range []struct {
			name   string
			inputs map[string]string
			code   int
			valid  string
		}{
			{"its artifact", map[string]string{"artifact": "server.tar"}, 0, "true"},
			{"its artifact among others, digest, name and version", map[string]string{"artifact": "other.tar\nserver.tar\n", "subject-digest": digest,
				"subject-name": "ledger-notes-server", "subject-version": "3.4.1", "report": "r.html"}, 0, "true"},
			{"another artifact", map[string]string{"artifact": "other.tar"}, 1, "false"},
			{"another version", map[string]string{"subject-version": "3.4.2"}, 1, "false"},
			{"a digest in another form", map[string]string{"subject-digest": strings.ToUpper(digest)}, 2, "false"},
			{"a missing artifact", map[string]string{"artifact": "missing.tar"}, 2, "false"},
			{"subject checks with validate", map[string]string{"command": "validate", "subject-name": "x", "policy": ""}, 2, ""},
			// The gate's defaults: a PASS result and a trusted signer, with
			// no gate input but the subject; each loosening by name.
			{"a FAIL result", map[string]string{"paths": "fail.json", "artifact": "server.tar"}, 1, "false"},
			{"a FAIL result accepted", map[string]string{"paths": "fail.json", "artifact": "server.tar", "accept-result": "INCOMPLETE\nFAIL\n"}, 0, "true"},
			{"an INCOMPLETE result", map[string]string{"paths": "incomplete.json", "subject-name": "ledger-notes-server"}, 1, "false"},
			{"an untrusted signer", map[string]string{"paths": "rogue.json", "artifact": "server.tar"}, 1, "false"},
			{"an untrusted signer accepted", map[string]string{"paths": "rogue.json", "artifact": "server.tar", "require-level-unsafe": "SIGNED"}, 0, "true"},
			{"a gate input without a policy", map[string]string{"accept-result": "FAIL", "policy": ""}, 2, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				in := map[string]string{"paths": "about.json", "policy": "policy.json", "evaluated-at": attesttest.EvaluatedAt}
				for k, v := range c.inputs {
					in[k] = v
				}
				r := newRunner(t, temp, in, a)
				files := map[string][]byte{"policy.json": ocitest.Policy(t), "about.json": ocitest.AttestedBundle(t, digest),
					"fail.json":       attestedAbout(t, digest, attest.ResultFail, attesttest.TestOnlyKeyOne(), attesttest.IdentityOne),
					"incomplete.json": attestedAbout(t, digest, attest.ResultIncomplete, attesttest.TestOnlyKeyOne(), attesttest.IdentityOne),
					"rogue.json":      attestedAbout(t, digest, attest.ResultPass, rogueKey, attesttest.IdentityTwo)}
				for _, f := range []string{art, other} {
					files[filepath.Base(f)], _ = os.ReadFile(f)
				}
				for name, data := range files {
					if err := os.WriteFile(filepath.Join(r.workspace, name), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				_, check := split(t, a)
				if code := r.run(check); code != c.code {
					t.Errorf("exit status %d, want %d", code, c.code)
				}
				summary, _ := os.ReadFile(r.summary)
				if out := r.outputs(); c.valid != "" && out["valid"] != c.valid {
					t.Errorf("outputs %q, want valid=%s", out, c.valid)
				}
				if c.code == 1 && c.inputs["paths"] == "" && !strings.Contains(string(summary), "MCPRES_SUBJECT_MISMATCH") {
					t.Errorf("the summary does not name the subject mismatch:\n%s", summary)
				}
				if c.inputs["report"] != "" {
					if page, err := os.ReadFile(filepath.Join(r.workspace, c.inputs["report"])); err != nil || !strings.Contains(string(page), "Subject checks") {
						t.Errorf("the report lists no subject checks: %v", err)
					}
				}
			})
		}
	})

	// The TUF inputs: the policy is fetched once through TUF from a
	// repository made with the installed mcpres, and gates the bundle.
	t.Run("tuf", func(t *testing.T) {
		if bin == "" {
			t.Skip("mcpres was not installed")
		}
		repo, root := t.TempDir(), t.TempDir()
		policy := filepath.Join(root, "release-policy.json")
		os.WriteFile(policy, ocitest.Policy(t), 0o644)
		mustRun := func(args ...string) {
			t.Helper()
			cmd := exec.Command(bin, args...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("mcpres %q: %v\n%s", args, err, out)
			}
		}
		mustRun("key", "generate", "--out-base", "tuf")
		roles := []string{"--targets-key", "tuf.key", "--snapshot-key", "tuf.key", "--timestamp-key", "tuf.key"}
		mustRun(append([]string{"policy", "tuf", "init", "--repo", repo, "--root-key", "tuf.key"}, roles...)...)
		mustRun(append([]string{"policy", "tuf", "add-target", "--repo", repo, "--name", "release-policy.json", policy}, roles...)...)
		for _, c := range []struct {
			name   string
			inputs map[string]string
			code   int
		}{
			{"fetched policy", map[string]string{"policy-tuf": "1.root.json", "policy-repo": repo, "policy-target": "release-policy.json", "require-level": "SIGNED_WITH_IDENTITY"}, 0},
			{"another target", map[string]string{"policy-tuf": "1.root.json", "policy-repo": repo, "policy-target": "missing.json"}, 2},
			{"policy-tuf without policy-target", map[string]string{"policy-tuf": "1.root.json", "policy-repo": repo}, 2},
			{"policy-tuf with policy", map[string]string{"policy-tuf": "1.root.json", "policy-repo": repo, "policy-target": "release-policy.json", "policy": "policy.json"}, 2},
		} {
			t.Run(c.name, func(t *testing.T) {
				in := map[string]string{"paths": "about.json", "evaluated-at": attesttest.EvaluatedAt, "subject-name": "ledger-notes-server"}
				for k, v := range c.inputs {
					in[k] = v
				}
				r := newRunner(t, temp, in, a)
				rootJSON, err := os.ReadFile(filepath.Join(repo, "1.root.json"))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(r.workspace, "1.root.json"), rootJSON, 0o644)
				os.WriteFile(filepath.Join(r.workspace, "policy.json"), ocitest.Policy(t), 0o644)
				os.WriteFile(filepath.Join(r.workspace, "about.json"), ocitest.AttestedBundle(t, "sha256:"+strings.Repeat("1", 64)), 0o644)
				_, check := split(t, a)
				if code := r.run(check); code != c.code {
					t.Errorf("exit status %d, want %d", code, c.code)
				}
				if c.code == 0 {
					if out := r.outputs(); out["valid"] != "true" || out["level"] != "SIGNED_WITH_IDENTITY" {
						t.Errorf("outputs %q", out)
					}
				}
			})
		}
	})

	// The keyless inputs reach attest verify (run by mcpres-sigstore,
	// installed beside mcpres): an ad-hoc identity with a trusted root
	// gates a bundle whose Sigstore bundle does not verify with its own
	// diagnostic, and one without a Sigstore bundle as untrusted; the
	// keyless inputs without trusted-root, or with validate, are refused.
	t.Run("keyless", func(t *testing.T) {
		if bin == "" {
			t.Skip("mcpres was not installed")
		}
		trJSON, err := keylesstest.OtherTrustedRoot(t).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		id := map[string]string{"trusted-root": "trusted_root.json", "certificate-identity": "release@example.org", "certificate-oidc-issuer": "https://issuer.example"}
		for _, c := range []struct {
			name     string
			inputs   map[string]string
			sigstore bool
			code     int
			results  string
		}{
			{"no Sigstore bundle", id, false, 1, "keyless: no Sigstore bundle at about.json.sigstore.json"},
			{"a Sigstore bundle that does not verify", id, true, 1, `"diagnostics":["MCPRES_KEYLESS_MATERIAL_INVALID"]`},
			{"an identity without trusted-root", map[string]string{"certificate-identity": "release@example.org", "certificate-oidc-issuer": "https://issuer.example"}, false, 2, ""},
			{"keyless inputs with validate", map[string]string{"command": "validate", "policy": "", "subject-name": "", "trusted-root": "trusted_root.json"}, false, 2, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				in := map[string]string{"paths": "about.json", "evaluated-at": attesttest.EvaluatedAt, "subject-name": "ledger-notes-server"}
				for k, v := range c.inputs {
					in[k] = v
				}
				r := newRunner(t, temp, in, a)
				os.WriteFile(filepath.Join(r.workspace, "trusted_root.json"), trJSON, 0o644)
				os.WriteFile(filepath.Join(r.workspace, "about.json"), ocitest.AttestedBundle(t, "sha256:"+strings.Repeat("1", 64)), 0o644)
				if c.sigstore {
					os.WriteFile(filepath.Join(r.workspace, "about.json.sigstore.json"), []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`), 0o644)
				}
				os.Remove(filepath.Join(temp, "mcpres-results.jsonl"))
				_, check := split(t, a)
				if code := r.run(check); code != c.code {
					t.Errorf("exit status %d, want %d", code, c.code)
				}
				results, _ := os.ReadFile(filepath.Join(temp, "mcpres-results.jsonl"))
				if c.results != "" && (!strings.Contains(string(results), c.results) || !strings.Contains(string(results), "trusts only keyless signatures of issuer")) {
					t.Errorf("results lack %q:\n%s", c.results, results)
				}
			})
		}
	})

	// oci: the artifacts attached to an image (by the installed mcpres,
	// which runs mcpres-oci installed beside it), one about the image and
	// one about another digest, verified bound to the image's digest.
	t.Run("oci", func(t *testing.T) {
		if bin == "" {
			t.Skip("mcpres was not installed")
		}
		t.Setenv("DOCKER_CONFIG", t.TempDir())
		reg := ocitest.ReferrersRegistry(t)
		pushed := reg.PushImage(t, "mcp/server", "1.0", "action")
		for _, c := range []struct {
			level, wantLevel, valid string
			code                    int
		}{{"SIGNED_WITH_IDENTITY", "SIGNED_WITH_IDENTITY", "true", 0}, {"WITNESSED", "", "false", 1}} {
			r := newRunner(t, temp, map[string]string{"oci": pushed.Ref, "policy": "policy.json", "require-level": c.level, "evaluated-at": attesttest.EvaluatedAt}, a)
			files := map[string][]byte{"policy.json": ocitest.Policy(t), "about.json": ocitest.AttestedBundle(t, pushed.Digest),
				"other.json": ocitest.AttestedBundle(t, "sha256:"+strings.Repeat("0", 64))}
			for name, data := range files {
				if err := os.WriteFile(filepath.Join(r.workspace, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{{"oci", "attach", pushed.Ref, "about.json"}, {"oci", "attach", "--force-subject", pushed.Ref, "other.json"}} {
				cmd := exec.Command(bin, args...)
				cmd.Dir = r.workspace
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("mcpres %q: %v\n%s", args, err, out)
				}
			}
			_, check := split(t, a)
			if code := r.run(check); code != c.code {
				t.Errorf("require %s: exit status %d, want %d", c.level, code, c.code)
			}
			if out := r.outputs(); out["valid"] != c.valid || out["level"] != c.wantLevel {
				t.Errorf("require %s: outputs %q, want valid=%s level=%s", c.level, out, c.valid, c.wantLevel)
			}
			if summary, _ := os.ReadFile(r.summary); !strings.Contains(string(summary), "MCPRES_SUBJECT_MISMATCH") {
				t.Errorf("require %s: the summary does not name the bundle about another digest:\n%s", c.level, summary)
			}
		}
		// oci with paths is refused.
		r := newRunner(t, temp, map[string]string{"oci": pushed.Ref, "paths": "about.json"}, a)
		_, check := split(t, a)
		if code := r.run(check); code != 2 {
			t.Errorf("oci with paths: exit status %d, want 2", code)
		}
	})
}
