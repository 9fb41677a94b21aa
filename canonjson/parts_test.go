package canonjson

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// partsOf returns a part for every object and array in v: each object
// once whole and once without each of its keys, each array once.
func partsOf(v *Value) []Part {
	var parts []Part
	var walk func(*Value)
	walk = func(x *Value) {
		switch x.Kind {
		case Object:
			parts = append(parts, Part{Value: x})
			for _, m := range x.Members {
				parts = append(parts, Part{Value: x, Omit: m.Key})
			}
			for _, m := range x.Members {
				walk(m.Value)
			}
		case Array:
			parts = append(parts, Part{Value: x})
			for _, it := range x.Items {
				walk(it)
			}
		}
	}
	walk(v)
	return parts
}

// checkParts runs DigestParts and compares every result with Digest of
// the part on its own.
func checkParts(t *testing.T, v *Value, parts []Part) {
	t.Helper()
	wantSum, wantLen, wantErr := Digest(v)
	sum, n, err := DigestParts(v, parts)
	if sum != wantSum || n != wantLen || (err == nil) != (wantErr == nil) {
		t.Fatalf("DigestParts = %s, %d, %v; Digest = %s, %d, %v", sum, n, err, wantSum, wantLen, wantErr)
	}
	if err != nil {
		for i, p := range parts {
			if p.Sum != "" || p.Len != 0 {
				t.Errorf("part %d set after an error", i)
			}
		}
		return
	}
	for i, p := range parts {
		d := p.Value
		if p.Omit != "" && d.Is(Object) {
			d = d.Without(p.Omit)
		}
		want, wn, err := Digest(d)
		if err != nil {
			t.Fatalf("part %d: Digest: %v", i, err)
		}
		if p.Sum != want || p.Len != wn {
			c, _ := Canonical(d)
			t.Errorf("part %d (omit %q) = %s, %d; want %s, %d (%s)", i, p.Omit, p.Sum, p.Len, want, wn, c)
		}
	}
}

func TestDigestParts(t *testing.T) {
	long := strings.Repeat("x", 3*flushSize) // forces flushes inside parts
	docs := []string{
		`{}`, `[]`, `{"a":1}`, `{"a":{"b":1}}`,
		`{"z":1,"a":2,"m":{"y":[1,{"q":null}],"b":"s"}}`,
		`{"obs":[{"id":"1","observationSha256":"x","z":true},{"observationSha256":"y"},{"a":1,"observationSha256":"z"}]}`,
		`{"e":{"k":"` + long + `","d":{"a":"` + long + `"},"b":"` + long + `"}}`,
		`[[],[[]],{"":{"":[]}}]`,
	}
	for _, doc := range docs {
		v, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		checkParts(t, v, partsOf(v))
		for _, p := range partsOf(v) { // one part at a time, linear lookup
			checkParts(t, v, []Part{p})
		}
	}
	// A part that is not inside the value, a scalar part, and a part
	// named twice are digested on their own.
	v, _ := Parse([]byte(`{"a":{"b":1},"s":"x"}`))
	other, _ := Parse([]byte(`{"c":2}`))
	checkParts(t, v, []Part{{Value: other}, {Value: v.Get("s")}, {Value: v.Get("a")}, {Value: v.Get("a")}, {Value: other, Omit: "c"}})
	// A value without canonical form fails and sets no part.
	bad := NewObject(Member{Key: "a", Value: NewObject()}, Member{Key: "b", Value: NewInt(MaxSafeInteger + 1)})
	checkParts(t, bad, []Part{{Value: bad.Get("a")}})
}

// plainPrefix agrees with a byte-by-byte scan at every position of every
// 16-byte window over all byte values.
func TestPlainPrefix(t *testing.T) {
	naive := func(b []byte) int {
		for i, c := range b {
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return i
			}
		}
		return len(b)
	}
	for c := range 256 {
		for pos := range 17 {
			for n := pos; n <= 17; n++ {
				b := []byte(strings.Repeat("a", n))
				if pos < n {
					b[pos] = byte(c)
				}
				// A second bad byte after the first must not matter.
				if pos+3 < n {
					b[pos+3] = 0x1f
				}
				if got, want := plainPrefix(b), naive(b); got != want {
					t.Fatalf("plainPrefix(%q) = %d, want %d", b, got, want)
				}
				if got, want := plainPrefix(string(b)), naive(b); got != want {
					t.Fatalf("plainPrefix(string %q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// HasNoEscape agrees with a byte-by-byte test for every byte value at
// every position of inputs of 0 to 17 bytes (whole eight-byte words and
// the tail), next to a plain neighbour or to a quote (which it allows).
func TestHasNoEscape(t *testing.T) {
	naive := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c >= 0x80 || c == '\\' {
				return false
			}
		}
		return true
	}
	for c := range 256 {
		for n := 1; n <= 17; n++ {
			for pos := range n {
				for _, fill := range []string{"a", `"`, "\x7f", " "} {
					b := []byte(strings.Repeat(fill, n))
					b[pos] = byte(c)
					if got, want := HasNoEscape(string(b)), naive(b); got != want {
						t.Fatalf("HasNoEscape(string %q) = %v, want %v", b, got, want)
					}
				}
			}
		}
	}
	if !HasNoEscape("") || !HasNoEscape(`{"a":"b c/d"}`) || HasNoEscape(`{"a":"b\\"c"}`) {
		t.Fatal("HasNoEscape: wrong on a document")
	}
}

// Digest's buffer is lent from a pool (digestBuffers): digests computed
// at once on many goroutines, of values whose encodings are smaller and
// larger than the buffer (a string longer than it grows it), each equal
// the SHA-256 of its canonical bytes; and a Digest allocates only its hash,
// its sum and the hex digest (encoded on the stack, hexSum), not a buffer;
// BytesDigest only the hex digest.
func TestDigestBufferLent(t *testing.T) {
	values := make([]*Value, 40)
	for i := range values {
		values[i] = NewObject(Member{Key: "i", Value: NewInt(int64(i))},
			Member{Key: "s", Value: NewString(strings.Repeat(string(rune('a'+i%26)), i*i*5))},
			Member{Key: "a", Value: NewArray(NewString("x"), NewBool(i%2 == 0))})
	}
	want := make([]string, len(values))
	for i, v := range values {
		c, err := Canonical(v)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = BytesDigest(c)
	}
	errs := make(chan string, len(values)*8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range values {
				i := (k + g*7) % len(values)
				if sum, _, _ := Digest(values[i]); sum != want[i] {
					errs <- fmt.Sprintf("value %d: %s, want %s", i, sum, want[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	small := values[1]
	Digest(small) // the pool holds a buffer
	if n := testing.AllocsPerRun(100, func() { Digest(small) }); n > 3 {
		t.Errorf("Digest allocates %v times, want at most 3", n)
	}
	data := []byte(strings.Repeat("x", 100))
	if n := testing.AllocsPerRun(100, func() { BytesDigest(data) }); n != 1 {
		t.Errorf("BytesDigest allocates %v times, want 1", n)
	}
}
