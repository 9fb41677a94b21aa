package layering_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// public reports whether the module package rel (a path relative to the
// module root) is part of the public API an outside module imports: not
// under internal/ or cmd/, and not a test helper (x/xtest, x/xfake).
func public(rel string) bool {
	dir, last := path.Split(rel)
	parent := path.Base(dir)
	return !match("internal/...", rel) && !match("cmd/...", rel) &&
		last != parent+"test" && last != parent+"fake"
}

// internalPath reports whether the import path p is that of an internal
// package (of this module or any other): a package an outside module
// cannot import, so cannot name a type of.
func internalPath(p string) bool {
	return p == "internal" || strings.HasPrefix(p, "internal/") ||
		strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal")
}

// exportData lists the module's packages and their dependencies with the
// compiler's export data of each, from one `go list -export -deps ./...`
// (which builds them into the build cache; see goList).
func exportData(t *testing.T) (files map[string]string, own []string) {
	t.Helper()
	files = map[string]string{}
	for _, f := range goList(t, "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{.Export}}", "./...") {
		files[f[0]] = f[2]
		if rel, ok := relative(f[0]); ok {
			own = append(own, rel)
		}
	}
	if len(own) < 20 {
		t.Fatalf("implausible package list: %d own packages", len(own))
	}
	slices.Sort(own)
	return files, own
}

