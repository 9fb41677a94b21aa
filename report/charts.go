package report

import (
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
)

// Timeline geometry.
const (
	tlLabelW = 300
	tlBarW   = 560
	tlRowH   = 22
	tlTop    = 26
)

type timelineView struct {
	W, H    int
	Rows    []tlRow
	Ticks   []tlTick
	Span    int64
	Note    string
	Scale   int // x of the bar area
	AxisY   int
	AxisEnd int
}

type tlRow struct {
	Y, X, W        int
	Label, Tooltip string
	Class          string
}

type tlTick struct {
	X     int
	Label string
}

// buildTimeline places each observation (at most maxTimeline) on the run's
// monotonic time axis: a bar from startedOffsetMs for durationMs.
func buildTimeline(ev *canonjson.Value) timelineView {
	const maxTimeline = 120
	obs := items(ev.Get("observations"))
	span, _ := num(ev.Path("run", "monotonicDurationMs"))
	for _, o := range obs {
		s, _ := num(o.Get("startedOffsetMs"))
		d, _ := num(o.Get("durationMs"))
		if s+d > span {
			span = s + d
		}
	}
	if span <= 0 {
		span = 1
	}
	t := timelineView{Span: span, Scale: tlLabelW}
	for i, o := range obs {
		if i == maxTimeline {
			t.Note = fmt.Sprintf("%d more observations are not drawn.", len(obs)-i)
			break
		}
		s, _ := num(o.Get("startedOffsetMs"))
		d, _ := num(o.Get("durationMs"))
		x := tlLabelW + int(float64(s)/float64(span)*tlBarW)
		w := int(float64(d) / float64(span) * tlBarW)
		if w < 3 {
			w = 3
		}
		if x+w > tlLabelW+tlBarW {
			x = tlLabelW + tlBarW - w
		}
		cls := "obs o-other"
		switch str(o.Get("outcome")) {
		case "PASS":
			cls = "obs o-pass"
		case "FAIL":
			cls = "obs o-fail"
		}
		name := label(str(o.Get("type")), 24) + " · " + label(str(o.Get("id")), 16)
		short := func(k string) string { return valueText(o.Get(k), 200) }
		tip := fmt.Sprintf("%s\n%s, %s, %s\nstarts at %d ms, lasts %d ms\noperation %s", short("id"), short("type"), short("strength"), short("outcome"), s, d, short("operationRef"))
		t.Rows = append(t.Rows, tlRow{Y: tlTop + i*tlRowH, X: x, W: w, Label: name, Tooltip: tip, Class: cls})
	}
	t.AxisY = tlTop + len(t.Rows)*tlRowH + 4
	t.AxisEnd = tlLabelW + tlBarW
	for i := 0; i <= 4; i++ {
		t.Ticks = append(t.Ticks, tlTick{X: tlLabelW + i*tlBarW/4, Label: fmt.Sprintf("%d ms", span*int64(i)/4)})
	}
	t.W = tlLabelW + tlBarW + 40
	t.H = t.AxisY + 24
	return t
}

// chartView is the trial-duration chart: minimum, median and p95 as bars.
type chartView struct {
	W, H int
	Bars []chartBar
}

type chartBar struct {
	Y, W         int
	Label, Value string
	Class        string
}

func buildChart(ts *canonjson.Value) *chartView {
	d := ts.Get("durationMs")
	if !d.Is(canonjson.Object) {
		return nil
	}
	const barMax = 420
	names := []struct{ key, label, cls string }{{"minimum", "minimum", "b-min"}, {"median", "median", "b-med"}, {"p95", "p95", "b-p95"}}
	var max int64 = 1
	for _, n := range names {
		if x, ok := num(d.Get(n.key)); ok && x > max {
			max = x
		}
	}
	c := &chartView{W: 120 + barMax + 110, H: 3*34 + 12}
	for i, n := range names {
		x, ok := num(d.Get(n.key))
		val := cell(d.Get(n.key))
		w := 0
		if ok && x > 0 {
			w = int(float64(x) / float64(max) * barMax)
			if w < 2 {
				w = 2
			}
		}
		if ok {
			val += " ms"
		}
		c.Bars = append(c.Bars, chartBar{Y: 8 + i*34, W: w, Label: n.label, Value: val, Class: n.cls})
	}
	return c
}
