package canonjson

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

type refuseInner struct {
	N int8 `json:"n"`
}

type refuseDoc struct {
	S      string        `json:"s"`
	B      bool          `json:"b"`
	U      uint16        `json:"u"`
	P      *refuseInner  `json:"p"`
	List   []refuseInner `json:"list"`
	Raw    *Value        `json:"raw"`
	Key    string        `json:"a/b~c"`
	Hidden string        `json:"-"`
	Plain  string
	First  string `json:"Second"`
	Second string // untagged, named "Second" too: the last field of a name takes it
	//lint:ignore U1000 an unexported field, which Unmarshal must neither fill nor accept a member for
	lower string
}

// Unmarshal refuses, naming the JSON pointer of the offending value: a
// destination that is not a non-nil pointer, a value of the wrong kind for
// each Go kind, an integer that overflows its field or is negative for an
// unsigned one, a member no field takes (a "-" field and an unexported
// one take none), and a Go type it does not support. The control decodes
// every field kind, a *Value, null into a pointer, and a name two fields
// share into the last of them.
func TestUnmarshalRefuses(t *testing.T) {
	for _, c := range []struct {
		doc, want string
	}{
		{`{"s":1}`, "/s: got integer, want string"},
		{`{"b":"x"}`, "/b: got string, want bool"},
		{`{"u":-1}`, "/u: got integer, want uint16"},
		{`{"u":65536}`, "/u: got integer, want uint16"},
		{`{"p":{"n":"1"}}`, "/p/n: got string, want int8"},
		{`{"p":{"n":128}}`, "/p/n: 128 overflows int8"},
		{`{"list":{}}`, "/list: got object, want slice"},
		{`{"list":[{"n":1},[]]}`, "/list/1: got array, want struct"},
		{`{"list":[{"n":1},{"x":1}]}`, `/list/1: unknown member "x"`},
		{`{"a/b~c":true}`, "/a~1b~0c: got boolean, want string"},
		{`{"Hidden":"x"}`, `(root): unknown member "Hidden"`},
		{`{"lower":"x"}`, `(root): unknown member "lower"`},
		{`[]`, "(root): got array, want struct"},
	} {
		v, err := Parse([]byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		var d refuseDoc
		if err := Unmarshal(v, &d); err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("Unmarshal(%s): %v, want …%s", c.doc, err, c.want)
		}
	}
	v, _ := Parse([]byte(`{"m":1}`))
	var m map[string]int
	if err := Unmarshal(v, &m); err == nil || !strings.Contains(err.Error(), "unsupported Go type map[string]int") {
		t.Errorf("into a map: %v", err)
	}
	var d refuseDoc
	if err := Unmarshal(v, d); err == nil || !strings.Contains(err.Error(), "non-nil pointer") {
		t.Errorf("into a struct, not a pointer: %v", err)
	}
	if err := Unmarshal(v, (*refuseDoc)(nil)); err == nil || !strings.Contains(err.Error(), "non-nil pointer") {
		t.Errorf("into a nil pointer: %v", err)
	}

	v, err := Parse([]byte(`{"s":"x","b":true,"u":65535,"p":null,"list":[{"n":-128}],"raw":{"z":[1]},"a/b~c":"k","Plain":"y","Second":"d"}`))
	if err != nil {
		t.Fatal(err)
	}
	d = refuseDoc{P: &refuseInner{}}
	if err := Unmarshal(v, &d); err != nil {
		t.Fatalf("control: %v", err)
	}
	if d.S != "x" || !d.B || d.U != 65535 || d.P != nil || len(d.List) != 1 || d.List[0].N != -128 || d.Key != "k" || d.Plain != "y" || d.First != "" || d.Second != "d" {
		t.Errorf("control decoded %+v", d)
	}
	if d.Raw != v.Get("raw") {
		t.Error("control: a *Value field does not receive the value itself")
	}
}

