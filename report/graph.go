package report

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
)

// MaxDrawnOperations is the largest operation graph drawn in full; larger
// graphs collapse to a summary with the longest parent chain drawn.
const MaxDrawnOperations = 150

// chainEnds is how many operations of each end of a collapsed chain are drawn.
const chainEnds = 6

// Graph geometry (SVG user units).
const (
	nodeW = 216
	nodeH = 62
	gapX  = 24
	gapY  = 46
	pad   = 16
)

// op is one operation as the graph sees it.
type op struct {
	idx                        int
	id, kind, outcome          string
	fault, policy              string
	hasFault, hasPolicy        bool
	attempt                    int64
	parent                     int // index of the parent, -1 for a root
	parentText                 string
	parentMissing, parentCycle bool
	fired                      bool // named by the diagnostic detail
}

func (o *op) failing() bool { return o.outcome != "PASS" && o.outcome != "EXPECTED_FAILURE" }

// graphView is the drawn graph.
type graphView struct {
	W, H      int
	Nodes     []nodeView
	Edges     []edgeView
	Collapsed bool
	Total     int
	Chain     int // length of the longest chain
	Elided    int // chain operations not drawn
	Summary   *table
	Roots     int
}

type nodeView struct {
	X, Y           int
	Class          string
	Label, Kind    string
	Line2, Tooltip string
	Elision        bool
}

type edgeView struct {
	D     string
	Class string
}

// operations reads the operations array tolerantly: non-objects are skipped.
func operations(ev *canonjson.Value, fired map[string]bool) []*op {
	var ops []*op
	for _, it := range items(ev.Get("operations")) {
		if !it.Is(canonjson.Object) {
			continue
		}
		o := &op{idx: len(ops), id: str(it.Get("operationId")), kind: str(it.Get("kind")), outcome: str(it.Get("outcome")), parent: -1}
		if f := it.Get("faultId"); f.Is(canonjson.String) {
			o.fault, o.hasFault = f.Str, true
		}
		if p := it.Get("recoveryPolicyId"); p.Is(canonjson.String) {
			o.policy, o.hasPolicy = p.Str, true
		}
		o.attempt, _ = num(it.Get("attempt"))
		if p := it.Get("parentOperationId"); p.Is(canonjson.String) {
			o.parentText = p.Str
		}
		o.fired = fired[o.id]
		ops = append(ops, o)
	}
	first := make(map[string]int, len(ops))
	for _, o := range ops {
		if _, dup := first[o.id]; !dup {
			first[o.id] = o.idx
		}
	}
	for _, o := range ops {
		if o.parentText == "" {
			continue
		}
		if p, ok := first[o.parentText]; ok && p != o.idx {
			o.parent = p
		} else {
			o.parentMissing = !ok
			o.parentCycle = ok
		}
	}
	breakCycles(ops)
	return ops
}

// breakCycles turns every parent cycle into a chain by cutting the edge that
// closes it (the cut operation is marked), so layout always sees a forest.
// It is linear: each operation is walked once.
func breakCycles(ops []*op) {
	const (
		white = iota
		grey
		black
	)
	state := make([]uint8, len(ops))
	var path []int
	for i := range ops {
		path = path[:0]
		j := i
		for j >= 0 && state[j] == white {
			state[j] = grey
			path = append(path, j)
			j = ops[j].parent
		}
		if j >= 0 && state[j] == grey { // the walk came back to itself
			ops[path[len(path)-1]].parent = -1
			ops[path[len(path)-1]].parentCycle = true
		}
		for _, k := range path {
			state[k] = black
		}
	}
}

// depths returns each operation's distance from its root (a forest).
func depths(ops []*op) []int {
	d := make([]int, len(ops))
	done := make([]bool, len(ops))
	var path []int
	for i := range ops {
		path = path[:0]
		j := i
		for j >= 0 && !done[j] {
			path = append(path, j)
			j = ops[j].parent
		}
		base := -1
		if j >= 0 {
			base = d[j]
		}
		for k := len(path) - 1; k >= 0; k-- {
			base++
			d[path[k]] = base
			done[path[k]] = true
		}
	}
	return d
}

