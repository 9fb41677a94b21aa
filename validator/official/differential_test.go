package official_test

// Differential test of the schemas added for issue #7 (official attachment,
// import configuration, profile evaluation, profile manifest, OAuth
// evaluation) against github.com/santhosh-tekuri/jsonschema/v6, a complete
// JSON Schema 2020-12 implementation (test-only import, as in package
// schema).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/validator/schema"
)

const schemaBase = "https://aliengineering-byte.github.io/resilireplay/standards/mcp-res/v0.2.0/schemas/"

// kindSchemas maps each new schema to its document $id.
var kindSchemas = map[string]string{
	"official-conformance-attachment":  schemaBase + "official-conformance-attachment.schema.json",
	"profile-evaluation":               schemaBase + "profile-evaluation.schema.json",
	"reliability-profile-manifest":     schemaBase + "reliability-profile-manifest.schema.json",
	"oauth-boundary-evaluation":        schemaBase + "oauth-boundary-evaluation.schema.json",
	"mcpres-official-import-config-v1": "https://github.com/mcpres/mcpres/schemas/mcpres-official-import-config-v1.schema.json",
}

// uriOracle checks format "uri" with our own evaluator, so that both sides
// agree on formats by construction and the comparison covers the rest.
func uriOracle(t testing.TB) *schema.Schema {
	t.Helper()
	set, err := schema.LoadFS(fstest.MapFS{"uri.schema.json": {Data: []byte(
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.test/uri.schema.json","type":"string","format":"uri"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	return set.Schema("uri")
}

func referenceSchemas(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	oracle := uriOracle(t)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "date-time", Validate: func(v any) error {
		if s, ok := v.(string); ok {
			_, err := datetime.Parse(s)
			return err
		}
		return nil
	}})
	c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: func(v any) error {
		if s, ok := v.(string); ok && !oracle.Valid(canonjson.NewString(s)) {
			return errors.New("not a URI")
		}
		return nil
	}})
	dir := filepath.Join("..", "schema", "schemas")
	files, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(doc.(map[string]any)["$id"].(string), doc); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for name, id := range kindSchemas {
		sch, err := c.Compile(id)
		if err != nil {
			t.Fatalf("santhosh-tekuri/jsonschema rejects %s: %v", name, err)
		}
		out[name] = sch
	}
	return out
}

func toAny(v *canonjson.Value) any {
	switch v.Kind {
	case canonjson.Bool:
		return v.Bool
	case canonjson.Int:
		return json.Number(strconv.FormatInt(v.Int, 10))
	case canonjson.String:
		return v.Str
	case canonjson.Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = toAny(it)
		}
		return out
	case canonjson.Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = toAny(m.Value)
		}
		return out
	}
	return nil
}

