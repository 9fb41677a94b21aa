package report_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/report"
	"github.com/mcpres/mcpres/validator"
)

func mustContain(t *testing.T, page []byte, want ...string) {
	t.Helper()
	for _, w := range want {
		if !bytes.Contains(page, []byte(w)) {
			t.Errorf("report lacks %q", w)
		}
	}
}

func mustNotContain(t *testing.T, page []byte, bad ...string) {
	t.Helper()
	for _, w := range bad {
		if bytes.Contains(page, []byte(w)) {
			t.Errorf("report holds %q", w)
		}
	}
}

func TestRenderExample(t *testing.T) {
	page := render(t, exampleInput(t))
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	mustContain(t, page,
		`<meta http-equiv="Content-Security-Policy" content="`+csp+`"/>`,
		`<span class="status">VALID</span>`,
		"ledger-notes-server", "3.4.1", "mcp-res/server-tool-call/v1",
		// the derived class and an observation it rests on
		"Evidence class the observations derive (REFERENCE §4.1)</dt><dd class=\"\">FIXTURE_BACKED_PROTOCOL",
		"obs-wire-exchange",
		// every section
		`id="subject"`, `id="scenario"`, `id="graph"`, `id="timeline"`, `id="coverage"`, `id="trials"`, `id="integrity"`, `id="limits"`,
		// the graph: both operations, the negative control marked, its retry edge
		"op-list-notes", "op-truncated-reply", `class="op k-negative"`, `class="edge retry"`,
		"fault/truncated-content-array", "policy/no-retry-read",
		// coverage, trial chart, manifest
		"MCP_WIRE_MESSAGES", `aria-label="trial durations"`, "evidence-envelope.json",
		// §9, always
		"Limits of a result (MCP-RES v0.2.0 §9)", "production",
	)
	mustNotContain(t, page, `class="diag"`, ` fired"`, `id="authenticity"`, `id="document"`)
}

// TestRenderDiagnostic: an invalid bundle shows its code, what the check
// means, where it looks and the validator's detail, and marks the
// operation the detail names; the valid example (above) shows none of it.
func TestRenderDiagnostic(t *testing.T) {
	doc := bundletest.Example(t)
	ops := doc.Path("evidence", "operations").Items
	ops[1].Set("parentOperationId", canonjson.NewString("op-missing"))
	in := validate(t, doc)
	if in.Result.Valid || in.Result.Diagnostics[0] != validator.CodeCausalMismatch {
		t.Fatalf("mutated bundle: %+v, want %s", in.Result, validator.CodeCausalMismatch)
	}
	page := render(t, in)
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	mustContain(t, page, `<span class="status">INVALID</span>`, "<code>MCP_RES_CAUSAL_MISMATCH</code>",
		"The operation graph or a statement mirror is inconsistent", "Where the check looks: evidence.operations",
		"operation op-truncated-reply: parent &#34;op-missing&#34; is not an operation",
		`class="op k-negative fired"`, "parent op-missing does not exist")
	// Wrong-reason control: another fault marks no operation.
	doc = bundletest.Example(t)
	doc.Path("evidence", "trialSummary").Set("completedTrials", canonjson.NewInt(0))
	in = validate(t, doc)
	if in.Result.Diagnostics[0] != validator.CodeTrialSummaryInconsistent {
		t.Fatalf("got %v, want %s", in.Result.Diagnostics, validator.CodeTrialSummaryInconsistent)
	}
	page = render(t, in)
	mustContain(t, page, "<code>MCP_RES_TRIAL_SUMMARY_INCONSISTENT</code>", "evidence.trialSummary")
	mustNotContain(t, page, ` fired"`, "MCP_RES_CAUSAL_MISMATCH")
}

func TestRenderSchemaErrors(t *testing.T) {
	doc := bundletest.Example(t)
	doc.Path("evidence", "run").Set("monotonicDurationMs", canonjson.NewString("long"))
	in := validate(t, doc)
	page := render(t, in)
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	mustContain(t, page, "<code>MCP_RES_SCHEMA_INVALID</code>", "/evidence/run/monotonicDurationMs",
		"not derivable: the bundle does not have the schema")
}

