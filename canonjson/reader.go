package canonjson

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpres/mcpres/internal/regularfile"
)

// Reader limits of REFERENCE §1.5. They are constants: every MCP-RES
// document goes through the same reader.
const (
	MaxInputBytes        = 16 << 20 // 16,777,216 bytes
	MaxDepth             = 128      // root is depth 0
	MaxNodes             = 250_000  // values and object keys
	MaxStringCodePoints  = 1 << 20  // 1,048,576 code points, keys and values
	maxSmallObjectLinear = 16       // duplicate-key check switches to a map above this
)

// A SyntaxError is a violation of a strict-reader rule. Offset is the true
// byte offset in the input where the violation was detected.
type SyntaxError struct {
	Offset int
	Reason string
}

func (e *SyntaxError) Error() string {
	return e.Reason + " at byte " + strconv.Itoa(e.Offset)
}

// Parse reads one JSON document with every rule and limit of the strict
// reader (REFERENCE §1.5): strict UTF-8 with no byte order mark, RFC 8259
// grammar with no trailing data, no duplicate keys (compared after
// unescaping), no unpaired surrogates, only integers within ±(2^53−1) written
// without fraction or exponent (-0 reads as 0), depth ≤ 128, at most 250,000
// values and keys, strings of at most 1,048,576 code points, and at most
// 16 MiB of input.
//
// Equal scalars of the document may be one shared Value (see Value).
// On failure it returns a nil value and a *SyntaxError.
func Parse(data []byte) (*Value, error) {
	p := parser{data: data}
	return p.parse()
}

// parse is Parse of p.data.
func (p *parser) parse() (*Value, error) {
	if len(p.data) > MaxInputBytes {
		return nil, &SyntaxError{Offset: MaxInputBytes, Reason: fmt.Sprintf("input is larger than %d bytes", MaxInputBytes)}
	}
	return p.document()
}

// document reads p.data as one JSON value and nothing else, after a check
// for a byte order mark.
func (p *parser) document() (*Value, error) {
	if len(p.data) >= 3 && p.data[0] == 0xEF && p.data[1] == 0xBB && p.data[2] == 0xBF {
		return nil, &SyntaxError{Offset: 0, Reason: "byte order mark is not allowed"}
	}
	if a := p.arena; a != nil {
		p.items, p.members = a.stackItems, a.stackMembers
		defer func() { a.stackItems, a.stackMembers = p.items[:0], p.members[:0] }()
	}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.fail("unexpected data after the JSON value")
	}
	return v, nil
}

// ReadFile reads and parses path with the strict reader. The path must name
// a regular file, not a symbolic link (checked with lstat, and re-checked on
// the opened file); at most MaxInputBytes+1 bytes are read, so a file that
// grows after the check is still rejected. It returns the raw bytes too:
// some digests cover the file as written.
func ReadFile(path string) ([]byte, *Value, error) {
	data, err := ReadFileBytes(path)
	if err != nil {
		return nil, nil, err
	}
	v, err := Parse(data)
	if err != nil {
		return nil, nil, err
	}
	return data, v, nil
}

// ErrNotRegular is returned by ReadFile and ReadFileBytes for symbolic
// links, directories, devices and other non-regular files.
var ErrNotRegular = errors.New("not a regular file")

// ReadFileBytes applies ReadFile's file rules and size limit without
// parsing. A file that cannot be opened or read is a
// *regularfile.ReadError ("cannot read PATH: no such file").
func ReadFileBytes(path string) ([]byte, error) {
	return ReadFileBytesInto(nil, path)
}

// ReadFileBytesInto is ReadFileBytes reading into buf's array when the
// file fits in its capacity, as a batch that reads one file after another
// does: the result then shares buf's array, and buf's contents are lost.
func ReadFileBytesInto(buf []byte, path string) ([]byte, error) {
	data, err := readFileBytes(buf, path)
	return data, regularfile.AsReadError(err)
}

