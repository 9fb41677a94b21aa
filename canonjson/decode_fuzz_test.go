package canonjson

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// decodeByWalk is Unmarshal as it was before decoders were made once per
// type (a switch on the kind of each value, at each value): the reference
// FuzzUnmarshal holds the decodeFuncs to.
func decodeByWalk(v *Value, dst any) error {
	err := walkDecode(v, reflect.ValueOf(dst).Elem())
	if de, ok := err.(*decodeError); ok {
		return errors.New(de.message())
	}
	return err
}

func walkDecode(v *Value, rv reflect.Value) error {
	if rv.Kind() == reflect.Pointer {
		if rv.Type() == valuePtrType {
			rv.Set(reflect.ValueOf(v))
			return nil
		}
		if v == nil || v.Kind == Null {
			rv.SetZero()
			return nil
		}
		p := reflect.New(rv.Type().Elem())
		if err := walkDecode(v, p.Elem()); err != nil {
			return err
		}
		rv.Set(p)
		return nil
	}
	if v == nil {
		return nil
	}
	mismatch := func() error {
		return failf("got %s, want %s", v.Kind, rv.Kind())
	}
	switch rv.Kind() {
	case reflect.String:
		if v.Kind != String {
			return mismatch()
		}
		rv.SetString(v.Str)
	case reflect.Bool:
		if v.Kind != Bool {
			return mismatch()
		}
		rv.SetBool(v.Bool)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Kind != Int {
			return mismatch()
		}
		if rv.OverflowInt(v.Int) {
			return failf("%d overflows %s", v.Int, rv.Type())
		}
		rv.SetInt(v.Int)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.Kind != Int || v.Int < 0 || rv.OverflowUint(uint64(v.Int)) {
			return mismatch()
		}
		rv.SetUint(uint64(v.Int))
	case reflect.Slice:
		if v.Kind != Array {
			return mismatch()
		}
		n := len(v.Items)
		if n == 0 {
			rv.Set(reflect.MakeSlice(rv.Type(), 0, 0)) // empty, not nil
			break
		}
		// A new array of exactly n items, made in place: reflect.MakeSlice
		// would also allocate the slice header it returns.
		rv.SetZero()
		rv.Grow(n)
		rv.SetLen(n)
		rv.SetCap(n)
		for i, it := range v.Items {
			if err := walkDecode(it, rv.Index(i)); err != nil {
				return at(err, pathStep{index: i})
			}
		}
	case reflect.Struct:
		if v.Kind != Object {
			return mismatch()
		}
		info := cachedStructInfo(rv.Type())
		next := 0
		for _, m := range v.Members {
			i, ok := info.member(m.Key, next)
			if !ok {
				return failf("unknown member %q", m.Key)
			}
			next = i + 1
			if err := walkDecode(m.Value, rv.Field(info.index[i])); err != nil {
				return at(err, pathStep{key: m.Key, index: -1})
			}
		}
	default:
		return failf("unsupported Go type %s", rv.Type())
	}
	return nil
}

// fuzzTarget has a field of every kind Unmarshal decodes, nested, in a
// slice, behind pointers, and of a recursive type.
type fuzzTarget struct {
	S    string         `json:"s"`
	B    bool           `json:"b"`
	I8   int8           `json:"i8"`
	I    int64          `json:"i"`
	U8   uint8          `json:"u8"`
	U    uint           `json:"u"`
	PS   *string        `json:"ps"`
	PB   *bool          `json:"pb"`
	SS   []string       `json:"ss"`
	SI   []int64        `json:"si"`
	V    *Value         `json:"v"`
	In   fuzzInner      `json:"in"`
	PIn  *fuzzInner     `json:"pin"`
	SIn  []fuzzInner    `json:"sin"`
	Tree *fuzzTarget    `json:"tree"`
	F    float64        `json:"f"`
	M    map[string]int `json:"m"`
}

type fuzzInner struct {
	A  string   `json:"a"`
	N  int32    `json:"n"`
	PP **string `json:"pp"`
}

// FuzzUnmarshal: for any JSON the reader accepts (strictly or leniently),
// Unmarshal into a struct with every kind of field sets it exactly as the
// reference walk does, or fails with the same message.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"s":"x","b":true,"i8":-128,"i":9007199254740991,"u8":255,"u":7,"ps":"p","pb":false,"ss":["a"],"si":[1,2],"v":{"k":[1]}}`,
		`{"in":{"a":"x","n":2147483647,"pp":"q"},"pin":null,"sin":[{"a":"y"},{}],"tree":{"s":"t","tree":{"i":1}}}`,
		`{"i8":128}`, `{"u8":-1}`, `{"u":1.5}`, `{"ps":1}`, `{"sin":[{"a":1}]}`, `{"tree":{"x":1}}`, `{"f":1}`,
		`{"m":{}}`, `{"ss":null}`, `{"ss":[]}`, `{"pin":{"pp":null}}`, `[]`, `null`, `"s"`, `{"in":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			if v, err = ParseLenient(data); err != nil {
				return
			}
		}
		var got, want fuzzTarget
		gotErr, wantErr := Unmarshal(v, &got), decodeByWalk(v, &want)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("Unmarshal: %v; the walk: %v\n%q", gotErr, wantErr, data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Unmarshal set %+v; the walk %+v\n%q", got, want, data)
		}
	})
}
