package canonjson

import (
	"fmt"
	"reflect"
	"strings"
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
	d := decoder{fields: map[reflect.Type]map[string]int{}}
	return d.decode(v, rv.Elem(), "")
}

// decoder caches struct field tables for one Unmarshal call (no global
// state): large documents hold many values of the same struct type.
type decoder struct {
	fields map[reflect.Type]map[string]int
}

func (d *decoder) structFields(t reflect.Type) map[string]int {
	f, ok := d.fields[t]
	if !ok {
		f = structFields(t)
		d.fields[t] = f
	}
	return f
}

var valuePtrType = reflect.TypeFor[*Value]()

func (d *decoder) decode(v *Value, rv reflect.Value, path string) error {
	if rv.Type() == valuePtrType {
		rv.Set(reflect.ValueOf(v))
		return nil
	}
	if rv.Kind() == reflect.Pointer {
		if v == nil || v.Kind == Null {
			rv.SetZero()
			return nil
		}
		p := reflect.New(rv.Type().Elem())
		if err := d.decode(v, p.Elem(), path); err != nil {
			return err
		}
		rv.Set(p)
		return nil
	}
	if v == nil {
		return nil
	}
	mismatch := func() error {
		return fmt.Errorf("canonjson: %s: got %s, want %s", pointerOrRoot(path), v.Kind, rv.Kind())
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
			return fmt.Errorf("canonjson: %s: %d overflows %s", pointerOrRoot(path), v.Int, rv.Type())
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
		s := reflect.MakeSlice(rv.Type(), len(v.Items), len(v.Items))
		for i, it := range v.Items {
			if err := d.decode(it, s.Index(i), fmt.Sprintf("%s/%d", path, i)); err != nil {
				return err
			}
		}
		rv.Set(s)
	case reflect.Struct:
		if v.Kind != Object {
			return mismatch()
		}
		fields := d.structFields(rv.Type())
		for _, m := range v.Members {
			idx, ok := fields[m.Key]
			if !ok {
				return fmt.Errorf("canonjson: %s: unknown member %q", pointerOrRoot(path), m.Key)
			}
			if err := d.decode(m.Value, rv.Field(idx), path+"/"+EscapePointer(m.Key)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("canonjson: %s: unsupported Go type %s", pointerOrRoot(path), rv.Type())
	}
	return nil
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

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

func structFields(t reflect.Type) map[string]int {
	m := make(map[string]int, t.NumField())
	for _, f := range fieldList(t) {
		m[f.name] = f.index
	}
	return m
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
		fields := fieldList(rv.Type())
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
