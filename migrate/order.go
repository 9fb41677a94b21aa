package migrate

import (
	"slices"
	"strconv"

	"github.com/mcpres/mcpres/canonjson"
)

// maxArrayIndex is the largest integer-like key a JavaScript object lists
// first: an array index, 2^32 − 2.
const maxArrayIndex = 1<<32 - 2

// JSOrder returns v with the members of every object in the order a
// JavaScript object would list them after JSON.parse (REFERENCE §7.2,
// idempotency): keys that are canonical decimal integers (no sign, no
// leading zero) up to 4294967294 first, in ascending numeric order, then
// all other keys in their stored order. Upstream re-serializes a migration
// result it returns unchanged from such an object, so mcpres writes the
// same bytes. v is not modified; subtrees without integer-like keys are
// shared, not copied.
func JSOrder(v *canonjson.Value) *canonjson.Value {
	switch {
	case v.Is(canonjson.Array):
		var out *canonjson.Value
		for i, it := range v.Items {
			if o := JSOrder(it); o != it {
				if out == nil {
					out = &canonjson.Value{Kind: canonjson.Array, Items: slices.Clone(v.Items)}
				}
				out.Items[i] = o
			}
		}
		if out == nil {
			return v
		}
		return out
	case v.Is(canonjson.Object):
		var out *canonjson.Value
		for i, m := range v.Members {
			if o := JSOrder(m.Value); o != m.Value {
				if out == nil {
					out = &canonjson.Value{Kind: canonjson.Object, Members: slices.Clone(v.Members)}
				}
				out.Members[i].Value = o
			}
		}
		if !slices.ContainsFunc(v.Members, func(m canonjson.Member) bool { _, ok := arrayIndex(m.Key); return ok }) {
			if out == nil {
				return v
			}
			return out
		}
		if out == nil {
			out = &canonjson.Value{Kind: canonjson.Object, Members: slices.Clone(v.Members)}
		}
		slices.SortStableFunc(out.Members, func(a, b canonjson.Member) int {
			ia, okA := arrayIndex(a.Key)
			ib, okB := arrayIndex(b.Key)
			switch {
			case okA && okB:
				return compareInt(ia, ib)
			case okA:
				return -1
			case okB:
				return 1
			}
			return 0
		})
		return out
	}
	return v
}

func compareInt(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// arrayIndex reports whether key is an integer-like property key of
// JavaScript (a canonical array index) and its value.
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil || n > maxArrayIndex {
		return 0, false
	}
	return n, true
}
