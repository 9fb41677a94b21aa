package profile_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/validator/profile"
)

// writeSet writes the example manifests into a new directory.
func writeSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, s := range []manifestSpec{exampleSpec, identitySpec, oauthStandinSpec} {
		if err := os.WriteFile(filepath.Join(dir, s.file), pretty(t, ownManifest(s)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func validateWithDir(t *testing.T, dir string) profile.Result {
	t.Helper()
	set, err := profile.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := testValidator(t).Validate(base(t), set)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLoadDir: the set is every "*.json" entry (REFERENCE §8.2, §10 row
// 27); other names are ignored, and an entry that is not a regular file
// makes the set invalid instead of silently vanishing.
func TestLoadDir(t *testing.T) {
	dir := writeSet(t)
	for name, content := range map[string]string{
		"README.md":        "not a manifest",
		"broken.JSON":      "{",
		"old.json.bak":     "{",
		"json":             "{",
		"notes-json.txt":   "{",
		"nested.json.orig": "{",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := validateWithDir(t, dir); !r.Valid {
		t.Fatalf("set with ignored names: %v (%s)", r.Diagnostics, r.Detail)
	}
	set, _ := profile.LoadDir(dir)
	if set.Len() != 3 {
		t.Errorf("set has %d files, want 3", set.Len())
	}

	for _, tc := range []struct {
		name   string
		make   func(dir string) error
		detail string
	}{
		{"dot-file is a member", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".hidden.json"), []byte(`{}`), 0o644)
		}, ".hidden.json: schema-invalid"},
		{"symbolic link", func(dir string) error {
			return os.Symlink(filepath.Join(dir, exampleSpec.file), filepath.Join(dir, "link.json"))
		}, "link.json: unreadable"},
		{"directory", func(dir string) error { return os.Mkdir(filepath.Join(dir, "dir.json"), 0o755) }, "dir.json: unreadable"},
		{"first problem in name order", func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "b.json"), []byte(`[]`), 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "a.json"), []byte(`[`), 0o644)
		}, "a.json: unreadable"},
		{"UTF-16 name order", func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "\ue000.json"), []byte(`[]`), 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "😀.json"), []byte(`[]`), 0o644)
		}, "😀.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSet(t)
			if err := tc.make(dir); err != nil {
				t.Fatal(err)
			}
			r := validateWithDir(t, dir)
			if !slices.Equal(r.Diagnostics, []string{cManifest}) || !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("got %v (%s), want %s naming %q", r.Diagnostics, r.Detail, cManifest, tc.detail)
			}
		})
	}

	if _, err := profile.LoadDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("LoadDir of a missing directory succeeded")
	}
	if _, err := profile.LoadDir(filepath.Join(dir, exampleSpec.file)); err == nil {
		t.Error("LoadDir of a file succeeded")
	}
}

// TestManifestAccessors covers Applicable, Registered and SupportsRevision.
func TestManifestAccessors(t *testing.T) {
	ms, err := testValidator(t).Manifests(exampleSet(t))
	if err != nil {
		t.Fatal(err)
	}
	m := ms[exampleSpec.id]
	if got := m.Applicable("2026-07-28"); !slices.Equal(got, []string{"bounded-retry", "clean-shutdown", "malformed-input-rejected", "stateless-resume"}) {
		t.Errorf("Applicable(2026-07-28) = %v", got)
	}
	if got := m.Applicable("2025-11-25"); !slices.Equal(got, []string{"bounded-retry", "clean-shutdown", "malformed-input-rejected"}) {
		t.Errorf("Applicable(2025-11-25) = %v", got)
	}
	for id, want := range map[string]bool{"speculative-prefetch": true, "stateless-resume": true, "clean-shutdown": true, "nope": false} {
		if m.Registered(id) != want {
			t.Errorf("Registered(%s) = %t", id, !want)
		}
	}
	if ms[identitySpec.id].SupportsRevision("2025-11-25") || !ms[identitySpec.id].SupportsRevision("2026-07-28") {
		t.Error("SupportsRevision")
	}
	if m.Sha256 != digest(t, ownManifest(exampleSpec)) || m.File != exampleSpec.file || m.Status != "PROVISIONAL" {
		t.Errorf("manifest %+v", m)
	}
}
