package tufdist

import (
	"crypto/ed25519"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// addConfig is AddTarget of policy.json to dir with the test role keys.
func addConfig(dir string) AddTargetConfig {
	return AddTargetConfig{
		Dir: dir, Name: "policy.json", Data: []byte(policyV2),
		Targets:   testOnlyKey("targets"),
		Snapshot:  testOnlyKey("snapshot"),
		Timestamp: testOnlyKey("timestamp"),
		Now:       t0,
		Expiry:    DefaultExpiry(),
	}
}

// editJSON rewrites the JSON file at path with edit applied to it.
func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// AddTarget reads the published state before writing anything, and
// refuses one that does not hang together: a timestamp, snapshot or
// targets file missing or not metadata of its role, a file whose version
// is not the one its name and its referrer say, a timestamp that names no
// snapshot or a snapshot that names no targets. Each refusal names the
// file, and publishes nothing. The state as published takes the target
// (control).
func TestAddTargetRefusesBrokenState(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		breakIt func(t *testing.T, dir string)
		want    string
	}{
		{"timestamp missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "timestamp.json")) }, "timestamp.json: no such file"},
		{"timestamp not timestamp metadata", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "2.snapshot.json"), filepath.Join(dir, "timestamp.json"))
		}, "timestamp.json: "},
		{"timestamp names no snapshot", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "timestamp.json"), func(m map[string]any) {
				delete(m["signed"].(map[string]any)["meta"].(map[string]any), "snapshot.json")
			})
		}, "timestamp.json names no snapshot.json"},
		{"snapshot missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "2.snapshot.json")) }, "2.snapshot.json: no such file"},
		{"snapshot of another version", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "1.snapshot.json"), filepath.Join(dir, "2.snapshot.json"))
		}, "2.snapshot.json has version 1"},
		{"snapshot names no targets", func(t *testing.T, dir string) {
			editJSON(t, filepath.Join(dir, "2.snapshot.json"), func(m map[string]any) {
				delete(m["signed"].(map[string]any)["meta"].(map[string]any), "targets.json")
			})
		}, "2.snapshot.json names no targets.json"},
		{"targets missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "2.targets.json")) }, "2.targets.json: no such file"},
		{"targets of another version", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "1.targets.json"), filepath.Join(dir, "2.targets.json"))
		}, "2.targets.json has version 1"},
		{"second root of version 1", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "1.root.json"), filepath.Join(dir, "2.root.json"))
		}, "2.root.json has version 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newTestRepo(t)
			r.add("policy.json", policyV1)
			tt.breakIt(t, r.dir)
			before, _ := os.ReadFile(filepath.Join(r.dir, "timestamp.json"))
			states, err := AddTarget(addConfig(r.dir))
			if states != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if after, _ := os.ReadFile(filepath.Join(r.dir, "timestamp.json")); string(after) != string(before) {
				t.Error("a refused AddTarget replaced timestamp.json")
			}
		})
	}
	// Control: the same repository unbroken takes the target.
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	if _, err := AddTarget(addConfig(r.dir)); err != nil {
		t.Fatal(err)
	}
	if ts := parse(t, metadata.Timestamp(), r.read("timestamp.json")); ts.Signed.Version != 3 {
		t.Errorf("control: timestamp version %d", ts.Signed.Version)
	}
}

// A role key that is not a well-formed Ed25519 private key (a private key
// whose public half is not its seed's) is refused by AddTarget, naming the
// role, and by Sign, before anything is read or written.
func TestRefusesMalformedSigningKey(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	bad := ed25519.PrivateKey(append([]byte(nil), testOnlyKey("targets")...))
	copy(bad[32:], testOnlyPub("snapshot"))
	c := addConfig(r.dir)
	c.Targets = bad
	if _, err := AddTarget(c); err == nil || err.Error() != "tufdist: targets key: the public half of the Ed25519 private key does not match its seed" {
		t.Errorf("AddTarget: %v", err)
	}
	if _, err := Sign(r.dir, "root", bad[:40]); err == nil || err.Error() != "tufdist: Ed25519 private key is 40 bytes, want 64" {
		t.Errorf("Sign: %v", err)
	}
	// Control: the well-formed key is taken.
	if _, err := AddTarget(addConfig(r.dir)); err != nil {
		t.Fatalf("control: %v", err)
	}
}
