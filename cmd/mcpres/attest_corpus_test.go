package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// attestDir is the committed attestation corpus (REFERENCE §3.8, §9.4).
var attestDir = filepath.Join("..", "..", "testdata", "attestation")

// corpusCase is one entry of testdata/attestation/catalog.json.
type corpusCase struct {
	id, wrapper, policy string // policy "" when the case has none
	expected            []string
	level               string // authenticityClassification when valid
	evaluatedAt         string // the case's evaluatedAt, else the catalog's
}

func loadAttestCatalog(t testing.TB) []corpusCase {
	t.Helper()
	_, cat, err := canonjson.ReadFile(filepath.Join(attestDir, "catalog.json"))
	if err != nil {
		t.Fatalf("reading the committed attestation catalog: %v", err)
	}
	if got := strOf(cat.Get("schemaVersion")); got != "mcp-res.attestation-test-corpus/0.2.0" {
		t.Fatalf("catalog schemaVersion %q", got)
	}
	defaultAt := strOf(cat.Get("evaluatedAt"))
	var cases []corpusCase
	for _, e := range cat.Get("cases").Items {
		c := corpusCase{
			id:          strOf(e.Get("id")),
			wrapper:     filepath.Join(attestDir, strOf(e.Get("wrapper"))),
			expected:    []string{},
			level:       strOf(e.Get("authenticityClassification")),
			evaluatedAt: defaultAt,
		}
		if p := e.Get("trustPolicy"); p.Is(canonjson.String) {
			c.policy = filepath.Join(attestDir, p.Str)
		}
		for _, d := range e.Get("expectedDiagnostics").Items {
			c.expected = append(c.expected, d.Str)
		}
		if at := e.Get("evaluatedAt"); at.Is(canonjson.String) {
			c.evaluatedAt = at.Str
		}
		cases = append(cases, c)
	}
	return cases
}

// strOf returns v's string, or "" when v is absent or not a string.
func strOf(v *canonjson.Value) string {
	if !v.Is(canonjson.String) {
		return ""
	}
	return v.Str
}

// verifyArgs is the command line of issue #3 for one case, on the
// validator that matches the reference's result object and exit status:
// mcpres validate --policy (attest verify is the gate; TestCLIGate…).
func (c corpusCase) verifyArgs(policy string) []string {
	args := []string{"validate"}
	if policy != "" {
		args = append(args, "--policy", policy)
	}
	return append(args, "--evaluated-at", c.evaluatedAt, "--format", "json", c.wrapper)
}

// memberKeys lists the keys of a result object in output order.
func memberKeys(v *canonjson.Value) []string {
	var keys []string
	for _, m := range v.Members {
		keys = append(keys, m.Key)
	}
	return keys
}

func stringItems(v *canonjson.Value) []string {
	out := []string{}
	for _, d := range v.Items {
		out = append(out, d.Str)
	}
	return out
}

// parseOneLine parses stdout as exactly one compact JSON object followed by
// one LF (REFERENCE §1.6).
func parseOneLine(t testing.TB, stdout string) *canonjson.Value {
	t.Helper()
	line, ok := strings.CutSuffix(stdout, "\n")
	if !ok || strings.Contains(line, "\n") {
		t.Fatalf("stdout is not exactly one line: %q", stdout)
	}
	v, err := canonjson.Parse([]byte(line))
	if err != nil || !v.Is(canonjson.Object) {
		t.Fatalf("stdout is not one JSON object (%v): %s", err, stdout)
	}
	if compact, err := canonjson.Compact(v); err != nil || string(compact) != line {
		t.Errorf("stdout is not in the compact layout:\n got %s\nwant %s", line, compact)
	}
	return v
}

