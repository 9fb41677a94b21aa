package canonjson

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Canonicalization error codes of REFERENCE §1.2. The strict reader rejects
// every input that could trigger them; they are reachable through lenient
// parses (signed payloads) and values built in code.
const (
	CodeInvalidUnicode        = "MCP_RES_INVALID_UNICODE"
	CodeNonCanonicalNumber    = "MCP_RES_NON_CANONICAL_NUMBER"
	CodeUnsupportedCanonValue = "MCP_RES_UNSUPPORTED_CANONICAL_VALUE"
)

// A CanonicalError reports a value that has no canonical form.
type CanonicalError struct {
	Code   string // one of the Code… constants
	Detail string
}

func (e *CanonicalError) Error() string { return e.Code + ": " + e.Detail }

// Canonical returns the mcp-res-json-utf16-v1 encoding of v (REFERENCE §1.2):
// no whitespace, object members sorted by UTF-16 code units, integers in
// plain decimal, strings escaped exactly as ECMAScript JSON.stringify.
func Canonical(v *Value) ([]byte, error) {
	return AppendCanonical(nil, v)
}

// AppendCanonical appends the canonical encoding of v to dst.
func AppendCanonical(dst []byte, v *Value) ([]byte, error) {
	e := encoder{sorted: true}
	out, err := e.value(dst, v)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Digest returns the lowercase hex SHA-256 of the canonical encoding of v and
// the encoding's length in bytes ("canonical byte length").
func Digest(v *Value) (string, int, error) {
	return DigestParts(v, nil)
}

// A Part asks DigestParts for the digest of a value nested in the one it
// digests, optionally without one member (as an observation's digest leaves
// out its observationSha256), computed from the same canonical bytes
// instead of a second encoding: an object or array's canonical encoding
// is a contiguous run of its parent's.
type Part struct {
	Value *Value // an object or array reachable from the digested value
	Omit  string // when not "", the digest is of Value.Without(Omit)

	Sum string // set by DigestParts: lowercase hex SHA-256
	Len int    // set by DigestParts: canonical byte length
}

// DigestParts is Digest of v that also sets the Sum and Len of every part,
// exactly as Digest(part.Value) (or Digest(part.Value.Without(part.Omit)))
// would. A part not reached while encoding v (not inside it, or not an
// object or array) is digested on its own. On error the parts are zeroed.
func DigestParts(v *Value, parts []Part) (string, int, error) {
	// Stream the canonical bytes into the hash in chunks rather than
	// materializing a multi-megabyte buffer.
	h := sha256.New()
	e := encoder{sorted: true, sink: h, parts: parts}
	if len(parts) > maxLinearParts {
		e.partIndex = make(map[*Value]int, len(parts))
		for i := len(parts) - 1; i >= 0; i-- {
			e.partIndex[parts[i].Value] = i
		}
	}
	if parts != nil {
		e.partDone = make([]bool, len(parts))
	}
	buf := digestBuffers.Get().(*[bufSize]byte)
	defer digestBuffers.Put(buf) // hashing copies what it is given: nothing keeps buf
	rest, err := e.value(buf[:0], v)
	if err != nil {
		zeroParts(parts)
		return "", 0, err
	}
	e.flushAll(rest)
	for i := range parts {
		if e.partDone[i] {
			continue
		}
		d := parts[i].Value
		if parts[i].Omit != "" && d.Is(Object) {
			d = d.Without(parts[i].Omit)
		}
		sum, n, err := Digest(d)
		if err != nil {
			zeroParts(parts)
			return "", 0, err
		}
		parts[i].Sum, parts[i].Len = sum, n
	}
	return hexSum(h.Sum(nil)), e.written, nil
}

func zeroParts(parts []Part) {
	for i := range parts {
		parts[i].Sum, parts[i].Len = "", 0
	}
}

// maxLinearParts is how many parts DigestParts looks up by scanning; more
// are indexed in a map.
const maxLinearParts = 8

// bufSize and flushSize size the buffer of Digest: output is hashed once
// flushSize bytes are buffered.
const (
	bufSize   = 2 << 10
	flushSize = 3 << 9
)

// digestBuffers lends Digest its buffer: a bundle's verification digests
// several values (evidence, statement, execution material), a batch
// thousands of bundles, and the bytes only pass through on their way to
// the hash.
var digestBuffers = sync.Pool{New: func() any { return new([bufSize]byte) }}

// TextDigest returns the lowercase hex SHA-256 of the UTF-8 bytes of s, with
// no JSON quoting (REFERENCE §1.3, raw-text digests).
func TextDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hexSum(sum[:])
}

// BytesDigest returns the lowercase hex SHA-256 of b.
func BytesDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hexSum(sum[:])
}