func readFileBytes(buf []byte, path string) ([]byte, error) {
	data, ok, err := fastReadFile(buf, path)
	if ok {
		if err == nil && len(data) > MaxInputBytes {
			return nil, tooLarge()
		}
		return data, err
	}
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, regularfile.Kind(st.Mode()))
	}
	// Opened without blocking: a FIFO swapped in after the lstat is
	// refused at once, not waited on.
	f, err := regularfile.Open(path)
	if errors.Is(err, regularfile.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w (file changed while opening)", path, ErrNotRegular)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fst.Mode().IsRegular() || !os.SameFile(st, fst) {
		return nil, fmt.Errorf("%s: %w (file changed while opening)", path, ErrNotRegular)
	}
	data, err = readLimited(buf, f, fst.Size())
	if err != nil {
		return nil, err
	}
	if len(data) > MaxInputBytes {
		return nil, tooLarge()
	}
	return data, nil
}

// tooLarge is the error of a file over MaxInputBytes.
func tooLarge() error {
	return &SyntaxError{Offset: MaxInputBytes, Reason: fmt.Sprintf("input is larger than %d bytes", MaxInputBytes)}
}

// readLimited reads at most MaxInputBytes+1 bytes of f into a buffer sized
// from the file's size (io.ReadAll's doubling would allocate about twice the
// file), growing only if the file grew after the stat. The buffer is buf's
// array when it is large enough.
func readLimited(buf []byte, f io.Reader, size int64) ([]byte, error) {
	size = min(max(size, 0), MaxInputBytes) + 1 // +1: see the end without another grow
	data := readBuffer(buf, size)
	r := io.LimitReader(f, MaxInputBytes+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // grow
		}
	}
}

// readBuffer returns buf emptied when it holds size bytes, else a new
// buffer of that capacity.
func readBuffer(buf []byte, size int64) []byte {
	if int64(cap(buf)) >= size {
		return buf[:0]
	}
	return make([]byte, 0, size)
}

type parser struct {
	data  []byte
	pos   int
	nodes int
	slab  []Value
	// memberSlab and itemSlab hold the exact-size member and item slices
	// of the objects and arrays read so far, cut from one allocation as
	// Values are from slab (an object is at most its own members: a
	// slice's capacity is its length, so Set and append copy it).
	memberSlab []Member
	itemSlab   []*Value
	lenient    bool // ParseLenient: see its doc
	// arena, when not nil, lends the slabs and the scratch stacks.
	arena *Arena

	// Scratch stacks: an array's items and an object's members are
	// collected here and copied once into an exact-size slice, so large
	// documents do not keep append's spare capacity alive.
	items   []*Value
	members []Member
	// keys interns object keys, direct-mapped by a cheap hash (a collision
	// just replaces the entry): documents repeat a small set of keys.
	keys [keyCacheSize]string
	// Documents repeat scalars even more than keys (null, 0, 1, status
	// words, run identifiers: four in five values of a large bundle), so
	// equal scalars share one Value (see Value), the same way: the literals
	// always, integers and short strings while the cache holds them.
	literals  [3]*Value // null, false, true
	intLeaves [leafCacheSize]*Value
	strLeaves [leafCacheSize]*Value
	// strs holds the bytes of the strings read so far: a string is a slice
	// of strs.String(), so a document costs a few allocations for all its
	// strings instead of one each. A Builder never changes bytes it has
	// handed out; when the next string does not fit, a new Builder starts
	// (growing this one would copy what the earlier strings still hold).
	strs strings.Builder
}

// maxStringChunk bounds the string buffer of a large document.
const maxStringChunk = 64 << 10

// Slab sizing of parser.alloc.
const (
	bytesPerValue = 64
	minSlab       = 16
	maxSlab       = 1024
)

// Sizes of the interning tables, and the longest string value shared.
const (
	keyCacheSize    = 128
	leafCacheSize   = 256
	maxSharedString = 128
)

// maxLenientDepth bounds recursion in ParseLenient. No canonical statement
// comes near it; deeper input is a plain syntax failure.
const maxLenientDepth = 1000

func (p *parser) fail(reason string) error {
	return &SyntaxError{Offset: p.pos, Reason: reason}
}

func (p *parser) failAt(off int, reason string) error {
	return &SyntaxError{Offset: off, Reason: reason}
}

