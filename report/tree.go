package report

import (
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
)

// maxTreeNodes caps the generic structured view of a document.
const maxTreeNodes = 4000

// treeNode is one member or item of the structured view.
type treeNode struct {
	Key      string
	Value    string // scalars; "" for containers
	Class    string
	Summary  string // containers: "object, 3 members"
	Children []*treeNode
}

type treeBuilder struct {
	budget int
	cut    int
}

func (t *treeBuilder) children(v *canonjson.Value) []*treeNode {
	var out []*treeNode
	switch v.Kind {
	case canonjson.Object:
		for _, m := range v.Members {
			if n := t.node(show(m.Key, 200), m.Value); n != nil {
				out = append(out, n)
			}
		}
	case canonjson.Array:
		for i, it := range v.Items {
			if n := t.node(fmt.Sprintf("[%d]", i), it); n != nil {
				out = append(out, n)
			}
		}
	default:
		if n := t.node("(value)", v); n != nil {
			out = append(out, n)
		}
	}
	return out
}

func (t *treeBuilder) node(key string, v *canonjson.Value) *treeNode {
	if t.budget <= 0 {
		t.cut += count(v)
		return nil
	}
	t.budget--
	n := &treeNode{Key: key}
	switch v.Kind {
	case canonjson.Object:
		n.Class, n.Summary = "obj", fmt.Sprintf("object, %d members", len(v.Members))
		n.Children = t.children(v)
	case canonjson.Array:
		n.Class, n.Summary = "arr", fmt.Sprintf("array, %d items", len(v.Items))
		n.Children = t.children(v)
	case canonjson.String:
		n.Class, n.Value = "s", show(v.Str, maxCell)
	default:
		n.Class, n.Value = "n", valueText(v, maxCell)
	}
	return n
}

// count is the number of values in v.
func count(v *canonjson.Value) int {
	n := 1
	for _, it := range v.Items {
		n += count(it)
	}
	for _, m := range v.Members {
		n += count(m.Value)
	}
	return n
}
