package canonjson

import (
	"strconv"
	"strings"
	"testing"
)

// The reader shares equal scalars and nothing else: every shared value is
// equal to what the input says at its place, Clone undoes the sharing, and
// values that collide in the caches are still told apart.
func TestParseSharesScalars(t *testing.T) {
	long := strings.Repeat("x", maxSharedString+1)
	doc := `[null,null,true,true,false,false,0,-0,7,7,"s","s","` + long + `","` + long + `",{},{},[],[]]`
	v, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	it := v.Items
	for _, i := range []int{0, 2, 4, 6, 8, 10} {
		if it[i] != it[i+1] {
			t.Errorf("items %d and %d (%s) are not shared", i, i+1, it[i].Kind)
		}
	}
	// Controls: what must not be shared.
	for _, i := range []int{12, 14, 16} {
		if it[i] == it[i+1] {
			t.Errorf("items %d and %d (%s) are shared", i, i+1, it[i].Kind)
		}
	}
	if it[2] == it[4] || it[0] == it[4] || it[6] == it[8] || it[10] == it[12] {
		t.Error("different scalars share a Value")
	}
	c := v.Clone()
	if c.Items[0] == c.Items[1] || c.Items[10] == c.Items[11] {
		t.Error("Clone shares scalars")
	}
	c.Items[10].Str = "changed"
	if it[10].Str != "s" || it[11].Str != "s" || c.Items[11].Str != "s" {
		t.Error("changing a clone's scalar changed another value")
	}
}

// Values that land in the same cache slot evict each other and are never
// confused.
func TestParseSharedCollisions(t *testing.T) {
	// Two strings with one slot, found by search (the hash is fixed).
	slot := leafHash([]byte("a")) % leafCacheSize
	other := ""
	for i := 0; other == ""; i++ {
		if s := "k" + strconv.Itoa(i); leafHash([]byte(s))%leafCacheSize == slot {
			other = s
		}
	}
	n := strconv.Itoa(leafCacheSize + 3) // same int slot as 3
	doc := `["a","` + other + `","a",3,` + n + `,3,-3,"` + other + `"]`
	v, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != doc {
		t.Errorf("colliding scalars read as %s, want %s", got, doc)
	}
}

// Objects and arrays of one document share slabs for their members and
// items: growing one (Set, append) must copy it, never write into its
// neighbour's.
func TestParseSlabSlicesAreExact(t *testing.T) {
	v, err := Parse([]byte(`{"x":[{"a":1},{"b":2}],"y":[1],"z":[2]}`))
	if err != nil {
		t.Fatal(err)
	}
	objs := v.Get("x").Items
	for i, m := range []*Value{objs[0], objs[1], v} {
		if cap(m.Members) != len(m.Members) {
			t.Errorf("object %d: members capacity %d, length %d", i, cap(m.Members), len(m.Members))
		}
	}
	objs[0].Set("c", NewInt(3))
	y := v.Get("y")
	y.Items = append(y.Items, NewInt(9))
	got, err := Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"x":[{"a":1,"c":3},{"b":2}],"y":[1,9],"z":[2]}`; string(got) != want {
		t.Errorf("after Set and append: %s, want %s", got, want)
	}
}
