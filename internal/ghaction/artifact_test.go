package ghaction

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// A workflow as far as artifact hand-offs go.
type handoffWorkflow struct {
	Jobs map[string]handoffJob `yaml:"jobs"`
}

type handoffJob struct {
	Needs    yaml.Node     `yaml:"needs"`
	Steps    []handoffStep `yaml:"steps"`
	Strategy struct {
		Matrix map[string]yaml.Node `yaml:"matrix"`
	} `yaml:"strategy"`
}

var matrixExpr = regexp.MustCompile(`\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}`)

// expandMatrix returns name for each value of the job's matrix variable
// it names (${{ matrix.K }}, K a list of scalars), or name alone.
func (j handoffJob) expandMatrix(name string) []string {
	m := matrixExpr.FindStringSubmatch(name)
	if m == nil {
		return []string{name}
	}
	var values []string
	if n, ok := j.Strategy.Matrix[m[1]]; ok && n.Kind == yaml.SequenceNode {
		for _, v := range n.Content {
			values = append(values, strings.Replace(name, m[0], v.Value, 1))
		}
	}
	return values
}

type handoffStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// landed is one file of an uploaded artifact and where a download puts it.
type landed struct {
	artifact string
	uploaded string // the path the uploading job gave
	at       string // the path it has in the downloading job's workspace
}

// artifactRoot is the folder upload-artifact (v4) roots an artifact at: the
// longest common folder of its paths, so that a single file is uploaded
// as its base name alone. A path naming a folder (trailing slash, or no
// extension in its last element) is its own root.
func artifactRoot(paths []string) string {
	dirs := make([]string, len(paths))
	for i, p := range paths {
		p = path.Clean(p)
		if strings.HasSuffix(paths[i], "/") || path.Ext(p) == "" {
			dirs[i] = p
		} else {
			dirs[i] = path.Dir(p)
		}
	}
	root := dirs[0]
	for _, d := range dirs[1:] {
		for root != "." && d != root && !strings.HasPrefix(d, root+"/") {
			root = path.Dir(root)
		}
	}
	return root
}

// handoffs follows every artifact of a workflow from its upload to the
// jobs that download it, and returns the problems: a downloaded file
// whose landed path no later step reads, and any later reference to one
// of its files by another path (the path the uploading job used, say).
func handoffs(wf handoffWorkflow) []string {
	var problems []string
	uploads := map[string][]landed{} // artifact name → its files, as uploaded
	for _, jn := range sortedKeys(wf.Jobs) {
		for _, s := range wf.Jobs[jn].Steps {
			if !strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
				continue
			}
			var paths []string
			for _, p := range strings.Split(s.With["path"], "\n") {
				if p = strings.TrimSpace(p); p != "" && !strings.HasPrefix(p, "!") {
					paths = append(paths, p)
				}
			}
			if s.With["name"] == "" || len(paths) == 0 {
				problems = append(problems, fmt.Sprintf("job %s: upload step %q names no artifact or no path", jn, s.Name))
				continue
			}
			root := artifactRoot(paths)
			for _, name := range wf.Jobs[jn].expandMatrix(s.With["name"]) {
				for _, p := range paths {
					rel := strings.TrimPrefix(path.Clean(p), root+"/")
					switch {
					case root == ".":
						rel = path.Clean(p)
					case path.Clean(p) == root:
						rel = "" // a folder: its files land at the download path
					}
					uploads[name] = append(uploads[name], landed{artifact: name, uploaded: path.Clean(p), at: rel})
				}
			}
		}
	}
	for _, jn := range sortedKeys(wf.Jobs) {
		steps := wf.Jobs[jn].Steps
		for i, s := range steps {
			if !strings.HasPrefix(s.Uses, "actions/download-artifact@") {
				continue
			}
			name := s.With["name"]
			files, ok := uploads[name]
			if !ok {
				problems = append(problems, fmt.Sprintf("job %s: downloads artifact %q, which no job uploads", jn, name))
				continue
			}
			dest := path.Clean(strings.TrimSpace(s.With["path"])) // "" → "."
			later := steps[i+1:]
			for _, f := range files {
				at := path.Join(dest, f.at)
				if f.at == "" {
					// A folder's files, whatever their names: some later
					// step reads a path under the download path.
					if !slices.ContainsFunc(references(later, ""), func(ref string) bool { return strings.HasPrefix(path.Clean(ref), at+"/") }) {
						problems = append(problems, fmt.Sprintf("job %s downloads folder %s of artifact %q into %s and no later step reads a file in it", jn, f.uploaded, name, at))
					}
					continue
				}
				read := false
				for _, ref := range references(later, path.Base(f.at)) {
					if path.Clean(ref) == at {
						read = true
					} else {
						problems = append(problems, fmt.Sprintf("job %s reads %s, but artifact %q (uploaded from %s) lands at %s", jn, ref, name, f.uploaded, at))
					}
				}
				if !read {
					problems = append(problems, fmt.Sprintf("job %s downloads %s of artifact %q and no later step reads it", jn, at, name))
				}
			}
		}
	}
	return problems
}