// leaks returns, for the exported API of pkg, one line per place that names
// a type of an internal package: "pkg.Ident -> internal/path.Type". The
// exported API is every exported constant, variable, function, type (its
// definition: fields, interface methods, type parameters) and every
// exported method of an exported type (promoted ones included), and what
// an unexported type reached from it exposes.
func leaks(pkg *types.Package) []string {
	s := &scan{pkg: pkg, seen: map[*types.TypeName]bool{}, found: map[string]bool{}}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		if !token.IsExported(name) {
			continue
		}
		obj := scope.Lookup(name)
		where := pkg.Name() + "." + name
		switch obj := obj.(type) {
		case *types.TypeName:
			s.typeName(obj, where)
		default:
			s.typ(obj.Type(), where)
		}
	}
	out := make([]string, 0, len(s.found))
	for l := range s.found {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

type scan struct {
	pkg   *types.Package
	seen  map[*types.TypeName]bool
	found map[string]bool
}

// typeName checks a type declared in the package: what it is defined as
// and its exported methods.
func (s *scan) typeName(obj *types.TypeName, where string) {
	if s.seen[obj] {
		return
	}
	s.seen[obj] = true
	if obj.IsAlias() {
		s.typ(types.Unalias(obj.Type()), where)
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return
	}
	for tp := range named.TypeParams().TypeParams() {
		s.typ(tp.Constraint(), where+"["+tp.Obj().Name()+"]")
	}
	s.typ(named.Underlying(), where)
	for _, t := range []types.Type{named, types.NewPointer(named)} {
		ms := types.NewMethodSet(t)
		for sel := range ms.Methods() {
			if m := sel.Obj(); m.Exported() {
				s.typ(m.Type(), where+"."+m.Name())
			}
		}
	}
}

// typ checks a type reached from the exported API at where.
func (s *scan) typ(t types.Type, where string) {
	switch t := t.(type) {
	case *types.Alias:
		if obj := t.Obj(); obj.Pkg() != nil && internalPath(obj.Pkg().Path()) {
			s.found[where+" -> "+obj.Pkg().Path()+"."+obj.Name()] = true
			return
		}
		s.typ(types.Unalias(t), where)
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && internalPath(obj.Pkg().Path()) {
			s.found[where+" -> "+obj.Pkg().Path()+"."+obj.Name()] = true
		}
		for a := range t.TypeArgs().Types() {
			s.typ(a, where)
		}
		// An unexported type of the package is part of the API where an
		// exported one uses it: outside code reaches its exported fields
		// and methods. Exported types are checked in their own right, and
		// other packages' types in theirs.
		if obj.Pkg() == s.pkg && !obj.Exported() {
			s.typeName(obj, where)
		}
	case *types.Pointer:
		s.typ(t.Elem(), where)
	case *types.Slice:
		s.typ(t.Elem(), where)
	case *types.Array:
		s.typ(t.Elem(), where)
	case *types.Map:
		s.typ(t.Key(), where)
		s.typ(t.Elem(), where)
	case *types.Chan:
		s.typ(t.Elem(), where)
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for v := range tuple.Variables() {
				s.typ(v.Type(), where)
			}
		}
		for tp := range t.TypeParams().TypeParams() {
			s.typ(tp.Constraint(), where)
		}
	case *types.Struct:
		for f := range t.Fields() {
			// An embedded field's methods are promoted (the method set
			// covers them); its name is exported when its type's is.
			if f.Exported() {
				s.typ(f.Type(), where+"."+f.Name())
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			if m.Exported() {
				s.typ(m.Type(), where+"."+m.Name())
			}
		}
		for e := range t.EmbeddedTypes() {
			s.typ(e, where)
		}
	case *types.Union:
		for term := range t.Terms() {
			s.typ(term.Type(), where)
		}
	case *types.TypeParam, *types.Basic, *types.Tuple, nil:
	default:
		panic(fmt.Sprintf("unknown type %T", t))
	}
}

// TestPublicBoundary: no exported name of a public package names a type of
// an internal package, which a module outside this repository could not
// use (issue 22). Each concept is either public (a package outside
// internal/ with a documented API: canonjson, signednote) or hidden (the
// public API takes bytes, time.Time or its own types).
func TestPublicBoundary(t *testing.T) {
	files, own := exportData(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := files[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	n := 0
	for _, rel := range own {
		if !public(rel) {
			continue
		}
		n++
		pkg, err := imp.Import(full(rel))
		if err != nil {
			t.Fatalf("reading the export data of %s: %v", rel, err)
		}
		for _, l := range leaks(pkg) {
			t.Errorf("%s: %s: an outside module cannot name this type; make the concept public (a package outside internal/) or take bytes, time.Time or the package's own type at the boundary", rel, l)
		}
	}
	if n < 20 {
		t.Fatalf("only %d public packages: the check checks little", n)
	}
}

// The boundary rule fires on a synthetic leak in each position it covers,
// and stays silent on internal types used where outside code cannot see
// them (a control).
func TestPublicBoundaryFires(t *testing.T) {
	sources := map[string]string{
		"example.com/m/internal/x": `package x
type T struct{ N int }
type U int
func (U) Get() T { return T{} }`,
		"example.com/m/p": `package p
import "example.com/m/internal/x"
func F(x.T) {}
func G() (int, *x.T) { return 0, nil }
var V []x.T
const C = x.U(1)
type S struct {
	Pub  x.T
	priv x.T
	x.U
}
type I interface{ M(map[string]x.T) }
func (S) Method() chan x.T { return nil }
func (*S) PtrMethod(func(x.T)) {}
type hidden struct{ Field x.T }
func H() hidden { return hidden{} }
type A = x.T
type Gen[E interface{ string | x.U }] struct{}
type Arg struct{ L []Gen[x.U] }
type W struct{ P x.T }

// The control: none of these is visible outside the package.
func private(x.T) {}
var private2 x.T
type ok struct{ Field x.T }
func (S) private3(x.T) {}
func Clean() int { var _ x.T; return 0 }
type J interface{ private(x.T) }
`,
	}
	fset := token.NewFileSet()
	pkgs := map[string]*types.Package{}
	var load func(path string) (*types.Package, error)
	load = func(path string) (*types.Package, error) {
		if p, ok := pkgs[path]; ok {
			return p, nil
		}
		f, err := parser.ParseFile(fset, path+".go", sources[path], 0)
		if err != nil {
			return nil, err
		}
		conf := types.Config{Importer: importerFunc(load)}
		p, err := conf.Check(path, fset, []*ast.File{f}, nil)
		if err != nil {
			return nil, err
		}
		pkgs[path] = p
		return p, nil
	}
	p, err := load("example.com/m/p")
	if err != nil {
		t.Fatal(err)
	}
	const xt, xu = " -> example.com/m/internal/x.T", " -> example.com/m/internal/x.U"
	want := []string{
		"p.A" + xt,
		"p.Arg.L" + xu,
		"p.C" + xu,
		"p.F" + xt,
		"p.G" + xt,
		"p.Gen[E]" + xu,
		"p.H.Field" + xt, // an unexported type's field, at the name that reaches it
		"p.I.M" + xt,
		"p.S.Get" + xt,
		"p.S.Method" + xt,
		"p.S.PtrMethod" + xt,
		"p.S.Pub" + xt,
		"p.S.U" + xu,
		"p.V" + xt,
		"p.W.P" + xt,
	}
	if got := leaks(p); !slices.Equal(got, want) {
		t.Errorf("leaks:\n got %q\nwant %q", got, want)
	}
	if !public("attest") || !public("tlog/admit") || public("internal/datetime") || public("cmd/internal/verifycmd") ||
		public("attest/attesttest") || public("tlog/rekor/rekorfake") || public("cmd/mcpres") {
		t.Error("public() is wrong")
	}
	if !internalPath("github.com/mcpres/mcpres/internal/datetime") || !internalPath("internal/abi") ||
		internalPath("github.com/mcpres/mcpres/canonjson") || internalPath("example.com/internalx/y") {
		t.Error("internalPath() is wrong")
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// TestOutsideModule: examples/goapi, the outside module that .ci/run
// builds and runs (examples/goapi/check.sh), imports the module's public
// packages only. (The go command would refuse an internal/ import; this
// also refuses test helpers and cmd/, which no outside program should
// need.)
func TestOutsideModule(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "goapi")
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gomod), "\nreplace "+module+" => ../..\n") || strings.HasPrefix(string(gomod), "module "+module) {
		t.Errorf("examples/goapi/go.mod must be a module of its own that replaces %s with ../..:\n%s", module, gomod)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.go"))
	if err != nil || len(files) < 6 {
		t.Fatalf("examples/goapi programs: %v %v", files, err)
	}
	fset := token.NewFileSet()
	used := map[string]bool{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, own := relative(p)
			if !own {
				continue
			}
			used[rel] = true
			if !public(rel) {
				t.Errorf("%s imports %s, which is not a public package: an outside module uses the public API only", name, rel)
			}
		}
	}
	for _, p := range []string{"canonjson", "document", "bundle", "attest", "trustpolicy", "offline", "witness", "signednote"} {
		if !used[p] {
			t.Errorf("no program of examples/goapi imports %s", p)
		}
	}
}

// exampleImports returns, for each Example function of the test files of
// dir, the module packages it names that are not public (directly, or in
// a function of the same test files that it calls, transitively), as
// "ExampleName uses path".
func exampleImports(dir string) ([]string, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	type fn struct {
		decl    *ast.FuncDecl
		imports map[string]string // local name → import path
	}
	funcs := map[string]fn{} // by package name and function name
	var examples []string
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, err
		}
		imports := map[string]string{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			local := path.Base(p)
			if imp.Name != nil {
				local = imp.Name.Name
			}
			imports[local] = p
		}
		for _, d := range f.Decls {
			if d, ok := d.(*ast.FuncDecl); ok && d.Recv == nil {
				key := f.Name.Name + "." + d.Name.Name
				funcs[key] = fn{d, imports}
				if strings.HasPrefix(d.Name.Name, "Example") {
					examples = append(examples, key)
				}
			}
		}
	}
	var out []string
	for _, ex := range examples {
		pkgName, _, _ := strings.Cut(ex, ".")
		seen := map[string]bool{}
		bad := map[string]bool{}
		var visit func(key string)
		visit = func(key string) {
			f, ok := funcs[key]
			if !ok || seen[key] {
				return
			}
			seen[key] = true
			ast.Inspect(f.decl, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok {
						if p, ok := f.imports[x.Name]; ok {
							if rel, own := relative(p); own && !public(rel) {
								bad[rel] = true
							}
						}
					}
				case *ast.Ident:
					visit(pkgName + "." + n.Name)
				}
				return true
			})
		}
		visit(ex)
		for rel := range bad {
			out = append(out, strings.TrimPrefix(ex, pkgName+".")+" uses "+rel)
		}
	}
	slices.Sort(out)
	return out, nil
}

