package canonjson

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// arenaInputs are documents of every shape the reader meets, good and
// bad, strict and lenient: an arena reads each as the package does,
// whatever it read before.
var arenaInputs = []string{
	`{"b":[3,{"y":null,"x":true}],"a":-0,"c":-9007199254740991}`,
	`{"s":"\u0000\u001f\"\\/\b\f\n\r\t\u007f\u2028\u2029\u00e9","k":"é"}`,
	`[null,null,true,false,true,0,-0,3,259,3,"a","k121","a","\u0061",{"a":"a"},[3]]`,
	`{"a":1,"a":2}`, `{"value":"\ud800"}`, `[1.0,2e3,9007199254740992]`,
	"\xEF\xBB\xBF{}", `[[[[[]]]]]`, `"😀"`, `{}`, `[]`, `7`, ``, `{"a":`, `[1,]`,
	`{"items":[` + strings.Repeat(`{"id":"x","n":1,"tags":["a","b"]},`, 300) + `{"id":"y"}]}`,
}

// TestArenaParsesAsParse: one arena reads a run of documents, reset
// between some and not others, and every result is what Parse and
// ParseLenient give (values and errors), the earlier trees untouched by
// the later parses until Reset.
func TestArenaParsesAsParse(t *testing.T) {
	inputs := append([]string{}, arenaInputs...)
	for _, dir := range []string{"../testdata/attestation", "../testdata/bundles"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files[:min(len(files), 8)] {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, string(data))
		}
	}
	if len(inputs) == len(arenaInputs) {
		t.Fatal("no documents found in ../testdata")
	}
	var a Arena
	type kept struct {
		in      string
		lenient bool
		v       *Value
	}
	var live []kept
	for i, in := range inputs {
		for _, lenient := range []bool{false, true} {
			parse, arenaParse := Parse, a.Parse
			if lenient {
				parse, arenaParse = ParseLenient, a.ParseLenient
			}
			want, wantErr := parse([]byte(in))
			got, err := arenaParse([]byte(in))
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !Equal(got, want) || (got == nil) != (want == nil) {
				t.Fatalf("input %d (lenient %v): arena %v, %v; package %v, %v", i, lenient, got, err, want, wantErr)
			}
			if got != nil {
				live = append(live, kept{in, lenient, got})
			}
		}
		for _, k := range live {
			parse := Parse
			if k.lenient {
				parse = ParseLenient
			}
			if want, _ := parse([]byte(k.in)); !Equal(k.v, want) {
				t.Fatalf("after input %d: a tree parsed earlier into the arena changed", i)
			}
		}
		if i%3 == 2 {
			a.Reset()
			live = live[:0]
		}
	}
}

