package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
)

// dialect is the only "$schema" value accepted.
const dialect = "https://json-schema.org/draft/2020-12/schema"

// typeMask is a set of JSON Schema types. An instance has exactly one bit
// (integer for Kind Int, numberOnly for Kind Number); the "number" type
// covers both.
type typeMask uint8

const (
	tNull typeMask = 1 << iota
	tBoolean
	tInteger
	tNumberOnly
	tString
	tArray
	tObject
)

// typeBit returns the mask of a "type" name (0 if unknown).
func typeBit(name string) typeMask {
	switch name {
	case "null":
		return tNull
	case "boolean":
		return tBoolean
	case "integer":
		return tInteger
	case "number":
		return tInteger | tNumberOnly
	case "string":
		return tString
	case "array":
		return tArray
	case "object":
		return tObject
	}
	return 0
}

func kindMask(v *canonjson.Value) typeMask {
	if v == nil {
		return 0
	}
	switch v.Kind {
	case canonjson.Null:
		return tNull
	case canonjson.Bool:
		return tBoolean
	case canonjson.Int:
		return tInteger
	case canonjson.Number:
		return tNumberOnly
	case canonjson.String:
		return tString
	case canonjson.Array:
		return tArray
	case canonjson.Object:
		return tObject
	}
	return 0
}

type formatKind uint8

const (
	formatNone formatKind = iota
	formatDateTime
	formatURI
)

// A node is one compiled schema object. Absent numeric keywords are -1
// (lengths and item counts) or flagged by has* (minimum, maximum).
type node struct {
	loc string // absolute location, for compile errors

	ref *node

	types     typeMask
	typeNames string // e.g. "string or null", for messages

	hasConst bool
	constVal *canonjson.Value
	enum     []*canonjson.Value

	props     []property
	propIndex map[string]int
	required  []requirement
	closed    bool // additionalProperties: false

	items       *node
	minItems    int
	maxItems    int
	uniqueItems bool

	minLength int
	maxLength int
	pattern   matcher
	patSrc    string
	format    formatKind

	hasMinimum bool
	hasMaximum bool
	minimum    int64
	maximum    int64

	oneOf []*node

	// Which instance kinds have keywords to check beyond type/const/enum.
	objectKw, arrayKw, stringKw, numberKw bool
}

type property struct {
	name string
	node *node
}

// A requirement is a required member; idx is its index in props (for the
// seen-mask fast path) or -1.
type requirement struct {
	name string
	idx  int
}

// lookup returns the index of property key, trying hint first (instance
// members usually follow the schema's order).
func (n *node) lookup(key string, hint int) int {
	if hint < len(n.props) && n.props[hint].name == key {
		return hint
	}
	if i, ok := n.propIndex[key]; ok {
		return i
	}
	return -1
}

type compiler struct {
	docs    map[string]*canonjson.Value // $id → document
	order   []string                    // $ids in load order
	files   map[string]string           // $id → file name
	nodes   map[string]*node            // "$id#pointer" → node
	regexps map[string]matcher          // ECMAScript source → compiled
}

func newCompiler() *compiler {
	return &compiler{
		docs:    map[string]*canonjson.Value{},
		files:   map[string]string{},
		nodes:   map[string]*node{},
		regexps: map[string]matcher{},
	}
}

// addDocument parses one schema file and registers it under its $id.
func (c *compiler) addDocument(file string, data []byte) (string, error) {
	doc, err := canonjson.Parse(data)
	if err != nil {
		return "", fmt.Errorf("schema: %s: %w", file, err)
	}
	if !doc.Is(canonjson.Object) {
		return "", fmt.Errorf("schema: %s: document is not an object", file)
	}
	if d := doc.Get("$schema"); d != nil && !(d.Is(canonjson.String) && d.Str == dialect) {
		return "", fmt.Errorf("schema: %s: $schema must be %q", file, dialect)
	}
	idv := doc.Get("$id")
	if !idv.Is(canonjson.String) || !strings.Contains(idv.Str, "://") || strings.Contains(idv.Str, "#") {
		return "", fmt.Errorf("schema: %s: root $id must be an absolute URI without fragment", file)
	}
	id := idv.Str
	if prev, dup := c.files[id]; dup {
		return "", fmt.Errorf("schema: %s: $id %s already used by %s", file, id, prev)
	}
	c.docs[id] = doc
	c.files[id] = file
	c.order = append(c.order, id)
	return id, nil
}

