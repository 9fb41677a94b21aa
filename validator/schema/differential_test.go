package schema

// Differential test against github.com/santhosh-tekuri/jsonschema/v6, a
// complete JSON Schema 2020-12 implementation. It is imported only here, in
// a _test file: production code never links it (see doc.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
)

// reference compiles every embedded schema with santhosh-tekuri/jsonschema,
// which proves they are valid 2020-12 documents (it checks each against the
// meta-schema). Our two formats are registered as custom formats so that
// format assertions agree by construction and the comparison exercises
// everything else.
func reference(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
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
		if s, ok := v.(string); ok {
			if reason := checkURI(s); reason != "" {
				return errors.New(reason)
			}
		}
		return nil
	}})
	files, err := fs.Glob(embedded, "schemas/*"+fileSuffix)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, f := range files {
		data, err := fs.ReadFile(embedded, f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		id := doc.(map[string]any)["$id"].(string)
		if err := c.AddResource(id, doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ids[strings.TrimSuffix(strings.TrimPrefix(f, "schemas/"), fileSuffix)] = id
	}
	out := map[string]*jsonschema.Schema{}
	for name, id := range ids {
		sch, err := c.Compile(id)
		if err != nil {
			t.Fatalf("santhosh-tekuri/jsonschema rejects %s: %v", name, err)
		}
		out[name] = sch
	}
	return out
}

// toAny converts a Value to the representation santhosh expects.
func toAny(v *canonjson.Value) any {
	switch v.Kind {
	case canonjson.Bool:
		return v.Bool
	case canonjson.Int:
		return json.Number(strconv.FormatInt(v.Int, 10))
	case canonjson.Number:
		return json.Number(v.Str)
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

// leaves flattens a santhosh error tree into "keyword@pointer" strings. A
// oneOf failure is a leaf, as in our evaluator.
func leaves(err *jsonschema.ValidationError, into map[string]bool) {
	kp := err.ErrorKind.KeywordPath()
	kw := ""
	if len(kp) > 0 {
		kw = kp[len(kp)-1]
	}
	if len(err.Causes) == 0 || kw == "oneOf" {
		ptr := ""
		for _, tok := range err.InstanceLocation {
			ptr += "/" + escapeToken(tok)
		}
		into[want{ptr, kw}.String()] = true
		return
	}
	for _, c := range err.Causes {
		leaves(c, into)
	}
}

func wantSet(errs []Error) map[string]bool {
	out := map[string]bool{}
	for _, w := range gotWants(errs) {
		out[w.String()] = true
	}
	return out
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
	t        *testing.T
	ours     *Set
	ref      map[string]*jsonschema.Schema
	compared int
	invalid  int
}

// compare validates v with both evaluators and requires the same decision
// and the same set of failing (instance location, keyword) pairs.
func (d *differ) compare(label, name string, v *canonjson.Value) {
	d.t.Helper()
	d.compared++
	ourErrs := d.ours.Validate(name, v)
	refErr := d.ref[name].Validate(toAny(v))
	if (len(ourErrs) == 0) != (refErr == nil) {
		d.t.Errorf("%s (%s): ours valid=%v %v; santhosh valid=%v %v", label, name,
			len(ourErrs) == 0, ourErrs, refErr == nil, refErr)
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
	theirs := map[string]bool{}
	leaves(ve, theirs)
	if ours := wantSet(ourErrs); !slices.Equal(keys(ours), keys(theirs)) {
		d.t.Errorf("%s (%s): failing locations differ\n ours:     %v\n santhosh: %v", label, name, keys(ours), keys(theirs))
	}
}

func TestDifferential(t *testing.T) {
	ours, ref := loadEmbedded(t), reference(t)
	base := readVector(t, baseVector)
	run := func(name string, f func(d *differ)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := &differ{t: t, ours: ours, ref: ref}
			f(d)
			t.Logf("compared %d instances (%d invalid)", d.compared, d.invalid)
		})
	}
	run("vectors and mutations", func(d *differ) {
		for _, f := range append(vectorFiles(d.t, "valid"), vectorFiles(d.t, "invalid")...) {
			d.compare(f, ConformanceBundle, readVector(d.t, f))
		}
		for _, m := range bundleMutations {
			d.compare("mutation "+m.name, ConformanceBundle, mutate(d.t, base, m.ptr, m.repl))
		}
	})
	for _, part := range []string{"/schemaVersion", "/evidence", "/statement", "/integrity"} {
		run("sweep bundle "+part, func(d *differ) {
			if testing.Short() && part == "/evidence" {
				d.t.Skip("the evidence sweep takes seconds; run without -short")
			}
			sweep(d, ConformanceBundle, base, part)
		})
	}
	run("sweep trust policy", func(d *differ) { sweep(d, TrustPolicy, parse(d.t, testPolicy), "") })
	run("sweep statement", func(d *differ) { sweep(d, InTotoStatement, statementFor(d.t, base, true), "") })
	run("sweep envelope", func(d *differ) { sweep(d, DSSEEnvelope, parse(d.t, testEnvelope), "") })
	run("sweep authenticity", func(d *differ) {
		sweep(d, Authenticity, parse(d.t, `{"schemaVersion":"mcp-res.authenticity/0.2.0",
			"claimedClassification":"WITNESSED","envelopes":[`+testEnvelope+`]}`), "")
	})
}

// sweep mutates every node of v under the pointer from in turn — replacing
// it by values of every type and boundary shape, deleting object members,
// adding an unknown member, emptying and duplicating arrays, and bending
// strings — and compares both evaluators on each result. Of arrays it
// visits the first two and the last item: the others repeat their shapes.
func sweep(d *differ, name string, v *canonjson.Value, from string) {
	t := d.t
	var walk func(ptr string, n *canonjson.Value)
	walk = func(ptr string, n *canonjson.Value) {
		for _, repl := range replacementsFor(n) {
			d.compare(fmt.Sprintf("%s %s = %.40s", name, ptr, repl), name, mutate(t, v, ptr, repl))
		}
		switch n.Kind {
		case canonjson.Object:
			d.compare(name+" "+ptr+" + unknown member", name, mutate(t, v, ptr+"/zzUnknown", `1`))
			for _, m := range n.Members {
				child := ptr + "/" + escapeToken(m.Key)
				d.compare(name+" delete "+child, name, mutate(t, v, child, ""))
				walk(child, m.Value)
			}
		case canonjson.Array:
			if len(n.Items) > 0 {
				d.compare(name+" "+ptr+" duplicate first", name, mutate(t, v, ptr+"/-", compact(n.Items[0])))
			}
			for i, it := range n.Items {
				if i < 2 || i == len(n.Items)-1 {
					walk(ptr+"/"+strconv.Itoa(i), it)
				}
			}
		}
	}
	start, err := resolvePointer(v, from)
	if err != nil {
		t.Fatal(err)
	}
	walk(from, start)
}

var scalarReplacements = []string{
	`null`, `true`, `0`, `-1`, `1`, `4294967296`, `9007199254740991`, `""`, `"x"`, `"UNKNOWN"`, `[]`, `{}`,
}

func replacementsFor(n *canonjson.Value) []string {
	out := slices.Clone(scalarReplacements)
	switch n.Kind {
	case canonjson.String:
		s := n.Str
		out = append(out,
			strconv.Quote(s+"\n"),
			strconv.Quote(strings.ToUpper(s)),
			strconv.Quote(strings.Repeat("😀", 96)),
			strconv.Quote(strings.Repeat("😀", 129)),
			strconv.Quote(strings.Repeat("a", 257)),
			strconv.Quote("obs-"+strings.Repeat("a", 124)),
			strconv.Quote("2026-12-31T23:59:60Z"),
			strconv.Quote("2026-08-27 12:00:00+02"),
		)
	case canonjson.Int:
		out = append(out, strconv.FormatInt(n.Int+1, 10), strconv.FormatInt(n.Int-1, 10),
			`32`, `33`, `64`, `65`, `10000`, `10001`, `14400000`, `14400001`, `3600000`, `3600001`, `16777217`)
	case canonjson.Array:
		out = append(out, `[`+strings.Repeat(`"a",`, 40)+`"a"]`)
	}
	return out
}

// TestReferenceBuiltinDateTimeDiffers documents why custom formats are
// registered above: the library's own date-time accepts a leap second and
// rejects whitespace separators, unlike REFERENCE §1.7.
func TestReferenceBuiltinDateTimeDiffers(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("https://example.test/dt.json", map[string]any{"format": "date-time"}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://example.test/dt.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in          string
		builtin, us bool
	}{
		{"2026-12-31T23:59:60Z", true, false},
		{"2026-08-27 12:00:00Z", false, true},
		{"2026-08-27T12:00:00.000Z", true, true},
	} {
		if got := sch.Validate(tc.in) == nil; got != tc.builtin {
			t.Errorf("builtin date-time(%q) = %v, want %v", tc.in, got, tc.builtin)
		}
		if got := datetime.Valid(tc.in); got != tc.us {
			t.Errorf("datetime.Valid(%q) = %v, want %v", tc.in, got, tc.us)
		}
	}
}
