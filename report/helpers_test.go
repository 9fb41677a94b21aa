package report_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/report"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// corpusTime is the evaluation time of the attestation corpus in
// testdata/attestation (its catalog.json).
const corpusTime = "2026-08-27T18:05:00.000Z"

func repoFile(t testing.TB, name string) *canonjson.Value {
	t.Helper()
	_, v, err := canonjson.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// validate computes the verdict as mcpres validate does.
func validate(t testing.TB, doc *canonjson.Value) report.Input {
	t.Helper()
	dr, err := document.New(nil).Validate(doc, document.Options{EvaluatedAt: "2026-08-27T18:05:00.000Z"})
	r := dr.Result
	if err != nil {
		var ie *validator.InputError
		if !errors.As(err, &ie) {
			t.Fatal(err)
		}
		return report.Input{Name: "doc.json", Document: doc, InputError: ie.Reason}
	}
	return report.Input{Name: "doc.json", Document: doc, Result: r}
}

// verify computes the verdict as mcpres attest verify does.
func verify(t testing.TB, doc, policy *canonjson.Value) report.Input {
	t.Helper()
	o := attest.Options{EvaluatedAt: corpusTime, Validator: validator.New()}
	if policy != nil {
		o.Policy = trustpolicy.Open(policy, trustpolicy.OpenOptions{Validator: o.Validator})
	}
	r, err := attest.Verify(doc, o)
	if err != nil {
		var ie *validator.InputError
		if !errors.As(err, &ie) {
			t.Fatal(err)
		}
		return report.Input{Name: "doc.json", Document: doc, InputError: ie.Reason}
	}
	return report.Input{Name: "doc.json", Document: doc, Attestation: &r}
}

func render(t testing.TB, in report.Input) []byte {
	t.Helper()
	out, err := report.Render(in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func exampleInput(t testing.TB) report.Input { return validate(t, bundletest.Example(t)) }

func witnessedInput(t testing.TB) report.Input {
	return verify(t, repoFile(t, "attestation/witnessed.json"), repoFile(t, "attestation/witnessed.trust-policy.json"))
}

// tlogOrigin is the test log of transparentInput.
const tlogOrigin = "log.example.org/mcpres-report-test"

// transparentInput is the witnessed corpus bundle signed by both test
// keys, the first envelope's statement carrying a tlog-proof of the
// bundle's entry (leaf 1 of a 3-leaf test log) cosigned by witnesses WA
// and WB before the evaluation time and by WC after it, the second none;
// verified under a policy trusting both signers, the log and 2 of WA, WB,
// WC: TRANSPARENCY_RECORDED, with WC not counted.
func transparentInput(t testing.TB) report.Input {
	b := repoFile(t, "attestation/witnessed.json").Get("bundle")
	lg := offlinetest.NewLog(tlogOrigin, "report log")
	wa := offlinetest.NewWitness("WA", "witness-a.example.org", "report witness a", 1767225600)
	wb := offlinetest.NewWitness("WB", "witness-b.example.org", "report witness b", 1767225601)
	wc := offlinetest.NewWitness("WC", "witness-c.example.org", "report witness c", 4102444800) // 2100
	entry, err := offline.EntryFor(b).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	lg.Append([]byte("leaf 0"), entry, []byte("leaf 2"))
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	sign := func(priv ed25519.PrivateKey, identity string, ref *attest.TransparencyReference) *canonjson.Value {
		o := attesttest.Options(identity)
		o.Transparency = ref
		env, err := attest.Sign(b, priv, o)
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	ref := attest.NewTransparencyReference(tlogOrigin, "1", lg.Proof(1, wa, wb, wc).Marshal())
	w := attest.Wrap(b, attest.TransparencyRecorded, sign(one, attesttest.IdentityOne, ref), sign(two, attesttest.IdentityTwo, nil))
	d := trustpolicy.New(attesttest.TrustPolicyID, "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
	for _, s := range []struct {
		name, identity string
		priv           ed25519.PrivateKey
	}{{"signer-one", attesttest.IdentityOne, one}, {"signer-two", attesttest.IdentityTwo, two}} {
		d.AddSigner(trustpolicy.Signer{Name: s.name, Identity: s.identity, Roles: []string{trustpolicy.RoleSigner},
			PublicKey: base64.StdEncoding.EncodeToString(ed25519strict.MarshalSPKI(s.priv.Public().(ed25519.PublicKey)))})
	}
	d.Transparency = &trustpolicy.Transparency{TLogPolicy: "log " + lg.VKey + "\nwitness WA " + wa.VKey + "\nwitness WB " + wb.VKey +
		"\nwitness WC " + wc.VKey + "\ngroup witnesses 2 WA WB WC\nquorum witnesses\n"}
	in := verify(t, w, d.Value())
	if in.Attestation == nil || !in.Attestation.Valid || in.Attestation.Level != attest.TransparencyRecorded {
		t.Fatalf("transparent fixture does not verify as TRANSPARENCY_RECORDED: %+v", in.Attestation)
	}
	return in
}

// The page may hold only these elements and attributes: no script, no
// element that loads anything (img, iframe, link, object, embed, base), no
// event handler, no href or src, no style attribute.
var (
	allowedElements = set("html head meta title style body main header h1 h2 h3 span section p div code table thead tbody tr th td dl dt dd ul li details summary svg g path rect text line footer")
	allowedAttrs    = set("class id lang xmlns charset http-equiv content name width height viewBox role aria-label d transform x y x1 y1 x2 y2 dx dy rx text-anchor open")
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// checkPage asserts the properties every report has: well-formed XML, only
// allowed elements and attributes, the CSP meta, one style element, no raw
// control, NUL or bidi character, no text run longer than the display
// limit (outside the style sheet).
func checkPage(page []byte) error {
	if !utf8.Valid(page) {
		return errors.New("page is not valid UTF-8")
	}
	for _, r := range string(page) {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c {
			return fmt.Errorf("page holds a raw control or bidi character U+%04X", r)
		}
	}
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	d.Entity = map[string]string{} // only XML's five predefined entities
	styles, cspSeen := 0, false
	var stack []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return errors.New("not well-formed: " + err.Error())
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if !allowedElements[x.Name.Local] {
				return errors.New("element <" + x.Name.Local + "> is not allowed")
			}
			stack = append(stack, x.Name.Local)
			if x.Name.Local == "style" {
				styles++
			}
			for _, a := range x.Attr {
				if !allowedAttrs[a.Name.Local] || a.Name.Space != "" && a.Name.Space != "xmlns" {
					return errors.New("attribute " + a.Name.Space + ":" + a.Name.Local + " on <" + x.Name.Local + "> is not allowed")
				}
				if a.Name.Local == "http-equiv" {
					if a.Value != "Content-Security-Policy" {
						return errors.New("meta http-equiv " + a.Value + " is not allowed")
					}
					cspSeen = true
				}
				if a.Name.Local == "content" && cspSeen && strings.Contains(a.Value, "default-src") && a.Value != csp {
					return errors.New("CSP is " + a.Value)
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] == "style" {
				continue
			}
			if n := utf8.RuneCount(x); n > 2100 {
				return fmt.Errorf("a text run is %d characters long", n)
			}
		}
	}
	if styles != 1 {
		return fmt.Errorf("%d style elements, want 1", styles)
	}
	if !cspSeen {
		return errors.New("no Content-Security-Policy meta")
	}
	return nil
}

// hostilePayloads are strings a document could use to break out of its
// text; base is the URL every payload tries to reach.
func hostilePayloads(base string) []string {
	pwn := `document.body.appendChild(document.createElement('mcpres-pwned'))`
	return []string{
		`<script>` + pwn + `;fetch('` + base + `/script')</script>`,
		`</style><script>` + pwn + `</script><style>`,
		`javascript:` + pwn,
		`"><img src="` + base + `/img" onerror="` + pwn + `">`,
		`<svg onload="` + pwn + `"><a href="javascript:` + pwn + `">x</a><image href="` + base + `/svgimage"/></svg>`,
		`</title></text></svg><iframe src="` + base + `/iframe"></iframe>`,
		`<link rel="stylesheet" href="` + base + `/css"><style>@import url(` + base + `/import);body{background:url(` + base + `/bg)}</style>`,
		`<meta http-equiv="refresh" content="0;url=` + base + `/refresh">`,
		"\u202Etxt.exe\u202C \u2066isolate\u2069 \u200F\u061C",
		"nul\x00byte\x01\x1b[31m\x7f\u0085",
		`]]><!-- --><![CDATA[ x ]]>{{.Name}} ${x} &amp; &lt; &nbsp;`,
		`<` + strings.Repeat("A", 100_000) + `>`,
	}
}

// hostilize replaces every string value of v (a copy) with payloads in turn.
func hostilize(v *canonjson.Value, payloads []string) *canonjson.Value {
	c := v.Clone()
	i := 0
	var walk func(x *canonjson.Value)
	walk = func(x *canonjson.Value) {
		if x.Kind == canonjson.String {
			x.Str = payloads[i%len(payloads)]
			i++
		}
		for _, it := range x.Items {
			walk(it)
		}
		for _, m := range x.Members {
			walk(m.Value)
		}
	}
	walk(c)
	return c
}

// hostileInputs are the reports the escaping tests render: a bundle, an
// attested bundle and a document of unknown kind whose every string is a
// payload, a bundle whose every string is 100,000 characters long, and
// results whose every string is one.
func hostileInputs(t testing.TB, base string) map[string]report.Input {
	p := hostilePayloads(base)
	ex := bundletest.Example(t)
	// Keep the schemaVersion so the bundle is laid out as one.
	mixed := hostilize(ex, p)
	mixed.Set("schemaVersion", canonjson.NewString(ex.Get("schemaVersion").Str))
	long := hostilize(ex, []string{strings.Repeat("\u202E<script>", 10) + strings.Repeat("B", 100_000)})
	long.Set("schemaVersion", canonjson.NewString(ex.Get("schemaVersion").Str))
	wrapper := repoFile(t, "attestation/witnessed.json")
	attested := hostilize(wrapper, p)
	attested.Set("schemaVersion", canonjson.NewString(wrapper.Get("schemaVersion").Str))
	unknown := hostilize(ex, p)

	in := map[string]report.Input{
		"mixed":    validate(t, mixed),
		"long":     validate(t, long),
		"attested": verify(t, attested, nil),
		"unknown":  validate(t, unknown),
	}
	// Results and names are strings too.
	pol := p[0]
	res := attest.Result{EvaluatedAt: p[2], Level: attest.Signed, EvidenceClass: bundle.GenuineRuntime, HasEvidenceClass: true}
	res.Valid, res.Diagnostics, res.Detail = true, []string{}, p[4]
	res.Evaluation = attest.Evaluation{EvaluatedAt: p[5], PolicySupplied: true, PolicyID: &pol, PolicyVersion: &p[6], DistinctKeys: 1,
		Envelopes: []attest.EnvelopeEvaluation{{KeyFingerprint: p[7], SignerIdentity: p[8], Transparency: p[9]},
			{Index: 1, Transparency: attest.TransparencyVerifiedOffline, Reference: &attest.TransparencyReference{LogID: p[10], EntryUUID: p[11]},
				Verified: &attest.VerifiedTransparency{Kind: p[0], Origin: p[1], LogKey: p[2], Quorum: p[3], TreeSize: 1 << 63, LeafIndex: 1<<64 - 1,
					Witnesses:  []signednote.CountedCosignature{{Name: p[4], Fingerprint: p[5], Time: 1<<64 - 1}},
					NotCounted: []signednote.UncountedCosignature{{Name: p[6], Time: 0, Reason: p[7]}}}},
			{Index: 2, Transparency: attest.TransparencyDigestOnly, Reference: &attest.TransparencyReference{LogID: p[8], EntryUUID: p[9]}}}, Notes: p}
	in["results"] = report.Input{Name: p[1], Document: attested, Attestation: &res, PolicyName: p[10], Generator: p[11]}
	vr := validator.Result{Diagnostics: []string{p[0], "MCP_RES_SCHEMA_INVALID"}, Detail: p[1],
		Extra: []canonjson.Member{{Key: p[2], Value: canonjson.NewString(p[3])}}}
	for _, s := range p {
		vr.SchemaErrors = append(vr.SchemaErrors, schema.Error{InstancePath: s, Keyword: s, Message: s})
	}
	in["validator-results"] = report.Input{Name: p[5], Document: mixed, Result: vr}
	in["input-invalid"] = report.Input{Name: p[6], InputError: p[7]}
	return in
}

// artifactDir is where tests keep what a person should look at: the
// directory named by $MCPRES_TEST_ARTIFACTS, or else a temporary directory
// removed after the test.
func artifactDir(t *testing.T) string {
	if d := os.Getenv("MCPRES_TEST_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// richGraph is the example bundle with a larger graph: a fault case
// retried under the recovery policy (a failed and a passing attempt) and
// several independent clean controls, for the screenshots and the layout
// tests. It is not re-sealed (the verdict does not matter here).
func richGraph(t testing.TB) *canonjson.Value {
	doc := bundletest.Example(t)
	ev := doc.Get("evidence")
	ops := ev.Get("operations")
	run := ev.Path("run", "id").Str
	op := func(id, parent, kind, outcome string, fault, policy bool, attempt int64) *canonjson.Value {
		p, f, r := canonjson.NewNull(), canonjson.NewNull(), canonjson.NewNull()
		if parent != "" {
			p = canonjson.NewString(parent)
		}
		if fault {
			f = canonjson.NewString("fault/truncated-content-array")
		}
		if policy {
			r = canonjson.NewString("policy/no-retry-read")
		}
		return canonjson.NewObject(
			canonjson.Member{Key: "runId", Value: canonjson.NewString(run)},
			canonjson.Member{Key: "operationId", Value: canonjson.NewString(id)},
			canonjson.Member{Key: "parentOperationId", Value: p},
			canonjson.Member{Key: "kind", Value: canonjson.NewString(kind)},
			canonjson.Member{Key: "faultId", Value: f},
			canonjson.Member{Key: "recoveryPolicyId", Value: r},
			canonjson.Member{Key: "attempt", Value: canonjson.NewInt(attempt)},
			canonjson.Member{Key: "outcome", Value: canonjson.NewString(outcome)},
			canonjson.Member{Key: "startedOffsetMs", Value: canonjson.NewInt(100 * attempt)},
			canonjson.Member{Key: "durationMs", Value: canonjson.NewInt(50)},
		)
	}
	ops.Items = append(ops.Items,
		op("op-fault-disconnect", "", "FAULT_CASE", "FAIL", true, false, 0),
		op("op-retry-1", "op-fault-disconnect", "RECOVERY_ATTEMPT", "TIME_LIMIT", true, true, 1),
		op("op-retry-2", "op-fault-disconnect", "RECOVERY_ATTEMPT", "PASS", true, true, 2),
		op("op-read-after-retry", "op-retry-2", "CLEAN_CONTROL", "PASS", false, false, 0),
	)
	for i := range 5 {
		ops.Items = append(ops.Items, op(fmt.Sprintf("op-independent-%d", i), "", "CLEAN_CONTROL", "PASS", false, false, 0))
	}
	return doc
}