// compileAll compiles every document root and every $defs entry, so that a
// broken definition fails at load time even when nothing refers to it.
func (c *compiler) compileAll() error {
	for _, id := range c.order {
		if _, err := c.compileAt(id, ""); err != nil {
			return err
		}
		defs := c.docs[id].Get("$defs")
		if defs == nil {
			continue
		}
		if !defs.Is(canonjson.Object) {
			return fmt.Errorf("schema: %s: $defs must be an object", c.files[id])
		}
		for _, m := range defs.Members {
			if _, err := c.compileAt(id, "/$defs/"+escapeToken(m.Key)); err != nil {
				return err
			}
		}
	}
	return c.checkCycles()
}

// checkCycles rejects a cycle of "$ref" and "oneOf" edges: those apply a
// schema to the same instance, so such a cycle would never terminate.
// (Cycles through properties or items are fine: each step goes one level
// deeper into the finite instance.)
func (c *compiler) checkCycles() error {
	const (
		unvisited = iota
		active
		done
	)
	state := make(map[*node]int, len(c.nodes))
	var visit func(n *node) error
	visit = func(n *node) error {
		switch state[n] {
		case active:
			return fmt.Errorf("schema: %s: $ref/oneOf cycle applies a schema to the same value forever", n.loc)
		case done:
			return nil
		}
		state[n] = active
		next := n.oneOf
		if n.ref != nil {
			next = append([]*node{n.ref}, next...)
		}
		for _, m := range next {
			if err := visit(m); err != nil {
				return err
			}
		}
		state[n] = done
		return nil
	}
	for _, n := range c.nodes {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}

// compileAt compiles the schema at JSON pointer ptr of document id,
// memoized so that references share nodes (and cycles terminate).
func (c *compiler) compileAt(id, ptr string) (*node, error) {
	loc := id + "#" + ptr
	if n, ok := c.nodes[loc]; ok {
		return n, nil
	}
	doc, ok := c.docs[id]
	if !ok {
		return nil, fmt.Errorf("schema: no document with $id %s", id)
	}
	v, err := resolvePointer(doc, ptr)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", loc, err)
	}
	n := &node{loc: loc, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	c.nodes[loc] = n
	if err := c.fill(n, id, ptr, v); err != nil {
		return nil, err
	}
	return n, nil
}

// fill compiles the keywords of schema object v (at ptr in document id)
// into n.
func (c *compiler) fill(n *node, id, ptr string, v *canonjson.Value) error {
	if !v.Is(canonjson.Object) {
		return fmt.Errorf("schema: %s: a schema must be an object (boolean schemas are not supported)", n.loc)
	}
	for _, m := range v.Members {
		if err := c.keyword(n, id, ptr, m.Key, m.Value); err != nil {
			return fmt.Errorf("schema: %s: %s: %w", n.loc, m.Key, err)
		}
	}
	if err := n.linkRequired(); err != nil {
		return fmt.Errorf("schema: %s: %w", n.loc, err)
	}
	n.objectKw = n.closed || len(n.props) > 0 || len(n.required) > 0
	n.arrayKw = n.items != nil || n.minItems >= 0 || n.maxItems >= 0 || n.uniqueItems
	n.stringKw = n.minLength >= 0 || n.maxLength >= 0 || n.pattern != nil || n.format != formatNone
	n.numberKw = n.hasMinimum || n.hasMaximum
	return nil
}

func (c *compiler) keyword(n *node, id, ptr, key string, v *canonjson.Value) error {
	sub := func(p string) (*node, error) { return c.compileAt(id, ptr+"/"+p) }
	var err error
	switch key {
	case "$schema", "$id":
		if ptr != "" {
			return fmt.Errorf("allowed only at the document root")
		}
	case "$defs":
		if ptr != "" {
			return fmt.Errorf("allowed only at the document root")
		}
	case "$comment", "title", "description":
		if !v.Is(canonjson.String) {
			return fmt.Errorf("must be a string")
		}
	case "$ref":
		n.ref, err = c.ref(id, v)
	case "type":
		err = n.setType(v)
	case "const":
		n.hasConst, n.constVal = true, v
	case "enum":
		if !v.Is(canonjson.Array) || len(v.Items) == 0 {
			return fmt.Errorf("must be a non-empty array")
		}
		n.enum = v.Items
	case "required":
		err = n.setRequired(v)
	case "properties":
		err = n.setProperties(v, func(k string) (*node, error) { return sub("properties/" + escapeToken(k)) })
	case "additionalProperties":
		if !v.Is(canonjson.Bool) || v.Bool {
			return fmt.Errorf("only false is supported")
		}
		n.closed = true
	case "items":
		n.items, err = sub("items")
	case "minItems":
		n.minItems, err = nonNegative(v)
	case "maxItems":
		n.maxItems, err = nonNegative(v)
	case "uniqueItems":
		if !v.Is(canonjson.Bool) {
			return fmt.Errorf("must be a boolean")
		}
		n.uniqueItems = v.Bool
	case "minLength":
		n.minLength, err = nonNegative(v)
	case "maxLength":
		n.maxLength, err = nonNegative(v)
	case "pattern":
		err = c.setPattern(n, v)
	case "format":
		err = n.setFormat(v)
	case "minimum":
		n.minimum, err = integer(v)
		n.hasMinimum = true
	case "maximum":
		n.maximum, err = integer(v)
		n.hasMaximum = true
	case "oneOf":
		err = c.setOneOf(n, v, sub)
	default:
		return fmt.Errorf("keyword not supported (REFERENCE §1.8 subset)")
	}
	return err
}

// ref resolves a $ref against the document's $id: "#/pointer",
// "file.schema.json[#/pointer]" (relative to the $id's directory) or an
// absolute URI.
func (c *compiler) ref(id string, v *canonjson.Value) (*node, error) {
	if !v.Is(canonjson.String) {
		return nil, fmt.Errorf("must be a string")
	}
	docPart, frag, _ := strings.Cut(v.Str, "#")
	target := id
	switch {
	case docPart == "":
	case strings.Contains(docPart, "://"):
		target = docPart
	case strings.HasPrefix(docPart, "/") || strings.Contains(docPart, ".."):
		return nil, fmt.Errorf("unsupported reference %q", v.Str)
	default:
		target = id[:strings.LastIndexByte(id, '/')+1] + docPart
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("unsupported reference %q: only JSON-pointer fragments", v.Str)
	}
	return c.compileAt(target, frag)
}

func (n *node) setType(v *canonjson.Value) error {
	var names []string
	switch {
	case v.Is(canonjson.String):
		names = []string{v.Str}
	case v.Is(canonjson.Array) && len(v.Items) > 0:
		for _, it := range v.Items {
			if !it.Is(canonjson.String) {
				return fmt.Errorf("must be a string or an array of strings")
			}
			names = append(names, it.Str)
		}
	default:
		return fmt.Errorf("must be a string or a non-empty array of strings")
	}
	for _, t := range names {
		bit := typeBit(t)
		if bit == 0 {
			return fmt.Errorf("unknown type %q", t)
		}
		n.types |= bit
	}
	n.typeNames = strings.Join(names, " or ")
	return nil
}

func (n *node) setRequired(v *canonjson.Value) error {
	if !v.Is(canonjson.Array) {
		return fmt.Errorf("must be an array of strings")
	}
	for _, it := range v.Items {
		if !it.Is(canonjson.String) {
			return fmt.Errorf("must be an array of strings")
		}
		n.required = append(n.required, requirement{name: it.Str, idx: -1})
	}
	return nil
}

func (n *node) setProperties(v *canonjson.Value, sub func(string) (*node, error)) error {
	if !v.Is(canonjson.Object) {
		return fmt.Errorf("must be an object")
	}
	n.propIndex = make(map[string]int, len(v.Members))
	for _, m := range v.Members {
		p, err := sub(m.Key)
		if err != nil {
			return err
		}
		n.propIndex[m.Key] = len(n.props)
		n.props = append(n.props, property{name: m.Key, node: p})
	}
	return nil
}

// linkRequired points each required member at its property index, so that
// presence is one bit test when the index is below 64.
func (n *node) linkRequired() error {
	seen := make(map[string]bool, len(n.required))
	for i := range n.required {
		r := &n.required[i]
		if seen[r.name] {
			return fmt.Errorf("required lists %q twice", r.name)
		}
		seen[r.name] = true
		if j, ok := n.propIndex[r.name]; ok && j < 64 {
			r.idx = j
		}
	}
	return nil
}

func (c *compiler) setPattern(n *node, v *canonjson.Value) error {
	if !v.Is(canonjson.String) {
		return fmt.Errorf("must be a string")
	}
	re, ok := c.regexps[v.Str]
	if !ok {
		var err error
		if re, err = compilePattern(v.Str); err != nil {
			return err
		}
		c.regexps[v.Str] = re
	}
	n.pattern, n.patSrc = re, v.Str
	return nil
}

func (n *node) setFormat(v *canonjson.Value) error {
	switch {
	case v.Is(canonjson.String) && v.Str == "date-time":
		n.format = formatDateTime
	case v.Is(canonjson.String) && v.Str == "uri":
		n.format = formatURI
	default:
		return fmt.Errorf("only \"date-time\" and \"uri\" are supported")
	}
	return nil
}

func (c *compiler) setOneOf(n *node, v *canonjson.Value, sub func(string) (*node, error)) error {
	if !v.Is(canonjson.Array) || len(v.Items) == 0 {
		return fmt.Errorf("must be a non-empty array of schemas")
	}
	for i := range v.Items {
		s, err := sub("oneOf/" + strconv.Itoa(i))
		if err != nil {
			return err
		}
		n.oneOf = append(n.oneOf, s)
	}
	return nil
}

func nonNegative(v *canonjson.Value) (int, error) {
	if !v.Is(canonjson.Int) || v.Int < 0 {
		return 0, fmt.Errorf("must be a non-negative integer")
	}
	return int(v.Int), nil
}

func integer(v *canonjson.Value) (int64, error) {
	if !v.Is(canonjson.Int) {
		return 0, fmt.Errorf("must be an integer (MCP-RES has no fractional bounds)")
	}
	return v.Int, nil
}

// resolvePointer follows an RFC 6901 pointer ("" is the whole document).
func resolvePointer(doc *canonjson.Value, ptr string) (*canonjson.Value, error) {
	if ptr == "" {
		return doc, nil
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("bad JSON pointer %q", ptr)
	}
	v := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case v.Is(canonjson.Object):
			if !v.Has(tok) {
				return nil, fmt.Errorf("pointer %q: no member %q", ptr, tok)
			}
			v = v.Get(tok)
		case v.Is(canonjson.Array):
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.Items) {
				return nil, fmt.Errorf("pointer %q: no item %q", ptr, tok)
			}
			v = v.Items[i]
		default:
			return nil, fmt.Errorf("pointer %q: cannot descend into a scalar", ptr)
		}
	}
	return v, nil
}

// escapeToken escapes one RFC 6901 reference token.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
