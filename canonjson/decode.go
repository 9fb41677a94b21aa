package canonjson

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Unmarshal stores v into the Go value pointed to by dst, using `json` struct
// tags. It is strict: a member without a matching field, or a value of the
// wrong JSON kind, is an error naming the JSON pointer of the offending value.
// Pointer fields are nil for absent members and for null; a field of type
// *Value receives the value itself. Missing members leave fields at their
// zero value: run the schema check first when presence matters.
func Unmarshal(v *Value, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("canonjson: Unmarshal needs a non-nil pointer, got %T", dst)
	}
	if err := decoderFor(rv.Elem().Type())(v, rv.Elem()); err != nil {
		if de, ok := err.(*decodeError); ok {
			return errors.New(de.message())
		}
		return err
	}
	return nil
}

// structInfoCache maps a struct type to its *structInfo. It is a cache of
// a pure function of the type (as encoding/json keeps one), filled on first
// use and never changed after: decoding and building every document of a
// batch re-derived the same tables from the struct tags.
var structInfoCache sync.Map // reflect.Type → *structInfo

// A structInfo is what Unmarshal and FromGo read from a struct type's
// fields and tags.
type structInfo struct {
	fields []fieldInfo // FromGo's members, in field order
	// Unmarshal's member names, unique, in field order; index[i] is the
	// field that names[i] decodes into (of fields with the same name, the
	// last), byName the position of a name in names.
	names  []string
	index  []int
	byName map[string]int
}

func cachedStructInfo(t reflect.Type) *structInfo {
	if f, ok := structInfoCache.Load(t); ok {
		return f.(*structInfo)
	}
	f, _ := structInfoCache.LoadOrStore(t, newStructInfo(t))
	return f.(*structInfo)
}

func newStructInfo(t reflect.Type) *structInfo {
	s := &structInfo{fields: fieldList(t), byName: make(map[string]int, t.NumField())}
	for _, f := range s.fields {
		if i, ok := s.byName[f.name]; ok {
			s.index[i] = f.index
			continue
		}
		s.byName[f.name] = len(s.names)
		s.names = append(s.names, f.name)
		s.index = append(s.index, f.index)
	}
	return s
}

// member returns the position in names of key, a member of an object
// being decoded whose previous member was at position next-1: documents
// list their members in field order, so the name at next is tried first.
func (s *structInfo) member(key string, next int) (int, bool) {
	if next < len(s.names) && s.names[next] == key {
		return next, true
	}
	i, ok := s.byName[key]
	return i, ok
}

// A decodeFunc decodes v into rv, a value of the type it was made for.
// It tracks no path: a failure is a *decodeError that each level it
// returns through adds its step to, so a document that decodes pays
// nothing for the JSON pointer only a failure names.
type decodeFunc func(v *Value, rv reflect.Value) error

// decoderCache maps a type to its decodeFunc: what Unmarshal does for a
// type is decided once per process, not at every value (a bundle is
// hundreds of values of a few dozen types), as encoding/json does.
var decoderCache sync.Map // reflect.Type → decodeFunc

// decoderFor returns the decodeFunc of t. A recursive type meets itself
// while its decoder is being made: it gets one that waits for the real
// one (encoding/json's way).
func decoderFor(t reflect.Type) decodeFunc {
	if f, ok := decoderCache.Load(t); ok {
		return f.(decodeFunc)
	}
	var (
		wg sync.WaitGroup
		f  decodeFunc
	)
	wg.Add(1)
	fi, loaded := decoderCache.LoadOrStore(t, decodeFunc(func(v *Value, rv reflect.Value) error {
		wg.Wait()
		return f(v, rv)
	}))
	if loaded {
		return fi.(decodeFunc)
	}
	f = newDecoder(t)
	wg.Done()
	decoderCache.Store(t, f)
	return f
}

// mismatch is the failure of a value of the wrong JSON kind for rv.
func mismatch(v *Value, rv reflect.Value) error {
	return failf("got %s, want %s", v.Kind, rv.Kind())
}