func TestRenderAttested(t *testing.T) {
	in := witnessedInput(t)
	if !in.Attestation.Valid {
		t.Fatalf("witnessed corpus case does not verify: %+v", in.Attestation.Result)
	}
	in.PolicyName = "witnessed.trust-policy.json"
	page := render(t, in)
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	ev := in.Attestation.Evaluation
	mustContain(t, page, `id="authenticity"`, `<dd class="big">WITNESSED</dd>`,
		"Evidence class (echoed from the signed bundle)", *ev.PolicyID+" version "+*ev.PolicyVersion, corpusTime,
		ev.Envelopes[0].KeyFingerprint, ev.Envelopes[1].KeyFingerprint, ev.Envelopes[1].SignerIdentity,
		"witnessed: 2 distinct keys, 2 required", "witnessed.trust-policy.json",
		// and the signed bundle in full
		`id="graph"`, "ledger-notes-server")
	// Control: without the policy the WITNESSED claim fails, and the page
	// says so instead of showing a level.
	in = verify(t, repoFile(t, "attestation/witnessed.json"), nil)
	page = render(t, in)
	mustContain(t, page, "<code>MCP_RES_ATTESTATION_UNTRUSTED_SIGNER</code>", "none supplied: at most SIGNED", "none: verification failed")
	mustNotContain(t, page, `<dd class="big">WITNESSED</dd>`)
}

// TestRenderOtherKinds: official attachments, OAuth evaluations without
// manifests (an input error) and v0.1 bundles get a verdict and a
// structured view.
func TestRenderOtherKinds(t *testing.T) {
	for _, name := range []string{"official/clean.json", "oauth/runtime-probe-2025-11-25.json", "official/altered-output.json"} {
		t.Run(name, func(t *testing.T) {
			doc := repoFile(t, name)
			in := validate(t, doc)
			page := render(t, in)
			if err := checkPage(page); err != nil {
				t.Fatal(err)
			}
			mustContain(t, page, `id="verdict"`, `id="document"`, `id="limits"`, "schemaVersion", doc.Get("schemaVersion").Str)
			switch {
			case in.InputError != "":
				mustContain(t, page, "INPUT INVALID", "MCP_RES_INPUT_INVALID")
			case in.Result.Valid:
				mustContain(t, page, `<span class="status">VALID</span>`)
			default:
				mustContain(t, page, `<span class="status">INVALID</span>`, in.Result.Diagnostics[0])
			}
		})
	}
}

func TestRenderInputInvalid(t *testing.T) {
	page := render(t, report.Input{Name: "broken.json", InputError: "duplicate key \"a\" at offset 7"})
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	mustContain(t, page, "INPUT INVALID", "MCP_RES_INPUT_INVALID", "duplicate key &#34;a&#34; at offset 7", `id="limits"`)
}

// TestRenderHostile: no string of a document or a result can add markup,
// a URL, a control or bidi character or an unbounded text run to the page.
func TestRenderHostile(t *testing.T) {
	for name, in := range hostileInputs(t, "http://127.0.0.1:9") {
		t.Run(name, func(t *testing.T) {
			page := render(t, in)
			if err := checkPage(page); err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(bytes.ToLower(page), []byte("<script")); n != 0 {
				t.Errorf("%d raw <script in the page", n)
			}
			if bytes.Count(page, []byte("</style>")) != 1 {
				t.Errorf("</style> appears %d times, want once (ours)", bytes.Count(page, []byte("</style>")))
			}
			// Control: the payloads did reach the page, escaped and marked.
			switch name {
			case "input-invalid":
				mustContain(t, page, "&lt;meta http-equiv=&#34;refresh&#34;")
			case "long":
				mustContain(t, page, "⟨U&#43;202E⟩&lt;script&gt;", "more characters]")
			default:
				mustContain(t, page, "&lt;script&gt;", "⟨U&#43;202E⟩", "more characters]")
			}
		})
	}
}

// TestCheckPageCatches keeps checkPage honest: each defect it looks for,
// injected into a good report, fails it.
func TestCheckPageCatches(t *testing.T) {
	good := render(t, exampleInput(t))
	for _, bad := range []string{
		`<script>x()</script>`, `<img src="http://127.0.0.1:9/x"/>`, `<p onclick="x()">a</p>`, `<a href="javascript:x()">a</a>`,
		`<style>p{}</style>`, "\u202E", "\x00", `<p>` + strings.Repeat("A", 3000) + `</p>`, `<p>unclosed`, `&nbsp;`,
	} {
		page := bytes.Replace(good, []byte("<main>"), []byte("<main>"+bad), 1)
		if err := checkPage(page); err == nil {
			t.Errorf("checkPage accepts a page with %q", bad)
		}
	}
	if err := checkPage(good); err != nil {
		t.Fatalf("checkPage rejects the good page: %v", err)
	}
}

