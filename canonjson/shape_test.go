package canonjson

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// presorted returns a deep copy of v whose objects store their members
// in canonical order, sorted here on their own: the encoder then copies
// nothing and consults no cache, so its output is the reference.
func presorted(v *Value) *Value {
	c := *v
	switch v.Kind {
	case Object:
		c.Members = make([]Member, len(v.Members))
		for i, m := range v.Members {
			c.Members[i] = Member{Key: m.Key, Value: presorted(m.Value)}
		}
		slices.SortFunc(c.Members, func(a, b Member) int { return CompareKeys(a.Key, b.Key) })
	case Array:
		c.Items = make([]*Value, len(v.Items))
		for i, it := range v.Items {
			c.Items[i] = presorted(it)
		}
	}
	return &c
}

// checkCanonical compares Canonical, Digest and the digest of every part
// of v with those of presorted(v).
func checkCanonical(t *testing.T, v *Value) {
	t.Helper()
	ref := presorted(v)
	want, err := Canonical(ref)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Canonical =\n%s\nwant\n%s", got, want)
	}
	wantSum, _, _ := Digest(ref)
	parts := partsOf(v)
	sum, _, err := DigestParts(v, parts)
	if err != nil || sum != wantSum {
		t.Fatalf("DigestParts = %s, %v; want %s", sum, err, wantSum)
	}
	for i, p := range parts {
		d := presorted(p.Value)
		if p.Omit != "" {
			d = d.Without(p.Omit)
		}
		if s, _, _ := Digest(d); p.Sum != s {
			c, _ := Canonical(d)
			t.Fatalf("part %d (omit %q) = %s, want %s (%s)", i, p.Omit, p.Sum, s, c)
		}
	}
}

// The encoder reuses the canonical order of an object for later objects
// with the same keys in the same input order. Objects that look alike but
// are not (the same keys in another order, the same length and ends with
// other keys in the middle, one key fewer, keys that sort by UTF-16 and
// not by bytes) must each be sorted for themselves.
func TestCanonicalShapeCache(t *testing.T) {
	docs := []string{
		`[{"b":1,"a":2},{"b":3,"a":4},{"a":5,"b":6},{"b":7,"a":8}]`,
		`[{"b":1,"a":2,"c":3},{"a":1,"b":2,"c":3},{"c":1,"b":2,"a":3},{"b":1,"a":2,"c":3}]`,
		`[{"z":1,"m":2,"a":3},{"z":1,"n":2,"a":3},{"z":1,"b":2,"a":3},{"z":1,"m":2,"a":3}]`,
		`[{"z":1,"m":2,"a":3},{"z":1,"m":2},{"z":1,"m":2,"a":3,"b":4}]`,
		`[{"\uE000":1,"\uD800\uDC00":2},{"\uD800\uDC00":1,"\uE000":2},{"\uE000":3,"\uD800\uDC00":4}]`,
		`{"b":{"b":{"b":{},"a":1},"a":2},"a":{"b":{"b":3,"a":4},"a":5}}`,
		`[{"ab":1,"a":2},{"a":1,"ab":2},{"ab":3,"a":4},{"":1,"a":2},{"a":1,"":2}]`,
	}
	for _, doc := range docs {
		v, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		checkCanonical(t, v)
	}
	// More distinct shapes than the cache holds, then the first again;
	// objects built in code, whose equal keys are not one string.
	var items []*Value
	for round := range 3 {
		for s := range shapeCacheSize + 3 {
			ms := []Member{{Key: strings.Repeat("k", s+1), Value: NewInt(int64(round))}, {Key: strings.Clone("a"), Value: NewInt(int64(s))}}
			if s%2 == 1 {
				ms[0], ms[1] = ms[1], ms[0]
			}
			items = append(items, NewObject(ms...))
		}
	}
	checkCanonical(t, NewArray(items...))
}

// Random documents of objects drawn from a few keys in random orders,
// nested, of every size up to smallObject and a little beyond.
func TestCanonicalShapeCacheRandom(t *testing.T) {
	keys := []string{"", "a", "b", "ab", "ba", "z", "observationSha256", "id", "\uE000", "\U00010000", "é", "A", "a\x00", "aa", "b\u00e9", "zz", "k1", "k2", "k3", "k4",
		"observationRefs", "abcdefgh", "abcdefghi", "abcdefg\x00", "abcdefg\u00e9", "abcdefgh\uE000", "abcdefgh\U00010000"}
	r := rand.New(rand.NewPCG(26, 1))
	var gen func(depth int) *Value
	gen = func(depth int) *Value {
		if depth > 3 || r.IntN(3) == 0 {
			return NewInt(int64(r.IntN(10)))
		}
		if r.IntN(4) == 0 {
			items := make([]*Value, r.IntN(6))
			for i := range items {
				items[i] = gen(depth + 1)
			}
			return NewArray(items...)
		}
		n := r.IntN(min(smallObject+3, len(keys)) + 1)
		if r.IntN(2) == 0 {
			n = min(n, 4) // few keys: shapes repeat
		}
		perm := r.Perm(len(keys))[:n]
		if r.IntN(2) == 0 {
			slices.Sort(perm) // the same keys in one order, often
		}
		ms := make([]Member, n)
		for i, k := range perm {
			ms[i] = Member{Key: keys[k], Value: gen(depth + 1)}
		}
		return NewObject(ms...)
	}
	for range 100 {
		items := make([]*Value, 1+r.IntN(6))
		for i := range items {
			items[i] = gen(0)
		}
		checkCanonical(t, NewArray(items...))
	}
}

// keyPrefix orders two keys as CompareKeys does whenever it decides: both
// prefixes ASCII and different.
func TestKeyPrefixOrder(t *testing.T) {
	keys := []string{"", "a", "a\x00", "a\x00\x00", "ab", "abcdefg", "abcdefg\x00", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefgi",
		"abcdefg\x7f", "abcdefg\u00e9", "\x7f", "\u00e9", "\uE000", "\U00010000", "Z", "z", "observationSha256", "observationRefs"}
	sign := func(c int) int { return min(max(c, -1), 1) }
	decided := 0
	for _, a := range keys {
		for _, b := range keys {
			pa, aa := keyPrefix(a)
			pb, ab := keyPrefix(b)
			if !aa || !ab || pa == pb {
				continue
			}
			decided++
			byPrefix := -1
			if pa > pb {
				byPrefix = 1
			}
			if want := sign(CompareKeys(a, b)); byPrefix != want {
				t.Errorf("keyPrefix orders %q, %q as %d; CompareKeys: %d", a, b, byPrefix, want)
			}
		}
	}
	if decided < 200 {
		t.Errorf("only %d pairs decided by prefix", decided)
	}
}
