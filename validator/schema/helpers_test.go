package schema

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
)

var (
	embeddedOnce sync.Once
	embeddedSet  *Set
	embeddedErr  error
)

// loadEmbedded returns the embedded Set, compiled once per test binary.
func loadEmbedded(t testing.TB) *Set {
	t.Helper()
	embeddedOnce.Do(func() { embeddedSet, embeddedErr = Load() })
	if embeddedErr != nil {
		t.Fatalf("Load: %v", embeddedErr)
	}
	return embeddedSet
}

// parse reads JSON text with the strict reader.
func parse(t testing.TB, text string) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return v
}

const testBase = "https://example.test/schemas/"

// inlineSet compiles schema documents given as name → JSON text; each gets
// "$id" testBase+name+".schema.json" unless it sets one.
func inlineSet(t testing.TB, docs map[string]string) *Set {
	t.Helper()
	s, err := LoadFS(inlineFS(docs))
	if err != nil {
		t.Fatalf("LoadFS: %v", err)
	}
	return s
}

func inlineFS(docs map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, text := range docs {
		if !strings.Contains(text, `"$id"`) {
			text = `{"$id":"` + testBase + name + fileSuffix + `",` + strings.TrimPrefix(strings.TrimSpace(text), "{")
		}
		fsys[name+fileSuffix] = &fstest.MapFile{Data: []byte(text)}
	}
	return fsys
}

// upstreamDir returns shared/conformance/upstream/v0.2.0, located relative
// to this file, or skips the test when the shared folder is absent.
func upstreamDir(t testing.TB) string {
	t.Helper()
	return upstreamtest.Dir(t, "../..", "v0.2.0")
}

// readVector parses one upstream vector, e.g. "valid/reason-bound-negative".
func readVector(t testing.TB, rel string) *canonjson.Value {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(upstreamDir(t), rel+".json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := canonjson.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return v
}

// vectorFiles lists the vectors of one folder ("valid" or "invalid") by
// name without ".json".
func vectorFiles(t testing.TB, folder string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(upstreamDir(t), folder, "*.json"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no vectors in %s: %v", folder, err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, folder+"/"+strings.TrimSuffix(filepath.Base(m), ".json"))
	}
	return names
}

// A want is the part of an Error the tests pin: where and which keyword.
type want struct {
	path, keyword string
}

func (w want) String() string { return w.keyword + "@" + strconv.Quote(w.path) }

func gotWants(errs []Error) []want {
	out := make([]want, len(errs))
	for i, e := range errs {
		out[i] = want{e.InstancePath, e.Keyword}
	}
	return out
}

// checkErrors asserts the exact (path, keyword) list, in order, and that
// every error has a message.
func checkErrors(t testing.TB, errs []Error, wants []want) {
	t.Helper()
	got := gotWants(errs)
	if len(got) != len(wants) {
		t.Fatalf("got %d errors %v, want %v\nfull: %v", len(got), got, wants, errs)
	}
	for i := range got {
		if got[i] != wants[i] {
			t.Fatalf("error %d = %v, want %v\nall: %v", i, got[i], wants[i], errs)
		}
		if errs[i].Message == "" {
			t.Errorf("error %d has an empty message", i)
		}
	}
}

// mutate returns a deep copy of v with the value at RFC 6901 pointer ptr
// replaced by the JSON text repl, or removed when repl is "". The last token
// "-" appends to an array; a missing last member is added.
func mutate(t testing.TB, v *canonjson.Value, ptr, repl string) *canonjson.Value {
	t.Helper()
	out := v.Clone()
	if ptr == "" {
		return parse(t, repl)
	}
	toks := strings.Split(ptr[1:], "/")
	parent := out
	for _, tok := range toks[:len(toks)-1] {
		parent = step(t, parent, unescape(tok))
	}
	last := unescape(toks[len(toks)-1])
	switch parent.Kind {
	case canonjson.Object:
		if repl == "" {
			if !parent.Has(last) {
				t.Fatalf("mutate %s: no member to delete", ptr)
			}
			parent.Delete(last)
		} else {
			parent.Set(last, parse(t, repl))
		}
	case canonjson.Array:
		if last == "-" {
			parent.Items = append(parent.Items, parse(t, repl))
			break
		}
		i, err := strconv.Atoi(last)
		if err != nil || i >= len(parent.Items) {
			t.Fatalf("mutate %s: bad index", ptr)
		}
		if repl == "" {
			parent.Items = append(parent.Items[:i], parent.Items[i+1:]...)
		} else {
			parent.Items[i] = parse(t, repl)
		}
	default:
		t.Fatalf("mutate %s: parent is a %v", ptr, parent.Kind)
	}
	return out
}

func step(t testing.TB, v *canonjson.Value, tok string) *canonjson.Value {
	t.Helper()
	if v.Is(canonjson.Array) {
		i, err := strconv.Atoi(tok)
		if err != nil || i >= len(v.Items) {
			t.Fatalf("bad index %q", tok)
		}
		return v.Items[i]
	}
	next := v.Get(tok)
	if next == nil {
		t.Fatalf("no member %q", tok)
	}
	return next
}

func unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}
