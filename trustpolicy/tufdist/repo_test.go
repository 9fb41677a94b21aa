package tufdist

import (
	"crypto"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
)

func TestInitLayout(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	states, err := Init(InitConfig{
		Dir:           dir,
		RootKeys:      []ed25519.PublicKey{testOnlyPub("root-1"), testOnlyPub("root-2"), testOnlyPub("root-3")},
		RootThreshold: 2,
		RootSigners:   []crypto.Signer{testOnlyKey("root-1"), testOnlyKey("root-3")},
		Targets:       testOnlyKey("targets"),
		Snapshot:      testOnlyKey("snapshot"),
		Timestamp:     testOnlyKey("timestamp"),
		Now:           t0.Add(1500 * time.Millisecond), // expiries are whole seconds
		Expiry:        Expiry{Root: 10 * time.Hour, Targets: 4 * time.Hour, Snapshot: 3 * time.Hour, Timestamp: time.Hour},
	})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		role    string
		file    string
		expires time.Duration
		sigs    int
		thr     int
	}
	want := []row{
		{RoleTargets, "1.targets.json", 4 * time.Hour, 1, 1},
		{RoleSnapshot, "1.snapshot.json", 3 * time.Hour, 1, 1},
		{RoleTimestamp, "timestamp.json", time.Hour, 1, 1},
		{RoleRoot, "1.root.json", 10 * time.Hour, 2, 2},
	}
	if len(states) != len(want) {
		t.Fatalf("%d states", len(states))
	}
	for i, w := range want {
		st := states[i]
		if st.Role != w.role || st.File != filepath.Join(dir, w.file) || st.Version != 1 ||
			!st.Expires.Equal(t0.Add(w.expires+time.Second)) || st.Signatures != w.sigs || st.Threshold != w.thr {
			t.Errorf("state %d: %+v, want %+v", i, st, w)
		}
	}
	root := parse(t, metadata.Root(), readFile(t, filepath.Join(dir, "1.root.json")))
	if !root.Signed.ConsistentSnapshot || root.Signed.Roles[RoleRoot].Threshold != 2 || len(root.Signed.Roles[RoleRoot].KeyIDs) != 3 {
		t.Errorf("root: %+v", root.Signed)
	}
	if !strings.Contains(string(readFile(t, filepath.Join(dir, "1.root.json"))), `"expires": "2026-06-01T22:00:01Z"`) {
		t.Error("root expiry is not written as a whole-second UTC date-time")
	}
	// The metadata verifies: root by itself, the others by root.
	for role, m := range map[string]any{
		RoleRoot:      root,
		RoleTargets:   parse(t, metadata.Targets(), readFile(t, filepath.Join(dir, "1.targets.json"))),
		RoleSnapshot:  parse(t, metadata.Snapshot(), readFile(t, filepath.Join(dir, "1.snapshot.json"))),
		RoleTimestamp: parse(t, metadata.Timestamp(), readFile(t, filepath.Join(dir, "timestamp.json"))),
	} {
		if err := root.VerifyDelegate(role, m); err != nil {
			t.Errorf("%s: %v", role, err)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "targets")); err != nil || !st.IsDir() {
		t.Errorf("no targets directory: %v", err)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestInitRefuses(t *testing.T) {
	t.Parallel()
	base := func(t *testing.T) InitConfig {
		return InitConfig{
			Dir:           filepath.Join(t.TempDir(), "repo"),
			RootKeys:      []ed25519.PublicKey{testOnlyPub("root-1"), testOnlyPub("root-2")},
			RootThreshold: 1,
			RootSigners:   []crypto.Signer{testOnlyKey("root-1")},
			Targets:       testOnlyKey("targets"),
			Snapshot:      testOnlyKey("snapshot"),
			Timestamp:     testOnlyKey("timestamp"),
			Now:           t0,
			Expiry:        DefaultExpiry(),
		}
	}
	smallOrder := make(ed25519.PublicKey, 32)
	smallOrder[0] = 1
	tests := []struct {
		name   string
		change func(*InitConfig)
		want   string
	}{
		{"no root key", func(c *InitConfig) { c.RootKeys, c.RootSigners = nil, nil }, "at least one root key"},
		{"threshold 0", func(c *InitConfig) { c.RootThreshold = 0 }, "root threshold 0 is not between 1 and the 2 root keys"},
		{"threshold above the keys", func(c *InitConfig) { c.RootThreshold = 3 }, "root threshold 3 is not between 1 and the 2 root keys"},
		{"duplicate root key", func(c *InitConfig) { c.RootKeys[1] = testOnlyPub("root-1") }, "root key 2 is listed twice"},
		{"small-order root key", func(c *InitConfig) { c.RootKeys[1] = smallOrder }, "root key 2: "},
		{"signer not a root key", func(c *InitConfig) { c.RootSigners = []crypto.Signer{testOnlyKey("targets")} }, "is not one of the root keys"},
		{"signer twice", func(c *InitConfig) { c.RootSigners = append(c.RootSigners, testOnlyKey("root-1")) }, "root signer 2 (key id " + keyID(testOnlyPub("root-1")) + ") is given twice"},
		{"no timestamp key", func(c *InitConfig) { c.Timestamp = nil }, "timestamp key: ed25519: the signer failed: no signer"},
		{"no time", func(c *InitConfig) { c.Now = time.Time{} }, "Now must be set"},
		{"zero expiry", func(c *InitConfig) { c.Expiry.Snapshot = 0 }, "Expiry.Snapshot must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base(t)
			tt.change(&c)
			states, err := Init(c)
			if states != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if _, err := os.Stat(c.Dir); err == nil {
				t.Error("a refused Init created the directory")
			}
		})
	}
	t.Run("existing repository", func(t *testing.T) {
		c := base(t)
		if _, err := Init(c); err != nil {
			t.Fatal(err)
		}
		before := readFile(t, filepath.Join(c.Dir, "timestamp.json"))
		if _, err := Init(c); err == nil || !strings.Contains(err.Error(), "already holds a TUF repository (1.root.json exists)") {
			t.Fatalf("second Init: %v", err)
		}
		if string(readFile(t, filepath.Join(c.Dir, "timestamp.json"))) != string(before) {
			t.Error("the refused Init changed timestamp.json")
		}
	})
}

