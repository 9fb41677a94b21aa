// Package validatortest holds what the tests of package validator and of
// its kind packages (validator/v01, validator/migration, …) share: JSON
// Pointer mutators for fault tables, exact result checks, golden-file
// syncing and the upstream conformance catalogs. It must only be imported
// by tests. (It lives outside internal/ because it imports validator; no
// package under internal/ imports a non-internal package of the module.)
package validatortest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// OtherSha is a well-formed digest (as a JSON literal) that is nobody's.
const OtherSha = `"0000000000000000000000000000000000000000000000000000000000000001"`

// A Mutator edits a document in place.
type Mutator func(t *testing.T, v *canonjson.Value)

// Lit parses a JSON literal with the strict reader.
func Lit(t testing.TB, text string) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse([]byte(text))
	if err != nil {
		t.Fatalf("literal %s: %v", text, err)
	}
	return v
}

// tokens splits an RFC 6901 pointer; "" is the root.
func tokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(ptr[1:], "/")
	for i, tok := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	}
	return toks
}

func walk(t testing.TB, v *canonjson.Value, ptr string, toks []string) *canonjson.Value {
	t.Helper()
	for _, tok := range toks {
		switch {
		case v.Is(canonjson.Object) && v.Has(tok):
			v = v.Get(tok)
		case v.Is(canonjson.Array):
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.Items) {
				t.Fatalf("pointer %s: no element %q", ptr, tok)
			}
			v = v.Items[i]
		default:
			t.Fatalf("pointer %s: no member %q", ptr, tok)
		}
	}
	return v
}

// At returns the value at ptr, failing the test when it is absent.
func At(t testing.TB, v *canonjson.Value, ptr string) *canonjson.Value {
	t.Helper()
	return walk(t, v, ptr, tokens(ptr))
}

// Put sets the value at ptr: an object member is replaced or appended, an
// array element replaced (index len appends).
func Put(t testing.TB, v *canonjson.Value, ptr string, val *canonjson.Value) {
	t.Helper()
	toks := tokens(ptr)
	parent, last := walk(t, v, ptr, toks[:len(toks)-1]), toks[len(toks)-1]
	switch parent.Kind {
	case canonjson.Object:
		parent.Set(last, val)
	case canonjson.Array:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i > len(parent.Items) {
			t.Fatalf("pointer %s: bad index %q", ptr, last)
		}
		if i == len(parent.Items) {
			parent.Items = append(parent.Items, val)
		} else {
			parent.Items[i] = val
		}
	default:
		t.Fatalf("pointer %s: parent is a %s", ptr, parent.Kind)
	}
}

// Set returns a mutator writing the JSON literal text at ptr.
func Set(ptr, text string) Mutator {
	return func(t *testing.T, v *canonjson.Value) { Put(t, v, ptr, Lit(t, text)) }
}

// Remove returns a mutator deleting the member or element at ptr.
func Remove(ptr string) Mutator {
	return func(t *testing.T, v *canonjson.Value) {
		t.Helper()
		toks := tokens(ptr)
		parent, last := walk(t, v, ptr, toks[:len(toks)-1]), toks[len(toks)-1]
		At(t, v, ptr) // must exist
		if parent.Kind == canonjson.Array {
			i, _ := strconv.Atoi(last)
			parent.Items = slices.Delete(parent.Items, i, i+1)
			return
		}
		parent.Delete(last)
	}
}

// AppendTo returns a mutator appending the JSON literal text to the array
// at ptr.
func AppendTo(ptr, text string) Mutator {
	return func(t *testing.T, v *canonjson.Value) {
		t.Helper()
		arr := At(t, v, ptr)
		if !arr.Is(canonjson.Array) {
			t.Fatalf("%s is not an array", ptr)
		}
		arr.Items = append(arr.Items, Lit(t, text))
	}
}

// CopyTo returns a mutator setting dst to a deep copy of the value at src.
func CopyTo(dst, src string) Mutator {
	return func(t *testing.T, v *canonjson.Value) { Put(t, v, dst, At(t, v, src).Clone()) }
}

