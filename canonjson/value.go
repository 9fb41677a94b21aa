package canonjson

import "strconv"

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds of JSON value. Number exists only in values produced by
// ParseLenient (a token with a fraction or exponent, or an integer beyond
// ±(2^53−1)); the strict reader never produces it and the canonical encoder
// rejects it.
const (
	Null Kind = iota + 1
	Bool
	Int
	String
	Array
	Object
	Number
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Int:
		return "integer"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	case Number:
		return "number"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Value is a parsed JSON value. Objects keep their members in input order
// (some outputs re-serialize input in its original order); canonical
// encoding sorts them.
//
// A nil *Value means "absent". Methods on Value are nil-safe readers.
//
// The reader shares one Value among equal scalars of a document (nulls,
// booleans, integers, strings of up to 128 bytes): in a large bundle four
// values in five repeat an earlier one, and sharing halves the tree. A
// parsed tree's objects and arrays are its own, so Set and changing Items
// or Members are safe; a parsed scalar is read-only. To change one, replace
// it (Set, or assign to Items[i]), or Clone the tree first: Clone never
// shares.
type Value struct {
	Kind    Kind
	Bool    bool     // Kind == Bool
	Int     int64    // Kind == Int; |Int| ≤ MaxSafeInteger
	Str     string   // Kind == String; Kind == Number: the raw token
	Items   []*Value // Kind == Array
	Members []Member // Kind == Object, in input order, keys unique
}

// A Member is one key/value pair of an object.
type Member struct {
	Key   string
	Value *Value
}

// MaxSafeInteger is 2^53−1, the largest integer magnitude MCP-RES accepts.
const MaxSafeInteger = 1<<53 - 1

// NewNull returns a JSON null.
func NewNull() *Value { return &Value{Kind: Null} }

// NewBool returns a JSON boolean.
func NewBool(b bool) *Value { return &Value{Kind: Bool, Bool: b} }

// NewInt returns a JSON integer. The caller keeps |n| ≤ MaxSafeInteger;
// the canonical encoder rejects anything larger.
func NewInt(n int64) *Value { return &Value{Kind: Int, Int: n} }

// NewString returns a JSON string.
func NewString(s string) *Value { return &Value{Kind: String, Str: s} }

// NewArray returns a JSON array holding items.
func NewArray(items ...*Value) *Value {
	if items == nil {
		items = []*Value{}
	}
	return &Value{Kind: Array, Items: items}
}

// NewObject returns a JSON object holding members in the given order.
// Keys must be unique.
func NewObject(members ...Member) *Value {
	if members == nil {
		members = []Member{}
	}
	return &Value{Kind: Object, Members: members}
}

// Is reports whether v is present and of kind k.
func (v *Value) Is(k Kind) bool { return v != nil && v.Kind == k }

// Get returns the member named key, or nil when v is absent, not an object,
// or has no such member.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Path follows keys from v through nested objects; nil if any step is absent.
func (v *Value) Path(keys ...string) *Value {
	for _, k := range keys {
		v = v.Get(k)
	}
	return v
}

// Has reports whether v is an object with a member named key.
func (v *Value) Has(key string) bool {
	if v == nil || v.Kind != Object {
		return false
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return true
		}
	}
	return false
}

// Set replaces the value of member key, or appends the member when absent.
// v must be an object.
func (v *Value) Set(key string, val *Value) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Value = val
			return
		}
	}
	v.Members = append(v.Members, Member{Key: key, Value: val})
}

// Delete removes member key from object v, if present.
func (v *Value) Delete(key string) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members = append(v.Members[:i:i], v.Members[i+1:]...)
			return
		}
	}
}

// Without returns a shallow copy of object v lacking member key. v itself is
// not modified. It is how "the observation with observationSha256 omitted"
// is digested.
func (v *Value) Without(key string) *Value {
	out := &Value{Kind: Object, Members: make([]Member, 0, len(v.Members))}
	for _, m := range v.Members {
		if m.Key != key {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

// Clone returns a deep copy of v.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := *v
	if v.Items != nil {
		c.Items = make([]*Value, len(v.Items))
		for i, it := range v.Items {
			c.Items[i] = it.Clone()
		}
	}
	if v.Members != nil {
		c.Members = make([]Member, len(v.Members))
		for i, m := range v.Members {
			c.Members[i] = Member{Key: m.Key, Value: m.Value.Clone()}
		}
	}
	return &c
}

// Truthy reports JavaScript truthiness: absent, null, false, 0 and "" are
// falsy; everything else, including {} and [], is truthy.
func (v *Value) Truthy() bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case Null:
		return false
	case Bool:
		return v.Bool
	case Int:
		return v.Int != 0
	case String:
		return v.Str != ""
	}
	return true
}

// Equal reports JSON-value equality: both absent, or both present with the
// same kind and deeply equal contents (object member order ignored).
func Equal(a, b *Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case Int:
		return a.Int == b.Int
	case String, Number:
		return a.Str == b.Str
	case Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	case Object:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for _, m := range a.Members {
			if !b.Has(m.Key) || !Equal(m.Value, b.Get(m.Key)) {
				return false
			}
		}
		return true
	}
	return false
}
