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

	"github.com/mcpres/mcpres/attest/sigstore"
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
	f.Add([]byte(fmt.Sprintf(`{"schemaVersion":%q,"image":"x","repository":"r","subjectDigest":%q,"referrer":%q,"bundleDigest":%q,"size":1,"file":"%s.attested.json","sigstore":[{"file":"%s.attested.json.sigstore.json","digest":%q,"size":1}]}`,
		pulled.SchemaVersion, subject, subject, subject, subject[7:], subject[7:], subject)))
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

// writeKeyless makes a pulled folder of bundle a (named NAME) carried
// with the Sigstore bundles sbs, as oci pull leaves it: NAME.sigstore.json,
// NAME.sigstore.2.json, … beside it, listed in the index line's sigstore
// member; a second line (another referrer of the same bundle, no
// Sigstore bundle) as an index written before they were carried has it.
func writeKeyless(t *testing.T, a []byte, sbs ...[]byte) (dir, name string) {
	t.Helper()
	dir = t.TempDir()
	name = strings.TrimPrefix(digest(a), "sha256:") + ".attested.json"
	if err := os.WriteFile(filepath.Join(dir, name), a, 0o644); err != nil {
		t.Fatal(err)
	}
	var ms []string
	for i, sb := range sbs {
		file := sigstore.MaterialName(name, i+1)
		if err := os.WriteFile(filepath.Join(dir, file), sb, 0o644); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, fmt.Sprintf(`{"file":%q,"digest":%q,"size":%d}`, file, digest(sb), len(sb)))
	}
	line := func(n int, sigstore string) string {
		return fmt.Sprintf(`{"schemaVersion":%q,"image":%q,"repository":%q,"subjectDigest":%q,"referrer":"sha256:%064x","bundleDigest":%q,"size":%d,"file":%q,"annotations":{}%s,"pulledAt":"2026-12-03T00:00:00.000Z"}`,
			pulled.SchemaVersion, image, repo, subject, n, digest(a), len(a), name, sigstore)
	}
	index := line(1, `,"sigstore":[`+strings.Join(ms, ",")+`]`) + "\n" + line(2, "") + "\n"
	if err := os.WriteFile(filepath.Join(dir, pulled.IndexName), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, name
}

// A folder with Sigstore bundles beside a bundle reads with them listed
// per entry, in order, and Sigstore returns their bytes; an entry without
// the member has none.
func TestReadSigstore(t *testing.T) {
	a, sb1, sb2 := []byte(`{"a":1}`), []byte(`{"sb":1}`), []byte(`{"sb":2}`)
	dir, name := writeKeyless(t, a, sb1, sb2)
	f, err := pulled.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := f.Entries[0]
	if len(e.Sigstore) != 2 || e.Sigstore[0] != (pulled.Material{File: name + ".sigstore.json", Digest: digest(sb1), Size: int64(len(sb1))}) ||
		e.Sigstore[1].File != name+".sigstore.2.json" || len(f.Entries[1].Sigstore) != 0 {
		t.Fatalf("entries %+v", f.Entries)
	}
	got, err := f.Sigstore(0)
	if err != nil || len(got) != 2 || string(got[0]) != string(sb1) || string(got[1]) != string(sb2) {
		t.Fatalf("Sigstore(0): %q, %v", got, err)
	}
	if got, err := f.Sigstore(1); err != nil || len(got) != 0 {
		t.Fatalf("Sigstore(1): %q, %v", got, err)
	}
	// Changed after Read: refused when read again.
	os.WriteFile(filepath.Join(dir, e.Sigstore[1].File), []byte(`{"sb":3}`), 0o644)
	if _, err := f.Sigstore(0); err == nil || !strings.Contains(err.Error(), e.Sigstore[1].File+" has changed since the pull") {
		t.Fatalf("a Sigstore bundle changed after Read: %v", err)
	}
}