func buildGraph(ops []*op) graphView {
	g := graphView{Total: len(ops)}
	if len(ops) == 0 {
		return g
	}
	d := depths(ops)
	deepest := 0
	for i := range ops {
		if d[i] > d[deepest] {
			deepest = i
		}
		if ops[i].parent < 0 {
			g.Roots++
		}
	}
	g.Chain = d[deepest] + 1
	if len(ops) <= MaxDrawnOperations {
		layoutForest(&g, ops)
		return g
	}
	g.Collapsed = true
	g.Summary = summary(ops)
	chain := make([]*op, 0, g.Chain)
	for j := deepest; j >= 0; j = ops[j].parent {
		chain = append(chain, ops[j])
	}
	for i, k := 0, len(chain)-1; i < k; i, k = i+1, k-1 {
		chain[i], chain[k] = chain[k], chain[i]
	}
	layoutChain(&g, chain)
	return g
}

// bandColumns is how many leaf columns a band of the forest holds before
// the next root's tree starts a new band below (about a page's width).
const bandColumns = 4

// layoutForest is a layered top-down layout: an operation's row is its
// depth; leaves take the next free column in depth-first order and a parent
// is centred over its children. Root trees are laid side by side in bands
// of at most bandColumns leaf columns (a wider tree gets a band of its own),
// so many small independent trees wrap instead of making one long row.
func layoutForest(g *graphView, ops []*op) {
	children := make([][]int, len(ops))
	var roots []int
	for _, o := range ops {
		if o.parent < 0 {
			roots = append(roots, o.idx)
		} else {
			children[o.parent] = append(children[o.parent], o.idx)
		}
	}
	var countLeaves func(i int) int
	countLeaves = func(i int) int {
		n := 0
		for _, c := range children[i] {
			n += countLeaves(c)
		}
		return max(n, 1)
	}
	x := make([]float64, len(ops))
	row := make([]int, len(ops))
	next, top, bottom, cols := 0.0, 0, 0, 0.0
	var place func(i, r int)
	place = func(i, r int) {
		row[i] = r
		if r > bottom {
			bottom = r
		}
		if len(children[i]) == 0 {
			x[i] = next
			next++
			return
		}
		for _, c := range children[i] {
			place(c, r+1)
		}
		x[i] = (x[children[i][0]] + x[children[i][len(children[i])-1]]) / 2
	}
	for _, r := range roots {
		if n := countLeaves(r); next > 0 && next+float64(n) > bandColumns {
			top, next = bottom+1, 0
		}
		place(r, top)
		if next > cols {
			cols = next
		}
	}
	pos := func(i int) (int, int) {
		return pad + int(x[i]*(nodeW+gapX)), pad + row[i]*(nodeH+gapY)
	}
	for _, o := range ops {
		nx, ny := pos(o.idx)
		g.Nodes = append(g.Nodes, node(o, nx, ny))
		if o.parent >= 0 {
			px, py := pos(o.parent)
			g.Edges = append(g.Edges, edge(px, py, nx, ny, o))
		}
	}
	g.W = 2*pad + int(cols)*(nodeW+gapX) - gapX
	g.H = 2*pad + (bottom+1)*(nodeH+gapY) - gapY
}

