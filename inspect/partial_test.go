package inspect_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/inspect"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/trustpolicy"
)

// kindSchemaVersions are the schemaVersions of every JSON kind inspect
// describes by its schemaVersion (a transparency reference has none: it
// is known by inclusionProofBase64).
var kindSchemaVersions = []string{
	bundle.SchemaVersionBundle,
	bundle.SchemaVersionAttestedBundle,
	bundle.SchemaVersionTrustPolicy,
	trustpolicy.SchemaVersionPolicy,
}

// partialSeeds are small partial documents of every kind: the kind's
// schemaVersion alone, and with its members null or of another type.
func partialSeeds() [][]byte {
	var out [][]byte
	add := func(s string) { out = append(out, []byte(s)) }
	for _, sv := range kindSchemaVersions {
		add(`{"schemaVersion":"` + sv + `"}`)
	}
	for _, m := range []string{
		`"bundle":null`, `"bundle":1`, `"authenticity":null`, `"authenticity":[]`, `"authenticity":{"envelopes":null}`,
		`"authenticity":{"envelopes":{}}`, `"authenticity":{"envelopes":[null]}`, `"authenticity":{"envelopes":[{"signatures":null}]}`,
		`"authenticity":{"envelopes":[{"signatures":[null],"payload":null}]}`, `"authenticity":{"envelopes":[{"signatures":"x"}]}`,
		`"authenticity":{"envelopes":[{"payload":"e30="}]}`, `"authenticity":{"envelopes":[{"payload":"eyJzdWJqZWN0IjpudWxsfQ=="}]}`,
		`"authenticity":{"envelopes":[{"payload":"eyJwcmVkaWNhdGUiOnsidHJhbnNwYXJlbmN5UmVmZXJlbmNlIjp7fX19"}]}`,
	} {
		add(`{"schemaVersion":"` + bundle.SchemaVersionAttestedBundle + `",` + m + `}`)
	}
	for _, m := range []string{`"trustedSigners":null`, `"trustedSigners":{}`, `"trustedSigners":[null,1]`, `"revokedKeyFingerprints":null`, `"revokedKeyFingerprints":[null]`} {
		add(`{"schemaVersion":"` + bundle.SchemaVersionTrustPolicy + `",` + m + `}`)
	}
	for _, m := range []string{`"evidence":null`, `"evidence":{"subject":1,"profile":[]}`, `"statement":"x"`, `"integrity":null`} {
		add(`{"schemaVersion":"` + bundle.SchemaVersionBundle + `",` + m + `}`)
	}
	for _, m := range []string{`"signers":null`, `"signers":[null]`, `"transparency":null`, `"witnesses":1`} {
		add(`{"schemaVersion":"` + trustpolicy.SchemaVersionPolicy + `",` + m + `}`)
	}
	for _, r := range []string{`{"inclusionProofBase64":null}`, `{"inclusionProofBase64":1,"logId":null,"entryUuid":[]}`, `{"inclusionProofBase64":""}`} {
		add(r)
	}
	return out
}

// A partialBase is a full document of one kind that FuzzDescribePartial
// takes apart: JSON (a member replaced or removed) or text (a line).
type partialBase struct {
	name string
	json *canonjson.Value
	text string
	// statement: mutate envelope 0's statement (inside its base64
	// payload) rather than the outer document.
	statement bool
}