// TestRenderLimitBundleSize: the largest bundle the strict reader accepts
// renders into far less than 10 MB, its graph collapsed with the longest
// chain drawn (time is measured by BenchmarkRender).
func TestRenderLimitBundleSize(t *testing.T) {
	in := validate(t, bundletest.Large(t, bundletest.MaxLargeOps))
	if !in.Result.Valid {
		t.Fatalf("limit bundle is invalid: %+v", in.Result)
	}
	page := render(t, in)
	if len(page) >= 10<<20 {
		t.Fatalf("limit report is %d bytes, want < 10 MB", len(page))
	}
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	mustContain(t, page, fmt.Sprintf("%d operations (1 roots): too many to draw", bundletest.MaxLargeOps),
		fmt.Sprintf("longest parent chain (%d operations) is drawn, its middle %d elided", bundletest.MaxLargeOps, bundletest.MaxLargeOps-12),
		fmt.Sprintf("op-chain-%06d", bundletest.MaxLargeOps-1))
	t.Logf("limit report: %d bytes", len(page))
}

// TestRenderBrokenGraph: cycles, missing parents, duplicates and
// non-object operations still lay out.
func TestRenderBrokenGraph(t *testing.T) {
	doc := bundletest.Large(t, 8)
	ops := doc.Path("evidence", "operations")
	ops.Items[0].Set("parentOperationId", ops.Items[2].Get("operationId").Clone()) // a cycle 0 → 2 → 1 → 0
	ops.Items[6].Set("operationId", ops.Items[5].Get("operationId").Clone())       // a duplicate
	ops.Items = append(ops.Items, canonjson.NewInt(7), canonjson.NewNull())
	page := render(t, validate(t, doc))
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	mustContain(t, page, "its parent edge closes a cycle")
}

