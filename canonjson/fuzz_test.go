package canonjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
)

// FuzzParse checks that the strict reader never panics, returns no value
// with an error, and that canonical encoding is a fixed point:
// canonical(parse(canonical(parse(x)))) == canonical(parse(x)). Compact and
// Pretty output must read back to an equal value, and DigestParts agrees
// with Digest on every nested object and array.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"":2,"\ud83d\ude00":1}`,
		`{"\ue000":1,"\ud83d\ude00":2,"z":3,"Z":4,"\u00e9":5}`,
		`{"s":"\u0000\u001f\"\\/\b\f\n\r\t\u007f\u2028\u2029\u00e9"}`,
		`{"b":[3,{"y":null,"x":true}],"a":-0,"c":-9007199254740991}`,
		`{"n":9007199254740992}`, `{"value":"\ud800"}`, `[1.0]`, `{"a":1,"a":2}`,
		"\xEF\xBB\xBF{}", `[[[[[]]]]]`, `"😀"`,
		`[null,null,true,false,true,0,-0,3,259,3,"a","k121","a","\u0061",{"a":"a"},[3]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			if v != nil {
				t.Fatal("value returned with an error")
			}
			return
		}
		// An independent reading of what the reader accepted: the same
		// values (shared scalars included) as encoding/json's.
		if err := sameAsStd(v, data); err != nil {
			t.Fatalf("the reader and encoding/json disagree: %v\n%q", err, data)
		}
		c1, err := Canonical(v)
		if err != nil {
			t.Fatalf("parsed value has no canonical form: %v", err)
		}
		v2, err := Parse(c1)
		if err != nil {
			t.Fatalf("canonical bytes do not parse: %v\n%q", err, c1)
		}
		c2, err := Canonical(v2)
		if err != nil || !bytes.Equal(c1, c2) {
			t.Fatalf("canonical form is not a fixed point:\n%q\n%q", c1, c2)
		}
		if !Equal(v, v2) {
			t.Fatal("canonical bytes read back to a different value")
		}
		// Digests of nested values from one pass equal their own digests.
		parts := partsOf(v)
		if len(parts) > 64 {
			parts = parts[:64]
		}
		checkParts(t, v, parts)
		for _, enc := range []func(*Value) ([]byte, error){Compact, Pretty} {
			out, err := enc(v)
			if err != nil {
				t.Fatal(err)
			}
			v3, err := Parse(out)
			if err != nil || !Equal(v, v3) {
				t.Fatalf("output does not read back: %v\n%q", err, out)
			}
		}
	})
}

// FuzzParseLenient checks the signed-payload parser: it never panics, and
// whatever it accepts either has no canonical form (a kept lone surrogate
// or a non-integer number) or canonicalizes to bytes the strict reader
// accepts and reads back to an equal value.
func FuzzParseLenient(f *testing.F) {
	for _, s := range []string{
		`{"x":1,"x":9007199254740993}`, `{"x":9007199254740993,"x":1}`, `{"x":1.5,"x":1}`,
		`{"x":"\ud800","x":1}`, `{"x":"\ud800"}`, `[1e2,-0,1.0]`, `{ "a" : [ 1 , 2 ] }`, "\xEF\xBB\xBF{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseLenient(data)
		if err != nil {
			if v != nil {
				t.Fatal("value returned with an error")
			}
			return
		}
		c, err := Canonical(v)
		if err != nil {
			if !IsCanonicalError(err) {
				t.Fatalf("Canonical failed with a non-canonical error: %v", err)
			}
			return
		}
		v2, err := Parse(c)
		if err != nil {
			t.Fatalf("canonical bytes of a lenient parse are rejected by the strict reader: %v\n%q", err, c)
		}
		if !Equal(v, v2) {
			t.Fatal("canonical bytes read back to a different value")
		}
	})
}

// sameAsStd compares v with encoding/json's reading of data, which the
// strict reader accepted (so no duplicate keys, floats or invalid text).
func sameAsStd(v *Value, data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return fmt.Errorf("encoding/json: %v", err)
	}
	return sameValue(v, x, "")
}

func sameValue(v *Value, x any, at string) error {
	switch x := x.(type) {
	case nil:
		if v.Kind == Null {
			return nil
		}
	case bool:
		if v.Kind == Bool && v.Bool == x {
			return nil
		}
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil && v.Kind == Int && v.Int == n {
			return nil
		}
	case string:
		if v.Kind == String && v.Str == x {
			return nil
		}
	case []any:
		if v.Kind == Array && len(v.Items) == len(x) {
			for i := range x {
				if err := sameValue(v.Items[i], x[i], at+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			return nil
		}
	case map[string]any:
		if v.Kind == Object && len(v.Members) == len(x) {
			for _, m := range v.Members {
				y, ok := x[m.Key]
				if !ok {
					return fmt.Errorf("%s: member %q only in ours", at, m.Key)
				}
				if err := sameValue(m.Value, y, at+"/"+m.Key); err != nil {
					return err
				}
			}
			return nil
		}
	}
	c, _ := Compact(v)
	return fmt.Errorf("at %q: ours %s, encoding/json %#v", at, c, x)
}
