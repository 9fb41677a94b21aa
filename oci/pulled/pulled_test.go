package pulled_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/oci/pulled"
)

const image, repo = "reg.example/mcp/server:1.0", "reg.example/mcp/server"

var subject = "sha256:" + strings.Repeat("ab", 32)

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// write makes a pulled folder as oci pull leaves it: each bundle under
// its digest's name, one index line each (and one not-pulled referrer).
func write(t *testing.T, bundles ...[]byte) string {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for i, b := range bundles {
		d := digest(b)
		name := strings.TrimPrefix(d, "sha256:") + ".attested.json"
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf(`{"schemaVersion":%q,"image":%q,"repository":%q,"subjectDigest":%q,"referrer":"sha256:%064x","bundleDigest":%q,"size":%d,"file":%q,"annotations":{},"pulledAt":"2026-12-03T00:00:00.000Z"}`,
			pulled.SchemaVersion, image, repo, subject, i+1, d, len(b), name))
	}
	lines = append(lines, fmt.Sprintf(`{"schemaVersion":%q,"image":%q,"repository":%q,"subjectDigest":%q,"referrer":"sha256:%064x","error":"too large","pulledAt":"2026-12-03T00:00:00.000Z"}`,
		pulled.SchemaVersion, image, repo, subject, 99))
	if err := os.WriteFile(filepath.Join(dir, pulled.IndexName), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadHonest(t *testing.T) {
	a, b := []byte(`{"a":1}`), []byte(`{"b":2}`)
	dir := write(t, a, b)
	if !pulled.IsFolder(dir) || pulled.IsFolder(t.TempDir()) {
		t.Fatal("IsFolder")
	}
	f, err := pulled.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Image != image || f.SubjectDigest != subject || len(f.Entries) != 3 || f.Entries[2].Err != "too large" {
		t.Fatalf("%+v", f)
	}
	if got, err := f.Bundle(1); err != nil || string(got) != string(b) {
		t.Fatalf("bundle 1: %q %v", got, err)
	}
	if f.Name(0) != repo+"@sha256:"+fmt.Sprintf("%064x", 1) {
		t.Errorf("name %s", f.Name(0))
	}
	// A file that is not JSON is not a bundle a verifier reads: allowed.
	os.WriteFile(filepath.Join(dir, "README.txt"), []byte("notes"), 0o644)
	if _, err := pulled.Read(dir); err != nil {
		t.Errorf("a .txt beside the bundles: %v", err)
	}
}

// Each disagreement between the folder and its index refuses the folder,
// naming the file and what happened to it.
func TestReadRefusesDisagreement(t *testing.T) {
	a := []byte(`{"a":1}`)
	name := strings.TrimPrefix(digest(a), "sha256:") + ".attested.json"
	for _, tc := range []struct {
		name   string
		change func(dir string)
		want   string
	}{
		{"added", func(dir string) { os.WriteFile(filepath.Join(dir, "rogue.json"), []byte(`{}`), 0o644) }, "rogue.json is not in the index: added since the pull"},
		{"removed", func(dir string) { os.Remove(filepath.Join(dir, name)) }, "removed since the pull"},
		{"changed", func(dir string) { os.WriteFile(filepath.Join(dir, name), []byte(`{"a":2}`), 0o644) }, "has changed since the pull"},
		{"another image", func(dir string) {
			p := filepath.Join(dir, pulled.IndexName)
			data, _ := os.ReadFile(p)
			line := strings.Replace(strings.SplitN(string(data), "\n", 2)[0], subject, "sha256:"+strings.Repeat("cd", 32), 1)
			os.WriteFile(p, append(data, []byte(line+"\n")...), 0o644)
		}, "one pull is one image"},
		{"foreign line", func(dir string) {
			p := filepath.Join(dir, pulled.IndexName)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, []byte(`{"schemaVersion":"other"}`+"\n")...), 0o644)
		}, "is not a line of"},
		{"renamed file", func(dir string) {
			p := filepath.Join(dir, pulled.IndexName)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), name, "../x.attested.json", 1)), 0o644)
		}, "is not the name oci pull gives"},
		{"empty index", func(dir string) { os.WriteFile(filepath.Join(dir, pulled.IndexName), nil, 0o644) }, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, a)
			tc.change(dir)
			_, err := pulled.Read(dir)
			var fe *pulled.FolderError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a FolderError saying %q", err, tc.want)
			}
		})
	}
}

// Bundle checks the bytes again when it reads them: a file changed after
// Read is refused there too.
func TestBundleRechecks(t *testing.T) {
	a := []byte(`{"a":1}`)
	dir := write(t, a)
	f, err := pulled.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, f.Entries[0].File), []byte(`{"a":3}`), 0o644)
	if _, err := f.Bundle(0); err == nil || !strings.Contains(err.Error(), "changed since the pull") {
		t.Fatalf("%v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"schemaVersion":"mcpres.oci-pull/v1"}` + "\n"))
	f.Add([]byte(fmt.Sprintf(`{"schemaVersion":%q,"image":"x","repository":"r","subjectDigest":%q,"referrer":%q,"bundleDigest":%q,"size":-1,"file":"x.attested.json"}`, pulled.SchemaVersion, subject, subject, subject)))
	f.Fuzz(func(t *testing.T, index []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, pulled.IndexName), index, 0o644); err != nil {
			t.Fatal(err)
		}
		fo, err := pulled.Read(dir)
		if err == nil {
			for i, e := range fo.Entries {
				if e.Err == "" {
					t.Fatalf("entry %d has a file the folder does not hold: %+v", i, e)
				}
			}
		}
	})
}
