package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpres/mcpres/canonjson"
)

// Display limits, in code points.
const (
	maxCell  = 1000 // a table cell or tree value
	maxLabel = 26   // a label inside the graph
)

// show makes s safe to look at: every control character, NUL, bidi
// override or isolate and other invisible format character becomes a
// visible ⟨U+XXXX⟩ marker (so text cannot reorder itself or hide), invalid
// UTF-8 becomes U+FFFD, and text beyond max code points is cut with a
// note of its length. The result is still escaped by html/template.
func show(s string, max int) string {
	var b strings.Builder
	n := 0
	for i, r := range s {
		if n >= max {
			rest := utf8.RuneCountInString(s[i:])
			fmt.Fprintf(&b, "… [%d more characters]", rest)
			break
		}
		n++
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteRune('\uFFFD')
		case r == ' ':
			b.WriteRune(r)
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r),
			r == '\uFFFE', r == '\uFFFF', unicode.IsSpace(r):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
			n += 7 // a marker takes the room of its eight characters
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// label is show for the tight space of a graph or chart label: text
// beyond max code points is cut to "…" (the full text is in the tooltip).
func label(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return show(s, max)
	}
	r := []rune(s)
	return show(string(r[:max-1]), max) + "…"
}

// cell is the display text of a value: a string as itself, a missing
// member or JSON null as "—" (both mean absent), anything else as compact
// JSON.
func cell(v *canonjson.Value) string { return valueText(v, maxCell) }

func valueText(v *canonjson.Value, max int) string {
	switch {
	case v == nil, v.Kind == canonjson.Null:
		return "—"
	case v.Kind == canonjson.String:
		return show(v.Str, max)
	case v.Kind == canonjson.Int:
		return fmt.Sprint(v.Int)
	case v.Kind == canonjson.Bool:
		return fmt.Sprint(v.Bool)
	}
	if len(v.Items)+len(v.Members) > 64 {
		return fmt.Sprintf("(%s of %d)", v.Kind, len(v.Items)+len(v.Members))
	}
	b, err := canonjson.Compact(v)
	if err != nil {
		return "(" + v.Kind.String() + ")"
	}
	return show(string(b), max)
}

// kv is one labelled fact.
type kv struct {
	K, V  string
	Mono  bool // digests and identifiers: monospace, break anywhere
	Class string
}

func fact(k string, v *canonjson.Value) kv { return kv{K: k, V: cell(v)} }
func digestFact(k string, v *canonjson.Value) kv {
	return kv{K: k, V: cell(v), Mono: true}
}

// items returns v's array items, or nil when v is not an array.
func items(v *canonjson.Value) []*canonjson.Value {
	if v.Is(canonjson.Array) {
		return v.Items
	}
	return nil
}

func str(v *canonjson.Value) string {
	if v.Is(canonjson.String) {
		return v.Str
	}
	return ""
}

func num(v *canonjson.Value) (int64, bool) {
	if v.Is(canonjson.Int) {
		return v.Int, true
	}
	return 0, false
}