// TestExamplesUsePublicAPI: every Example function of a public package
// (what go doc and pkg.go.dev show as the way to call it) uses only the
// public packages, so that outside code can run what it shows.
func TestExamplesUsePublicAPI(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		base := d.Name()
		if rel != "." && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || rel == "examples/goapi") {
			return filepath.SkipDir // not packages of this module
		}
		if rel == "." || !public(rel) {
			return nil
		}
		problems, err := exampleImports(p)
		if err != nil {
			return err
		}
		for _, pr := range problems {
			t.Errorf("%s: %s, which code outside this module cannot import: show the public API (read testdata/ files, use public packages)", rel, pr)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d public package directories found", n)
	}
}

// The example check fires for an internal or helper package named in an
// Example or in a function it calls, and not for one only other tests use.
func TestExamplesUsePublicAPIFires(t *testing.T) {
	dir := t.TempDir()
	src := `package p_test

import (
	"fmt"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	ex "github.com/mcpres/mcpres/internal/example"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"testing"
)

func helper() []byte { return ex.Draft() }

func ExampleA() { fmt.Println(helper(), canonjson.NewNull()) }

func ExampleB() { _ = attesttest.EvaluatedAt }

func ExampleC() { fmt.Println(canonjson.NewNull()) }

func TestD(t *testing.T) { bundletest.Example(t) }
`
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := exampleImports(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ExampleA uses internal/example", "ExampleB uses attest/attesttest"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
