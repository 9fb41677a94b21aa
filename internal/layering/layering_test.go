// Package layering_test holds the one layering test of the module: the
// allowed-imports table of the package layout (DESIGN.md §2), the one
// definition of "offline" and the other rules on what a package links
// (startup budget, pure rendering), the public boundary (no exported API
// of a public package names an internal type: boundary_test.go), and the
// check that the README's architecture block lists every package of the
// module. It has no non-test code, so the table has no imports of its own
// to check.
package layering_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/internal/doctest"
)

const module = "github.com/mcpres/mcpres"

// A row of the layering table: the module packages matching pkg may import
// the module packages matching one of may (direct imports; the module's
// own packages only, the standard library and dependencies are the
// business of the link rules below). A pattern is a package path relative
// to the module root, or "dir/..." for dir and everything below it.
type row struct {
	pkg string
	may []string
	why string
}

// layout is DESIGN.md §2, lowest layer first. Each package may import its
// own layer and those listed; nothing points upward.
var layout = []row{
	{"internal/...", []string{"internal/..."}, "the ground floor: helpers every layer may use, which use no layer above"},
	{"ed25519strict", []string{"internal/..."}, "the strict Ed25519 rules, SPKI and key fingerprints every key parser asks: no x509, no net"},
	{"canonjson/...", []string{"internal/...", "canonjson/..."}, "the parsed JSON document every entry point takes: strict reader, canonical encoder, digests"},
	{"signednote/...", []string{"internal/...", "ed25519strict", "signednote/..."}, "signed-note keys, verifiers and checkpoints of every key type the logs and witnesses use"},
	{"bundle/...", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/..."}, "the typed documents and Seal"},
	{"validator", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/...", "validator/schema"}, "core validation and what every kind reports the same way: never its kind packages, which depend on it (package document chooses among them)"},
	{"validator/...", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/...", "validator/..."}, "the schema engine and the kind validators"},
	{"keyfile", []string{"internal/...", "ed25519strict", "signednote"}, "key files: PKCS#8/SPKI PEM, encrypted keys, strict base64, SPKI, the key-kind recogniser (signed-note keys through signednote's parsers); no command words"},
	{"attest/...", []string{"internal/...", "ed25519strict", "canonjson/...", "signednote/...", "keyfile", "bundle/...", "validator/...", "offline", "attest/..."}, "statements, envelopes, keys, Verify; a transparency reference checked before it is signed (offline)"},
	{"keyref/p11", []string{"internal/...", "ed25519strict", "keyfile", "keyref"}, "PKCS#11 tokens in this process (cgo): the opener the helper cmd/mcpres-pkcs11 runs"},
	{"keyref/...", []string{"internal/...", "ed25519strict", "signednote/...", "keyfile", "keyref/..."}, "key references: files, variables, PKCS#11 tokens (through a helper process or keyref/p11), ssh-agent; one Ed25519 crypto.Signer; below attest (key files through keyfile)"},
	{"document", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/...", "validator/...", "attest/..."}, "the one document-kind switch: detects a kind and calls its validator (attest.Verify for attested bundles)"},
	{"report/...", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/...", "validator/...", "attest/...", "document"}, "HTML rendering of results computed by the packages below it; computes no verdict of its own"},
	{"offline", []string{"internal/...", "canonjson/...", "signednote/..."}, "verification of transparency references with no network: not even attest (it links net through crypto/x509)"},
	{"offline/...", []string{"internal/...", "canonjson/...", "signednote/...", "offline/..."}, "offline's helpers and the Rekor verifier"},
	{"trustpolicy/...", []string{"internal/...", "ed25519strict", "canonjson/...", "signednote/...", "keyfile", "bundle/...", "validator/...", "attest/...", "offline", "trustpolicy/..."}, "trust policies; never offline/rekor, which mcpres does not link"},
	{"inspect", []string{"internal/...", "ed25519strict", "canonjson/...", "signednote/...", "keyfile", "bundle/...", "validator/...", "attest/...", "document", "offline", "trustpolicy"}, "describing documents, references, checkpoints and policies without judging trust"},
	{"migrate/...", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/...", "validator/...", "migrate/..."}, "v0.1 → v0.2 migration"},
	{"witness/witnesshttp", []string{"internal/...", "canonjson/...", "signednote/...", "witness"}, "the witness's C2SP tlog-witness HTTP service: the one witness package that links net/http"},
	{"witness/...", []string{"internal/...", "canonjson/...", "signednote/...", "witness/..."}, "checkpoint cosigning and the add-checkpoint rules: no log, no Tessera, no HTTP"},
	{"tlog/admit", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/...", "validator/...", "attest/...", "document", "offline"}, "the log's admission rule: a document is validated (an attested bundle verified) before it is logged"},
	{"tlog/witnessclient", []string{"internal/...", "canonjson/...", "signednote/...", "witness", "tlog", "trustpolicy"}, "the log's side of C2SP tlog-witness: the witness's rules, never its server; the witnesses of a tlog policy (trustpolicy)"},
	{"tlog/monitor", []string{"internal/...", "signednote/...", "attest", "offline", "trustpolicy"}, "the log monitor: reads tiles over HTTP (links net/http, as tlog/client does) or from a directory, judges checkpoints with offline, subjects with trustpolicy's patterns and the signers an entry names with a trust policy (attest.TrustPolicy)"},
	{"tlog/...", []string{"internal/...", "canonjson/...", "signednote/...", "keyfile", "bundle/...", "attest/...", "offline/...", "witness/...", "tlog/..."}, "the log and its clients"},
	{"oci/ocitest", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/...", "validator/...", "attest/...", "document"}, "registries for tests (distribution, go-containerregistry's), images and bundles to push"},
	{"oci/pulled", []string{"internal/...", "canonjson/..."}, "a folder written by oci pull, read offline (its index, each bundle checked against it): links no network, so verifycmd reads pulled folders"},
	{"oci/...", []string{"internal/...", "canonjson/...", "signednote/...", "bundle/...", "validator/...", "attest/...", "document", "oci/..."}, "OCI registries (oras-go): attach, discover, pull; links net/http, so no verification package imports it"},
	{"keyless/...", []string{"internal/...", "ed25519strict", "canonjson/...", "signednote/...", "keyfile", "bundle/...", "validator/...", "attest/...", "document", "offline", "trustpolicy", "keyless/..."}, "keyless signing (Fulcio certificate, RFC 3161 timestamp, material checked with sigstore-go) and the offline verification of identity signers: links net/http and sigstore-go, so only cmd/mcpres-sigstore links it"},
	{"cmd/internal/verifycmd", []string{"internal/...", "canonjson/...", "signednote/...", "keyfile", "bundle/...", "validator/...", "attest/...", "document", "offline", "trustpolicy", "oci/pulled", "cmd/internal/keyhints"}, "attest verify's command code, shared by mcpres and mcpres-sigstore: never offline/rekor (mcpres-sigstore plugs its loader in), so mcpres links no Sigstore"},
	{"cmd/internal/tuffetch", []string{"internal/...", "canonjson/..."}, "the fetch-result schema mcpres-tuf writes and mcpres reads: no TUF code, so mcpres links no go-tuf"},
	{"cmd/...", []string{"..."}, "the CLIs"},
	{"bench/...", []string{"..."}, "the measurement tool (go run ./bench) and its floor programs: may use everything, and no command links them"},
}

// exceptions are imports the table does not allow but the tree still has,
// each with the change that removes it. Keep this list empty.
var exceptions = map[string]string{}

// The one definition of "offline" (DESIGN.md §2, REFERENCE §6.1): the
// verification packages link no HTTP client or server, no TLS and no
// Tessera, checked on their transitive dependencies; package offline links
// no package net at all.
var (
	verification = []string{"attest/...", "bundle/...", "canonjson/...", "ed25519strict", "keyfile", "internal/...", "signednote/...", "offline", "trustpolicy", "validator/...", "document", "report/...", "inspect", "cmd/internal/verifycmd", "oci/pulled",
		// witness is not on a verify path, but cosigning is offline too:
		// its HTTP service lives in its own package.
		"witness"}
	notLinked = []string{"net/http", "crypto/tls", "github.com/transparency-dev/tessera/...", "k8s.io/klog/..."}
	noNet     = []string{"offline"}
	netPkgs   = []string{"net", "net/..."}
)

// startup is the startup budget of DESIGN.md §4: the mcpres binary links
// none of sigstore, protobuf, gRPC, in-toto or the OCI client (their inits
// would be paid by every `mcpres validate`); cmd/mcpres-sigstore and
// cmd/mcpres-oci do.
var (
	startup       = []string{"cmd/mcpres"}
	startupBanned = []string{"github.com/sigstore/...", "google.golang.org/protobuf/...", "google.golang.org/grpc/...", "github.com/in-toto/...",
		// oras-go and go-digest compile regular expressions at init
		// (about 1 ms): the OCI commands are in cmd/mcpres-oci.
		"oras.land/...", "github.com/opencontainers/...",
		// a cgo package outside the standard library makes the binary
		// externally linked: 4 MB more resident memory in every run
		// (PKCS#11 runs in the helper cmd/mcpres-pkcs11).
		"github.com/miekg/pkcs11"}
)

// Rendering is pure (DESIGN.md §2): report links nothing that fetches or
// listens (the offline rule above), starts no program, and links none of
// the log, witness or TUF packages.
var (
	rendering       = []string{"report/..."}
	renderingBanned = []string{"os/exec", full("tlog") + "/...", full("witness") + "/...", full("trustpolicy/tufdist") + "/..."}
)

// match reports whether the import path p (relative to the module root for
// the module's packages) matches pattern.
func match(pattern, p string) bool {
	if pattern == "..." {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == dir || strings.HasPrefix(p, dir+"/")
	}
	return p == pattern
}

func matchAny(patterns []string, p string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool { return match(pat, p) })
}

// graph is the non-test import graph of every package of the module and
// its dependencies, from one `go list -deps`.
type graph struct {
	imports map[string][]string // full import path → direct imports
	own     []string            // the module's packages, relative paths
}

func loadGraph(t *testing.T) *graph {
	t.Helper()
	g := &graph{imports: map[string][]string{}}
	for _, f := range goList(t, "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .Imports \" \"}}", "./...") {
		g.imports[f[0]] = strings.Fields(f[2])
		if rel, ok := relative(f[0]); ok {
			g.own = append(g.own, rel)
		}
	}
	if len(g.own) < 20 || len(g.imports) < 100 {
		t.Fatalf("implausible package list: %d own packages, %d in all", len(g.own), len(g.imports))
	}
	slices.Sort(g.own)
	return g
}

// goList runs `go list args` in the module root and returns its lines,
// split at tabs; the template's second field must be {{.Dir}}. It opens
// the directory of each of the module's packages, the module root, go.mod
// and go.sum, so that the test cache reruns the test when a source file
// changes or a package appears (the cache records what the test process
// opens, not what the go command reads).
func goList(t *testing.T, args ...string) [][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go tool is not on PATH (%v): cannot list packages", err)
	}
	// "./..." and not the module path: a module-path pattern makes the go
	// command consult every module of the build list for matching packages,
	// including ones no build of this platform downloads (cobra's
	// Windows-only mousetrap), which fails on an empty module cache.
	// "./..." loads the main module's packages and what they import, the
	// modules `go build ./...` needs and `go test ./...` has downloaded.
	cmd := exec.Command(goTool, append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOPROXY=off") // never let the check reach a module proxy
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if bytes.Contains(stderr.Bytes(), []byte("module lookup disabled by GOPROXY=off")) {
			// Only when this package is tested alone on a cold module cache:
			// `go test ./...` downloads every module the build needs first.
			t.Skipf("a module the build needs is not in the module cache (run `go mod download` or `go test ./...`):\n%s", stderr.Bytes())
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var lines [][]string
	watch := []string{"../..", "../../go.mod", "../../go.sum"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		if _, own := relative(f[0]); own {
			watch = append(watch, f[1])
		}
		lines = append(lines, f)
	}
	for _, name := range watch {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return lines
}

func relative(p string) (string, bool) {
	if p == module {
		return ".", true
	}
	return strings.CutPrefix(p, module+"/")
}

func full(rel string) string { return path.Join(module, rel) }

// chain returns the shortest import chain from the package from to a
// package matching one of targets, or nil.
func (g *graph) chain(from string, targets []string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p != from && matchAny(targets, p) {
			var c []string
			for ; p != ""; p = prev[p] {
				c = append(c, strings.TrimPrefix(p, module+"/"))
			}
			slices.Reverse(c)
			return c
		}
		for _, imp := range g.imports[p] {
			if _, seen := prev[imp]; !seen {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

// TestLayering checks the allowed-imports table on every package of the
// module.
func TestLayering(t *testing.T) {
	g := loadGraph(t)
	used := map[string]bool{}
	for _, p := range g.own {
		i := slices.IndexFunc(layout, func(r row) bool { return match(r.pkg, p) })
		if i < 0 {
			t.Errorf("package %s has no row in the layering table: add one to internal/layering/layering_test.go (and to DESIGN.md §2 if it is a new layer), saying what it may import", p)
			continue
		}
		r := layout[i]
		for _, imp := range g.imports[full(p)] {
			rel, own := relative(imp)
			if !own || matchAny(r.may, rel) {
				continue
			}
			edge := p + " → " + rel
			if _, ok := exceptions[edge]; ok {
				used[edge] = true
				continue
			}
			t.Errorf("%s imports %s, which the layout does not allow (%s may import %s: %s).\n"+
				"Dependencies point downward only (DESIGN.md §2): move the fact %s needs down to the lowest package that can own it (often a package under internal/), "+
				"or, if the layout itself changed, change the table in internal/layering/layering_test.go and DESIGN.md §2 together.",
				p, rel, r.pkg, strings.Join(r.may, ", "), r.why, p)
		}
	}
	for edge, why := range exceptions {
		if !used[edge] {
			t.Errorf("the exception %q (%s) no longer occurs: delete it from internal/layering/layering_test.go", edge, why)
		}
	}
}

// TestOffline is the one definition of "offline": see verification,
// notLinked and noNet.
func TestOffline(t *testing.T) {
	g := loadGraph(t)
	check := func(set, banned []string, rule, fix string) {
		n := 0
		for _, p := range g.own {
			if !matchAny(set, p) {
				continue
			}
			n++
			if c := g.chain(full(p), banned); c != nil {
				t.Errorf("%s links %s (%s).\n%s must not (%s). %s",
					p, c[len(c)-1], strings.Join(c, " → "), p, rule, fix)
			}
		}
		if n == 0 {
			t.Errorf("no package matches %v: the rule checks nothing", set)
		}
	}
	check(verification, notLinked,
		"verification is offline: no HTTP client or server, no TLS, no Tessera; DESIGN.md §2, REFERENCE §6.1",
		"Import a package that does not link it, or move the code that needs the network to cmd/ or to a package of its own outside the verification set (as offline/rekor and witness/witnesshttp are).")
	check(noNet, netPkgs,
		"package offline links no package net at all",
		"crypto/x509 and formats/note import net: parse keys without them (signednote reads P-256 DER by hand), or do the work outside offline.")
	check(startup, startupBanned,
		"the startup budget of DESIGN.md §4: every linked package's init runs on every `mcpres validate`",
		"Keep Sigstore/Rekor interop in cmd/mcpres-sigstore and the OCI client in cmd/mcpres-oci, or make the package that pulls it in an opt-in one.")
	check(rendering, renderingBanned,
		"rendering is pure: it renders results computed below it, and starts, fetches or logs nothing",
		"Compute what the report needs in the package that owns it and pass the result in.")
}

// The rules can fire: a controlled graph with one violation of each kind
// (a wrong-reason control: a permitted import is not reported).
func TestLayeringRulesFire(t *testing.T) {
	g := &graph{imports: map[string][]string{
		full("offline"):    {full("signednote"), "crypto/x509"},
		full("signednote"): {"crypto/ecdsa"},
		"crypto/x509":      {"net"},
		"net":              nil,
		"crypto/ecdsa":     nil,
	}}
	if c := g.chain(full("offline"), netPkgs); fmt.Sprint(c) != "[offline crypto/x509 net]" {
		t.Errorf("chain to net = %v", c)
	}
	if c := g.chain(full("signednote"), netPkgs); c != nil {
		t.Errorf("a package that does not link net: chain %v", c)
	}
	r := layout[slices.IndexFunc(layout, func(r row) bool { return match(r.pkg, "internal/truncate") })]
	if matchAny(r.may, "validator/schema") || matchAny(r.may, "canonjson") || !matchAny(r.may, "internal/datetime") {
		t.Errorf("internal/... row allows %v", r.may)
	}
	r = layout[slices.IndexFunc(layout, func(r row) bool { return match(r.pkg, "canonjson/canonjsontest") })]
	if matchAny(r.may, "bundle") || !matchAny(r.may, "canonjson") {
		t.Errorf("canonjson/... row allows %v", r.may)
	}
	// The witness's HTTP service has a row of its own: it may use witness
	// but no log, and it is outside the offline set that witness is in; the
	// log's witness client may not link the witness's server.
	r = layout[slices.IndexFunc(layout, func(r row) bool { return match(r.pkg, "witness/witnesshttp") })]
	if r.pkg != "witness/witnesshttp" || !matchAny(r.may, "witness") || matchAny(r.may, "tlog") {
		t.Errorf("witness/witnesshttp row: %+v", r)
	}
	r = layout[slices.IndexFunc(layout, func(r row) bool { return match(r.pkg, "tlog/witnessclient") })]
	if r.pkg != "tlog/witnessclient" || matchAny(r.may, "witness/witnesshttp") || !matchAny(r.may, "witness") {
		t.Errorf("tlog/witnessclient row: %+v", r)
	}
	if !matchAny(verification, "witness") || matchAny(verification, "witness/witnesshttp") || matchAny(verification, "tlog/witnessclient") {
		t.Error("witness is offline; its HTTP service and the log's witness client are not")
	}
	// The validator root never imports its kind packages; they may import
	// it and each other, and the root may use the schema engine.
	r = layout[slices.IndexFunc(layout, func(r row) bool { return match(r.pkg, "validator") })]
	if r.pkg != "validator" || matchAny(r.may, "validator/official") || matchAny(r.may, "validator/profile") || !matchAny(r.may, "validator/schema") {
		t.Errorf("validator row: %+v", r)
	}
	r = layout[slices.IndexFunc(layout, func(r row) bool { return match(r.pkg, "validator/oauth") })]
	if !matchAny(r.may, "validator") || !matchAny(r.may, "validator/profile") {
		t.Errorf("validator/... row: %+v", r)
	}
	// Rendering links no program, log or witness, through any chain.
	g.imports[full("report")] = []string{full("attest"), "fmt"}
	g.imports[full("attest")] = []string{full("tlog/client")}
	g.imports[full("tlog/client")] = []string{"os/exec"}
	g.imports["fmt"] = nil
	if c := g.chain(full("report"), renderingBanned); fmt.Sprint(c) != "[report attest tlog/client]" {
		t.Errorf("chain to a log package = %v", c)
	}
	g.imports[full("attest")] = nil
	if c := g.chain(full("report"), renderingBanned); c != nil {
		t.Errorf("a report that links no banned package: chain %v", c)
	}
	if match("offline/...", "offlinetest") || !match("offline/...", "offline/rekor") || !match("offline/...", "offline") || match("offline", "offline/rekor") {
		t.Error("pattern matching is wrong")
	}
}

// readmeBlock returns the lines of the fenced block under "## Architecture"
// in the README.
func readmeBlock(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(doctest.Block(t, string(b), "## Architecture", ""), "\n")
}

// testOnly returns the module's packages that no command links: those not
// reached by the non-test imports of a cmd/ package.
func (g *graph) testOnly() map[string]bool {
	reached := map[string]bool{}
	var queue []string
	for _, p := range g.own {
		if match("cmd/...", p) {
			queue = append(queue, full(p))
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if reached[p] {
			continue
		}
		reached[p] = true
		queue = append(queue, g.imports[p]...)
	}
	only := map[string]bool{}
	for _, p := range g.own {
		if !reached[full(p)] {
			only[p] = true
		}
	}
	return only
}

// checkArchitecture compares the README's architecture block with the
// module's packages: a line that does not start with a space names one
// package as its first word, marked "(tests only)" exactly when no command
// links it. It returns one problem per disagreement.
func checkArchitecture(block, own []string, testOnly map[string]bool) []string {
	var problems []string
	listed := map[string]bool{}
	for _, line := range block {
		if line == "" || line[0] == ' ' {
			continue
		}
		f := strings.Fields(line)
		p := strings.TrimSuffix(f[0], "/")
		if listed[p] {
			problems = append(problems, fmt.Sprintf("%s is listed twice", p))
		}
		listed[p] = true
		if !slices.Contains(own, p) {
			problems = append(problems, fmt.Sprintf("%s is listed but is not a package of the module (go list ./...): delete its line or fix its name", p))
			continue
		}
		marked := strings.Contains(line, "(tests only)")
		if marked && !testOnly[p] {
			problems = append(problems, fmt.Sprintf("%s is marked (tests only) but a command links it: remove the mark", p))
		}
		if !marked && testOnly[p] {
			problems = append(problems, fmt.Sprintf("%s is linked by no command: mark it (tests only)", p))
		}
	}
	for _, p := range own {
		if !listed[p] {
			problems = append(problems, fmt.Sprintf("package %s is missing: add a line for it, in its layer, saying what it owns", p))
		}
	}
	return problems
}

// TestREADMEArchitecture: the README's architecture block lists every
// package of the module and nothing else, helpers marked.
func TestREADMEArchitecture(t *testing.T) {
	g := loadGraph(t)
	only := g.testOnly()
	// The object-storage log is linked by mcpres built with -tags
	// mcpres_s3 (cmd/mcpres/logs3_aws.go): a command links it.
	for _, f := range goList(t, "-tags", "mcpres_s3", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{.Name}}", "./cmd/mcpres") {
		if rel, ok := relative(f[0]); ok {
			delete(only, rel)
		}
	}
	for _, p := range checkArchitecture(readmeBlock(t), g.own, only) {
		t.Errorf("README.md, architecture block: %s", p)
	}
}

// The README check fires for a missing package, an extra one, a duplicate
// and either wrong mark; a correct block passes.
func TestREADMEArchitectureFires(t *testing.T) {
	own := []string{"a", "a/atest", "b"}
	testOnly := map[string]bool{"a/atest": true}
	good := []string{"a           the a layer", "            continued", "a/atest     (tests only) helpers", "b/          the b layer"}
	if p := checkArchitecture(good, own, testOnly); len(p) != 0 {
		t.Errorf("correct block: %v", p)
	}
	for _, tc := range []struct {
		name  string
		block []string
		want  string
	}{
		{"missing", []string{"a  x", "a/atest  (tests only)"}, "package b is missing"},
		{"extra", append(slices.Clone(good), "c  x"), "c is listed but is not a package"},
		{"twice", append(slices.Clone(good), "b  again"), "b is listed twice"},
		{"unmarked helper", []string{"a  x", "a/atest  helpers", "b  x"}, "a/atest is linked by no command"},
		{"marked product", []string{"a  (tests only)", "a/atest  (tests only)", "b  x"}, "a is marked (tests only)"},
	} {
		p := checkArchitecture(tc.block, own, testOnly)
		if len(p) != 1 || !strings.HasPrefix(p[0], tc.want) {
			t.Errorf("%s: problems %q, want one starting %q", tc.name, p, tc.want)
		}
	}
}
