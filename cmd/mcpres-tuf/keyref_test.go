package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/keyreftest"
)

// The role keys are key references: a repository whose root and
// timestamp keys are in a real ssh-agent publishes a policy, and a key
// missing from the agent is refused (exit 2) before anything is written.
func TestCLIRoleKeysInAgent(t *testing.T) {
	ag := keyreftest.SSHAgent(t)
	root, ts := ag.AddNew(t, "ed25519"), ag.AddNew(t, "ed25519")
	t.Setenv(keyref.EnvSSHAuthSock, ag.Sock)
	keys := tufKeyFiles(t, "targets", "snapshot")
	k := func(n string) string { return filepath.Join(keys, n+".key") }
	repo := filepath.Join(t.TempDir(), "repo")
	absent := ag.NewKey(t, "ed25519")
	_, stderr, code := runTUF(t, "init", "--repo", repo, "--root-key", root.Ref(),
		"--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", absent.Ref())
	if code != 2 || !strings.Contains(stderr, "key not in the ssh-agent") {
		t.Fatalf("a key not in the agent: exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(repo); err == nil {
		t.Fatal("the refused init wrote the repository")
	}
	wantTUFRun(t, 0, "init", "--repo", repo, "--root-key", root.Ref(),
		"--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", ts.Ref())
	policy := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(policy, []byte(tufTestPolicy), 0o644)
	wantTUFRun(t, 0, "add-target", "--repo", repo, "--name", "policy.json", policy,
		"--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", ts.Ref())
	stdout, _ := wantTUFRun(t, 0, "fetch", "--policy-tuf", filepath.Join(repo, "1.root.json"), "--policy-repo", repo, "--policy-target", "policy.json", "--policy-cache", t.TempDir())
	if stdout != tufTestPolicy {
		t.Fatalf("fetched %q", stdout)
	}
}