// Each disagreement about a Sigstore bundle refuses the folder, naming
// it: tampered, removed, one added beside the bundle, an index that
// names it otherwise; and malformed sigstore members.
func TestReadRefusesSigstoreDisagreement(t *testing.T) {
	a, sb := []byte(`{"a":1}`), []byte(`{"sb":1}`)
	editIndex := func(dir, old, new string) {
		p := filepath.Join(dir, pulled.IndexName)
		data, _ := os.ReadFile(p)
		if !strings.Contains(string(data), old) {
			t.Fatalf("the index has no %s", old)
		}
		os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
	}
	for _, tc := range []struct {
		name   string
		change func(dir, name string)
		want   string
	}{
		{"tampered", func(dir, name string) {
			os.WriteFile(filepath.Join(dir, name+".sigstore.json"), []byte(`{"sb":2}`), 0o644)
		}, ".sigstore.json has changed since the pull"},
		{"removed", func(dir, name string) { os.Remove(filepath.Join(dir, name+".sigstore.json")) }, ".sigstore.json is in the index and not in the folder"},
		{"added", func(dir, name string) { os.WriteFile(filepath.Join(dir, name+".sigstore.2.json"), sb, 0o644) }, ".sigstore.2.json is not in the index: added since the pull"},
		{"another bundle's name", func(dir, name string) {
			editIndex(dir, `"file":"`+name+`.sigstore.json"`, `"file":"`+strings.Repeat("0", 64)+`.attested.json.sigstore.json"`)
		}, "is not the name of a Sigstore bundle of"},
		{"a path", func(dir, name string) {
			editIndex(dir, `"file":"`+name+`.sigstore.json"`, `"file":"../`+name+`.sigstore.json"`)
		}, "is not the name of a Sigstore bundle of"},
		{"number 9", func(dir, name string) { editIndex(dir, name+".sigstore.json", name+".sigstore.9.json") }, "is not the name of a Sigstore bundle of"},
		{"empty list", func(dir, name string) { editIndex(dir, `"sigstore":[{`, `"sigstore":[],"x":[{`) }, "sigstore must be an array of 1 to 8"},
		{"not a list", func(dir, name string) { editIndex(dir, `"sigstore":[`, `"sigstore":"x","y":[`) }, "sigstore must be an array"},
		{"size 0", func(dir, name string) { editIndex(dir, fmt.Sprintf(`"size":%d}`, len(sb)), `"size":0}`) }, "sigstore[0]: file, digest"},
		{"bad digest", func(dir, name string) { editIndex(dir, digest(sb), "sha256:abc") }, "sigstore[0]: file, digest"},
		{"listed twice", func(dir, name string) {
			m := fmt.Sprintf(`{"file":%q,"digest":%q,"size":%d}`, name+".sigstore.json", digest(sb), len(sb))
			editIndex(dir, m, m+","+m)
		}, "listed twice"},
		{"two lines disagree", func(dir, name string) {
			editIndex(dir, `"annotations":{},"pulledAt"`, fmt.Sprintf(`"annotations":{},"sigstore":[{"file":%q,"digest":%q,"size":%d}],"pulledAt"`, name+".sigstore.json", digest(a), len(a)))
		}, "listed with another digest or size on an earlier line"},
		{"a referrer not pulled", func(dir, name string) {
			editIndex(dir, `"bundleDigest"`, `"error":"x","bundleDigest"`)
		}, "a referrer that was not pulled has no file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, name := writeKeyless(t, a, sb)
			tc.change(dir, name)
			_, err := pulled.Read(dir)
			var fe *pulled.FolderError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a FolderError saying %q", err, tc.want)
			}
		})
	}
	// Control: the untouched folder reads.
	dir, _ := writeKeyless(t, a, sb)
	if _, err := pulled.Read(dir); err != nil {
		t.Fatal(err)
	}
}

// The names and the bound are attest/sigstore's, which the package does
// not link.
func TestMaterialNameIsSigstores(t *testing.T) {
	if pulled.MaxSigstore != sigstore.MaxMaterial {
		t.Errorf("MaxSigstore %d, sigstore.MaxMaterial %d", pulled.MaxSigstore, sigstore.MaxMaterial)
	}
	for n := range sigstore.MaxMaterial + 2 {
		if got, want := pulled.MaterialName("x.attested.json", n), sigstore.MaterialName("x.attested.json", n); got != want {
			t.Errorf("MaterialName(%d) = %q, sigstore's %q", n, got, want)
		}
	}
}