func BenchmarkRender(b *testing.B) {
	for _, c := range []struct {
		name string
		in   func(b *testing.B) report.Input
	}{
		{"example", func(b *testing.B) report.Input { return exampleInput(b) }},
		{"limit", func(b *testing.B) report.Input { return validate(b, bundletest.Large(b, bundletest.MaxLargeOps)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			in := c.in(b)
			var n int
			for b.Loop() {
				out, err := report.Render(in)
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			b.ReportMetric(float64(n), "bytes/report")
		})
	}
	// What `mcpres report` does with the limit bundle's file, apart from
	// the file I/O: strict read, validation, rendering.
	b.Run("limit-read-validate-render", func(b *testing.B) {
		text, err := canonjson.Pretty(bundletest.Large(b, bundletest.MaxLargeOps))
		if err != nil {
			b.Fatal(err)
		}
		val := validator.New()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			doc, err := canonjson.Parse(text)
			if err != nil {
				b.Fatal(err)
			}
			r, err := val.Bundle(doc)
			if err != nil || !r.Valid {
				b.Fatalf("limit bundle: %v %v", err, r.Diagnostics)
			}
			if _, err := report.Render(report.Input{Name: "limit.json", Document: doc, Result: r}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func ExampleRender() {
	doc, _ := canonjson.Parse([]byte(`{"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}`))
	r, _ := validator.New().Bundle(doc)
	page, _ := report.Render(report.Input{Name: "bundle.json", Document: doc, Result: r})
	fmt.Println(r.Diagnostics, bytes.Contains(page, []byte(`<span class="status">INVALID</span>`)))
	// Output: [MCP_RES_VACUOUS_NEGATIVE_CONTROL] true
}

// TestRenderCoverageColours: an optional uninstrumented surface is
// neutral, the same surface required is marked (and fails validation).
func TestRenderCoverageColours(t *testing.T) {
	page := render(t, exampleInput(t))
	mustContain(t, page, `<tr class="st-na"><td><span class="lbl">Surface</span>TRANSPORT_DISCONNECTS</td><td><span class="lbl">Required</span>optional</td>`)
	doc := bundletest.Example(t)
	for _, s := range doc.Path("evidence", "coverage", "surfaces").Items {
		if s.Get("surface").Str == "TRANSPORT_DISCONNECTS" {
			s.Set("required", canonjson.NewBool(true))
		}
	}
	in := validate(t, doc)
	page = render(t, in)
	mustContain(t, page, `<tr class="st-bad"><td><span class="lbl">Surface</span>TRANSPORT_DISCONNECTS</td><td><span class="lbl">Required</span>required</td>`, "<code>MCP_RES_REQUIRED_SURFACE_UNOBSERVED</code>")
}

// TestRenderGraphLayout: eleven operations in seven root trees wrap into
// bands four leaf columns wide (968 units: 2·16 + 4·240 − 24) and three
// bands deep; the retry that exceeds its policy's limit is marked as the
// one the diagnostic names, the failing attempts as failing.
func TestRenderGraphLayout(t *testing.T) {
	in := validate(t, richGraph(t))
	page := render(t, in)
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	mustContain(t, page, `aria-label="operation graph"`, `width="968" height="`,
		`<g class="op k-recovery failing fired"`, `<g class="op k-fault failing"`, `<g class="op k-recovery"`,
		"11 operations, 7 roots, longest parent chain 3")
	if !strings.Contains(in.Result.Detail, "op-retry-1") {
		t.Fatalf("detail %q does not name op-retry-1", in.Result.Detail)
	}
}

// section returns the page from the element with id to the end of its
// section, or fails.
func section(t *testing.T, page []byte, id string) string {
	t.Helper()
	_, rest, ok := strings.Cut(string(page), `id="`+id+`"`)
	if !ok {
		t.Fatalf("report has no element %q", id)
	}
	body, _, _ := strings.Cut(rest, "</section>")
	return body
}

// between returns the text of s after from up to the next to, or "".
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(rest, to)
	return body
}

// tablesOf parses page (well-formed XML) and returns the text of every
// table's body cells, without the phone labels, keyed by the heading
// (h3) or note (p) just before it.
func tablesOf(t *testing.T, page []byte) map[string][][]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict, d.Entity = true, map[string]string{}
	out := map[string][][]string{}
	var last, text strings.Builder
	var rows [][]string
	inBody, inCell, inLabel, inHeading := false, false, false, false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			switch x.Name.Local {
			case "h3", "p":
				inHeading = true
				last.Reset()
			case "tbody":
				inBody, rows = true, nil
			case "tr":
				if inBody {
					rows = append(rows, nil)
				}
			case "td":
				inCell = true
				text.Reset()
			case "span":
				for _, a := range x.Attr {
					inLabel = inLabel || a.Name.Local == "class" && a.Value == "lbl"
				}
			}
		case xml.EndElement:
			switch x.Name.Local {
			case "h3", "p":
				inHeading = false
			case "tbody":
				inBody = false
				out[last.String()] = rows
			case "td":
				inCell = false
				rows[len(rows)-1] = append(rows[len(rows)-1], text.String())
			case "span":
				inLabel = false
			}
		case xml.CharData:
			switch {
			case inCell && !inLabel:
				text.Write(x)
			case inHeading:
				last.Write(x)
			}
		}
	}
}

func hasRow(rows [][]string, want ...string) bool {
	return slices.ContainsFunc(rows, func(r []string) bool { return slices.Equal(r, want) })
}

// TestRenderTransparency: each envelope's transparency check has its own
// table row (log, entry, tree size, quorum), each witness cosignature its
// own row with its time and whether it counted; a digest-only reference
// shows its log and entry as claimed. Controls: without references the
// table says NONE and there is no witness table; the envelopes table no
// longer carries a transparency column.
func TestRenderTransparency(t *testing.T) {
	in := transparentInput(t)
	page := render(t, in)
	if err := checkPage(page); err != nil {
		t.Fatal(err)
	}
	tables := tablesOf(t, page)
	refs, wit := tables["Transparency"], tables["Witness cosignatures"]
	v := in.Attestation.Evaluation.Envelopes[0].Verified
	if !hasRow(refs, "0", "VERIFIED_OFFLINE: c2sp.org/tlog-proof@v1 verified against a log the policy trusts",
		tlogOrigin+" (log key "+v.LogKey+")", "leaf 1 (entryUuid 1)", "3", "witnesses (satisfied)") {
		t.Errorf("transparency table lacks the verified reference: %q", refs)
	}
	if !hasRow(refs, "1", "NONE: the statement carries no transparency reference", "—", "—", "—", "—") || len(refs) != 2 {
		t.Errorf("transparency table lacks the envelope without a reference: %q", refs)
	}
	for _, want := range [][]string{
		{"0", "WA", v.Witnesses[0].Fingerprint, "2026-01-01T00:00:00Z", "yes"},
		{"0", "WB", v.Witnesses[1].Fingerprint, "2026-01-01T00:00:01Z", "yes"},
		{"0", "WC", "—", "2100-01-01T00:00:00Z", "no: dated after the evaluation time 2026-08-27T18:05:00Z"},
	} {
		if !hasRow(wit, want...) {
			t.Errorf("witness table lacks %q: %q", want, wit)
		}
	}
	if len(wit) != 3 {
		t.Errorf("witness table: %q", wit)
	}
	// The envelopes table: signature and trust only.
	envs := tables["Envelopes"]
	if !hasRow(envs, "0", in.Attestation.Evaluation.Envelopes[0].KeyFingerprint, "test://mcp-res/disposable/signer-one", "valid", "yes", "no") {
		t.Errorf("envelopes table: %q", envs)
	}
	if e := between(string(page), "<h3>Envelopes</h3>", "</table>"); strings.Contains(e, "Transparency") || strings.Contains(e, "VERIFIED_OFFLINE") {
		t.Errorf("envelopes table holds transparency: %s", e)
	}

	// A digest-only reference: the log and entry as claimed.
	page = render(t, verify(t, repoFile(t, "attestation/transparency-recorded.json"), repoFile(t, "attestation/transparency-recorded.trust-policy.json")))
	if refs := tablesOf(t, page)["Transparency"]; !hasRow(refs, "0", "DIGEST_ONLY: only the SHA-256 of the proof bytes was checked; no log was consulted",
		"test-log (claimed, not verified)", "test-entry-0001 (claimed, not verified)", "not verified", "not verified") {
		t.Errorf("transparency table lacks the digest-only reference: %q", refs)
	}
	// A reference that was checked and failed: never shown as digest-only
	// or verified, its log and entry as claimed.
	failed := transparentInput(t)
	failed.Attestation.Evaluation.Envelopes[0].Transparency = attest.TransparencyFailed
	failed.Attestation.Evaluation.Envelopes[0].Verified = nil
	page = render(t, failed)
	if refs := tablesOf(t, page)["Transparency"]; !hasRow(refs, "0", "FAILED: the reference did not verify (see the diagnostics)",
		failed.Attestation.Evaluation.Envelopes[0].Reference.LogID+" (claimed, not verified)", "1 (claimed, not verified)", "not verified", "not verified") {
		t.Errorf("transparency table lacks the failed reference: %q", refs)
	}
	// Control: no references.
	page = render(t, witnessedInput(t))
	tables = tablesOf(t, page)
	none := []string{"NONE: the statement carries no transparency reference", "—", "—", "—", "—"}
	if refs := tables["Transparency"]; !hasRow(refs, append([]string{"0"}, none...)...) || !hasRow(refs, append([]string{"1"}, none...)...) {
		t.Errorf("witnessed (no references): %q", refs)
	}
	if _, ok := tables["Witness cosignatures"]; ok || bytes.Contains(page, []byte("Witness cosignatures")) {
		t.Error("witnessed (no references) has a witness table")
	}
}

// TestRenderHeadings: the authenticity level has its own heading in the
// verdict, and the evidence class heading holds evidence classes only.
// Control: a bundle that is not attested has no authenticity heading.
func TestRenderHeadings(t *testing.T) {
	page := render(t, witnessedInput(t))
	v := section(t, page, "verdict")
	level := between(v, "<h3>Authenticity level</h3>", "</dl>")
	class := between(v, "<h3>Evidence class</h3>", "</dl>")
	if !strings.Contains(level, `<dd class="big">WITNESSED</dd>`) || strings.Contains(level, "FIXTURE_BACKED_PROTOCOL") {
		t.Errorf("authenticity level:\n%s", level)
	}
	if !strings.Contains(class, "FIXTURE_BACKED_PROTOCOL") || strings.Contains(class, "WITNESSED") || strings.Contains(class, "uthenticity") {
		t.Errorf("evidence class:\n%s", class)
	}
	if strings.Index(v, "<h3>Authenticity level</h3>") > strings.Index(v, "<h3>Evidence class</h3>") {
		t.Error("the authenticity level comes after the evidence class")
	}
	// A failed verification has no level.
	v = section(t, render(t, verify(t, repoFile(t, "attestation/witnessed.json"), nil)), "verdict")
	if level := between(v, "<h3>Authenticity level</h3>", "</dl>"); !strings.Contains(level, "none: verification failed") || strings.Contains(level, "WITNESSED") {
		t.Errorf("failed verification, authenticity level:\n%s", level)
	}
	v = section(t, render(t, exampleInput(t)), "verdict")
	if strings.Contains(v, "Authenticity") || !strings.Contains(v, "<h3>Evidence class</h3>") {
		t.Errorf("bare bundle verdict:\n%s", v)
	}
}

// TestRenderTamperedObservation: an observation changed after sealing
// (its observationSha256 no longer matches) is not listed as a passing,
// integrity-bound observation the class rests on, in a bundle or in an
// attested bundle; the derived class is marked not established. Control:
// the untampered bundle lists it.
func TestRenderTamperedObservation(t *testing.T) {
	const heading = "passing, integrity-bound observations"
	v := section(t, render(t, exampleInput(t)), "verdict")
	if rests := between(v, heading, "</table>"); !strings.Contains(rests, "obs-privacy-sweep") {
		t.Fatalf("control: the valid example does not list obs-privacy-sweep:\n%s", v)
	}
	tamper := func(b *canonjson.Value) {
		for _, o := range b.Path("evidence", "observations").Items {
			if o.Get("id").Str == "obs-privacy-sweep" {
				o.Set("reasonCode", canonjson.NewString("TAMPERED_AFTER_SEALING"))
			}
		}
	}
	doc := bundletest.Example(t)
	tamper(doc)
	bare := validate(t, doc)
	wrapper := repoFile(t, "attestation/witnessed.json")
	tamper(wrapper.Get("bundle"))
	attested := verify(t, wrapper, repoFile(t, "attestation/witnessed.trust-policy.json"))
	for name, in := range map[string]report.Input{"bundle": bare, "attested": attested} {
		t.Run(name, func(t *testing.T) {
			r := in.Result
			if in.Attestation != nil {
				r = in.Attestation.Result
			}
			if r.Valid {
				t.Fatal("the tampered document verifies")
			}
			page := render(t, in)
			v := section(t, page, "verdict")
			if strings.Contains(v, heading) || strings.Contains(v, "TAMPERED_AFTER_SEALING") {
				t.Errorf("the tampered observation is listed as one the class rests on:\n%s", v)
			}
			mustContain(t, []byte(v), "not established: the document failed verification", "the class rests on none of them")
			// The observation is still shown, in the timeline.
			mustContain(t, []byte(section(t, page, "timeline")), "obs-privacy-sweep")
		})
	}
}

// TestRenderAbsentValues: JSON null and missing members are shown as
// "—", never as "null". Control: the example has null members (an
// observation's operationRef, an operation's parent and fault).
func TestRenderAbsentValues(t *testing.T) {
	ex := bundletest.Example(t)
	nulls := 0
	for _, o := range ex.Path("evidence", "observations").Items {
		if o.Get("operationRef").Is(canonjson.Null) {
			nulls++
		}
	}
	if nulls == 0 {
		t.Fatal("control: the example has no null operationRef")
	}
	for name, in := range map[string]report.Input{"example": exampleInput(t), "witnessed": witnessedInput(t), "transparent": transparentInput(t),
		"official": validate(t, repoFile(t, "official/clean.json"))} {
		t.Run(name, func(t *testing.T) {
			page := render(t, in)
			if n := bytes.Count(page, []byte("null")); n > 0 {
				i := bytes.Index(page, []byte("null"))
				t.Errorf("%d times null, first at …%s…", n, page[max(0, i-200):i+10])
			}
		})
	}
	mustContain(t, render(t, exampleInput(t)), `<td class="mono"><span class="lbl">Operation</span>—</td>`)
}
