package schema

import (
	"errors"
	"hash/maphash"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
)

// Keyword ranks: the order of errors at one instance location.
const (
	kwType = iota
	kwConst
	kwEnum
	kwRequired
	kwAdditionalProperties
	kwMinItems
	kwMaxItems
	kwUniqueItems
	kwMinLength
	kwMaxLength
	kwPattern
	kwFormat
	kwMinimum
	kwMaximum
	kwOneOf
)

func keywordName(rank int) string {
	switch rank {
	case kwType:
		return "type"
	case kwConst:
		return "const"
	case kwEnum:
		return "enum"
	case kwRequired:
		return "required"
	case kwAdditionalProperties:
		return "additionalProperties"
	case kwMinItems:
		return "minItems"
	case kwMaxItems:
		return "maxItems"
	case kwUniqueItems:
		return "uniqueItems"
	case kwMinLength:
		return "minLength"
	case kwMaxLength:
		return "maxLength"
	case kwPattern:
		return "pattern"
	case kwFormat:
		return "format"
	case kwMinimum:
		return "minimum"
	case kwMaximum:
		return "maximum"
	case kwOneOf:
		return "oneOf"
	}
	panic("schema: bad keyword rank " + strconv.Itoa(rank))
}

// A segment is one step of the instance path: a member key (with the
// member's input position) or an array index.
type segment struct {
	key   string
	pos   int
	isKey bool
}

// A located error carries what sorting needs: the document position of its
// instance (positions of each path step) and its keyword rank.
type located struct {
	pos  []int
	rank int
	err  Error
}

// evaluator walks one instance. In collect mode it records every error;
// otherwise it stops at the first one (used by Valid and inside oneOf).
// Nothing is allocated on the valid path except what large uniqueItems
// arrays need.
type evaluator struct {
	collect bool
	seed    maphash.Seed
	path    []segment // only when collecting
	errs    []located
	// max, when ≥ 1, is the most errors recorded: at the max-th, collect
	// mode ends and evaluation returns at the next failure.
	max int
}

func (e *evaluator) push(s segment) { e.path = append(e.path, s) }
func (e *evaluator) pop()           { e.path = e.path[:len(e.path)-1] }

// add records an error at the current path. Callers check e.collect first
// so that no message is built when it would be discarded.
func (e *evaluator) add(rank int, msg string) {
	pos := make([]int, len(e.path))
	for i, s := range e.path {
		pos[i] = s.pos
	}
	e.errs = append(e.errs, located{
		pos:  pos,
		rank: rank,
		err:  Error{InstancePath: e.pointer(), Keyword: keywordName(rank), Message: msg},
	})
	if e.max > 0 && len(e.errs) >= e.max {
		e.collect = false
	}
}

// pointer renders the current path as an RFC 6901 JSON Pointer.
func (e *evaluator) pointer() string {
	var b strings.Builder
	for _, s := range e.path {
		b.WriteByte('/')
		if !s.isKey {
			b.WriteString(strconv.Itoa(s.pos))
			continue
		}
		b.WriteString(escapeToken(s.key))
	}
	return b.String()
}

// sorted returns the errors in document order, then keyword order, keeping
// evaluation order among equals.
func (e *evaluator) sorted() []Error {
	slices.SortStableFunc(e.errs, func(a, b located) int {
		if c := slices.Compare(a.pos, b.pos); c != 0 {
			return c
		}
		return a.rank - b.rank
	})
	out := make([]Error, len(e.errs))
	for i, l := range e.errs {
		out[i] = l.err
	}
	return out
}

// eval checks v against n and reports whether it is valid.
func (e *evaluator) eval(n *node, v *canonjson.Value) bool {
	ok := true
	if n.ref != nil && !e.eval(n.ref, v) {
		if !e.collect {
			return false
		}
		ok = false
	}
	mask := kindMask(v)
	if n.types != 0 && n.types&mask == 0 {
		if !e.collect {
			return false
		}
		e.add(kwType, "must be "+n.typeNames+", got "+describeKind(v))
		ok = false
	}
	if !e.constEnum(n, v) {
		if !e.collect {
			return false
		}
		ok = false
	}
	if !e.kindKeywords(n, v, mask) {
		if !e.collect {
			return false
		}
		ok = false
	}
	if len(n.oneOf) > 0 && !e.oneOf(n, v) {
		ok = false
	}
	return ok
}