// All chains mutators.
func All(ms ...Mutator) Mutator {
	return func(t *testing.T, v *canonjson.Value) {
		for _, m := range ms {
			m(t, v)
		}
	}
}

// SchemaErr renders a schema error as "path keyword".
func SchemaErr(e schema.Error) string { return e.InstancePath + " " + e.Keyword }

// CheckResult compares a validation outcome exactly: the diagnostics array
// (nil or empty want means valid), the schema errors as "path keyword"
// (only for a schema-invalid code; otherwise none may be present) and,
// when detail is set, a substring of Detail naming the sub-condition.
func CheckResult(t *testing.T, r validator.Result, err error, want, wantSchema []string, detail string) {
	t.Helper()
	if err != nil {
		t.Fatalf("aborted with %v, want diagnostics %v", err, want)
	}
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(r.Diagnostics, want) || r.Valid != (len(want) == 0) {
		t.Fatalf("got valid=%t %q (%s), want %q", r.Valid, r.Diagnostics, r.Detail, want)
	}
	var gotSchema []string
	for _, e := range r.SchemaErrors {
		gotSchema = append(gotSchema, SchemaErr(e))
	}
	if wantSchema != nil || len(gotSchema) > 0 {
		if !slices.Equal(gotSchema, wantSchema) {
			t.Errorf("schemaErrors = %q, want %q", gotSchema, wantSchema)
		}
	}
	if detail != "" && !strings.Contains(r.Detail, detail) {
		t.Errorf("detail %q does not name %q", r.Detail, detail)
	}
}

// CheckCase runs one row of a fault table: it validates v and a re-read
// copy of it with each of validate and checks every result with
// CheckInputError when abort is set, else with CheckResult for the single
// diagnostic want ("" for valid), schema errors and detail.
func CheckCase(t *testing.T, v *canonjson.Value, validate []func(*canonjson.Value) (validator.Result, error), abort bool, want string, schema []string, detail string) {
	t.Helper()
	var codes []string
	if want != "" {
		codes = []string{want}
	}
	for _, doc := range []*canonjson.Value{v, Reread(t, v)} {
		for _, f := range validate {
			r, err := f(doc)
			if abort {
				CheckInputError(t, r, err)
				continue
			}
			CheckResult(t, r, err, codes, schema, detail)
		}
	}
}

// CheckInputError requires a *validator.InputError abort.
func CheckInputError(t *testing.T, r validator.Result, err error) {
	t.Helper()
	var ie *validator.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got valid=%t %q, err %v; want an *InputError", r.Valid, r.Diagnostics, err)
	}
	if !strings.HasPrefix(ie.Error(), validator.CodeInputInvalid+": ") {
		t.Errorf("InputError text %q lacks the %s prefix", ie.Error(), validator.CodeInputInvalid)
	}
}

// Reread writes v with Pretty and reads it back with the strict reader, as
// a document file would be.
func Reread(t testing.TB, v *canonjson.Value) *canonjson.Value {
	t.Helper()
	doc, err := canonjson.Parse(Pretty(t, v))
	if err != nil {
		t.Fatalf("the written document does not read back: %v", err)
	}
	return doc
}

// Pretty encodes v in the canonjson.Pretty layout of committed fixtures.
func Pretty(t testing.TB, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// SyncFile checks that path holds want, or writes it when update is set
// (the -update flag of the calling test binary; pkg names the package to
// rerun in the message, e.g. "./validator/v01").
func SyncFile(t *testing.T, path string, want []byte, update bool, pkg string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test %s -run %s -update)", err, pkg, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale (run go test %s -run %s -update)", path, pkg, t.Name())
	}
}

// UpstreamDir returns the upstream vectors of <version> (upstreamtest.Dir) seen from
// the repository root root (a relative path such as "../.."), skipping the
// test when the shared folder is absent (a plain clone does not have it).
func UpstreamDir(t testing.TB, root, version string) string {
	t.Helper()
	return upstreamtest.Dir(t, root, version)
}