// references returns every path-like word of the steps' scripts and inputs
// that ends in base, comment lines aside. The rule it enforces is strict
// on purpose: a later step that names a downloaded file names it by the
// path where it landed, even in prose.
func references(steps []handoffStep, base string) []string {
	re := regexp.MustCompile(`[A-Za-z0-9_./${}-]*` + regexp.QuoteMeta(base) + `\b`)
	var refs []string
	for _, s := range steps {
		texts := []string{s.Run}
		for _, k := range sortedKeys(s.With) {
			texts = append(texts, s.With[k])
		}
		for _, text := range texts {
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "#") {
					continue
				}
				refs = append(refs, re.FindAllString(line, -1)...)
			}
		}
	}
	return refs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestWorkflowArtifactHandoffs follows each artifact of the example
// workflows from its upload to the paths the downloading job's later steps
// read (actionlint and shellcheck cannot see a file that lands elsewhere).
func TestWorkflowArtifactHandoffs(t *testing.T) {
	uploadsSeen := 0
	for _, f := range workflows(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf handoffWorkflow
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, j := range wf.Jobs {
			for _, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
					uploadsSeen++
				}
			}
		}
		for _, p := range handoffs(wf) {
			t.Errorf("%s: %s", filepath.Base(f), p)
		}
	}
	if uploadsSeen == 0 {
		t.Error("no example workflow uploads an artifact: the check checked nothing")
	}
}

// The check fires for the bug the release workflow had (a single file
// uploaded from dist/ downloaded without path:, then read as dist/…), and
// for an artifact nothing reads; the fixed hand-off and a folder upload
// pass (controls).
func TestArtifactHandoffCheck(t *testing.T) {
	const upload = `
jobs:
  a:
    steps:
      - uses: actions/upload-artifact@x
        with:
          name: evidence
          path: |
            %s
  b:
    needs: a
    steps:
      - uses: actions/download-artifact@x
        with:
          name: evidence
%s
      - run: |
          # publish dist/bundle.attested.json
          gh release upload "$TAG" %s --clobber
`
	for _, c := range []struct {
		name, uploadPath, downloadWith, read string
		want                                 string // a substring of a problem; "" for none
	}{
		{"single file, no download path", "dist/bundle.attested.json", "", "dist/bundle.attested.json", "lands at bundle.attested.json"},
		{"single file, download path dist", "dist/bundle.attested.json", "          path: dist", "dist/bundle.attested.json", ""},
		{"single file read at the root", "dist/bundle.attested.json", "", "bundle.attested.json", ""},
		{"two files rooted at their common folder", "dist/bundle.attested.json\n            dist/more/x.txt", "          path: out", "out/bundle.attested.json", "out/more/x.txt of artifact"},
		{"nothing reads it", "dist/bundle.attested.json", "          path: dist", "other.json", "no later step reads it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var wf handoffWorkflow
			doc := fmt.Sprintf(upload, c.uploadPath, c.downloadWith, c.read)
			if err := yaml.Unmarshal([]byte(doc), &wf); err != nil {
				t.Fatal(err)
			}
			got := handoffs(wf)
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("problems for a correct hand-off: %q", got)
			case c.want != "" && !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, c.want) }):
				t.Errorf("problems %q, want one with %q", got, c.want)
			}
		})
	}
}