func partialBases(t testing.TB) []partialBase {
	parse := func(b []byte) *canonjson.Value {
		v, err := canonjson.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	lg := offlinetest.NewLog("example.org/inspect-partial", "partial")
	lg.Append([]byte("x"), []byte("y"))
	p := lg.Proof(1, offlinetest.NewWitness("w", "w.example.org", "partial w", 1767225600))
	return []partialBase{
		{name: "bundle", json: bundletest.ExampleAbout(t, "io.github.acme/server", "1.2.0", strings.Repeat("ab", 32))},
		{name: "attested", json: parse(read(t, "transparency/example.signed.json"))},
		{name: "attested statement", json: parse(read(t, "transparency/example.signed.json")), statement: true},
		{name: "reference", json: parse(read(t, "transparency/example.ref.json"))},
		{name: "policy v1", json: parse(read(t, "transparency/policy.json"))},
		{name: "policy 0.2.0", json: attesttest.Policy(attesttest.PolicyOptions{Revoked: []string{strings.Repeat("a", 64)}})},
		{name: "tlog-proof", text: string(p.Marshal())},
		{name: "checkpoint", text: string(p.Checkpoint)},
		{name: "tlog policy", text: string(read(t, "transparency/tlog-policy.txt"))},
	}
}

// nodes lists v's members and items in preorder, each with the container
// that holds it and its place there.
type node struct {
	parent *canonjson.Value
	index  int
}

func nodes(v *canonjson.Value, out []node) []node {
	switch v.Kind {
	case canonjson.Object:
		for i := range v.Members {
			out = append(out, node{v, i})
			out = nodes(v.Members[i].Value, out)
		}
	case canonjson.Array:
		for i := range v.Items {
			out = append(out, node{v, i})
			out = nodes(v.Items[i], out)
		}
	}
	return out
}

// mutate replaces node n of doc with repl (a JSON value) or, when repl is
// not one, removes it.
func mutate(doc *canonjson.Value, n uint16, repl []byte) {
	all := nodes(doc, nil)
	if len(all) == 0 {
		return
	}
	at := all[int(n)%len(all)]
	with, err := canonjson.Parse(repl)
	switch {
	case at.parent.Kind == canonjson.Object && err != nil:
		at.parent.Members = append(at.parent.Members[:at.index:at.index], at.parent.Members[at.index+1:]...)
	case at.parent.Kind == canonjson.Object:
		at.parent.Members[at.index].Value = with
	case err != nil:
		at.parent.Items = append(at.parent.Items[:at.index:at.index], at.parent.Items[at.index+1:]...)
	default:
		at.parent.Items[at.index] = with
	}
}

// checkDescribe is the property of both fuzz targets: Describe returns a
// description or an error, never both and never panics; a description
// always encodes and prints.
func checkDescribe(t *testing.T, data []byte) {
	t.Helper()
	d, err := inspect.Describe(data)
	if (d == nil) == (err == nil) {
		t.Fatalf("description %v and error %v", d, err)
	}
	if d == nil {
		return
	}
	if _, err := d.Value(); err != nil {
		t.Fatalf("Value: %v", err)
	}
	if lines := d.Text(); len(lines) < 2 || lines[1] != "  "+inspect.NotVerified {
		t.Fatalf("text %q", lines)
	}
}

// FuzzDescribePartial takes a full document of every kind inspect
// describes apart: one member or item (of the document, or of an attested
// bundle's signed statement) replaced by another value — null, a value of
// another type — or removed, or one line of a text kind replaced. Every
// such partial document is described or refused, never a panic.
func FuzzDescribePartial(f *testing.F) {
	bases := partialBases(f)
	// Seeds: every member and item of every base null and removed (every
	// line of a text replaced by nothing), the first ones of another type.
	for i, b := range bases {
		count := len(strings.Split(b.text, "\n"))
		if b.json != nil {
			count = len(nodes(b.json, nil))
		}
		for n := range uint16(count) {
			for _, repl := range []string{"null", "-", "1", `"x"`, "[]", "{}", "[null]"} {
				if n < 40 || repl == "null" || repl == "-" {
					f.Add(uint8(i), n, []byte(repl))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, n uint16, repl []byte) {
		b := bases[int(which)%len(bases)]
		var data []byte
		switch {
		case b.json == nil:
			lines := strings.Split(b.text, "\n")
			lines[int(n)%len(lines)] = string(repl)
			data = []byte(strings.Join(lines, "\n"))
		case b.statement:
			doc := b.json.Clone()
			env := doc.Path("authenticity", "envelopes").Items[0]
			payload, err := base64.StdEncoding.DecodeString(env.Get("payload").Str)
			if err != nil {
				t.Fatal(err)
			}
			st, err := canonjson.Parse(payload)
			if err != nil {
				t.Fatal(err)
			}
			mutate(st, n, repl)
			enc, err := canonjson.Compact(st)
			if err != nil {
				t.Skip(err)
			}
			env.Set("payload", canonjson.NewString(base64.StdEncoding.EncodeToString(enc)))
			if data, err = canonjson.Compact(doc); err != nil {
				t.Skip(err)
			}
		default:
			doc := b.json.Clone()
			mutate(doc, n, repl)
			var err error
			if data, err = canonjson.Compact(doc); err != nil {
				t.Skip(err)
			}
		}
		checkDescribe(t, data)
	})
}

// Partial documents (issue 31: each of these crashed Describe) are
// described as far as they go, with a problem that names the member that
// is missing or of another type; the full documents of every kind have
// none.
func TestDescribePartial(t *testing.T) {
	const attested, policy = `{"schemaVersion":"` + bundle.SchemaVersionAttestedBundle + `"`, `{"schemaVersion":"` + bundle.SchemaVersionTrustPolicy + `"`
	for _, c := range []struct {
		in, kind string
		problems []string
	}{
		{attested + `}`, inspect.KindAttested, []string{"/bundle is missing (an object)", "/authenticity is missing (an object)"}},
		{policy + `}`, inspect.KindTrustPolicy, []string{"/trustedSigners is missing (an array)", "/revokedKeyFingerprints is missing (an array)"}},
		{policy + `,"trustedSigners":[]}`, inspect.KindTrustPolicy, []string{"/revokedKeyFingerprints is missing (an array)"}},
		{policy + `,"trustedSigners":{},"revokedKeyFingerprints":[null]}`, inspect.KindTrustPolicy,
			[]string{"/trustedSigners is an object, not an array", "/revokedKeyFingerprints/0 is null, not a string"}},
		{attested + `,"authenticity":{"envelopes":[null]}}`, inspect.KindAttested, []string{"/bundle is missing (an object)", "/authenticity/envelopes/0 is null, not an object"}},
		{attested + `,"authenticity":{"envelopes":[{"signatures":[],"payload":"e30="}]}}`, inspect.KindAttested,
			[]string{"/bundle is missing (an object)", "envelope 0 has 0 signatures, not one", "envelope 0 statement /predicate is missing (an object)", "envelope 0 statement /subject is missing (an array)"}},
		{`{"schemaVersion":"` + bundle.SchemaVersionBundle + `","evidence":{"subject":1},"statement":null,"integrity":{}}`, inspect.KindBundle,
			[]string{"/evidence/subject is an integer, not an object", "/statement is null, not an object"}},
		{`{"inclusionProofBase64":null,"logId":1}`, inspect.KindReference, []string{"/logId is an integer, not a string", "/inclusionProofBase64 is null, not a string"}},
	} {
		d := describe(t, []byte(c.in))
		if d.Kind != c.kind || strings.Join(d.Problems, "\n") != strings.Join(c.problems, "\n") {
			t.Errorf("%s: kind %s, problems\n%s\nwant\n%s", c.in, d.Kind, strings.Join(d.Problems, "\n"), strings.Join(c.problems, "\n"))
		}
	}
	// A draft (statement.validator null until mcpres seal fills it) is a
	// bundle without problems.
	draft := describe(t, read(t, "drafts/example.draft.json"))
	if draft.Kind != inspect.KindBundle || len(draft.Problems) != 0 || draft.Bundle.Validator != "" {
		t.Errorf("draft: %+v %q", draft.Bundle, draft.Problems)
	}
	for _, b := range partialBases(t) {
		data := []byte(b.text)
		if b.json != nil {
			data, _ = canonjson.Compact(b.json)
		}
		if d := describe(t, data); len(d.Problems) != 0 {
			t.Errorf("%s: problems %q", b.name, d.Problems)
		}
	}
}