// A CatalogEntry is one vector of an upstream catalog (REFERENCE §3.8).
type CatalogEntry struct {
	ID                  string   `json:"id"`
	Path                string   `json:"path"`
	ExpectedDiagnostics []string `json:"expectedDiagnostics"`
	FileSha256          string   `json:"fileSha256"`
}

// ReadVector reads the entry's vector from dir with the strict reader and
// checks that the file is the one the catalog pins (its fileSha256).
func (e CatalogEntry) ReadVector(t testing.TB, dir string) *canonjson.Value {
	t.Helper()
	raw, doc, err := canonjson.ReadFile(filepath.Join(dir, e.Path))
	if err != nil {
		t.Fatal(err)
	}
	if got := canonjson.BytesDigest(raw); got != e.FileSha256 {
		t.Fatalf("%s: file SHA-256 = %s, catalog says %s", e.Path, got, e.FileSha256)
	}
	return doc
}

type catalog struct {
	SchemaVersion             string         `json:"schemaVersion"`
	CanonicalizationAlgorithm string         `json:"canonicalizationAlgorithm"`
	Valid                     []CatalogEntry `json:"valid"`
	Invalid                   []CatalogEntry `json:"invalid"`
}

// LoadCatalog reads dir/catalog.json and returns its valid then invalid
// entries.
func LoadCatalog(t testing.TB, dir string) []CatalogEntry {
	t.Helper()
	_, v, err := canonjson.ReadFile(filepath.Join(dir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c catalog
	if err := canonjson.Unmarshal(v, &c); err != nil {
		t.Fatal(err)
	}
	return append(c.Valid, c.Invalid...)
}

// UpstreamV01Valid lists the file names of the valid v0.1 upstream vectors
// in dir (UpstreamDir(t, root, "v0.1.0")).
func UpstreamV01Valid(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "valid"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") {
			out = append(out, e.Name())
		}
	}
	if len(out) != 7 {
		t.Fatalf("%d valid v0.1 vectors, want 7", len(out))
	}
	return out
}

// CheckFuzzResult asserts the result properties every validator keeps, for
// fuzz targets: an abort is an *InputError with a zero Result; otherwise
// valid iff no diagnostic, exactly one diagnostic when invalid, and schema
// errors only with schemaCode.
func CheckFuzzResult(t *testing.T, r validator.Result, err error, schemaCode string) {
	t.Helper()
	if err != nil {
		var ie *validator.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("abort is %T, not *InputError: %v", err, err)
		}
		if r.Valid || r.Diagnostics != nil || r.SchemaErrors != nil {
			t.Fatalf("abort with a non-zero result %+v", r)
		}
		return
	}
	if r.Valid != (len(r.Diagnostics) == 0) {
		t.Fatalf("valid=%t with diagnostics %v", r.Valid, r.Diagnostics)
	}
	if !r.Valid && len(r.Diagnostics) != 1 {
		t.Fatalf("%d diagnostics %v, want exactly one", len(r.Diagnostics), r.Diagnostics)
	}
	if (len(r.SchemaErrors) > 0) != slices.Equal(r.Diagnostics, []string{schemaCode}) {
		t.Fatalf("schema errors %v with diagnostics %v", r.SchemaErrors, r.Diagnostics)
	}
}

// FuzzSeeds adds committed documents to a fuzz target (compact, so that
// the fuzzer mutates structure rather than indentation) and, when
// ../shared is present, every valid and invalid upstream vector of
// version (e.g. "v0.1.0"); root is the repository root seen from the
// test's package.
func FuzzSeeds(f *testing.F, root, version string, files ...string) {
	for _, file := range files {
		_, v, err := canonjson.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		b, err := canonjson.Compact(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := upstreamtest.Path(f, root, version)
	for _, group := range []string{"valid", "invalid"} {
		ents, _ := os.ReadDir(filepath.Join(dir, group))
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join(dir, group, e.Name())); err == nil {
				f.Add(b)
			}
		}
	}
}