// newDecoder makes the decodeFunc of t: pointer fields are nil for an
// absent member and for null, a *Value field receives the value itself,
// an absent member leaves any other field as it is, and a value of the
// wrong JSON kind, an integer out of range or an unknown member is a
// failure.
func newDecoder(t reflect.Type) decodeFunc {
	if t == valuePtrType {
		return func(v *Value, rv reflect.Value) error {
			rv.Set(reflect.ValueOf(v))
			return nil
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := decoderFor(t.Elem())
		return func(v *Value, rv reflect.Value) error {
			if v == nil || v.Kind == Null {
				rv.SetZero()
				return nil
			}
			p := reflect.New(t.Elem())
			if err := elem(v, p.Elem()); err != nil {
				return err
			}
			rv.Set(p)
			return nil
		}
	case reflect.String:
		return func(v *Value, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			if v.Kind != String {
				return mismatch(v, rv)
			}
			rv.SetString(v.Str)
			return nil
		}
	case reflect.Bool:
		return func(v *Value, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			if v.Kind != Bool {
				return mismatch(v, rv)
			}
			rv.SetBool(v.Bool)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v *Value, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			if v.Kind != Int {
				return mismatch(v, rv)
			}
			if rv.OverflowInt(v.Int) {
				return failf("%d overflows %s", v.Int, rv.Type())
			}
			rv.SetInt(v.Int)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v *Value, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			if v.Kind != Int || v.Int < 0 || rv.OverflowUint(uint64(v.Int)) {
				return mismatch(v, rv)
			}
			rv.SetUint(uint64(v.Int))
			return nil
		}
	case reflect.Slice:
		elem := decoderFor(t.Elem())
		return func(v *Value, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			if v.Kind != Array {
				return mismatch(v, rv)
			}
			n := len(v.Items)
			if n == 0 {
				rv.Set(reflect.MakeSlice(t, 0, 0)) // empty, not nil
				return nil
			}
			// A new array of exactly n items, made in place: reflect.MakeSlice
			// would also allocate the slice header it returns.
			rv.SetZero()
			rv.Grow(n)
			rv.SetLen(n)
			rv.SetCap(n)
			for i, it := range v.Items {
				if err := elem(it, rv.Index(i)); err != nil {
					return at(err, pathStep{index: i})
				}
			}
			return nil
		}
	case reflect.Struct:
		info := cachedStructInfo(t)
		fields := make([]decodeFunc, len(info.names))
		for i, f := range info.index {
			fields[i] = decoderFor(t.Field(f).Type)
		}
		return func(v *Value, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			if v.Kind != Object {
				return mismatch(v, rv)
			}
			next := 0
			for _, m := range v.Members {
				i, ok := info.member(m.Key, next)
				if !ok {
					return failf("unknown member %q", m.Key)
				}
				next = i + 1
				if err := fields[i](m.Value, rv.Field(info.index[i])); err != nil {
					return at(err, pathStep{key: m.Key, index: -1})
				}
			}
			return nil
		}
	}
	return func(v *Value, rv reflect.Value) error {
		if v == nil {
			return nil
		}
		return failf("unsupported Go type %s", rv.Type())
	}
}

// A pathStep is a member name, or an array index when index ≥ 0.
type pathStep struct {
	key   string
	index int
}

// A decodeError is a failure at the JSON pointer of its steps, innermost
// first; Unmarshal renders it as "canonjson: POINTER: DETAIL".
type decodeError struct {
	steps  []pathStep
	detail string
}

func (e *decodeError) Error() string { return e.message() }

func (e *decodeError) message() string {
	return "canonjson: " + e.pointer() + ": " + e.detail
}

func (e *decodeError) pointer() string {
	if len(e.steps) == 0 {
		return "(root)"
	}
	var b []byte
	for i := len(e.steps) - 1; i >= 0; i-- {
		s := e.steps[i]
		b = append(b, '/')
		if s.index < 0 {
			b = append(b, EscapePointer(s.key)...)
		} else {
			b = strconv.AppendInt(b, int64(s.index), 10)
		}
	}
	return string(b)
}

// failf is a failure at the value being decoded.
func failf(format string, args ...any) error {
	return &decodeError{detail: fmt.Sprintf(format, args...)}
}

// at adds step to err, a failure inside the value at step.
func at(err error, step pathStep) error {
	if de, ok := err.(*decodeError); ok {
		de.steps = append(de.steps, step)
	}
	return err
}

var valuePtrType = reflect.TypeFor[*Value]()

// EscapePointer escapes one RFC 6901 JSON Pointer reference token.
func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

type fieldInfo struct {
	name      string
	index     int
	omitempty bool
}

func fieldList(t reflect.Type) []fieldInfo {
	var out []fieldInfo
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, fieldInfo{name: name, index: i, omitempty: opts == "omitempty"})
	}
	return out
}

// FromGo converts a Go value built from strings, booleans, integers,
// slices, pointers, *Value and structs with `json` tags into a Value.
// Struct members keep field order; nil pointers and nil slices become null
// (or are omitted with `,omitempty`).
func FromGo(x any) (*Value, error) {
	return encodeGo(reflect.ValueOf(x))
}

func encodeGo(rv reflect.Value) (*Value, error) {
	if !rv.IsValid() {
		return NewNull(), nil
	}
	if rv.Type() == valuePtrType {
		if rv.IsNil() {
			return NewNull(), nil
		}
		return rv.Interface().(*Value), nil
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return NewNull(), nil
		}
		return encodeGo(rv.Elem())
	case reflect.String:
		return NewString(rv.String()), nil
	case reflect.Bool:
		return NewBool(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return NewInt(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := rv.Uint()
		if u > MaxSafeInteger {
			return nil, fmt.Errorf("canonjson: %d exceeds the safe integer range", u)
		}
		return NewInt(int64(u)), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return NewNull(), nil
		}
		items := make([]*Value, rv.Len())
		for i := range items {
			it, err := encodeGo(rv.Index(i))
			if err != nil {
				return nil, err
			}
			items[i] = it
		}
		return NewArray(items...), nil
	case reflect.Struct:
		fields := cachedStructInfo(rv.Type()).fields
		members := make([]Member, 0, len(fields))
		for _, f := range fields {
			fv := rv.Field(f.index)
			if f.omitempty && fv.IsZero() {
				continue
			}
			val, err := encodeGo(fv)
			if err != nil {
				return nil, err
			}
			members = append(members, Member{Key: f.name, Value: val})
		}
		return NewObject(members...), nil
	}
	return nil, fmt.Errorf("canonjson: unsupported Go type %s", rv.Type())
}
