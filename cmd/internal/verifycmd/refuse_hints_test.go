package verifycmd

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
)

// KindHints says what a file given in the wrong place is and which
// command takes it: a key file, a tlog policy text, a plain bundle, an
// unsealed draft, a Sigstore bundle, a trust policy given as a bundle.
// What the command takes, and what mcpres does not recognise, get no
// hint (controls).
func TestKindHints(t *testing.T) {
	pub, err := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	tlog := "log " + signednote.FormatVerifierKey("log.example.org", signednote.TypeEd25519, attesttest.TestOnlyKeyTwo().Public().(ed25519.PublicKey)) + "\nquorum none\n"
	plain := bundletest.Example(t)
	plainBytes := mustPretty(t, plain)
	draft := plain.Clone()
	draft.Get("integrity").Set("bundleDigest", canonjson.NewString(""))
	sg, _ := canonjson.Parse([]byte(`{"mediaType":"` + sigstore.MediaTypePrefix + `v0.3"}`))
	policy := attesttest.Policy(attesttest.PolicyOptions{})
	path, _ := signedExample(t)
	attestedBytes, _ := os.ReadFile(path)
	attested, _ := canonjson.Parse(attestedBytes)

	for _, tt := range []struct {
		name string
		data []byte
		doc  *canonjson.Value
		want Want
		hint string // "" for none
	}{
		{"public key as a bundle", pub, nil, WantAttested, "f is a PEM public key (NAME.pub of `mcpres key generate`), for signers and co-signers"},
		{"tlog text as a policy", []byte(tlog), nil, WantPolicy, "f is a tlog policy text (log and witness lines), not a trust policy (`mcpres attest verify --policy`, `mcpres policy check`): `mcpres policy tlog check` checks it"},
		{"plain bundle to attest verify", plainBytes, plain, WantAttested, "f is a conformance bundle (mcp-res.conformance-bundle/0.2.0), not an attested conformance bundle, which `mcpres attest verify` takes: `mcpres validate` validates it, and `mcpres attest sign` signs it into an attested bundle"},
		{"policy to attest verify", nil, policy, WantAttested, "f is an MCP-RES trust policy ("},
		{"unsealed draft", nil, draft, WantDocument, "f looks like an unsealed draft (its integrity.bundleDigest is empty or a placeholder): run `mcpres seal f -o BUNDLE.json` first"},
		{"Sigstore bundle", nil, sg, WantAttested, "f is a Sigstore bundle (" + sigstore.MediaTypePrefix + "…), not an MCP-RES document"},
		{"attested to attest verify", attestedBytes, attested, WantAttested, ""},
		{"policy to --policy", nil, policy, WantPolicy, ""},
		{"tlog text to a tlog flag", []byte(tlog), nil, WantTLogPolicy, ""},
		{"plain bundle to validate", plainBytes, plain, WantDocument, ""},
		{"unknown text", []byte("hello"), nil, WantAttested, ""},
	} {
		got := KindHints("f", tt.data, tt.doc, tt.want)
		switch {
		case tt.hint == "" && got != nil:
			t.Errorf("%s: hint %q, want none", tt.name, got)
		case tt.hint != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tt.hint)):
			t.Errorf("%s: %q, want %q…", tt.name, got, tt.hint)
		}
	}
	// A tlog text larger than the loader reads is not taken for one.
	if looksLikeTLogPolicy([]byte(tlog + strings.Repeat("#\n", 1<<20))) {
		t.Error("an oversized text taken for a tlog policy")
	}
}

// A directory argument that holds no .json file is refused (exit 2, the
// directory named, and --recursive suggested when it was not given);
// one that holds one is verified (control).
func TestCommandRefusesEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "notes.txt", []byte("x"))
	r := runVerify(t, Config{}, dir)
	if msg := r.command(t); msg != dir+" holds no .json files (use --recursive to include subdirectories)" {
		t.Errorf("not recursive: %q", msg)
	}
	r = runVerify(t, Config{}, "--recursive", dir)
	if msg := r.command(t); msg != dir+" holds no .json files" {
		t.Errorf("recursive: %q", msg)
	}
	path, _ := signedExample(t)
	data, _ := os.ReadFile(path)
	writeFile(t, filepath.Join(dir, "sub"), "b.attested.json", data)
	if r := runVerify(t, Config{}, "--recursive", dir); r.exit(t) != ExitValid || !strings.Contains(r.stdout, `"file":"`+filepath.Join(dir, "sub", "b.attested.json")+`"`) {
		t.Fatalf("control: %v %s", r.err, r.stdout)
	}
}