// alloc hands out Values from a slab to keep large documents cheap. A slab
// is sized from the input still to read (MCP-RES documents take 20–50 bytes
// a value, and with equal scalars shared 65–115 bytes a Value allocated:
// bytesPerValue errs low), so a small document does not get a large slab;
// an underestimate costs one more slab.
func (p *parser) alloc() *Value {
	if len(p.slab) == 0 {
		size := min(max((len(p.data)-p.pos)/bytesPerValue+1, minSlab), maxSlab)
		if p.arena != nil {
			p.slab = p.arena.values.take(1, size)
		} else {
			p.slab = make([]Value, size)
		}
	}
	v := &p.slab[0]
	p.slab = p.slab[1:]
	return v
}

// Slab sizing of members and items: MCP-RES documents take about 60
// bytes a member and hundreds an item (arrays hold objects); an object or
// array too large for a slab gets a slice of its own.
const (
	bytesPerMember = 56
	bytesPerItem   = 256
	maxMemberSlab  = 1024
)

// membersOf returns a copy of ms from memberSlab.
func (p *parser) membersOf(ms []Member) []Member {
	n := len(ms)
	if n > maxMemberSlab {
		return append(make([]Member, 0, n), ms...)
	}
	if len(p.memberSlab) < n {
		size := min(max((len(p.data)-p.pos)/bytesPerMember+1, minSlab, n), maxMemberSlab)
		if p.arena != nil {
			p.memberSlab = p.arena.members.take(n, size)
		} else {
			p.memberSlab = make([]Member, size)
		}
	}
	out := p.memberSlab[:n:n]
	copy(out, ms)
	p.memberSlab = p.memberSlab[n:]
	return out
}

// itemsOf returns a copy of items from itemSlab.
func (p *parser) itemsOf(items []*Value) []*Value {
	n := len(items)
	if n > maxMemberSlab {
		return append(make([]*Value, 0, n), items...)
	}
	if len(p.itemSlab) < n {
		size := min(max((len(p.data)-p.pos)/bytesPerItem+1, minSlab, n), maxMemberSlab)
		if p.arena != nil {
			p.itemSlab = p.arena.items.take(n, size)
		} else {
			p.itemSlab = make([]*Value, size)
		}
	}
	out := p.itemSlab[:n:n]
	copy(out, items)
	p.itemSlab = p.itemSlab[n:]
	return out
}

func (p *parser) count() error {
	if p.lenient {
		return nil
	}
	p.nodes++
	if p.nodes > MaxNodes {
		return p.tooManyNodes()
	}
	return nil
}

// tooManyNodes is count's failure, kept out of line so that count, which
// runs for every value and key, is inlined.
//
//go:noinline
func (p *parser) tooManyNodes() error {
	return p.fail(fmt.Sprintf("more than %d values and keys", MaxNodes))
}

func (p *parser) skipSpace() {
	if p.pos < len(p.data) && p.data[p.pos] > ' ' {
		return // no whitespace: the common case, inlined
	}
	p.skipSpaces()
}

// eightSpaces is eight ASCII spaces read as one little-endian word.
const eightSpaces = 0x2020202020202020

// skipSpaces skips whitespace; the indentation of a pretty-printed
// document (a quarter of its bytes), eight spaces at a time. It stays out
// of line so that skipSpace is inlined where it is called.
//
//go:noinline
func (p *parser) skipSpaces() {
	d, i := p.data, p.pos
	for i < len(d) {
		switch d[i] {
		case ' ':
			if i+8 <= len(d) {
				// Eight spaces at once, or up to the first byte that is
				// not one (there is at least one space: d[i]).
				if x := binary.LittleEndian.Uint64(d[i:]) ^ eightSpaces; x != 0 {
					i += bits.TrailingZeros64(x) / 8
				} else {
					i += 8
				}
				continue
			}
			i++
		case '\t', '\n', '\r':
			i++
		default:
			p.pos = i
			return
		}
	}
	p.pos = i
}

func (p *parser) value(depth int) (*Value, error) {
	if p.lenient && depth > maxLenientDepth {
		return nil, p.fail(fmt.Sprintf("nesting deeper than %d", maxLenientDepth))
	}
	if !p.lenient && depth > MaxDepth {
		return nil, p.fail(fmt.Sprintf("nesting deeper than %d", MaxDepth))
	}
	if err := p.count(); err != nil {
		return nil, err
	}
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		b, end, err := p.stringValue()
		if err != nil {
			return nil, err
		}
		return p.stringLeaf(b, end), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", 2, Bool, true)
	case c == 'f':
		return p.literal("false", 1, Bool, false)
	case c == 'n':
		return p.literal("null", 0, Null, false)
	}
	if p.data[p.pos] >= utf8.RuneSelf {
		return nil, p.fail("unexpected non-ASCII character outside a string")
	}
	return nil, p.fail(fmt.Sprintf("unexpected character %q", p.data[p.pos]))
}