// layoutChain draws a chain top-down, eliding its middle when it is long.
func layoutChain(g *graphView, chain []*op) {
	drawn := chain
	if len(chain) > 2*chainEnds+1 {
		g.Elided = len(chain) - 2*chainEnds
		drawn = append(append(append([]*op{}, chain[:chainEnds]...), nil), chain[len(chain)-chainEnds:]...)
	}
	for i, o := range drawn {
		y := pad + i*(nodeH+gapY)
		if o == nil {
			g.Nodes = append(g.Nodes, nodeView{X: pad, Y: y, Class: "elision", Elision: true,
				Label: fmt.Sprintf("… %d more operations", g.Elided), Line2: "in the same chain, not drawn"})
		} else {
			g.Nodes = append(g.Nodes, node(o, pad, y))
		}
		if i > 0 {
			g.Edges = append(g.Edges, edge(pad, y-(nodeH+gapY), pad, y, o))
		}
	}
	g.W = 2*pad + nodeW
	g.H = 2*pad + len(drawn)*(nodeH+gapY) - gapY
}

func node(o *op, x, y int) nodeView {
	cls := []string{"op", kindClass(o.kind)}
	if o.failing() {
		cls = append(cls, "failing")
	}
	if o.fired {
		cls = append(cls, "fired")
	}
	var line2 []string
	line2 = append(line2, label(o.outcome, 16))
	if o.hasFault {
		line2 = append(line2, "fault")
	}
	if o.hasPolicy {
		line2 = append(line2, fmt.Sprintf("retry %d", o.attempt))
	}
	var tip strings.Builder
	fmt.Fprintf(&tip, "%s\nkind %s, outcome %s, attempt %d", show(o.id, 200), show(o.kind, 40), show(o.outcome, 40), o.attempt)
	if o.hasFault {
		fmt.Fprintf(&tip, "\nfault %s", show(o.fault, 200))
	}
	if o.hasPolicy {
		fmt.Fprintf(&tip, "\nrecovery policy %s", show(o.policy, 200))
	}
	if o.parentMissing {
		fmt.Fprintf(&tip, "\nparent %s does not exist", show(o.parentText, 200))
	}
	if o.parentCycle {
		tip.WriteString("\nits parent edge closes a cycle (not drawn)")
	}
	mark := ""
	if o.failing() {
		mark = "✗ "
	}
	return nodeView{X: x, Y: y, Class: strings.Join(cls, " "), Label: label(o.id, maxLabel),
		Kind: mark + kindLabel(o.kind), Line2: strings.Join(line2, " · "), Tooltip: tip.String()}
}

func edge(px, py, cx, cy int, child *op) edgeView {
	x1, y1 := px+nodeW/2, py+nodeH
	x2, y2 := cx+nodeW/2, cy
	my := (y1 + y2) / 2
	cls := "edge"
	if child != nil && child.hasPolicy {
		cls += " retry"
	}
	return edgeView{D: fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x1, y1, x1, my, x2, my, x2, y2), Class: cls}
}

func kindClass(kind string) string {
	switch kind {
	case "CLEAN_CONTROL":
		return "k-clean"
	case "FAULT_CASE":
		return "k-fault"
	case "NEGATIVE_CONTROL":
		return "k-negative"
	case "RECOVERY_ATTEMPT":
		return "k-recovery"
	}
	return "k-other"
}

func kindLabel(kind string) string {
	switch kind {
	case "CLEAN_CONTROL":
		return "clean control"
	case "FAULT_CASE":
		return "fault case"
	case "NEGATIVE_CONTROL":
		return "negative control"
	case "RECOVERY_ATTEMPT":
		return "recovery attempt"
	}
	return label(kind, 18)
}

// summary counts operations by kind and outcome, in first-seen order.
func summary(ops []*op) *table {
	type key struct{ kind, outcome string }
	counts := map[key]int{}
	var order []key
	for _, o := range ops {
		k := key{o.kind, o.outcome}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	t := newTable(col("Kind"), col("Outcome"), col("Operations"))
	for _, k := range order {
		if len(t.Rows) == 64 {
			t.add("(more combinations)", "", "")
			break
		}
		t.add(show(k.kind, 64), show(k.outcome, 64), fmt.Sprint(counts[k]))
	}
	return t
}