// kindKeywords applies the keywords that only concern v's kind.
func (e *evaluator) kindKeywords(n *node, v *canonjson.Value, mask typeMask) bool {
	switch {
	case mask == tObject && n.objectKw:
		return e.object(n, v)
	case mask == tArray && n.arrayKw:
		return e.array(n, v)
	case mask == tString && n.stringKw:
		return e.str(n, v.Str)
	case (mask == tInteger || mask == tNumberOnly) && n.numberKw:
		return e.number(n, v)
	}
	return true
}

func (e *evaluator) constEnum(n *node, v *canonjson.Value) bool {
	ok := true
	if n.hasConst && !canonjson.Equal(n.constVal, v) {
		if !e.collect {
			return false
		}
		e.add(kwConst, "must be equal to the constant "+compact(n.constVal))
		ok = false
	}
	if n.enum != nil && !inEnum(n.enum, v) {
		if !e.collect {
			return false
		}
		e.add(kwEnum, "must be one of the allowed values: "+compactList(n.enum))
		ok = false
	}
	return ok
}

func inEnum(enum []*canonjson.Value, v *canonjson.Value) bool {
	if v.Is(canonjson.String) {
		// Fast path for the common string enum.
		for _, x := range enum {
			if x.Kind == canonjson.String && x.Str == v.Str {
				return true
			}
		}
		return false
	}
	for _, x := range enum {
		if canonjson.Equal(x, v) {
			return true
		}
	}
	return false
}

func (e *evaluator) object(n *node, v *canonjson.Value) bool {
	ok := true
	var seen uint64
	hint := 0
	for i := range v.Members {
		m := &v.Members[i]
		idx := n.lookup(m.Key, hint)
		if idx < 0 {
			if n.closed {
				if !e.collect {
					return false
				}
				e.add(kwAdditionalProperties, "must not have additional property "+strconv.Quote(m.Key))
				ok = false
			}
			continue
		}
		hint = idx + 1
		if idx < 64 {
			seen |= 1 << idx
		}
		// The path only names where an error is; without collecting,
		// none is recorded.
		tracked := e.collect
		if tracked {
			e.push(segment{key: m.Key, pos: i, isKey: true})
		}
		valid := e.eval(n.props[idx].node, m.Value)
		if tracked {
			e.pop()
		}
		if !valid {
			if !e.collect {
				return false
			}
			ok = false
		}
	}
	for _, r := range n.required {
		if r.idx >= 0 && seen&(1<<r.idx) != 0 || r.idx < 0 && v.Has(r.name) {
			continue
		}
		if !e.collect {
			return false
		}
		e.add(kwRequired, "must have required property "+strconv.Quote(r.name))
		ok = false
	}
	return ok
}

func (e *evaluator) array(n *node, v *canonjson.Value) bool {
	ok := true
	count := len(v.Items)
	if n.minItems >= 0 && count < n.minItems {
		if !e.collect {
			return false
		}
		e.add(kwMinItems, "must have at least "+strconv.Itoa(n.minItems)+" items, has "+strconv.Itoa(count))
		ok = false
	}
	if n.maxItems >= 0 && count > n.maxItems {
		if !e.collect {
			return false
		}
		e.add(kwMaxItems, "must have at most "+strconv.Itoa(n.maxItems)+" items, has "+strconv.Itoa(count))
		ok = false
	}
	if n.uniqueItems {
		if i, j, dup := duplicate(e.seed, v.Items); dup {
			if !e.collect {
				return false
			}
			e.add(kwUniqueItems, "must not have duplicate items (items "+strconv.Itoa(i)+" and "+strconv.Itoa(j)+" are equal)")
			ok = false
		}
	}
	if n.items != nil {
		for i, it := range v.Items {
			tracked := e.collect
			if tracked {
				e.push(segment{pos: i})
			}
			valid := e.eval(n.items, it)
			if tracked {
				e.pop()
			}
			if !valid {
				if !e.collect {
					return false
				}
				ok = false
			}
		}
	}
	return ok
}

