package validator

import (
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
)

// manifestDigests (one canonical encoding of each entry, joined straight
// into the hash) gives SupportingManifestDigest and BundleDigest exactly,
// for manifests out of path order, with paths twice (a stable sort), with
// no supporting entry and with none at all, and it allocates only its
// buffer of entries and the two hex digests (no joined copy to hash).
func TestManifestDigestsMatchReference(t *testing.T) {
	entry := func(path, sum string, n int) string {
		return `{"path":"` + path + `","mediaType":"application/json","sha256":"` + sum + `","bytes":` + string(rune('0'+n)) + `}`
	}
	a, b := "aa", "bb"
	manifests := []string{
		`[` + entry("z.json", a, 1) + `,` + entry(bundle.StatementPath, b, 2) + `,` + entry("a/b.json", a, 3) + `,` + entry(bundle.EvidencePath, a, 4) + `]`,
		`[` + entry("same.json", a, 1) + `,` + entry("same.json", b, 2) + `,` + entry("\u00e9.json", a, 3) + `]`,
		`[` + entry(bundle.EvidencePath, a, 1) + `,` + entry(bundle.StatementPath, b, 2) + `]`,
		`[]`,
	}
	for _, m := range manifests {
		v, err := canonjson.Parse([]byte(m))
		if err != nil {
			t.Fatal(err)
		}
		sup, all, err := manifestDigests(v.Items)
		if err != nil {
			t.Fatal(err)
		}
		wantSup, _ := SupportingManifestDigest(v.Items)
		wantAll, _ := BundleDigest(v.Items)
		if sup != wantSup || all != wantAll {
			t.Errorf("%s: %s %s, want %s %s", m, sup, all, wantSup, wantAll)
		}
	}
	v, _ := canonjson.Parse([]byte(manifests[0]))
	if n := testing.AllocsPerRun(100, func() { manifestDigests(v.Items) }); n > 5 {
		t.Errorf("manifestDigests allocates %v times, want at most 5", n)
	}
}