// TestCLIAttestationCorpus runs every case of the committed corpus through
// `mcpres attest verify --policy P --evaluated-at T --format json W` and
// checks the printed object member by member (REFERENCE §5.3): valid,
// diagnostics, schemaErrors, authenticityClassification and evidenceClass
// only when valid, evaluatedAt echoed byte for byte, the member order, and
// exit 0 (valid) or 1 (a diagnostic) with nothing on stderr.
func TestCLIAttestationCorpus(t *testing.T) {
	cases := loadAttestCatalog(t)
	if len(cases) < 17 {
		t.Fatalf("catalog has %d cases, want at least the 17 of REFERENCE §9.4", len(cases))
	}
	levels := map[string]bool{}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.verifyArgs(c.policy)...)
			valid := len(c.expected) == 0
			wantCode := exitInvalid
			if valid {
				wantCode = exitValid
			}
			if code != wantCode || stderr != "" {
				t.Errorf("exit %d, stderr %q; want exit %d and no stderr but the no-policy warning", code, stderr, wantCode)
			}
			res := parseOneLine(t, stdout)
			if got := res.Get("valid"); !got.Is(canonjson.Bool) || got.Bool != valid {
				t.Errorf("valid = %v, want %t", got, valid)
			}
			if got := stringItems(res.Get("diagnostics")); !slices.Equal(got, c.expected) {
				t.Errorf("diagnostics %v, want %v", got, c.expected)
			}
			if !res.Get("schemaErrors").Is(canonjson.Array) {
				t.Errorf("schemaErrors is missing or not an array: %s", stdout)
			}
			if got := res.Get("evaluatedAt"); !got.Is(canonjson.String) || got.Str != c.evaluatedAt {
				t.Errorf("evaluatedAt = %v, want %q echoed exactly", got, c.evaluatedAt)
			}
			want := []string{"valid", "diagnostics", "schemaErrors"}
			if valid {
				if got := strOf(res.Get("authenticityClassification")); got != c.level || c.level == "" {
					t.Errorf("authenticityClassification %q, want %q", got, c.level)
				}
				levels[c.level] = true
				want = append(want, "authenticityClassification")
				// evidenceClass is bundle.statement.evidenceClass, absent in
				// the no-envelope case (REFERENCE §5.3).
				if c.level == "UNSIGNED_INTEGRITY_ONLY" {
					if res.Has("evidenceClass") {
						t.Errorf("evidenceClass present without envelopes: %s", stdout)
					}
				} else {
					_, w, err := canonjson.ReadFile(c.wrapper)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := strOf(res.Get("evidenceClass")), strOf(w.Path("bundle", "statement", "evidenceClass")); got != want || want == "" {
						t.Errorf("evidenceClass %q, want the bundle's %q", got, want)
					}
					want = append(want, "evidenceClass")
				}
			} else {
				for _, k := range []string{"authenticityClassification", "evidenceClass", "message"} {
					if res.Has(k) {
						t.Errorf("invalid result carries %q: %s", k, stdout)
					}
				}
			}
			want = append(want, "evaluatedAt")
			if keys := memberKeys(res); len(keys) < len(want) || !slices.Equal(keys[:len(want)], want) {
				t.Errorf("members %v, want them to start with %v (REFERENCE §5.3 order)", keys, want)
			}
		})
	}
	for _, l := range []string{"UNSIGNED_INTEGRITY_ONLY", "SIGNED", "SIGNED_WITH_IDENTITY", "WITNESSED", "TRANSPARENCY_RECORDED"} {
		if !levels[l] {
			t.Errorf("no valid corpus case derives %s", l)
		}
	}
}

// The evaluation time is compared as an instant but echoed as written
// (REFERENCE §1.7, §6.9): other spellings of the catalog's instant give
// the same results, with evaluatedAt echoed byte for byte. The last one is
// 999 µs later once truncated to microseconds; rounded up it would reach
// the signing time of signing-time-after-evaluation (…18:05:00.001Z) and
// make that case valid.
func TestCLIAttestationCorpusEquivalentInstants(t *testing.T) {
	cases := loadAttestCatalog(t)
	const catalogAt = "2026-08-27T18:05:00.000Z"
	for _, at := range []string{
		"2026-08-27T18:05:00Z",
		"2026-08-27T20:05:00.000+02:00",
		"2026-08-27T13:05:00-0500",
		"2026-08-27 18:05:00.000000Z",
		"2026-08-27t18:05:00.000z",
		"2026-08-27T18:05:00.0009999Z", // truncated to microseconds, not rounded
	} {
		t.Run(at, func(t *testing.T) {
			for _, c := range cases {
				if c.evaluatedAt != catalogAt {
					continue
				}
				want, _, wantCode := runCLI(t, c.verifyArgs(c.policy)...)
				alt := c
				alt.evaluatedAt = at
				got, stderr, code := runCLI(t, alt.verifyArgs(c.policy)...)
				if code != wantCode || stderr != "" {
					t.Errorf("%s: exit %d (stderr %q), want %d", c.id, code, stderr, wantCode)
				}
				if strings.ReplaceAll(got, `"`+at+`"`, `"`+catalogAt+`"`) != want {
					t.Errorf("%s: result differs beyond evaluatedAt:\n got %s\nwant %s", c.id, got, want)
				}
				if !strings.Contains(got, `"evaluatedAt":"`+at+`"`) {
					t.Errorf("%s: evaluatedAt not echoed as written: %s", c.id, got)
				}
			}
		})
	}
}

var inputInvalidPrefix = `{"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"],"message":"MCP_RES_INPUT_INVALID: `

// checkInputInvalid asserts the exact MCP_RES_INPUT_INVALID object of
// REFERENCE §5.0: three members, no evaluatedAt, exit 2, on stdout only.
func checkInputInvalid(t *testing.T, stdout, stderr string, code int, reason string) {
	t.Helper()
	if code != exitInput || stderr != "" {
		t.Errorf("exit %d, stderr %q; want exit 2 and no stderr", code, stderr)
	}
	res := parseOneLine(t, stdout)
	if !strings.HasPrefix(stdout, inputInvalidPrefix) || !slices.Equal(memberKeys(res), []string{"valid", "diagnostics", "message"}) {
		t.Errorf("stdout %s, want exactly the MCP_RES_INPUT_INVALID object", stdout)
	}
	if msg := strOf(res.Get("message")); !strings.Contains(msg, reason) {
		t.Errorf("message %q does not mention %q", msg, reason)
	}
}