// literal reads word, whose shared Value is p.literals[i].
func (p *parser) literal(word string, i int, k Kind, b bool) (*Value, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.fail("invalid literal")
	}
	p.pos += len(word)
	if p.literals[i] == nil {
		v := p.alloc()
		v.Kind, v.Bool = k, b
		p.literals[i] = v
	}
	return p.literals[i], nil
}

func (p *parser) number() (*Value, error) {
	start := p.pos
	neg := false
	if p.data[p.pos] == '-' {
		neg = true
		p.pos++
	}
	if p.pos >= len(p.data) || p.data[p.pos] < '0' || p.data[p.pos] > '9' {
		return nil, p.fail("invalid number")
	}
	var n uint64
	tooBig := false
	if p.data[p.pos] == '0' {
		p.pos++
		if p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			return nil, p.failAt(start, "number with a leading zero")
		}
	} else {
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			if !tooBig {
				n = n*10 + uint64(p.data[p.pos]-'0')
				if n > MaxSafeInteger {
					tooBig = true
				}
			}
			p.pos++
		}
	}
	if p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '.', 'e', 'E':
			if p.lenient {
				return p.lenientNumber(start)
			}
			return nil, p.failAt(start, "number with a fraction or exponent (only integers are allowed)")
		}
	}
	if tooBig && p.lenient {
		v := p.alloc()
		v.Kind, v.Str = Number, string(p.data[start:p.pos])
		return v, nil
	}
	if tooBig {
		return nil, p.failAt(start, "integer outside ±9007199254740991")
	}
	if neg {
		return p.intLeaf(-int64(n)), nil // -0 becomes 0
	}
	return p.intLeaf(int64(n)), nil
}

func (p *parser) array(depth int) (*Value, error) {
	p.pos++ // '['
	v := p.alloc()
	v.Kind = Array
	v.Items = []*Value{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	base := len(p.items)
	defer func() { p.items = p.items[:base] }()
	for {
		p.skipSpace()
		item, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, item)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			v.Items = p.itemsOf(p.items[base:])
			return v, nil
		default:
			return nil, p.fail("expected ',' or ']' in array")
		}
	}
}

func (p *parser) object(depth int) (*Value, error) {
	p.pos++ // '{'
	v := p.alloc()
	v.Kind = Object
	v.Members = []Member{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	var seen map[string]struct{}
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a string key in object")
		}
		// A key counts as a node at its value's depth (REFERENCE §1.5).
		if !p.lenient && depth+1 > MaxDepth {
			return nil, p.fail(fmt.Sprintf("nesting deeper than %d", MaxDepth))
		}
		if err := p.count(); err != nil {
			return nil, err
		}
		keyOff := p.pos
		b, end, err := p.stringValue()
		if err != nil {
			return nil, err
		}
		key := p.key(b, end)
		dupIndex := -1
		if p.lenient {
			dupIndex = memberIndex(p.members[base:], key)
		} else if dup := p.duplicate(p.members[base:], &seen, key); dup {
			return nil, p.failAt(keyOff, fmt.Sprintf("duplicate key %q", key))
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after object key")
		}
		p.pos++
		if p.pos < len(p.data) && p.data[p.pos] == ' ' {
			p.pos++ // the one space a pretty-printer puts after the colon
		}
		p.skipSpace()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if dupIndex >= 0 {
			// Lenient: the last value wins, in the first key's position.
			p.members[base+dupIndex].Value = val
		} else {
			p.members = append(p.members, Member{Key: key, Value: val})
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.Members = p.membersOf(p.members[base:])
			return v, nil
		default:
			return nil, p.fail("expected ',' or '}' in object")
		}
	}
}