// FromGo refuses an unsigned integer above MaxSafeInteger and a Go type
// with no JSON form, wherever they sit (a struct field, a slice item);
// the control converts every supported kind, omitting an omitempty zero
// field and turning nil pointers, slices and *Values into null.
func TestFromGoRefuses(t *testing.T) {
	type withMap struct {
		M map[string]int `json:"m"`
	}
	for _, c := range []struct {
		name string
		x    any
		want string
	}{
		{"uint above the safe range", uint64(MaxSafeInteger + 1), "exceeds the safe integer range"},
		{"float", 1.5, "unsupported Go type float64"},
		{"map in a struct", withMap{M: map[string]int{}}, "unsupported Go type map[string]int"},
		{"in a slice", []any{"a", uint(MaxSafeInteger + 2)}, "exceeds the safe integer range"},
		{"in an array", [2]any{1, 2.5}, "unsupported Go type float64"},
	} {
		if v, err := FromGo(c.x); err == nil || v != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, %v, want an error containing %q", c.name, v, err, c.want)
		}
	}

	type ctl struct {
		S     string    `json:"s"`
		B     bool      `json:"b"`
		I     int32     `json:"i"`
		U     uint8     `json:"u"`
		P     *int      `json:"p"`
		L     []string  `json:"l"`
		A     [2]int    `json:"a"`
		V     *Value    `json:"v"`
		Vnil  *Value    `json:"vnil"`
		Any   any       `json:"any"`
		Empty string    `json:"empty,omitempty"`
		Items []*Value  `json:"items"`
		Inner *struct{} `json:"inner"`
	}
	v, err := FromGo(ctl{S: "s", B: true, I: -3, U: 7, V: NewBool(false), Any: "x", Items: []*Value{NewNull()}})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	got, err := Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"s":"s","b":true,"i":-3,"u":7,"p":null,"l":null,"a":[0,0],"v":false,"vnil":null,"any":"x","items":[null],"inner":null}`
	if string(got) != want {
		t.Errorf("control: %s\nwant      %s", got, want)
	}
	if v, err := FromGo(nil); err != nil || !v.Is(Null) {
		t.Errorf("FromGo(nil): %v, %v", v, err)
	}
}

// The encoders refuse what has no canonical form, with the CanonicalError
// code of each fault: an absent value, an integer outside ±(2^53−1), a
// lenient Number, a Kind no JSON value has, and invalid UTF-8 in a string
// or a member name; DigestParts zeroes its parts on error. The control
// encodes the same shape with honest values.
func TestEncodeRefuses(t *testing.T) {
	part := NewObject(Member{Key: "x", Value: NewInt(1)})
	for _, c := range []struct {
		name string
		v    *Value
		code string
	}{
		{"absent", nil, CodeUnsupportedCanonValue},
		{"integer too large", NewInt(MaxSafeInteger + 1), CodeNonCanonicalNumber},
		{"integer too small", NewInt(-MaxSafeInteger - 1), CodeNonCanonicalNumber},
		{"number", &Value{Kind: Number, Str: "1.5"}, CodeNonCanonicalNumber},
		{"kind 0", &Value{}, CodeUnsupportedCanonValue},
		{"invalid UTF-8 in a nested string", NewObject(Member{Key: "a", Value: NewArray(NewString("ok"), NewString("\xff"))}), CodeInvalidUnicode},
		{"invalid UTF-8 in a member name", NewObject(Member{Key: "\xfe", Value: NewNull()}), CodeInvalidUnicode},
		{"bad value after a part", NewObject(Member{Key: "p", Value: part}, Member{Key: "q", Value: NewInt(1 << 60)}), CodeNonCanonicalNumber},
	} {
		for enc, f := range map[string]func(*Value) ([]byte, error){"Canonical": Canonical, "Compact": Compact, "Pretty": Pretty} {
			out, err := f(c.v)
			var ce *CanonicalError
			if !errors.As(err, &ce) || ce.Code != c.code || out != nil || !strings.HasPrefix(err.Error(), c.code+": ") {
				t.Errorf("%s of %s: %q, %v, want %s", enc, c.name, out, err, c.code)
			}
		}
		parts := []Part{{Value: part, Sum: "stale", Len: 9}}
		if sum, n, err := DigestParts(c.v, parts); err == nil || sum != "" || n != 0 || parts[0].Sum != "" || parts[0].Len != 0 {
			t.Errorf("DigestParts of %s: %q %d %v, parts %+v", c.name, sum, n, err, parts)
		}
	}
	// A part that is not inside the value is digested on its own, and its
	// own fault is refused after the value's digest.
	bad := NewObject(Member{Key: "n", Value: &Value{Kind: Number, Str: "1e3"}})
	parts := []Part{{Value: part}, {Value: bad}}
	if _, _, err := DigestParts(NewObject(Member{Key: "p", Value: part}), parts); err == nil || parts[0].Sum != "" {
		t.Errorf("DigestParts with a faulty part outside the value: %v, parts %+v", err, parts)
	}
	parts = []Part{{Value: part}, {Value: NewArray(NewInt(2))}}
	if _, _, err := DigestParts(NewObject(Member{Key: "p", Value: part}), parts); err != nil || parts[0].Sum == "" || parts[1].Sum == "" {
		t.Errorf("control, DigestParts with an honest part outside the value: %v, parts %+v", err, parts)
	}
	ctl := NewObject(Member{Key: "a", Value: NewArray(NewString("ok"), NewString("é"))}, Member{Key: "n", Value: NewInt(MaxSafeInteger)})
	for enc, f := range map[string]func(*Value) ([]byte, error){"Canonical": Canonical, "Compact": Compact, "Pretty": Pretty} {
		if _, err := f(ctl); err != nil {
			t.Errorf("control, %s: %v", enc, err)
		}
	}
}

// readLimited (the careful path's reader, and every read off Linux)
// refuses a file that grew past MaxInputBytes after its stat, reading one
// byte past the limit and no more, and passes a read error on; the
// control reads a file larger than its stat said, growing the buffer.
func TestReadLimited(t *testing.T) {
	data, err := readLimited(nil, io.MultiReader(bytes.NewReader(make([]byte, MaxInputBytes)), strings.NewReader("0123456789")), 10)
	if err != nil || len(data) != MaxInputBytes+1 {
		t.Errorf("a file that grew past the limit: %d bytes, %v; want MaxInputBytes+1", len(data), err)
	}
	errRead := errors.New("read failed")
	if data, err := readLimited(nil, io.MultiReader(strings.NewReader("{"), errReader{errRead}), 1); !errors.Is(err, errRead) || data != nil {
		t.Errorf("a read error: %q, %v", data, err)
	}
	data, err = readLimited(make([]byte, 0, 4), strings.NewReader(`{"grew":true}`), 2)
	if err != nil || string(data) != `{"grew":true}` {
		t.Errorf("control, a file that grew: %q, %v", data, err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// ValidUTF8 replaces invalid sequences in strings and member names, so the
// result encodes where the input is refused; the input is unchanged.
func TestValidUTF8(t *testing.T) {
	v := NewObject(Member{Key: "k\xff", Value: NewArray(NewString("a\xfeb"), NewBool(true))})
	if _, err := Compact(v); err == nil {
		t.Fatal("control: invalid UTF-8 encodes")
	}
	fixed := ValidUTF8(v)
	got, err := Compact(fixed)
	if err != nil || string(got) != "{\"k\uFFFD\":[\"a\uFFFDb\",true]}" {
		t.Errorf("ValidUTF8: %s, %v", got, err)
	}
	if v.Members[0].Key != "k\xff" || v.Members[0].Value.Items[0].Str != "a\xfeb" {
		t.Error("ValidUTF8 changed its input")
	}
}

// Equal compares kinds and contents, ignoring object member order; Truthy
// is JavaScript's; Delete and Has see members; Kind names every kind.
func TestValueHelpers(t *testing.T) {
	a := NewObject(Member{Key: "x", Value: NewInt(1)}, Member{Key: "y", Value: NewArray(NewString("s"), NewNull(), NewBool(true))})
	b := NewObject(Member{Key: "y", Value: NewArray(NewString("s"), NewNull(), NewBool(true))}, Member{Key: "x", Value: NewInt(1)})
	if !Equal(a, b) || !Equal(nil, nil) || !Equal(&Value{Kind: Number, Str: "1.0"}, &Value{Kind: Number, Str: "1.0"}) {
		t.Error("Equal: equal values differ")
	}
	for _, c := range [][2]*Value{
		{a, nil}, {NewInt(1), NewString("1")}, {NewBool(true), NewBool(false)}, {NewInt(1), NewInt(2)},
		{NewArray(NewInt(1)), NewArray()}, {NewArray(NewInt(1)), NewArray(NewInt(2))},
		{a, NewObject(Member{Key: "x", Value: NewInt(1)})},
		{a, NewObject(Member{Key: "x", Value: NewInt(1)}, Member{Key: "z", Value: NewNull()})},
		{&Value{}, &Value{}},
	} {
		if Equal(c[0], c[1]) {
			t.Errorf("Equal(%v, %v): true", c[0], c[1])
		}
	}
	for v, want := range map[*Value]bool{
		nil: false, NewNull(): false, NewBool(false): false, NewInt(0): false, NewString(""): false,
		NewBool(true): true, NewInt(-1): true, NewString("0"): true, NewArray(): true, NewObject(): true,
	} {
		if v.Truthy() != want {
			t.Errorf("Truthy(%v) = %t", v, !want)
		}
	}
	c := a.Clone()
	c.Delete("x")
	c.Delete("absent")
	if c.Has("x") || !c.Has("y") || !a.Has("x") || (*Value)(nil).Has("x") || NewInt(1).Has("x") {
		t.Error("Delete/Has")
	}
	for k, s := range map[Kind]string{Null: "null", Bool: "boolean", Int: "integer", String: "string", Array: "array", Object: "object", Number: "number", 0: "Kind(0)"} {
		if k.String() != s {
			t.Errorf("Kind %d: %q", k, k.String())
		}
	}
	if TextDigest("") != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Error("TextDigest of the empty text")
	}
}