func (e *evaluator) str(n *node, s string) bool {
	ok := true
	if n.minLength >= 0 && len(s) < 4*n.minLength || n.maxLength >= 0 && len(s) > n.maxLength {
		// Only now is the code-point count needed: a string of b bytes
		// has between b/4 and b code points.
		cp := utf8.RuneCountInString(s)
		if n.minLength >= 0 && cp < n.minLength {
			if !e.collect {
				return false
			}
			e.add(kwMinLength, "must have at least "+strconv.Itoa(n.minLength)+" characters, has "+strconv.Itoa(cp))
			ok = false
		}
		if n.maxLength >= 0 && cp > n.maxLength {
			if !e.collect {
				return false
			}
			e.add(kwMaxLength, "must have at most "+strconv.Itoa(n.maxLength)+" characters, has "+strconv.Itoa(cp))
			ok = false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		if !e.collect {
			return false
		}
		e.add(kwPattern, "must match pattern "+strconv.Quote(n.patSrc))
		ok = false
	}
	if n.format != formatNone {
		if msg := checkFormat(n.format, s); msg != "" {
			if !e.collect {
				return false
			}
			e.add(kwFormat, msg)
			ok = false
		}
	}
	return ok
}

func checkFormat(f formatKind, s string) string {
	switch f {
	case formatDateTime:
		if _, err := datetime.Parse(s); err != nil {
			var pe *datetime.ParseError
			if errors.As(err, &pe) {
				return "must be a valid date-time: " + pe.Reason
			}
			return "must be a valid date-time: " + err.Error()
		}
	case formatURI:
		if reason := checkURI(s); reason != "" {
			return "must be a valid uri: " + reason
		}
	}
	return ""
}

func (e *evaluator) number(n *node, v *canonjson.Value) bool {
	ok := true
	if n.hasMinimum && compareBound(v, n.minimum) < 0 {
		if !e.collect {
			return false
		}
		e.add(kwMinimum, "must be >= "+strconv.FormatInt(n.minimum, 10))
		ok = false
	}
	if n.hasMaximum && compareBound(v, n.maximum) > 0 {
		if !e.collect {
			return false
		}
		e.add(kwMaximum, "must be <= "+strconv.FormatInt(n.maximum, 10))
		ok = false
	}
	return ok
}

// compareBound compares a number instance with an integer bound. Kind
// Number (lenient reads only) is compared exactly through big.Rat; its
// token always parses, being a JSON number.
func compareBound(v *canonjson.Value, bound int64) int {
	if v.Kind == canonjson.Int {
		switch {
		case v.Int < bound:
			return -1
		case v.Int > bound:
			return 1
		}
		return 0
	}
	r, ok := new(big.Rat).SetString(v.Str)
	if !ok {
		return -1
	}
	return r.Cmp(new(big.Rat).SetInt64(bound))
}

// oneOf evaluates the alternatives without recording their errors and
// reports a single "oneOf" error unless exactly one matches.
func (e *evaluator) oneOf(n *node, v *canonjson.Value) bool {
	collect, errs := e.collect, len(e.errs)
	e.collect = false
	matched := 0
	for _, alt := range n.oneOf {
		if e.eval(alt, v) {
			matched++
		}
	}
	e.collect = collect
	e.errs = e.errs[:errs]
	if matched == 1 {
		return true
	}
	if e.collect {
		e.add(kwOneOf, "must match exactly one schema in oneOf, matches "+strconv.Itoa(matched))
	}
	return false
}

func describeKind(v *canonjson.Value) string {
	if v == nil {
		return "nothing"
	}
	return v.Kind.String()
}

// compact renders a schema constant for a message.
func compact(v *canonjson.Value) string {
	b, err := canonjson.Compact(v)
	if err != nil {
		return "(unprintable)"
	}
	return string(b)
}

func compactList(vs []*canonjson.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = compact(v)
	}
	return strings.Join(parts, ", ")
}
