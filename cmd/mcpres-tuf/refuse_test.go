package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The flags each command requires, the forms --format takes, a key
// reference that does not parse (usage errors, with the pointer to the
// help), and a role key that cannot be opened (an input error naming the
// key, without the pointer) are refused before anything is written.
func TestCLIPolicyTUFRefusals(t *testing.T) {
	keys, repo := tufTestRepo(t)
	k := func(n string) string { return filepath.Join(keys, n+".key") }
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(tufTestPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(repo, "1.root.json")
	missing := filepath.Join(t.TempDir(), "missing.key")
	fetch := []string{"fetch", "--policy-tuf", root, "--policy-repo", repo, "--policy-target", "policy.json", "--policy-cache", t.TempDir()}
	tests := []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"init without role keys", []string{"init", "--repo", t.TempDir(), "--root-key", k("root-1"), "--targets-key", k("targets")},
			"--targets-key, --snapshot-key and --timestamp-key are required", true},
		{"add-target without repo", []string{"add-target", "--name", "x.json", policy, "--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp")},
			"--repo is required", true},
		{"add-target without timestamp key", []string{"add-target", "--repo", repo, "--name", "x.json", policy, "--targets-key", k("targets"), "--snapshot-key", k("snapshot")},
			"--targets-key, --snapshot-key and --timestamp-key are required", true},
		{"add-target snapshot key missing", []string{"add-target", "--repo", repo, "--name", "x.json", policy, "--targets-key", k("targets"), "--snapshot-key", missing, "--timestamp-key", k("timestamp")},
			"private key " + missing + ": ", false},
		{"add-target targets key missing", []string{"add-target", "--repo", repo, "--name", "x.json", policy, "--targets-key", missing, "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp")},
			"private key " + missing + ": ", false},
		{"add-target key reference with white space", []string{"add-target", "--repo", repo, "--name", "x.json", policy, "--targets-key", k("targets") + " ", "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp")},
			"malformed key reference: white space before or after the reference", true},
		{"sign without repo", []string{"sign", "--role", "root", "--key", k("root-1")}, "--repo is required", true},
		{"sign without role", []string{"sign", "--repo", repo, "--key", k("root-1")}, "--role is required", true},
		{"sign without key", []string{"sign", "--repo", repo, "--role", "root"}, "--key is required", true},
		{"fetch format yaml", append(fetch, "--format", "yaml"), `--format "yaml": want raw or json`, true},
		{"fetch json to a file", append(fetch, "--format", "json", "-o", filepath.Join(t.TempDir(), "p.json")), "-o/--output can't be used with --format json (the object goes to stdout)", true},
		{"fetch over the pinned root", append(fetch, "-o", root, "--force"), "refusing to write " + root + ": it is an input of this command", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr := wantTUFRun(t, exitInput, tt.args...)
			if stdout != "" || !strings.HasPrefix(stderr, "mcpres-tuf: error: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("stdout %q stderr %q, want %q", stdout, stderr, tt.want)
			}
			if strings.Contains(stderr, usagePointer) != tt.usage {
				t.Errorf("pointer to the help printed: %t, want %t", !tt.usage, tt.usage)
			}
		})
	}
	// Nothing was published by the refused add-targets, and the pinned
	// root is as init wrote it.
	if _, err := os.Stat(filepath.Join(repo, "3.targets.json")); err == nil {
		t.Error("a refused add-target published targets version 3")
	}
	var r map[string]any
	if err := json.Unmarshal(readTestFile(t, root), &r); err != nil {
		t.Errorf("the pinned root was overwritten: %v", err)
	}

	// Control: the same add-target with every key publishes.
	wantTUFRun(t, 0, "add-target", "--repo", repo, "--name", "x.json", policy, "--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp"))
}

// fetch -o writes the policy, never over an existing file without
// --force, and with --format json a policy the cache stood in for says
// so (fromCache, fetchError), as the warning does for raw.
func TestCLIFetchOutputAndCache(t *testing.T) {
	_, repo := tufTestRepo(t)
	root := filepath.Join(repo, "1.root.json")
	cache := t.TempDir()
	out := filepath.Join(t.TempDir(), "policy.json")
	fetch := []string{"fetch", "--policy-tuf", root, "--policy-repo", repo, "--policy-target", "policy.json", "--policy-cache", cache}

	wantTUFRun(t, 0, append(fetch, "-o", out)...)
	if got := string(readTestFile(t, out)); got != tufTestPolicy {
		t.Fatalf("written %q", got)
	}
	stdout, stderr := wantTUFRun(t, exitInput, append(fetch, "-o", out)...)
	if stdout != "" || !strings.HasPrefix(stderr, "mcpres-tuf: error: ") || !strings.Contains(stderr, out) || strings.Contains(stderr, usagePointer) {
		t.Errorf("existing output: stdout %q stderr %q", stdout, stderr)
	}
	wantTUFRun(t, 0, append(fetch, "-o", out, "--force")...)

	// The repository gone: the cache stands in, and says so.
	if err := os.Rename(repo, repo+".gone"); err != nil {
		t.Fatal(err)
	}
	fetch[2] = filepath.Join(repo+".gone", "1.root.json")
	stdout, stderr = wantTUFRun(t, 0, append(fetch, "--format", "json")...)
	var res map[string]any
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || stderr != "" {
		t.Fatalf("stdout %q stderr %q: %v", stdout, stderr, err)
	}
	if res["valid"] != true || res["fromCache"] != true || !strings.Contains(res["fetchError"].(string), repo) {
		t.Errorf("from the cache: %v", res)
	}
	stdout, stderr = wantTUFRun(t, 0, fetch...)
	if stdout != tufTestPolicy || !strings.Contains(stderr, "mcpres-tuf: warning: TUF repository "+repo+" could not be read (") {
		t.Errorf("raw from the cache: stdout %q stderr %q", stdout, stderr)
	}
}