func leaves(err *jsonschema.ValidationError, into map[string]bool) {
	kp := err.ErrorKind.KeywordPath()
	kw := ""
	if len(kp) > 0 {
		kw = kp[len(kp)-1]
	}
	if len(err.Causes) == 0 || kw == "oneOf" {
		ptr := ""
		for _, tok := range err.InstanceLocation {
			ptr += "/" + canonjson.EscapePointer(tok)
		}
		into[ptr+" "+kw] = true
		return
	}
	for _, c := range err.Causes {
		leaves(c, into)
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

type differ struct {
	t                 *testing.T
	ours              *schema.Set
	ref               map[string]*jsonschema.Schema
	compared, invalid int
}

func (d *differ) compare(label, name string, v *canonjson.Value) {
	d.t.Helper()
	d.compared++
	ourErrs := d.ours.Validate(name, v)
	refErr := d.ref[name].Validate(toAny(v))
	if (len(ourErrs) == 0) != (refErr == nil) {
		d.t.Errorf("%s (%s): ours valid=%v %v; santhosh valid=%v %v", label, name, len(ourErrs) == 0, ourErrs, refErr == nil, refErr)
		return
	}
	if refErr == nil {
		return
	}
	d.invalid++
	var ve *jsonschema.ValidationError
	if !errors.As(refErr, &ve) {
		d.t.Fatalf("%s: santhosh returned %T", label, refErr)
	}
	theirs, ours := map[string]bool{}, map[string]bool{}
	leaves(ve, theirs)
	for _, e := range ourErrs {
		ours[e.InstancePath+" "+e.Keyword] = true
	}
	if !slices.Equal(keys(ours), keys(theirs)) {
		d.t.Errorf("%s (%s): failing locations differ\n ours:     %v\n santhosh: %v", label, name, keys(ours), keys(theirs))
	}
}

var replacements = []string{`null`, `true`, `0`, `-1`, `1`, `2`, `67108864`, `67108865`, `-2147483649`, `""`, `"x"`, `"UNKNOWN"`, `[]`, `{}`}

func replacementsFor(n *canonjson.Value) []string {
	out := slices.Clone(replacements)
	switch n.Kind {
	case canonjson.String:
		s := n.Str
		out = append(out, strconv.Quote(s+"\n"), strconv.Quote(strings.ToUpper(s)), strconv.Quote(strings.Repeat("😀", 129)),
			strconv.Quote(strings.Repeat("a", 193)+":"+"b"), strconv.Quote("a:"+strings.Repeat("😀", 192)),
			strconv.Quote("a\u00e9:b"), strconv.Quote("http://x y"), strconv.Quote("2026-12-31T23:59:60Z"))
	case canonjson.Int:
		out = append(out, strconv.FormatInt(n.Int+1, 10), strconv.FormatInt(n.Int-1, 10))
	case canonjson.Array:
		out = append(out, `[`+strings.Repeat(`"a:b",`, 64)+`"a:b"]`)
	}
	return out
}

// sweep mutates every node of v in turn (replacements, deletions, an
// unknown member, duplicated first items) and compares both evaluators.
func sweep(d *differ, name string, v *canonjson.Value) {
	var walk func(ptr string, n *canonjson.Value)
	walk = func(ptr string, n *canonjson.Value) {
		for _, repl := range replacementsFor(n) {
			d.compare(fmt.Sprintf("%s = %.40s", ptr, repl), name, edit(d.t, v, ptr, repl))
		}
		switch n.Kind {
		case canonjson.Object:
			d.compare(ptr+" + unknown", name, edit(d.t, v, ptr+"/zzUnknown", `1`))
			for _, m := range n.Members {
				child := ptr + "/" + canonjson.EscapePointer(m.Key)
				d.compare("delete "+child, name, edit(d.t, v, child, ""))
				walk(child, m.Value)
			}
		case canonjson.Array:
			if len(n.Items) > 0 {
				d.compare(ptr+" duplicate first", name, edit(d.t, v, ptr+"/-", compact(d.t, n.Items[0])))
			}
			for i, it := range n.Items {
				if i < 2 || i == len(n.Items)-1 {
					walk(ptr+"/"+strconv.Itoa(i), it)
				}
			}
		}
	}
	for _, m := range v.Members {
		walk("/"+canonjson.EscapePointer(m.Key), m.Value)
	}
}

// TestCheckRefDotIsECMAScript: in a check reference "." excludes LF, CR,
// U+2028 and U+2029 (REFERENCE §1.8, JS semantics). RE2-based evaluators,
// santhosh-tekuri's included, accept U+2028 and CR there, so these inputs
// are left out of the differential sweep and pinned here instead.
func TestCheckRefDotIsECMAScript(t *testing.T) {
	ours, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	_, doc := base(t)
	for _, ref := range []string{`a\u2028:b`, `a:b\u2029`, `a\r:b`, `a\n:b`} {
		if errs := ours.Validate("official-conformance-attachment", edit(t, doc, "/inventories/notScored", `["`+ref+`"]`)); len(errs) != 1 || errs[0].Keyword != "pattern" {
			t.Errorf("%s: %v, want one pattern error", ref, errs)
		}
	}
	if errs := ours.Validate("official-conformance-attachment", edit(t, doc, "/inventories/notScored", `["a\u00e9:b:c"]`)); len(errs) != 0 {
		t.Errorf("a reference with two colons and non-ASCII: %v", errs)
	}
}

// TestSchemaDifferential compares our evaluator with santhosh-tekuri on
// every committed document of the three corpora and on a sweep of
// mutations of one document of each kind.
func TestSchemaDifferential(t *testing.T) {
	ours, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	ref := referenceSchemas(t)
	d := &differ{t: t, ours: ours, ref: ref}
	root := filepath.Join("..", "..", "testdata")
	byVersion := map[string]string{
		"mcp-res.official-conformance-attachment/0.2.0": "official-conformance-attachment",
		"mcp-res.profile-evaluation/0.2.0":              "profile-evaluation",
		"mcp-res.reliability-profile-manifest/0.2.0":    "reliability-profile-manifest",
		"mcp-res.oauth-boundary-evaluation/0.2.0":       "oauth-boundary-evaluation",
		"mcpres.official-import-config/v1":              "mcpres-official-import-config-v1",
	}
	samples := map[string]*canonjson.Value{}
	for _, kind := range []string{"official", "profile", "oauth"} {
		files, _ := filepath.Glob(filepath.Join(root, kind, "*.json"))
		more, _ := filepath.Glob(filepath.Join(root, kind, "*", "*.json"))
		sets, _ := filepath.Glob(filepath.Join(root, kind, "sets", "*", "*.json"))
		for _, f := range append(append(files, more...), sets...) {
			_, v, err := canonjson.ReadFile(f)
			if err != nil {
				continue // outputs may be arrays; every corpus file parses
			}
			sv := v.Get("schemaVersion")
			if !sv.Is(canonjson.String) {
				continue
			}
			name, ok := byVersion[sv.Str]
			if !ok {
				continue
			}
			d.compare(f, name, v)
			if _, seen := samples[name]; !seen && len(ours.Validate(name, v)) == 0 {
				samples[name] = v
			}
		}
	}
	if len(samples) != len(kindSchemas) {
		t.Fatalf("valid samples for %d of %d schemas", len(samples), len(kindSchemas))
	}
	if testing.Short() {
		t.Skip("the mutation sweep takes a few seconds; run without -short")
	}
	for name, v := range samples {
		sweep(d, name, v)
	}
	t.Logf("compared %d instances (%d invalid)", d.compared, d.invalid)
}