func TestAddTarget(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	states, err := AddTarget(AddTargetConfig{
		Dir: r.dir, Name: "dir/policy.json", Data: []byte(policyV1),
		Targets:   testOnlyKey("targets"),
		Snapshot:  testOnlyKey("snapshot"),
		Timestamp: testOnlyKey("timestamp"),
		Now:       t0.Add(time.Hour), Expiry: Expiry{Targets: 2 * time.Hour, Snapshot: 3 * time.Hour, Timestamp: 4 * time.Hour},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct {
		role, file string
		exp        time.Duration
	}{{RoleTargets, "2.targets.json", 3 * time.Hour}, {RoleSnapshot, "2.snapshot.json", 4 * time.Hour}, {RoleTimestamp, "timestamp.json", 5 * time.Hour}} {
		if st := states[i]; st.Role != w.role || st.Version != 2 || st.File != filepath.Join(r.dir, w.file) || !st.Expires.Equal(t0.Add(w.exp)) || st.Signatures != 1 {
			t.Errorf("state %d: %+v", i, st)
		}
	}
	if got := string(r.read("targets/dir/" + sha256Hex(policyV1) + ".policy.json")); got != policyV1 {
		t.Errorf("target file holds %q", got)
	}
	// Version 1 files stay for clients that are mid-update.
	for _, f := range []string{"1.targets.json", "1.snapshot.json"} {
		r.read(f)
	}
	snap := parse(t, metadata.Snapshot(), r.read("2.snapshot.json"))
	if m := snap.Signed.Meta["targets.json"]; m.Version != 2 || m.VerifyLengthHashes(r.read("2.targets.json")) != nil || len(m.Hashes) != 1 {
		t.Errorf("snapshot meta %+v does not bind targets version 2 by length and sha256", m)
	}
	ts := parse(t, metadata.Timestamp(), r.read("timestamp.json"))
	if m := ts.Signed.Meta["snapshot.json"]; m.Version != 2 || m.VerifyLengthHashes(r.read("2.snapshot.json")) != nil || len(m.Hashes) != 1 {
		t.Errorf("timestamp meta %+v does not bind snapshot version 2 by length and sha256", m)
	}
	// The same content again is a new version, and the file is kept.
	r.add("dir/policy.json", policyV1)
	if ts := parse(t, metadata.Timestamp(), r.read("timestamp.json")); ts.Signed.Version != 3 {
		t.Errorf("timestamp version %d after the second add", ts.Signed.Version)
	}
}

func TestAddTargetRefuses(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	base := AddTargetConfig{
		Dir: r.dir, Name: "policy.json", Data: []byte(policyV1),
		Targets:   testOnlyKey("targets"),
		Snapshot:  testOnlyKey("snapshot"),
		Timestamp: testOnlyKey("timestamp"),
		Now:       t0,
		Expiry:    DefaultExpiry(),
	}
	tests := []struct {
		name   string
		change func(*AddTargetConfig)
		want   string
	}{
		{"targets key of another role", func(c *AddTargetConfig) { c.Targets = testOnlyKey("snapshot") },
			"the targets key given (key id " + keyID(testOnlyPub("snapshot")) + ") is not a targets key of root version 1"},
		{"unknown timestamp key", func(c *AddTargetConfig) { c.Timestamp = testOnlyKey("attacker") }, "is not a timestamp key of root version 1"},
		{"bad name", func(c *AddTargetConfig) { c.Name = "policy json" }, `has the character ' '`},
		{"no repository", func(c *AddTargetConfig) { c.Dir = filepath.Join(t.TempDir(), "none") }, "1.root.json: no such file"},
		{"no time", func(c *AddTargetConfig) { c.Now = time.Time{} }, "Now must be set"},
		{"zero expiry", func(c *AddTargetConfig) { c.Expiry.Targets = 0 }, "Expiry.Targets must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.change(&c)
			if states, err := AddTarget(c); states != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	// Nothing was published by the refused calls.
	if ts := parse(t, metadata.Timestamp(), r.read("timestamp.json")); ts.Signed.Version != 1 {
		t.Errorf("timestamp version %d", ts.Signed.Version)
	}
}

func TestSign(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	_, err := Init(InitConfig{
		Dir:           dir,
		RootKeys:      []ed25519.PublicKey{testOnlyPub("root-1"), testOnlyPub("root-2")},
		RootThreshold: 2,
		Targets:       testOnlyKey("targets"),
		Snapshot:      testOnlyKey("snapshot"),
		Timestamp:     testOnlyKey("timestamp"),
		Now:           t0,
		Expiry:        DefaultExpiry(),
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		role string
		key  ed25519.PrivateKey
		want string // "" for success
		sigs int
	}{
		{"targets role", "targets", testOnlyKey("targets"), `cannot add a signature to "targets"`, 0},
		{"not a root key", "root", testOnlyKey("targets"), "is not a root key of", 0},
		{"first root key", "root", testOnlyKey("root-1"), "", 1},
		{"same key again", "root", testOnlyKey("root-1"), "already signed", 0},
		{"second root key", "root", testOnlyKey("root-2"), "", 2},
	}
	for _, tt := range tests {
		st, err := Sign(dir, tt.role, tt.key)
		if tt.want == "" {
			if err != nil || st.Signatures != tt.sigs || st.Threshold != 2 || st.Version != 1 {
				t.Errorf("%s: %+v %v", tt.name, st, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	root := parse(t, metadata.Root(), readFile(t, filepath.Join(dir, "1.root.json")))
	if err := root.VerifyDelegate(RoleRoot, root); err != nil {
		t.Errorf("root after two signatures: %v", err)
	}
}

func TestValidTargetName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"policy.json", "a", "dir/sub/p-1_2.json", strings.Repeat("a", MaxTargetNameLength)} {
		if err := ValidTargetName(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	for _, name := range []string{"", "/abs", "dir/", "a//b", "./a", "a/../b", "..", "a b", "a%2Fb", "a\\b", "é.json", "a?b", strings.Repeat("a", MaxTargetNameLength+1)} {
		if err := ValidTargetName(name); err == nil {
			t.Errorf("%q accepted", name)
		}
	}
}

func TestKeyID(t *testing.T) {
	t.Parallel()
	// The TUF key id of RFC 8032 test 1's public key: SHA-256 of
	// {"keytype":"ed25519","keyval":{"public":"d75a…511a"},"scheme":"ed25519"}.
	pub := ed25519.PublicKey(mustHex(t, "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
	got := KeyID(pub)
	want := sha256Hex(`{"keytype":"ed25519","keyval":{"public":"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"},"scheme":"ed25519"}`)
	if got != want {
		t.Errorf("KeyID %s, want %s", got, want)
	}
}
