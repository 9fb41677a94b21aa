package report_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// repeat replaces the array at path in doc with n clones of its first
// item, each with member key set to fmt.Sprintf(format, i).
func repeat(t *testing.T, doc *canonjson.Value, n int, key, format string, path ...string) {
	t.Helper()
	arr := doc.Path(path...)
	if !arr.Is(canonjson.Array) || len(arr.Items) == 0 {
		t.Fatalf("%v: no array to repeat", path)
	}
	first := arr.Items[0]
	items := make([]*canonjson.Value, n)
	for i := range items {
		c := first.Clone()
		c.Set(key, canonjson.NewString(fmt.Sprintf(format, i)))
		items[i] = c
	}
	arr.Items = items
}

// A document with more rows than a table shows (faults, recovery
// policies, coverage surfaces, artifacts, operations, observations)
// renders at most 200 rows of each, with a note saying how many more
// there are, and the page stays well-formed; the example's tables, within
// the bounds, have no note (control).
func TestRenderBoundsTables(t *testing.T) {
	control := render(t, exampleInput(t))
	for _, note := range []string{"more artifacts are not listed", "more operations are not listed", "more observations are not drawn"} {
		if bytes.Contains(control, []byte(note)) {
			t.Errorf("control: %q in the example's report", note)
		}
	}

	doc := bundletest.Example(t)
	desc := []string{"evidence", "scenario", "descriptor"}
	repeat(t, doc, 250, "id", "fault-%04d", append(desc, "faults")...)
	repeat(t, doc, 250, "id", "policy-%04d", append(desc, "recoveryPolicies")...)
	repeat(t, doc, 250, "surface", "surface-%04d", "evidence", "coverage", "surfaces")
	repeat(t, doc, 230, "path", "artifact-%04d.json", "integrity", "artifacts")
	repeat(t, doc, 130, "observationId", "obs-%04d", "evidence", "observations")
	page := render(t, validate(t, doc))
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	mustContain(t, page, "fault-0000", "fault-0199", "policy-0199", "surface-0199", "artifact-0199.json",
		"30 more artifacts are not listed.", "10 more observations are not drawn.")
	for _, beyond := range []string{"fault-0200", "policy-0200", "surface-0200", "artifact-0200.json"} {
		if bytes.Contains(page, []byte(beyond)) {
			t.Errorf("%s shown: a table beyond its 200 rows", beyond)
		}
	}
}
