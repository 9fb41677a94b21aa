package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/canonjson"
)

// Fixtures of the v0.1 validator and the migration corpus (kept by the
// validator package's tests), and mcpres's own v0.2 example.
var (
	migExampleV01   = filepath.Join("..", "..", "validator", "v01", "testdata", "example.json")
	migFixtureV01   = filepath.Join("..", "..", "validator", "v01", "testdata", "fixture-backed.json")
	migCorpusDir    = filepath.Join("..", "..", "validator", "migration", "testdata")
	migExampleV02   = filepath.Join("..", "..", "testdata", "bundles", "example.json")
	migCorpusToolSH = canonjson.TextDigest("mcp-res-migrate@0.2.0\n") // the corpus's stand-in tool digest
)

// requireMigrate fails the test while `mcpres migrate` is not registered.
func requireMigrate(t *testing.T) {
	t.Helper()
	for _, c := range (&app{}).rootCommand().Commands() {
		if c.Name() == "migrate" {
			return
		}
	}
	t.Fatal("the migrate command is not registered: add a.migrateCommand() to root.AddCommand in main.go's rootCommand")
}

// absFile reads a fixture before the test changes directory.
func absFile(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// migWorkspace makes a fresh working directory (the test's current
// directory until it ends) holding a copy of src as in.json.
func migWorkspace(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if err := os.WriteFile(filepath.Join(dir, "in.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

// stamp is a file's content and modification time.
type stamp struct {
	data  []byte
	mtime time.Time
}

func stampOf(t *testing.T, path string) stamp {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return stamp{data, st.ModTime()}
}

func migrateArgs(extra ...string) []string {
	return append([]string{"migrate", "--from", "0.1.0", "--to", "0.2.0"}, extra...)
}

// The printed outcome: one compact JSON object on one line.
func migrateOutcome(t *testing.T, stdout string) *canonjson.Value {
	t.Helper()
	if !strings.HasSuffix(stdout, "\n") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout is not one line: %q", stdout)
	}
	v, err := canonjson.Parse([]byte(strings.TrimSuffix(stdout, "\n")))
	if err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if c, _ := canonjson.Compact(v); string(c)+"\n" != stdout {
		t.Errorf("stdout is not compact: %s", stdout)
	}
	return v
}

// TestCLIUpstreamV01Catalog runs every v0.1.0 vector through `mcpres
// validate`: the v0.1 rules are selected by schemaVersion, the result
// object and exit status are exact (REFERENCE §9.1).
func TestCLIUpstreamV01Catalog(t *testing.T) {
	dir := upstreamDir(t, "v0.1.0")
	_, cat, err := canonjson.ReadFile(filepath.Join(dir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, group := range []string{"valid", "invalid"} {
		for _, e := range cat.Get(group).Items {
			n++
			var want []string
			for _, d := range e.Get("expectedDiagnostics").Items {
				want = append(want, d.Str)
			}
			t.Run(e.Get("id").Str, func(t *testing.T) {
				checkValidateCLI(t, filepath.Join(dir, e.Get("path").Str), want)
			})
		}
	}
	if n != 25 {
		t.Errorf("catalog has %d vectors, want 25", n)
	}
}

// checkValidateCLI runs `mcpres validate path` and requires exactly the
// diagnostics want (none: valid, exit 0; otherwise exit 1).
func checkValidateCLI(t *testing.T, path string, want []string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, "validate", path)
	wantCode := exitValid
	if len(want) > 0 {
		wantCode = exitInvalid
	}
	if code != wantCode || stderr != "" {
		t.Errorf("exit %d (stderr %q), want %d", code, stderr, wantCode)
	}
	res := migrateOutcome(t, stdout)
	var got []string
	for _, d := range res.Get("diagnostics").Items {
		got = append(got, d.Str)
	}
	if res.Get("valid").Bool != (len(want) == 0) || !slices.Equal(got, want) {
		t.Errorf("result %s, want diagnostics %v", stdout, want)
	}
	if keys := memberKeys(res); !slices.Equal(keys, []string{"valid", "diagnostics", "schemaErrors"}) {
		t.Errorf("result members %v", keys)
	}
}

// `mcpres validate` on migration results: the committed corpus (REFERENCE
// §9.5) and mcpres's own v0.1 examples.
func TestCLIValidateMigrationCorpus(t *testing.T) {
	_, cat, err := canonjson.ReadFile(filepath.Join(migCorpusDir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, group := range []string{"valid", "invalid"} {
		for _, e := range cat.Get(group).Items {
			var want []string
			for _, d := range e.Get("expectedDiagnostics").Items {
				want = append(want, d.Str)
			}
			t.Run(e.Get("id").Str, func(t *testing.T) {
				checkValidateCLI(t, filepath.Join(migCorpusDir, e.Get("path").Str), want)
			})
		}
	}
	for _, f := range []string{migExampleV01, migFixtureV01} {
		t.Run(filepath.Base(f), func(t *testing.T) { checkValidateCLI(t, f, nil) })
	}
	// Where both upstream validators abort, so does mcpres: exit 2.
	dir := t.TempDir()
	_, v, err := canonjson.ReadFile(filepath.Join(migCorpusDir, "valid", "valid-migration.json"))
	if err != nil {
		t.Fatal(err)
	}
	v.Path("originalBundle", "evidence").Set("operations", canonjson.NewString("abc"))
	path := filepath.Join(dir, "abort.json")
	data, _ := canonjson.Pretty(v)
	os.WriteFile(path, data, 0o644)
	stdout, stderr, code := runCLI(t, "validate", path)
	if code != exitInput || stderr != "" || !strings.HasPrefix(stdout, `{"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"],"message":"MCP_RES_INPUT_INVALID: originalBundle: `) {
		t.Errorf("exit %d, stdout %s, stderr %q", code, stdout, stderr)
	}
}

// A migration through the CLI writes the golden bytes except for the tool
// digest, which is the SHA-256 of the running executable (masked here,
// REFERENCE §10 row 30); the result validates; migrating it again gives
// identical bytes.
func TestCLIMigrate(t *testing.T) {
	requireMigrate(t)
	golden, err := os.ReadFile(filepath.Join(migCorpusDir, "valid", "valid-migration.json"))
	if err != nil {
		t.Fatal(err)
	}
	exeSum, err := executableSHA256()
	if err != nil {
		t.Fatal(err)
	}
	dir := migWorkspace(t, absFile(t, migFixtureV01))
	in := stampOf(t, "in.json")

	stdout, stderr, code := runCLI(t, migrateArgs("--input", "in.json", "--output", "out.json")...)
	if code != exitValid || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	written, err := os.ReadFile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(written, []byte(exeSum)); n != 1 {
		t.Errorf("the executable's digest %s appears %d times in the result", exeSum, n)
	}
	if masked := bytes.Replace(written, []byte(exeSum), []byte(migCorpusToolSH), 1); !bytes.Equal(masked, golden) {
		t.Errorf("written result (tool digest masked) differs from the golden valid-migration.json:\n%s", written)
	}
	out := migrateOutcome(t, stdout)
	if keys := memberKeys(out); !slices.Equal(keys, []string{"dryRun", "output", "outputSha256", "report"}) {
		t.Errorf("printed members %v", keys)
	}
	_, res, err := canonjson.ReadFile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	if out.Get("output").Str != filepath.Join(dir, "out.json") || out.Get("outputSha256").Str != canonjson.BytesDigest(written) ||
		out.Get("dryRun").Bool || !canonjson.Equal(out.Get("report"), res.Get("report")) {
		t.Errorf("printed %s", stdout)
	}
	if got := stampOf(t, "in.json"); !bytes.Equal(got.data, in.data) || !got.mtime.Equal(in.mtime) {
		t.Error("the input was modified")
	}
	checkValidateCLI(t, "out.json", nil)

	// Again, on its own output: identical bytes, same printed digest.
	stdout2, stderr, code := runCLI(t, migrateArgs("--input", "out.json", "--output", "again.json")...)
	if code != exitValid || stderr != "" {
		t.Fatalf("second migration: exit %d, stderr %q", code, stderr)
	}
	again, _ := os.ReadFile("again.json")
	if !bytes.Equal(again, written) {
		t.Error("migrating the result again changed its bytes")
	}
	if migrateOutcome(t, stdout2).Get("outputSha256").Str != out.Get("outputSha256").Str {
		t.Error("outputSha256 differs on the second migration")
	}
}

func TestCLIMigrateDryRun(t *testing.T) {
	requireMigrate(t)
	dir := migWorkspace(t, absFile(t, migExampleV01))
	before := snapshot(t, dir)
	for _, c := range []struct {
		args  []string
		would string
	}{
		{[]string{"--dry-run", "--input", "in.json"}, ""},
		{[]string{"--input", "in.json", "--output", "sub/../out.json", "--dry-run"}, filepath.Join(dir, "out.json")},
	} {
		stdout, stderr, code := runCLI(t, migrateArgs(c.args...)...)
		if code != exitValid || stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
		assertUnchanged(t, dir, before)
		out := migrateOutcome(t, stdout)
		if keys := memberKeys(out); !slices.Equal(keys, []string{"dryRun", "wouldWrite", "outputSha256", "report"}) {
			t.Errorf("printed members %v", keys)
		}
		if w := out.Get("wouldWrite"); !out.Get("dryRun").Bool || (c.would == "" && !w.Is(canonjson.Null)) || (c.would != "" && w.Str != c.would) {
			t.Errorf("%v: printed %s", c.args, stdout)
		}
		if n := out.Path("report", "legacyAssertionCount").Int; n != 22 {
			t.Errorf("report %s", stdout)
		}
	}
	// What a dry run announces is what a real run writes.
	stdout, _, _ := runCLI(t, migrateArgs("--dry-run", "--input", "in.json")...)
	runCLI(t, migrateArgs("--input", "in.json", "--output", "real.json")...)
	written, _ := os.ReadFile("real.json")
	if migrateOutcome(t, stdout).Get("outputSha256").Str != canonjson.BytesDigest(written) {
		t.Error("the dry run's outputSha256 is not the digest of the written file")
	}
}

// Every refusal exits 1 with its code on stderr and nothing on stdout,
// writes nothing, and leaves the input's bytes and modification time alone.
func TestCLIMigrateRefusals(t *testing.T) {
	requireMigrate(t)
	outside := t.TempDir()
	fixture, v02 := absFile(t, migFixtureV01), absFile(t, migExampleV02)
	secretV01 := func(t *testing.T) {
		_, v, err := canonjson.ReadFile("in.json")
		if err != nil {
			t.Fatal(err)
		}
		v.Path("evidence", "subject").Set("name", canonjson.NewString("QXV0aG9yaXphdGlvbjogQmVhcmVyIGFiYzEyMw=="))
		data, _ := canonjson.Pretty(v)
		os.WriteFile("in.json", data, 0o644)
	}
	for _, c := range []struct {
		name   string
		src    string
		setup  func(t *testing.T)
		output string
		want   string // the message's code part, exactly as upstream prints it
	}{
		{"overwrite of the input", fixture, nil, "in.json", "MCP_RES_MIGRATION_INPUT_OVERWRITE_FORBIDDEN"},
		{"overwrite of the input, lexically", fixture, func(t *testing.T) { os.Mkdir("sub", 0o755) }, "./sub/../in.json", "MCP_RES_MIGRATION_INPUT_OVERWRITE_FORBIDDEN"},
		{"outside the workspace", fixture, nil, filepath.Join(outside, "out.json"), "MCP_RES_MIGRATION_OUTPUT_OUTSIDE_WORKSPACE"},
		{"parent directory", fixture, nil, "../out.json", "MCP_RES_MIGRATION_OUTPUT_OUTSIDE_WORKSPACE"},
		{"symlinked parent", fixture, func(t *testing.T) {
			if err := os.Symlink(outside, "escape"); err != nil {
				t.Fatal(err)
			}
		}, "escape/out.json", "MCP_RES_MIGRATION_OUTPUT_OUTSIDE_WORKSPACE"},
		{"missing parent", fixture, nil, "missing/out.json", "MCP_RES_MIGRATION_OUTPUT_OUTSIDE_WORKSPACE"},
		{"existing output", fixture, func(t *testing.T) { os.WriteFile("out.json", []byte("keep"), 0o644) }, "out.json", "MCP_RES_MIGRATION_OUTPUT_CONFLICT"},
		{"dangling symlink output", fixture, func(t *testing.T) { os.Symlink(filepath.Join(outside, "x.json"), "out.json") }, "out.json", "MCP_RES_MIGRATION_OUTPUT_CONFLICT"},
		{"v0.2 input", v02, nil, "out.json", "MCP_RES_MIGRATION_ALREADY_V02"},
		{"invalid v0.1 input", fixture, secretV01, "out.json", "MCP_RES_MIGRATION_SOURCE_INVALID:MCP_RES_SECRET_DETECTED"},
		{"unevaluable v0.1 input", fixture, func(t *testing.T) {
			os.WriteFile("in.json", []byte(`{"schemaVersion":"mcp-res.conformance-bundle/0.1.0","evidence":{"operations":[null]}}`), 0o644)
		}, "out.json", "MCP_RES_MIGRATION_SOURCE_INVALID:MCP_RES_INPUT_INVALID"},
		{"other document", fixture, func(t *testing.T) { os.WriteFile("in.json", []byte(`{"schemaVersion":"x"}`), 0o644) }, "out.json", "MCP_RES_MIGRATION_SOURCE_VERSION_UNSUPPORTED"},
		{"duplicate keys", fixture, func(t *testing.T) { os.WriteFile("in.json", []byte(`{"a":1,"a":2}`), 0o644) }, "out.json", "MCP_RES_MIGRATION_INPUT_JSON_INVALID"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := migWorkspace(t, c.src)
			if c.setup != nil {
				c.setup(t)
			}
			in, before, beforeOutside := stampOf(t, "in.json"), snapshot(t, dir), snapshot(t, outside)
			for _, dry := range []bool{false, true} {
				args := migrateArgs("--input", "in.json", "--output", c.output)
				if dry {
					args = append(args, "--dry-run")
				}
				stdout, stderr, code := runCLI(t, args...)
				if code != exitInvalid || stdout != "" {
					t.Errorf("dry-run %t: exit %d, stdout %q; want 1 and nothing", dry, code, stdout)
				}
				if !strings.HasPrefix(stderr, "mcpres: error: "+c.want+": ") || strings.Count(stderr, "\n") != 1 {
					t.Errorf("dry-run %t: stderr %q, want the code %s first", dry, stderr, c.want)
				}
				got := stampOf(t, "in.json")
				if !bytes.Equal(got.data, in.data) || !got.mtime.Equal(in.mtime) {
					t.Errorf("dry-run %t: the input was modified", dry)
				}
				assertUnchanged(t, dir, before)
				assertUnchanged(t, outside, beforeOutside)
			}
		})
	}
}

// Usage errors (REFERENCE §7.1 steps 1–3) exit 2 with the usage text and
// run nothing.
func TestCLIMigrateUsage(t *testing.T) {
	requireMigrate(t)
	dir := migWorkspace(t, absFile(t, migFixtureV01))
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{"migrate", "--to", "0.2.0", "--input", "in.json", "--output", "o.json"},
		{"migrate", "--from", "0.2.0", "--to", "0.2.0", "--input", "in.json", "--output", "o.json"},
		{"migrate", "--from", "0.1.0", "--to", "1.0.0", "--input", "in.json", "--output", "o.json"},
		migrateArgs("--output", "o.json"),
		migrateArgs("--input", "in.json"),
		migrateArgs("--input", "in.json", "--output", "", "--dry-run"),
		migrateArgs("--input", "in.json", "--output=", "--dry-run"),
		migrateArgs("--input", "--dry-run"),
		migrateArgs("--input", "in.json", "--output", "--dry-run"),
		migrateArgs("--input", "in.json", "--output", "o.json", "extra"),
		migrateArgs("--input", "in.json", "-o", "o.json"),
		migrateArgs("--input", "in.json", "--output", "o.json", "--force"),
		// "-" is not standard output here (the result is a file): no file
		// named "-" is created (issue 21, item 10).
		migrateArgs("--input", "in.json", "--output", "-"),
	} {
		stdout, stderr, code := runCLI(t, args...)
		if code != exitInput || stdout != "" || !strings.HasPrefix(stderr, "mcpres: error: ") || !strings.Contains(stderr, usagePointer) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 with usage", args, code, stdout, stderr)
		}
		assertUnchanged(t, dir, before)
	}
	// A repeated flag overrides the earlier one.
	stdout, stderr, code := runCLI(t, "migrate", "--from", "9", "--from", "0.1.0", "--to", "0.2.0", "--input", "in.json", "--dry-run")
	if code != exitValid || stderr != "" || !strings.HasPrefix(stdout, `{"dryRun":true,`) {
		t.Errorf("repeated flag: exit %d, stderr %q", code, stderr)
	}
	// Help is not an error.
	stdout, _, code = runCLI(t, "migrate", "--help")
	if code != exitValid || !strings.Contains(stdout, "MCP_RES_MIGRATION_OUTPUT_OUTSIDE_WORKSPACE") {
		t.Errorf("help: exit %d, %q", code, stdout)
	}
}

// The usage errors name mcpres migrate's flags (REFERENCE §7.1 steps
// 1–3); package migrate names only its options, and the command words
// them.
func TestCLIMigrateUsageNamesFlags(t *testing.T) {
	requireMigrate(t)
	migWorkspace(t, absFile(t, migFixtureV01))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "--to", "0.2.0", "--input", "in.json", "--output", "o.json"}, "mcpres: error: --from 0.1.0 is required\n"},
		{[]string{"migrate", "--from", "0.1.0", "--to", "1.0.0", "--input", "in.json", "--output", "o.json"}, `mcpres: error: --to must be 0.2.0, not "1.0.0"` + "\n"},
		{migrateArgs("--output", "o.json"), "mcpres: error: --input is required\n"},
		{migrateArgs("--input", "in.json"), "mcpres: error: --output is required unless --dry-run is given\n"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != exitInput || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want it to start %q", c.args, code, stderr, c.want)
		}
	}
}