// hexSum returns a SHA-256 sum in lowercase hex, encoded on the stack:
// the string is its one allocation (hex.EncodeToString makes two).
func hexSum(sum []byte) string {
	var b [2 * sha256.Size]byte
	return string(b[:hex.Encode(b[:], sum)])
}

// Compact returns v as compact JSON with members in their stored order and
// the string escaping of §1.2 (REFERENCE §1.6, CLI result objects). It fails
// only for values that have no JSON form (see Canonical).
func Compact(v *Value) ([]byte, error) {
	return AppendCompact(nil, v)
}

// AppendCompact appends the Compact encoding of v to dst; on error it
// returns nil.
func AppendCompact(dst []byte, v *Value) ([]byte, error) {
	e := encoder{}
	return e.value(dst, v)
}

// Pretty returns v in the ECMAScript JSON.stringify(v, null, 2) layout plus
// a final LF, members in stored order (REFERENCE §1.6, written files).
func Pretty(v *Value) ([]byte, error) {
	e := encoder{indent: true}
	out, err := e.value(nil, v)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

type encoder struct {
	sorted  bool // sort object members (canonical form)
	indent  bool // two-space pretty layout
	level   int
	sink    hash.Hash // when set, output is flushed here in chunks
	written int       // bytes flushed to sink: the offset of the buffer's first byte

	// shapes holds the canonical orders of the small objects sorted
	// last, nextShape the entry to replace next.
	shapes    [shapeCacheSize]objectShape
	nextShape int

	// scratch holds the sorted copies of the objects being encoded, as a
	// stack: one allocation for the whole encoding.
	scratch []Member

	// Parts of DigestParts: the parts, which are done, an index when there
	// are many, and the captures in progress.
	parts     []Part
	partDone  []bool
	partIndex map[*Value]int
	active    []capture
}

// A capture hashes the canonical bytes of one part while it is encoded.
// Bytes before from were hashed or skipped; from is an offset in the
// whole output.
type capture struct {
	part    int
	v       *Value
	h       hash.Hash
	n       int  // bytes hashed
	from    int  // output offset of the first byte not yet hashed
	members bool // a member of v has been hashed (for the comma after an omitted first member)
	skip    bool // v's omitted member is being encoded: output is not hashed
}

// hashTo hashes the output of c from c.from up to offset to; dst is the
// current buffer.
func (e *encoder) hashTo(c *capture, dst []byte, to int) {
	if c.skip {
		c.from = to
		return
	}
	c.h.Write(dst[c.from-e.written : to-e.written])
	c.n += to - c.from
	c.from = to
}

// flush hands buffered output to the sink once it is large enough.
func (e *encoder) flush(dst []byte) []byte {
	if e.sink == nil || len(dst) < flushSize {
		return dst
	}
	e.flushAll(dst)
	return dst[:0]
}

func (e *encoder) flushAll(dst []byte) {
	end := e.written + len(dst)
	for i := range e.active {
		e.hashTo(&e.active[i], dst, end)
	}
	e.sink.Write(dst)
	e.written = end
}

// findPart returns the index of the part v is, or -1.
func (e *encoder) findPart(v *Value) int {
	if e.partIndex != nil {
		if i, ok := e.partIndex[v]; ok && !e.partDone[i] {
			return i
		}
		return -1
	}
	for i := range e.parts {
		if e.parts[i].Value == v && !e.partDone[i] {
			return i
		}
	}
	return -1
}

// composite encodes an object or array, capturing it when it is a part.
func (e *encoder) composite(dst []byte, v *Value) ([]byte, error) {
	if e.parts == nil {
		return e.compositeBody(dst, v)
	}
	i := e.findPart(v)
	if i < 0 {
		return e.compositeBody(dst, v)
	}
	e.partDone[i] = true
	e.active = append(e.active, capture{part: i, v: v, h: sha256.New(), from: e.written + len(dst)})
	dst, err := e.compositeBody(dst, v)
	if err != nil {
		return nil, err
	}
	// Captures nest, so this one is the last active.
	c := &e.active[len(e.active)-1]
	e.hashTo(c, dst, e.written+len(dst))
	p := &e.parts[c.part]
	p.Sum, p.Len = hexSum(c.h.Sum(nil)), c.n
	e.active = e.active[:len(e.active)-1]
	return dst, nil
}

// member encodes member m of object v (index i in canonical order) when v
// is captured by a part with an omitted member: the omitted member, and the
// comma that would follow it when it comes first, are not hashed.
func (e *encoder) member(dst []byte, v *Value, i int, m Member) ([]byte, error) {
	start := e.written + len(dst)
	for j := range e.active {
		c := &e.active[j]
		if c.v != v || e.parts[c.part].Omit == "" {
			continue
		}
		e.hashTo(c, dst, start)
		if e.parts[c.part].Omit == m.Key {
			c.skip = true
			continue
		}
		if i > 0 && !c.members {
			// The members before this one were all omitted: skip the comma.
			c.from = start + 1
		}
		c.members = true
	}
	if i > 0 {
		dst = append(dst, ',')
	}
	dst, err := appendString(dst, m.Key)
	if err != nil {
		return nil, err
	}
	dst = append(dst, ':')
	if dst, err = e.value(dst, m.Value); err != nil {
		return nil, err
	}
	end := e.written + len(dst)
	for j := range e.active {
		if c := &e.active[j]; c.skip && c.v == v {
			c.skip, c.from = false, end
		}
	}
	return dst, nil
}

func (e *encoder) newline(dst []byte) []byte {
	dst = append(dst, '\n')
	for i := 0; i < e.level; i++ {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

func (e *encoder) value(dst []byte, v *Value) ([]byte, error) {
	if v == nil {
		return nil, &CanonicalError{Code: CodeUnsupportedCanonValue, Detail: "absent value"}
	}
	switch v.Kind {
	case Null:
		return append(dst, "null"...), nil
	case Bool:
		if v.Bool {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case Int:
		if v.Int > MaxSafeInteger || v.Int < -MaxSafeInteger {
			return nil, &CanonicalError{Code: CodeNonCanonicalNumber, Detail: "integer outside ±9007199254740991"}
		}
		return strconv.AppendInt(dst, v.Int, 10), nil
	case Number:
		return nil, &CanonicalError{Code: CodeNonCanonicalNumber, Detail: "number " + v.Str + " is not a safe integer"}
	case String:
		return appendString(dst, v.Str)
	case Array, Object:
		return e.composite(dst, v)
	}
	return nil, &CanonicalError{Code: CodeUnsupportedCanonValue, Detail: "value of kind " + v.Kind.String()}
}

func (e *encoder) compositeBody(dst []byte, v *Value) ([]byte, error) {
	switch v.Kind {
	case Array:
		if len(v.Items) == 0 {
			return append(dst, '[', ']'), nil
		}
		dst = append(dst, '[')
		e.level++
		for i, it := range v.Items {
			dst = e.flush(dst)
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.indent {
				dst = e.newline(dst)
			}
			var err error
			if dst, err = e.value(dst, it); err != nil {
				return nil, err
			}
		}
		e.level--
		if e.indent {
			dst = e.newline(dst)
		}
		return append(dst, ']'), nil
	case Object:
		if len(v.Members) == 0 {
			return append(dst, '{', '}'), nil
		}
		members := v.Members
		var small [smallObject]Member // sorted copy of a small object: no allocation
		if e.sorted && len(members) <= smallObject && !sortedKeys(members) {
			// (v.Members, not members: e keeps what order is given, and
			// members may point at small, which must stay on the stack.)
			order := e.order(v.Members)
			for i, j := range order {
				small[i] = v.Members[j]
			}
			members = small[:len(order)]
		} else if e.sorted && !sortedKeys(members) {
			if e.scratch == nil {
				e.scratch = make([]Member, 0, 64)
			}
			base := len(e.scratch)
			e.scratch = append(e.scratch, members...)
			// A nested object may grow scratch into a new array; this
			// object's copy stays valid in the old one.
			members = e.scratch[base:]
			slices.SortFunc(members, func(a, b Member) int { return CompareKeys(a.Key, b.Key) })
			defer func() { e.scratch = e.scratch[:base] }()
		}
		captured := e.parts != nil && e.capturing(v)
		dst = append(dst, '{')
		e.level++
		for i, m := range members {
			dst = e.flush(dst)
			if captured {
				var err error
				if dst, err = e.member(dst, v, i, m); err != nil {
					return nil, err
				}
				continue
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.indent {
				dst = e.newline(dst)
			}
			var err error
			if dst, err = appendString(dst, m.Key); err != nil {
				return nil, err
			}
			dst = append(dst, ':')
			if e.indent {
				dst = append(dst, ' ')
			}
			if dst, err = e.value(dst, m.Value); err != nil {
				return nil, err
			}
		}
		e.level--
		if e.indent {
			dst = e.newline(dst)
		}
		return append(dst, '}'), nil
	}
	panic("canonjson: compositeBody of a scalar")
}

// An objectShape is the canonical order of a small object's members, for
// the objects with the same keys in the same input order that follow it
// (the observations of a bundle, its coverage surfaces).
type objectShape struct {
	members []Member // the object whose keys these are
	order   [smallObject]uint8
}

// shapeCacheSize is how many recent shapes an encoder keeps.
const shapeCacheSize = 8

// order returns the canonical order of members (at most smallObject of
// them, keys unique): order[i] is the index of the i-th member in
// CompareKeys order. An object whose keys are, one by one, those of an
// object sorted earlier in this encoding takes its order from the cache;
// keys are compared as strings (interned keys compare by pointer), so the
// order is the one sorting would give.
func (e *encoder) order(members []Member) []uint8 {
	n := len(members)
	for i := range e.shapes {
		s := &e.shapes[i]
		if len(s.members) == n && sameKeys(s.members, members) {
			return s.order[:n]
		}
	}
	s := &e.shapes[e.nextShape]
	e.nextShape = (e.nextShape + 1) % shapeCacheSize
	s.members = members
	// Keys are compared by their first eight bytes as one number when
	// those are ASCII in both and differ (see keyPrefix), else by
	// CompareKeys.
	var prefix [smallObject]uint64
	var ascii [smallObject]bool
	for i := range n {
		s.order[i] = uint8(i)
		prefix[i], ascii[i] = keyPrefix(members[i].Key)
	}
	after := func(a, b uint8) bool {
		if ascii[a] && ascii[b] && prefix[a] != prefix[b] {
			return prefix[a] > prefix[b]
		}
		return CompareKeys(members[a].Key, members[b].Key) > 0
	}
	// Insertion sort: stable, and few comparisons for 16 members or fewer.
	for i := 1; i < n; i++ {
		x := s.order[i]
		j := i
		for ; j > 0 && after(s.order[j-1], x); j-- {
			s.order[j] = s.order[j-1]
		}
		s.order[j] = x
	}
	return s.order[:n]
}

// keyPrefix returns the first eight bytes of k as a big-endian number,
// zeros after its end, and whether those bytes are ASCII. Two keys whose
// prefixes are ASCII and differ compare as their prefixes do: at the
// first byte that differs both are ASCII or one key has ended (and is a
// proper prefix of the other), where CompareKeys is byte order too. Equal
// prefixes ("a" and "a\x00") say nothing.
func keyPrefix(k string) (uint64, bool) {
	var p uint64
	if len(k) >= 8 {
		// The compiler merges these into one 64-bit load.
		p = uint64(k[0])<<56 | uint64(k[1])<<48 | uint64(k[2])<<40 | uint64(k[3])<<32 |
			uint64(k[4])<<24 | uint64(k[5])<<16 | uint64(k[6])<<8 | uint64(k[7])
	} else {
		for j := range 8 {
			p <<= 8
			if j < len(k) {
				p |= uint64(k[j])
			}
		}
	}
	return p, p&0x8080808080808080 == 0
}

func sameKeys(a, b []Member) bool {
	for i := range a {
		if a[i].Key != b[i].Key {
			return false
		}
	}
	return true
}

// capturing reports whether a part with an omitted member captures v.
func (e *encoder) capturing(v *Value) bool {
	for i := range e.active {
		if c := &e.active[i]; c.v == v && e.parts[c.part].Omit != "" {
			return true
		}
	}
	return false
}

// smallObject is the most members an object may have for the encoder to
// sort a copy of them on the stack rather than in its scratch slice.
const smallObject = 16

func sortedKeys(ms []Member) bool {
	for i := 1; i < len(ms); i++ {
		if CompareKeys(ms[i-1].Key, ms[i].Key) >= 0 {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// errInvalidUnicode is returned for strings that are not well-formed UTF-8,
// which includes encoded surrogate code points.
var errInvalidUnicode = &CanonicalError{Code: CodeInvalidUnicode, Detail: "string is not well-formed Unicode (unpaired surrogate or invalid UTF-8)"}

// appendString appends s as a JSON string with the escaping of REFERENCE §1.2.
func appendString(dst []byte, s string) ([]byte, error) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += plainPrefix(s[i:]); i == len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, errInvalidUnicode
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

// CompareKeys orders two keys by their UTF-16 code units, a proper prefix
// first (REFERENCE §1.2). It differs from byte order only when a code point
// ≥ U+10000 meets one in U+E000–U+FFFF: the former sorts first.
func CompareKeys(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b) // one is a prefix of the other (or equal)
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return int(a[i]) - int(b[i])
	}
	// Back up to the start of the differing code points.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	ua, ub := utf16Lead(ra), utf16Lead(rb)
	if ua != ub {
		return int(ua) - int(ub)
	}
	return int(ra) - int(rb)
}

// utf16Lead is the first UTF-16 code unit of r.
func utf16Lead(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// IsCanonicalError reports whether err is a canonicalization error.
func IsCanonicalError(err error) bool {
	var ce *CanonicalError
	return errors.As(err, &ce)
}
