package layering_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the module root, two folders up.
const repoRoot = "../.."

// A use is a package-qualified identifier a non-test file refers to.
type use struct {
	file, pkg, name string // pkg is the import path's last two elements
	pos             token.Position
}

// productionUses lists, for every non-test Go file under dir (skipping
// examples/ and testdata/), the identifiers it uses from other packages
// of the module (by import path relative to the module).
func productionUses(t *testing.T, dir string) []use {
	t.Helper()
	var out []use
	fset := token.NewFileSet()
	root := filepath.Join(repoRoot, dir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "examples" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, fileUses(fset, path, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fileUses(fset *token.FileSet, path string, f *ast.File) []use {
	const mod = "github.com/mcpres/mcpres/"
	names := map[string]string{} // local name → module-relative import path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		rel, ok := strings.CutPrefix(p, mod)
		if !ok {
			continue
		}
		local := rel[strings.LastIndex(rel, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		names[local] = rel
	}
	var out []use
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok {
			if rel, ok := names[id.Name]; ok {
				out = append(out, use{file: path, pkg: rel, name: sel.Sel.Name, pos: fset.Position(sel.Pos())})
			}
		}
		return true
	})
	return out
}

// frontDoorViolations lists the uses that open a trust policy other than
// through trustpolicy.Open: the upstream policy schema applied outside
// trustpolicy (a second 0.2.0 loader), a loaded policy made outside
// trustpolicy and attest (a loader of one's own), and, in verifycmd, a
// verification or verdict computed instead of asked of attest.Verifier.
func frontDoorViolations(uses []use) []string {
	var out []string
	for _, u := range uses {
		inTrustpolicy := strings.Contains(u.pos.Filename, "/trustpolicy/")
		inAttest := strings.Contains(u.pos.Filename, "/attest/")
		inVerifycmd := strings.Contains(u.pos.Filename, "/cmd/internal/verifycmd/")
		switch {
		case u.pkg == "validator/schema" && u.name == "TrustPolicy" && !inTrustpolicy:
			out = append(out, fmt.Sprintf("%s: validator/schema.TrustPolicy: a trust policy is read only in trustpolicy (trustpolicy.Open)", u.pos))
		case u.pkg == "attest" && u.name == "NewLoadedPolicy" && !inTrustpolicy && !inAttest:
			out = append(out, fmt.Sprintf("%s: attest.NewLoadedPolicy: a policy is opened only by trustpolicy.Open", u.pos))
		case inVerifycmd && u.pkg == "attest" && (u.name == "Verify" || u.name == "VerifySigned"):
			out = append(out, fmt.Sprintf("%s: attest.%s: verifycmd asks attest.Verifier, built once, and renders", u.pos, u.name))
		}
	}
	return out
}

// TestFrontDoor: a trust policy is opened in one place (trustpolicy.Open:
// either format, the ad-hoc one too), and attest verify's command code
// decides nothing: it builds one attest.Verifier and renders its results.
func TestFrontDoor(t *testing.T) {
	var uses []use
	for _, dir := range []string{"."} {
		uses = append(uses, productionUses(t, dir)...)
	}
	if len(uses) < 1000 {
		t.Fatalf("only %d uses of module packages found: the walk is broken", len(uses))
	}
	for _, v := range frontDoorViolations(uses) {
		t.Error(v)
	}
}

// TestFrontDoorFires: each rule fires on a file that breaks it, and not on
// the same use where it belongs.
func TestFrontDoorFires(t *testing.T) {
	src := func(path, body string) []use {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, "package x\n"+body, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fileUses(fset, path, f)
	}
	for _, c := range []struct {
		path, body string
		fires      bool
	}{
		{"/m/cmd/mcpres/x.go", `import "github.com/mcpres/mcpres/validator/schema"; var _ = schema.TrustPolicy`, true},
		{"/m/trustpolicy/x.go", `import "github.com/mcpres/mcpres/validator/schema"; var _ = schema.TrustPolicy`, false},
		{"/m/cmd/mcpres/x.go", `import "github.com/mcpres/mcpres/attest"; var _ = attest.NewLoadedPolicy`, true},
		{"/m/trustpolicy/x.go", `import "github.com/mcpres/mcpres/attest"; var _ = attest.NewLoadedPolicy`, false},
		{"/m/cmd/internal/verifycmd/x.go", `import "github.com/mcpres/mcpres/attest"; var _ = attest.Verify`, true},
		{"/m/cmd/mcpres/x.go", `import "github.com/mcpres/mcpres/attest"; var _ = attest.Verify`, false},
		{"/m/cmd/internal/verifycmd/x.go", `import a "github.com/mcpres/mcpres/attest"; var _ = a.VerifySigned`, true},
	} {
		if got := len(frontDoorViolations(src(c.path, c.body))) > 0; got != c.fires {
			t.Errorf("%s %q: fires %t, want %t", c.path, c.body, got, c.fires)
		}
	}
}

// TestVerifycmdFunctionsShort: attest verify's command code keeps flags
// and rendering only; none of its functions grows past 60 lines (the
// command was 154 lines, cyclomatic 51, when it decided too).
func TestVerifycmdFunctionsShort(t *testing.T) {
	dir := filepath.Join(repoRoot, "cmd", "internal", "verifycmd")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > 60 {
				t.Errorf("%s: %s is %d lines: keep verifycmd's functions under 60 (decisions belong in attest)", e.Name(), fn.Name.Name, n)
			}
		}
	}
}
