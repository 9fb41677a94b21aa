package ghaction

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// orderingWorkflow is a workflow as far as the image/evidence order goes.
type orderingWorkflow struct {
	On   yaml.Node             `yaml:"on"`
	Jobs map[string]handoffJob `yaml:"jobs"`
}

// pushesImage reports whether a job pushes an image.
func pushesImage(j handoffJob) bool {
	return slices.ContainsFunc(j.Steps, func(s handoffStep) bool {
		return strings.Contains(s.Run, "docker push") || strings.HasPrefix(s.Uses, "docker/build-push-action@")
	})
}

// bindsToImage reports whether a job resolves an image to bind evidence
// to it (the subject of a draft, a check, an attachment).
func bindsToImage(j handoffJob) bool {
	return slices.ContainsFunc(j.Steps, func(s handoffStep) bool {
		for _, w := range []string{"mcpres oci resolve", "mcpres oci discover", "mcpres oci attach", "--image"} {
			if strings.Contains(s.Run, w) {
				return true
			}
		}
		return false
	})
}

func needsOf(j handoffJob) []string {
	switch j.Needs.Kind {
	case yaml.ScalarNode:
		return []string{j.Needs.Value}
	case yaml.SequenceNode:
		var out []string
		for _, n := range j.Needs.Content {
			out = append(out, n.Value)
		}
		return out
	}
	return nil
}

// after reports whether job a runs after job b (a needs b, transitively).
func after(wf orderingWorkflow, a, b string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(j string) bool {
		if seen[j] {
			return false
		}
		seen[j] = true
		for _, n := range needsOf(wf.Jobs[j]) {
			if n == b || walk(n) {
				return true
			}
		}
		return false
	}
	return walk(a)
}

// triggeredByWorkflowRun reports whether the workflow runs on another
// workflow's completion (on: workflow_run), which orders it after that
// workflow.
func triggeredByWorkflowRun(wf orderingWorkflow) bool {
	var on map[string]any
	if wf.On.Decode(&on) != nil {
		return false
	}
	_, ok := on["workflow_run"]
	return ok
}

// imageOrder returns the problems of a workflow's image/evidence order:
// a job that resolves an image to bind evidence to it must run after the
// job that pushes the image (needs:, transitively), or, when no job of the
// workflow pushes it, the workflow must run on the pushing workflow's
// completion (workflow_run). A tag pushed by another workflow at the same
// time may not be there yet, or may be the previous image.
func imageOrder(wf orderingWorkflow) []string {
	var pushers, problems []string
	for _, jn := range sortedKeys(wf.Jobs) {
		if pushesImage(wf.Jobs[jn]) {
			pushers = append(pushers, jn)
		}
	}
	for _, jn := range sortedKeys(wf.Jobs) {
		j := wf.Jobs[jn]
		if !bindsToImage(j) || pushesImage(j) {
			continue
		}
		if len(pushers) == 0 {
			if !triggeredByWorkflowRun(wf) {
				problems = append(problems, fmt.Sprintf("job %s binds evidence to an image that no job of this workflow pushes, and nothing orders it after the push (needs: a pushing job, or on: workflow_run)", jn))
			}
			continue
		}
		if !slices.ContainsFunc(pushers, func(p string) bool { return after(wf, jn, p) }) {
			problems = append(problems, fmt.Sprintf("job %s binds evidence to an image but does not need the job that pushes it (%s)", jn, strings.Join(pushers, ", ")))
		}
	}
	return problems
}

// TestWorkflowImageOrder: in every example workflow, evidence is bound to
// an image only after the image was pushed (issue 34 item 4), and the
// release example does bind its evidence to the image it pushes.
func TestWorkflowImageOrder(t *testing.T) {
	bound := 0
	for _, f := range workflows(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf orderingWorkflow
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, p := range imageOrder(wf) {
			t.Errorf("%s: %s", filepath.Base(f), p)
		}
		if filepath.Base(f) == "release.yml" {
			for _, j := range wf.Jobs {
				if bindsToImage(j) {
					bound++
				}
			}
		}
	}
	if bound < 3 {
		t.Errorf("release.yml binds evidence to the image in %d jobs, want the release, witness and attach jobs", bound)
	}
}

// The check fires on the order release.yml had (the image pushed by
// another workflow on the same tag, the evidence job resolving it with no
// ordering) and on a push job the evidence job does not need; a
// transitive need and a workflow_run trigger pass (controls).
func TestImageOrderCheck(t *testing.T) {
	const push = "      - run: docker push \"$IMAGE:$TAG\"\n"
	const bind = "      - run: mcpres subject set evidence/draft.json --image \"$IMAGE:$TAG\"\n"
	for _, c := range []struct {
		name, doc, want string // want: a substring of a problem; "" for none
	}{
		{"pushed by another workflow, no ordering", "on: {push: {tags: [v*]}}\njobs:\n  attest:\n    steps:\n" + bind, "no job of this workflow pushes"},
		{"a push job not needed", "on: push\njobs:\n  image:\n    steps:\n" + push + "  attest:\n    steps:\n" + bind, "does not need the job that pushes it (image)"},
		{"a push job needed by another branch", "on: push\njobs:\n  image:\n    steps:\n" + push + "  other:\n    needs: image\n    steps: []\n  attest:\n    needs: [lint]\n    steps:\n" + bind + "  lint:\n    steps: []\n", "does not need"},
		{"needs the push job", "on: push\njobs:\n  image:\n    steps:\n" + push + "  attest:\n    needs: image\n    steps:\n" + bind, ""},
		{"needs it transitively", "on: push\njobs:\n  image:\n    steps:\n" + push + "  attest:\n    needs: image\n    steps: []\n  attach:\n    needs: [attest]\n    steps:\n" + bind, ""},
		{"after the pushing workflow", "on: {workflow_run: {workflows: [image], types: [completed]}}\njobs:\n  attest:\n    steps:\n" + bind, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var wf orderingWorkflow
			if err := yaml.Unmarshal([]byte(c.doc), &wf); err != nil {
				t.Fatal(err)
			}
			got := imageOrder(wf)
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("problems for a correct order: %q", got)
			case c.want != "" && !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, c.want) }):
				t.Errorf("problems %q, want one with %q", got, c.want)
			}
		})
	}
}
