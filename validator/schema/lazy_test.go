package schema

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// eagerEmbedded compiles every embedded document, root and $defs, as
// LoadFS does: Load defers that to first use, so this is where a broken
// embedded schema fails.
func eagerEmbedded(t *testing.T) *Set {
	t.Helper()
	sub, err := fs.Sub(embedded, "schemas")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadFS(sub)
	if err != nil {
		t.Fatalf("the embedded schemas do not all compile: %v", err)
	}
	return s
}

// TestLoadAgreesWithLoadFS: the embedded set compiled on first use names
// the same schemas and schema versions, and judges documents exactly as
// the set compiled whole does (every error, for every schema, on valid and
// invalid documents of several kinds).
func TestLoadAgreesWithLoadFS(t *testing.T) {
	eager := eagerEmbedded(t)
	lazy, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if lazy.lazy == nil || eager.lazy != nil {
		t.Fatal("Load must compile on first use, LoadFS at once")
	}
	if !slices.Equal(lazy.Names(), eager.Names()) || !maps.Equal(lazy.versions, eager.versions) || len(eager.versions) < 11 {
		t.Fatalf("names %v / %v, versions %v / %v", lazy.Names(), eager.Names(), lazy.versions, eager.versions)
	}
	b := readVector(t, baseVector)
	docs := []*canonjson.Value{b, b.Get("evidence"), statementFor(t, b, true), parse(t, testEnvelope), parse(t, testPolicy),
		parse(t, `{}`), parse(t, `[1,"x",null]`), mutate(t, b, "/evidence/observations/0/id", `7`)}
	for _, name := range eager.Names() {
		for i, d := range docs {
			got, want := fmt.Sprint(lazy.Validate(name, d)), fmt.Sprint(eager.Validate(name, d))
			if got != want {
				t.Errorf("%s, document %d: on first use %s, compiled whole %s", name, i, got, want)
			}
		}
	}
}

// TestLoadCompilesOnlyWhatIsUsed: validating a statement compiles its
// document and what it refers to, not the other twenty; a schema not yet
// used stays uncompiled (the control: once used, it is).
func TestLoadCompilesOnlyWhatIsUsed(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	compiled := func() []string {
		s.mu.Lock()
		defer s.mu.Unlock()
		var docs []string
		for loc := range s.lazy.nodes {
			id, _, _ := strings.Cut(loc, "#")
			name := strings.TrimSuffix(id[strings.LastIndexByte(id, '/')+1:], fileSuffix)
			if !slices.Contains(docs, name) {
				docs = append(docs, name)
			}
		}
		slices.Sort(docs)
		return docs
	}
	if got := compiled(); len(got) != 0 {
		t.Fatalf("Load compiled %v before any use", got)
	}
	b := readVector(t, baseVector)
	if errs := s.Validate(InTotoStatement, statementFor(t, b, false)); errs != nil {
		t.Fatal(errs)
	}
	got := compiled()
	if !slices.Contains(got, InTotoStatement) || slices.Contains(got, ConformanceBundle) || len(got) > 3 {
		t.Errorf("after a statement, compiled %v: want the statement's document and its references only", got)
	}
	if errs := s.Validate(ConformanceBundle, b); errs != nil {
		t.Fatal(errs)
	}
	if after := compiled(); !slices.Contains(after, ConformanceBundle) || len(after) <= len(got) {
		t.Errorf("after a bundle, compiled %v (before %v): want the bundle's documents too", after, got)
	}
}

// TestLoadFirstUseConcurrently: goroutines that use every schema of a new
// set at once (each first use compiling under the set's lock) judge as a
// set compiled whole does. Run with -race to see the locking hold.
func TestLoadFirstUseConcurrently(t *testing.T) {
	eager := eagerEmbedded(t)
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	b := readVector(t, baseVector)
	bad := mutate(t, b, "/evidence/observations/0/id", `7`)
	var wg sync.WaitGroup
	for _, name := range s.Names() {
		for _, d := range []*canonjson.Value{b, bad} {
			wg.Go(func() {
				if got, want := fmt.Sprint(s.Validate(name, d)), fmt.Sprint(eager.Validate(name, d)); got != want {
					t.Errorf("%s: %s, want %s", name, got, want)
				}
			})
		}
	}
	wg.Wait()
}

// TestLoadFSStillRefusesABrokenDocument: a set with one broken document
// that nothing uses fails LoadFS, which compiles everything (the check
// the embedded set gets in eagerEmbedded); the lazy path loads it and
// fails only when the broken schema is used, loudly.
func TestLoadFSStillRefusesABrokenDocument(t *testing.T) {
	fsys := inlineFS(map[string]string{
		"good":   `{"type":"object"}`,
		"broken": `{"type":"object","properties":{"x":{"minLength":"seven"}}}`,
	})
	if _, err := LoadFS(fsys); err == nil || !strings.Contains(err.Error(), "minLength") {
		t.Fatalf("LoadFS = %v, want the broken document's error", err)
	}
	s, err := load(fsys, false)
	if err != nil {
		t.Fatalf("lazy load: %v", err)
	}
	if errs := s.Validate("good", parse(t, `{}`)); errs != nil {
		t.Fatalf("good: %v", errs)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "broken") {
			t.Errorf("using the broken schema: recovered %v, want a panic naming it", r)
		}
	}()
	s.Validate("broken", parse(t, `{}`))
}