// duplicate reports whether key already occurs among members. Small objects
// are scanned; larger ones switch to a set so the check stays linear.
func (p *parser) duplicate(members []Member, seen *map[string]struct{}, key string) bool {
	if len(members) < maxSmallObjectLinear {
		for i := range members {
			if members[i].Key == key {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*len(members))
		for i := range members {
			(*seen)[members[i].Key] = struct{}{}
		}
	}
	if _, ok := (*seen)[key]; ok {
		return true
	}
	(*seen)[key] = struct{}{}
	return false
}

// stringValue reads a JSON string starting at the opening quote and returns
// its unescaped content, enforcing UTF-8, surrogate pairing and the length
// limit, with the input offset of the closing quote. The bytes are the
// input's own or a fresh buffer: the caller copies them (text, stringLeaf).
func (p *parser) stringValue() ([]byte, int, error) {
	start := p.pos
	p.pos++ // opening quote
	// Fast path: no escapes. The first MaxStringCodePoints bytes cannot
	// hold more code points than the limit, so they are scanned without
	// counting; a longer string is counted from there on.
	i := p.pos
	for noCount := min(len(p.data), p.pos+MaxStringCodePoints); i < noCount; {
		if i += plainPrefix(p.data[i:noCount]); i == noCount {
			break
		}
		c := p.data[i]
		if c == '"' {
			p.pos = i + 1
			return p.data[start+1 : i], i, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, 0, p.failAt(i, "unescaped control character in string")
		}
		r, size := utf8.DecodeRune(p.data[i:])
		if r == utf8.RuneError && size <= 1 {
			return nil, 0, p.failAt(i, "invalid UTF-8")
		}
		i += size
	}
	runes := utf8.RuneCount(p.data[p.pos:i])
	for i < len(p.data) {
		c := p.data[i]
		if c == '"' {
			p.pos = i + 1
			return p.data[start+1 : i], i, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, 0, p.failAt(i, "unescaped control character in string")
		}
		if c < utf8.RuneSelf {
			i++
		} else {
			r, size := utf8.DecodeRune(p.data[i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, 0, p.failAt(i, "invalid UTF-8")
			}
			i += size
		}
		runes++
		if runes > MaxStringCodePoints {
			return nil, 0, p.failAt(start, fmt.Sprintf("string longer than %d code points", MaxStringCodePoints))
		}
	}
	if i >= len(p.data) {
		return nil, 0, p.failAt(start, "unterminated string")
	}
	// Slow path: copy what was scanned, then handle escapes.
	buf := make([]byte, 0, i-p.pos+16)
	buf = append(buf, p.data[p.pos:i]...)
	for i < len(p.data) {
		c := p.data[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return buf, i, nil
		case c == '\\':
			r, n, err := p.escape(i)
			if err != nil {
				return nil, 0, err
			}
			buf = appendCodePoint(buf, r)
			i += n
		case c < 0x20:
			return nil, 0, p.failAt(i, "unescaped control character in string")
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(p.data[i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, 0, p.failAt(i, "invalid UTF-8")
			}
			buf = append(buf, p.data[i:i+size]...)
			i += size
		}
		runes++
		if runes > MaxStringCodePoints {
			return nil, 0, p.failAt(start, fmt.Sprintf("string longer than %d code points", MaxStringCodePoints))
		}
	}
	return nil, 0, p.failAt(start, "unterminated string")
}

// escape decodes the escape sequence at data[i] (a backslash) and returns the
// code point and the number of input bytes consumed.
func (p *parser) escape(i int) (rune, int, error) {
	if i+1 >= len(p.data) {
		return 0, 0, p.failAt(i, "unterminated escape sequence")
	}
	switch p.data[i+1] {
	case '"':
		return '"', 2, nil
	case '\\':
		return '\\', 2, nil
	case '/':
		return '/', 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'u':
		r, ok := hex4(p.data, i+2)
		if !ok {
			return 0, 0, p.failAt(i, "invalid \\u escape")
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if i+11 < len(p.data) && p.data[i+6] == '\\' && p.data[i+7] == 'u' {
				lo, ok := hex4(p.data, i+8)
				if ok && lo >= 0xDC00 && lo <= 0xDFFF {
					return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, nil
				}
			}
			if p.lenient {
				return r, 6, nil
			}
			return 0, 0, p.failAt(i, "unpaired surrogate escape")
		case r >= 0xDC00 && r <= 0xDFFF:
			if p.lenient {
				return r, 6, nil
			}
			return 0, 0, p.failAt(i, "unpaired surrogate escape")
		}
		return r, 6, nil
	}
	return 0, 0, p.failAt(i, "invalid escape sequence")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// ParseLenient parses the decoded payload of a signed envelope the way
// REFERENCE §6.4 step E7 requires: strict UTF-8 without a byte order mark
// and the RFC 8259 grammar, but duplicate keys allowed (the last value wins),
// unpaired surrogate escapes kept, and number tokens of any size or form,
// with no size, node-count or string-length limit (depth is capped at 1000).
//
// A kept unpaired surrogate is stored in its 3-byte generalized UTF-8 form,
// so the string is not valid UTF-8; a number that is not a plain safe
// integer has Kind Number. Canonical rejects both, which is how the caller
// tells a value that merely is not canonical from one that has no canonical
// form at all.
func ParseLenient(data []byte) (*Value, error) {
	p := parser{data: data, lenient: true}
	return p.document()
}

// lenientNumber reads the rest of a number token with a fraction and/or
// exponent that starts at start.
func (p *parser) lenientNumber(start int) (*Value, error) {
	digits := func() bool {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n > 0
	}
	if p.data[p.pos] == '.' {
		p.pos++
		if !digits() {
			return nil, p.fail("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if !digits() {
			return nil, p.fail("invalid number")
		}
	}
	v := p.alloc()
	v.Kind, v.Str = Number, string(p.data[start:p.pos])
	return v, nil
}

func memberIndex(ms []Member, key string) int {
	for i := range ms {
		if ms[i].Key == key {
			return i
		}
	}
	return -1
}

// appendCodePoint appends r in UTF-8, or, for a surrogate code point (only
// reachable in ParseLenient), in its generalized 3-byte form.
func appendCodePoint(buf []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(buf, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(buf, r)
}

// key returns b as a string, interned. end is the input offset of the
// closing quote.
func (p *parser) key(b []byte, end int) string {
	if len(b) == 0 {
		return ""
	}
	slot := &p.keys[leafHash(b)%keyCacheSize]
	if *slot == string(b) {
		return *slot
	}
	*slot = p.str(b, end)
	return *slot
}

// stringLeaf returns a String value of b, shared with an earlier equal
// string of the document when the cache still holds it (see Value).
func (p *parser) stringLeaf(b []byte, end int) *Value {
	if len(b) > maxSharedString {
		v := p.alloc()
		v.Kind, v.Str = String, p.str(b, end)
		return v
	}
	slot := &p.strLeaves[leafHash(b)%leafCacheSize]
	if v := *slot; v != nil && v.Str == string(b) {
		return v
	}
	v := p.alloc()
	v.Kind, v.Str = String, p.str(b, end)
	*slot = v
	return v
}

// intLeaf returns an Int value of n, shared like stringLeaf's.
func (p *parser) intLeaf(n int64) *Value {
	slot := &p.intLeaves[uint64(n)%leafCacheSize]
	if v := *slot; v != nil && v.Int == n {
		return v
	}
	v := p.alloc()
	v.Kind, v.Int = Int, n
	*slot = v
	return v
}

// leafHash is a cheap hash of a key or short string: its length, its first
// and last eight bytes. A collision only costs a cache entry.
func leafHash(b []byte) uint {
	n := len(b)
	h := uint64(n) * 0x9E3779B97F4A7C15
	if n >= 8 {
		h ^= binary.LittleEndian.Uint64(b)
		h *= 0xBF58476D1CE4E5B9
		h ^= binary.LittleEndian.Uint64(b[n-8:])
	} else {
		for _, c := range b {
			h = (h ^ uint64(c)) * 0x100000001B3
		}
	}
	h ^= h >> 31
	h *= 0x94D049BB133111EB
	return uint(h >> 32)
}

// str copies b into the string buffer and returns it as a string. A new
// buffer is sized from the input after end, the closing quote.
func (p *parser) str(b []byte, end int) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > p.strs.Cap()-p.strs.Len() {
		if len(b) > maxStringChunk/4 {
			return string(b) // a long string gets its own allocation
		}
		p.strs.Reset()
		// Strings take about half of a document or less.
		p.strs.Grow(min(len(b)+(len(p.data)-end)/2, maxStringChunk))
	}
	start := p.strs.Len()
	p.strs.Write(b)
	return p.strs.String()[start:]
}