// TestArenaReusesItsMemory: after Reset the next tree is built in the
// memory of the one before (the same root Value, no new Values, members
// or items); without Reset it is not (the control: both trees are live).
func TestArenaReusesItsMemory(t *testing.T) {
	doc := []byte(arenaInputs[len(arenaInputs)-1])
	var a Arena
	first, err := a.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.Parse(doc)
	if err != nil || second == first || !a.values.holds(second) {
		t.Fatalf("without Reset: second root %p, first %p (%v): want fresh memory of the arena", second, first, err)
	}
	a.Reset()
	if first.Kind != 0 || first.Members != nil {
		t.Errorf("Reset left the old root as %v, want it zeroed", first.Kind)
	}
	slabs := len(a.values.all) + len(a.members.all) + len(a.items.all)
	third, err := a.Parse(doc)
	if err != nil || third != first {
		t.Fatalf("after Reset: root %p, want the first's %p (%v)", third, first, err)
	}
	if n := len(a.values.all) + len(a.members.all) + len(a.items.all); n != slabs {
		t.Errorf("after Reset the parse took %d slabs, want the %d it had", n, slabs)
	}
	// Once the arena holds a document's slabs, reading one like it again
	// allocates only its strings: a few chunks, not a Value per node.
	allocs := testing.AllocsPerRun(20, func() {
		a.Reset()
		if _, err := a.Parse(doc); err != nil {
			t.Fatal(err)
		}
	})
	fresh := testing.AllocsPerRun(20, func() {
		if _, err := Parse(doc); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 || fresh < allocs+3 {
		t.Errorf("a parse after Reset allocates %v times (a fresh parse %v), want at most 2 (its strings)", allocs, fresh)
	}
}

// TestArenaKeep: Keep clones what holds memory of the arena, wherever in
// the tree, and the clone outlives Reset and the next parse; what holds
// none of it is returned as is (the control).
func TestArenaKeep(t *testing.T) {
	var a Arena
	const doc = `{"subject":{"name":"n","tags":["a","b"]},"n":1}`
	built := NewObject(Member{Key: "x", Value: NewString("y")}, Member{Key: "z", Value: NewArray(NewInt(1))})
	if got := a.Keep(built); got != built {
		t.Error("Keep cloned a value with nothing of the arena")
	}
	if got := a.Keep(nil); got != nil {
		t.Error("Keep(nil) is not nil")
	}
	for name, part := range map[string]func(doc *Value) *Value{
		"the root":             func(doc *Value) *Value { return doc },
		"a scalar of the tree": func(doc *Value) *Value { return doc.Get("n") },
		"an array's items": func(doc *Value) *Value {
			return NewObject(Member{Key: "t", Value: &Value{Kind: Array, Items: doc.Path("subject", "tags").Items}})
		},
		"an object's members": func(doc *Value) *Value {
			return NewArray(&Value{Kind: Object, Members: doc.Get("subject").Members})
		},
		"a node deep in a built one": func(doc *Value) *Value {
			return NewObject(Member{Key: "r", Value: NewArray(NewString("s"), doc.Path("subject", "name"))})
		},
	} {
		a.Reset()
		parsed, err := a.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		v := part(parsed)
		want, err := Compact(v)
		if err != nil {
			t.Fatal(err)
		}
		got := a.Keep(v)
		if got == v || a.owns(got) {
			t.Errorf("%s: Keep returned memory of the arena", name)
			continue
		}
		a.Reset()
		if _, err := a.Parse([]byte(`{"other":[{"q":0},{"q":0},{"q":0},{"q":0}],"subject":{"name":"m","tags":["c","d","e"]},"n":2}`)); err != nil {
			t.Fatal(err)
		}
		if out, err := Compact(got); err != nil || string(out) != string(want) {
			t.Errorf("%s: kept %s (%v) after Reset and another parse, want %s", name, out, err, want)
		}
	}
}

// TestArenaResetKeepsABoundedAmount: after a document far larger than
// the rest of a batch, Reset keeps at most maxArenaBytes of slabs and no
// large scratch stack; a small one's slabs it keeps whole.
func TestArenaResetKeepsABoundedAmount(t *testing.T) {
	kept := func(a *Arena) int {
		n := 0
		for _, s := range a.values.all {
			n += len(s) * int(unsafe.Sizeof(Value{}))
		}
		for _, s := range a.members.all {
			n += len(s) * int(unsafe.Sizeof(Member{}))
		}
		for _, s := range a.items.all {
			n += len(s) * int(unsafe.Sizeof((*Value)(nil)))
		}
		return n
	}
	var a Arena
	big := []byte(`[` + strings.Repeat(`{"k":[1,2,{"j":"x"}]},`, 30_000) + `0]`)
	if _, err := a.Parse(big); err != nil {
		t.Fatal(err)
	}
	if before := kept(&a); before <= 2*maxArenaBytes {
		t.Fatalf("the large document took %d bytes of slabs: not large enough for the test", before)
	}
	a.Reset()
	if after := kept(&a); after > maxArenaBytes || after == 0 {
		t.Errorf("Reset kept %d bytes of slabs, want some and at most %d", after, maxArenaBytes)
	}
	if stacks := (cap(a.stackItems) + cap(a.stackMembers)) * 8; stacks > 2*maxStackBytes {
		t.Errorf("Reset kept scratch stacks of %d bytes after an array of 30,000 items", stacks)
	}
	var b Arena
	if _, err := b.Parse([]byte(arenaInputs[len(arenaInputs)-1])); err != nil {
		t.Fatal(err)
	}
	before := kept(&b)
	b.Reset()
	if after := kept(&b); after != before {
		t.Errorf("Reset of a small document's arena kept %d of %d bytes", after, before)
	}
}

// FuzzArena: two inputs read one after the other into one arena, with or
// without Reset between, each strictly or leniently, read as the package
// reads them, and the first tree (when not reset) is unchanged by the
// second parse.
func FuzzArena(f *testing.F) {
	for i, s := range arenaInputs {
		f.Add([]byte(s), []byte(arenaInputs[(i+1)%len(arenaInputs)]), uint8(i))
	}
	f.Fuzz(func(t *testing.T, first, second []byte, mode uint8) {
		var a Arena
		read := func(data []byte, lenient bool) *Value {
			parse, arenaParse := Parse, a.Parse
			if lenient {
				parse, arenaParse = ParseLenient, a.ParseLenient
			}
			want, wantErr := parse(data)
			got, err := arenaParse(data)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || (got == nil) != (want == nil) || !Equal(got, want) {
				t.Fatalf("arena %v, %v; package %v, %v\n%q", got, err, want, wantErr, data)
			}
			return got
		}
		v := read(first, mode&1 != 0)
		want := v.Clone()
		if mode&4 != 0 {
			a.Reset()
			v = nil
		}
		read(second, mode&2 != 0)
		if v != nil && !Equal(v, want) {
			t.Fatalf("the first tree changed with the second parse\n%q\n%q", first, second)
		}
	})
}