// The trust policy is read right after the wrapper and before G1, so an
// unreadable policy file gives MCP_RES_INPUT_INVALID (exit 2) whatever
// G1–G8 would have decided: for every corpus case, valid or not, with or
// without its own policy (REFERENCE §5.3).
func TestCLIAttestationUnreadablePolicy(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.trust-policy.json")
	for _, c := range loadAttestCatalog(t) {
		t.Run(c.id, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.verifyArgs(missing)...)
			checkInputInvalid(t, stdout, stderr, code, "trust policy")
			if !strings.Contains(stdout, "no such file") {
				t.Errorf("message does not say why: %s", stdout)
			}
		})
	}

	// Every kind of unreadable policy, on a case that is valid with its
	// own policy and on one that G1 would reject.
	kinds := map[string]func(path string) error{
		"duplicate key":   func(p string) error { return os.WriteFile(p, []byte(`{"id":"a","id":"b"}`), 0o644) },
		"not JSON":        func(p string) error { return os.WriteFile(p, []byte(`{"id":`), 0o644) },
		"byte order mark": func(p string) error { return os.WriteFile(p, []byte("\xEF\xBB\xBFnull"), 0o644) },
		"directory":       func(p string) error { return os.Mkdir(p, 0o755) },
		"empty file":      func(p string) error { return os.WriteFile(p, nil, 0o644) },
		"symlink": func(p string) error {
			good := filepath.Join(attestDir, "witnessed.trust-policy.json")
			abs, err := filepath.Abs(good)
			if err != nil {
				return err
			}
			return os.Symlink(abs, p)
		},
	}
	if os.Geteuid() != 0 {
		kinds["no read permission"] = func(p string) error { return os.WriteFile(p, []byte(`{}`), 0o000) }
	}
	cases := map[string]corpusCase{}
	for _, c := range loadAttestCatalog(t) {
		cases[c.id] = c
	}
	for name, create := range kinds {
		for _, id := range []string{"witnessed", "unsupported-algorithm"} {
			t.Run(name+"/"+id, func(t *testing.T) {
				p := filepath.Join(t.TempDir(), "policy.json")
				if err := create(p); err != nil {
					t.Fatal(err)
				}
				stdout, stderr, code := runCLI(t, cases[id].verifyArgs(p)...)
				checkInputInvalid(t, stdout, stderr, code, "trust policy")
			})
		}
	}

	// The wrapper is read first: with both unreadable, the wrapper is named.
	t.Run("wrapper read first", func(t *testing.T) {
		c := cases["witnessed"]
		c.wrapper = filepath.Join(dir, "missing-wrapper.json")
		stdout, stderr, code := runCLI(t, c.verifyArgs(missing)...)
		checkInputInvalid(t, stdout, stderr, code, "missing-wrapper.json")
		if strings.Contains(stdout, "trust policy") {
			t.Errorf("the policy was reported before the wrapper: %s", stdout)
		}
	})
}

// An --evaluated-at that is not a REFERENCE §1.7 date-time is a usage
// error: exit 2, usage on stderr, nothing on stdout (no result object).
func TestCLIAttestVerifyEvaluatedAtUsage(t *testing.T) {
	wrapper := filepath.Join(attestDir, "witnessed.json")
	policy := filepath.Join(attestDir, "witnessed.trust-policy.json")
	for _, at := range []string{
		"2026-12-31T23:59:60Z", // leap second (REFERENCE §1.7, §10 row 10)
		"2026-02-29T00:00:00Z", // no such day
		"2026-08-27",
		"now",
	} {
		t.Run(at, func(t *testing.T) {
			args := []string{"attest", "verify", "--policy", policy, "--evaluated-at", at, "--format", "json", wrapper}
			stdout, stderr, code := runCLI(t, args...)
			if code != exitInput || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 2 and nothing on stdout", code, stdout)
			}
			if !strings.Contains(stderr, "--evaluated-at") || !strings.Contains(stderr, usagePointer) {
				t.Errorf("stderr %q should name --evaluated-at and show the usage", stderr)
			}
		})
	}
}

// Without --evaluated-at the evaluation time is now, echoed as
// YYYY-MM-DDTHH:MM:SS.sssZ (REFERENCE §6.9).
func TestCLIAttestVerifyDefaultEvaluatedAt(t *testing.T) {
	stdout, stderr, code := runCLI(t, "attest", "verify", filepath.Join(attestDir, "unsigned-integrity-only.json"))
	if code != exitValid || stderr != verifyStderr("") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	at := strOf(parseOneLine(t, stdout).Get("evaluatedAt"))
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`).MatchString(at) {
		t.Errorf("default evaluatedAt %q is not YYYY-MM-DDTHH:MM:SS.sssZ", at)
	}
}
