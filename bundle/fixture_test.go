package bundle_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

var update = flag.Bool("update", false, "rewrite testdata/bundles/example.json and bundletest's copy of the draft from testdata/drafts/example.draft.json")

var (
	draftFile     = filepath.Join("..", "testdata", "drafts", "example.draft.json")
	exampleFile   = filepath.Join("..", "testdata", "bundles", "example.json")
	embeddedDraft = filepath.Join("..", "internal", "example", "example.draft.json")
)

// The committed example bundle is exactly the sealed draft, in the Pretty
// layout, so the fixture cannot rot. Run with -update after editing the
// draft.
func TestExampleFixture(t *testing.T) {
	raw, v, err := canonjson.ReadFile(draftFile)
	if err != nil {
		t.Fatal(err)
	}
	if pretty, err := canonjson.Pretty(v); err != nil || !bytes.Equal(pretty, raw) {
		t.Errorf("%s is not in the canonjson.Pretty layout (err %v)", draftFile, err)
	}
	if err := bundle.Seal(v); err != nil {
		t.Fatal(err)
	}
	want, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	syncFile(t, exampleFile, want)
	syncFile(t, embeddedDraft, raw)
}

// syncFile checks that path holds want, or writes it under -update.
func syncFile(t *testing.T, path string, want []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./bundle -run TestExampleFixture -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale (run go test ./bundle -run TestExampleFixture -update)", path)
	}
}

// The example bundle of bundletest is the committed fixture.
func TestBundletestExample(t *testing.T) {
	_, want, err := canonjson.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	got := bundletest.Example(t)
	if a, b := canonical(t, got), canonical(t, want); !bytes.Equal(a, b) {
		t.Error("bundletest.Example differs from testdata/bundles/example.json")
	}
	// Each call returns an independent tree.
	got.Get("evidence").Delete("run")
	if bundletest.Example(t).Get("evidence").Get("run") == nil {
		t.Error("bundletest.Example returned shared state")
	}
}

// The example's fixed identities follow REFERENCE §2.3: sha256("<text>\n").
func TestExampleIdentities(t *testing.T) {
	v := bundletest.Example(t)
	ev := v.Get("evidence")
	for _, c := range []struct {
		path []string
		text string
	}{
		{[]string{"evidence", "scenario", "descriptor", "validatorPolicy", "sha256"}, "mcpres@0.1.0"},
		{[]string{"statement", "validator", "sha256"}, "mcpres@0.1.0"},
		{[]string{"evidence", "run", "environment", "runner", "sha256"}, "mcpres-harness@0.1.0"},
		{[]string{"evidence", "subject", "artifactSha256"}, "ledger-notes-server@3.4.1"},
		{[]string{"evidence", "scenario", "descriptor", "configurationProfileDigest"}, "mcpres/ledger-notes-config@3.4.1"},
		{[]string{"evidence", "run", "environment", "environmentDigest"}, "mcpres-example-environment-v1"},
	} {
		if got, want := v.Path(c.path...).Str, canonjson.TextDigest(c.text+"\n"); got != want {
			t.Errorf("%v = %s, want sha256(%q) = %s", c.path, got, c.text+"\n", want)
		}
	}
	if got := ev.Path("scenario", "descriptor", "validatorPolicy", "name").Str; got != "mcpres" {
		t.Errorf("validator name = %q, want mcpres", got)
	}
	for i, o := range ev.Get("observations").Items {
		if got, want := o.Path("producer", "sha256").Str, canonjson.TextDigest("mcpres-harness@0.1.0\n"); got != want {
			t.Errorf("observation %d producer sha256 = %s, want %s", i, got, want)
		}
	}
}
