package verifycmd

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The packed list gives exactly the paths, in exactly the order, that
// joining every directory entry (filepath.Join) and sorting the full
// paths gives, however the directory is spelled.
func TestExpandInputsPathsAndOrder(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	for _, f := range []string{
		"b.json", "a.json", "a/x.json", "a/z.txt", "a-b.json", "a/sub/y.json", "a.b/c.json", "Z.json", "é.json",
	} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// What the list must equal: joined and sorted per directory argument.
	want := func(args []string, recursive bool) []string {
		var out []string
		for _, arg := range args {
			st, err := os.Stat(arg)
			if err != nil || !st.IsDir() {
				out = append(out, arg)
				continue
			}
			var found []string
			filepath.WalkDir(arg, func(p string, d os.DirEntry, err error) error {
				if d.IsDir() && p != arg && !recursive {
					return filepath.SkipDir
				}
				if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
					found = append(found, filepath.Join(filepath.Dir(p), d.Name()))
				}
				return nil
			})
			sort.Strings(found)
			out = append(out, found...)
		}
		return out
	}
	for _, tt := range []struct {
		args      []string
		recursive bool
	}{
		{[]string{"."}, false},
		{[]string{"."}, true},
		{[]string{"./"}, true},
		{[]string{"a/", "missing.json", "b.json", root}, true},
		{[]string{root + "/a/../"}, true},
		{[]string{"a"}, false},
	} {
		in, err := ExpandInputs(tt.args, tt.recursive)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range in.Len() {
			got = append(got, in.Path(i))
		}
		if w := want(tt.args, tt.recursive); !slices.Equal(got, w) {
			t.Errorf("ExpandInputs(%q, %v):\n got %q\nwant %q", tt.args, tt.recursive, got, w)
		}
	}
}

// compareJoined(a1, a2, b1, b2) is strings.Compare(a1+a2, b1+b2), for
// every split of the two strings.
func TestCompareJoined(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "a/", "a.json", "a/b", "ab", "b", "/", ".", "é"}
	for range 20_000 {
		a := words[r.IntN(len(words))] + words[r.IntN(len(words))]
		b := words[r.IntN(len(words))] + words[r.IntN(len(words))]
		i, j := r.IntN(len(a)+1), r.IntN(len(b)+1)
		if got, want := compareJoined(a[:i], a[i:], b[:j], b[j:]), strings.Compare(a, b); got != want {
			t.Fatalf("compareJoined(%q, %q, %q, %q) = %d, want %d", a[:i], a[i:], b[:j], b[j:], got, want)
		}
	}
}
