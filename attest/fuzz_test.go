package attest_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/validator"
)

// compactFile returns the committed file name of testdata/attestation with
// its insignificant whitespace removed (member order and escapes kept).
func compactFile(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "attestation", name))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return buf.Bytes()
}

func compactValue(t testing.TB, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A payloadCase is a statement text that is not exactly a canonical
// statement, with the outcome REFERENCE §6.4 (E7–E9) prescribes once it is
// properly signed: a diagnostic, "INPUT" for an abort
// (MCP_RES_INPUT_INVALID), or "" for valid.
type payloadCase struct {
	payload, identity, want string
}

func payloadCases(t testing.TB, base *canonjson.Value) map[string]payloadCase {
	t.Helper()
	st := attest.Statement(base, attesttest.KeyID(attesttest.TestOnlyKeyOne()), attesttest.Options(attesttest.IdentityOne))
	canon, err := canonjson.Canonical(st)
	if err != nil {
		t.Fatal(err)
	}
	s := string(canon)
	id := attesttest.IdentityOne
	pred := func(member string) string {
		return strings.Replace(s, `"predicate":{`, `"predicate":{`+member+`,`, 1)
	}
	schema := attest.CodeSchemaInvalid
	return map[string]payloadCase{
		"canonical":          {s, id, ""},
		"astral-identity":    {strings.ReplaceAll(s, id, id+"😀"), id + "😀", ""},
		"whitespace":         {strings.Replace(s, `{"_type"`, `{ "_type"`, 1), id, schema},
		"trailing-newline":   {s + "\n", id, schema},
		"bom":                {"\uFEFF" + s, id, schema},
		"invalid-utf8":       {strings.ReplaceAll(s, id, id+"\xff"), id, schema},
		"encoded-surrogate":  {strings.ReplaceAll(s, id, id+"\xed\xa0\x80"), id, schema},
		"escaped-solidus":    {strings.Replace(s, "https://", `https:\/\/`, 1), id, schema},
		"duplicate-key":      {strings.Replace(s, `{"_type":`, `{"_type":"x","_type":`, 1), id, schema},
		"not-an-object":      {`[]`, id, schema},
		"empty-object":       {`{}`, id, schema},
		"extra-member":       {strings.Replace(s, `{"_type"`, `{"_extra":1,"_type"`, 1), id, schema},
		"nan":                {pred(`"a":NaN`), id, schema},
		"minus-zero":         {pred(`"a":-0`), id, schema},
		"deep":               {pred(`"a":` + strings.Repeat("[", 200) + strings.Repeat("]", 200)), id, schema},
		"syntax-after-abort": {pred(`"a":1.5,"b":`), id, schema},
		"unsafe-then-safe":   {pred(`"a":9007199254740993,"a":1`), id, schema},
		"surrogate-then-ok":  {pred(`"a":"\ud800","a":1`), id, schema},
		"fraction":           {pred(`"a":1.0`), id, "INPUT"},
		"exponent":           {pred(`"a":1e2`), id, "INPUT"},
		"unsafe-integer":     {pred(`"a":9007199254740993`), id, "INPUT"},
		"safe-then-unsafe":   {pred(`"a":1,"a":9007199254740993`), id, "INPUT"},
		"lone-surrogate":     {pred(`"a":"\ud800"`), id, "INPUT"},
		"lone-surrogate-key": {pred(`"\udc00":1`), id, "INPUT"},
	}
}

// payloadMutants wrap the payload cases, each properly signed by key one,
// so that the fuzzer starts past E6 (the signature) and explores E7–E9.
func payloadMutants(t testing.TB, base *canonjson.Value) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for name, c := range payloadCases(t, base) {
		env, err := attest.SignPayload([]byte(c.payload), attesttest.TestOnlyKeyOne(), c.identity)
		if err != nil {
			t.Fatal(err)
		}
		out["payload-"+name] = compactValue(t, attest.Wrap(base.Clone(), attest.Signed, env))
	}
	return out
}

// A signed payload that is not exactly a canonical statement gets the
// outcome of REFERENCE §6.4 (E7 details, mcpres decisions (1)–(3)): a
// syntax error anywhere, a BOM, NaN, -0, invalid UTF-8 (also an encoded
// surrogate), duplicate keys or any non-canonical byte is
// MCP_RES_ATTESTATION_SCHEMA_INVALID; a surviving lone surrogate, unsafe
// integer or fraction/exponent token aborts with MCP_RES_INPUT_INVALID;
// raw non-BMP characters are accepted.
func TestVerifySignedPayloadEdgeCases(t *testing.T) {
	base := bundletest.Example(t)
	val := validator.New()
	for name, c := range payloadCases(t, base) {
		t.Run(name, func(t *testing.T) {
			env, err := attest.SignPayload([]byte(c.payload), attesttest.TestOnlyKeyOne(), c.identity)
			if err != nil {
				t.Fatal(err)
			}
			r, err := attest.Verify(attest.Wrap(base.Clone(), attest.Signed, env), attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Validator: val})
			var got string
			switch {
			case err != nil:
				if _, ok := err.(*validator.InputError); !ok {
					t.Fatalf("error %T %v, want *validator.InputError", err, err)
				}
				got = "INPUT"
			case !r.Valid:
				got = strings.Join(r.Diagnostics, ",")
			}
			if got != c.want {
				t.Errorf("got %q (%v %s), want %q", got, err, r.Detail, c.want)
			}
			if err == nil && r.Valid && r.Level != attest.Signed {
				t.Errorf("level %s, want SIGNED", r.Level)
			}
		})
	}
}

// shapeMutants are the ill-typed envelope shapes of REFERENCE §5.3 G1.
func shapeMutants(t testing.TB, base *canonjson.Value) map[string][]byte {
	t.Helper()
	env := func() *canonjson.Value {
		e, err := attest.Sign(base, attesttest.TestOnlyKeyOne(), attesttest.Options(attesttest.IdentityOne))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	out := map[string][]byte{}
	for name, envelopes := range map[string]string{
		"empty-object": `{}`, "object": `{"a":1}`, "string": `"abc"`, "empty-string": `""`,
		"number": `5`, "true": `true`, "null": `null`, "null-item": `[null]`, "number-item": `[1]`,
		"signatures-null-item": `[{"signatures":[null]}]`, "signatures-object": `[{"signatures":{"a":1}}]`,
		"signature-number": `[{"signatures":[1]}]`,
	} {
		v, err := canonjson.Parse([]byte(envelopes))
		if err != nil {
			t.Fatal(err)
		}
		w := attest.Wrap(base.Clone(), attest.Signed)
		w.Get("authenticity").Set("envelopes", v)
		out["shape-"+name] = compactValue(t, w)
	}
	// Two signatures in one envelope (E1), and eight envelopes by eight keys.
	two := env()
	other := env()
	two.Get("signatures").Items = append(two.Get("signatures").Items, other.Get("signatures").Items[0])
	out["two-signatures"] = compactValue(t, attest.Wrap(base.Clone(), attest.Signed, two))
	var eight []*canonjson.Value
	for i := range 8 {
		e, err := attest.Sign(base, testOnlyKey(fmt.Sprint(i)), attesttest.Options(attesttest.IdentityOne))
		if err != nil {
			t.Fatal(err)
		}
		eight = append(eight, e)
	}
	out["eight-envelopes"] = compactValue(t, attest.Wrap(base.Clone(), attest.Signed, eight...))
	return out
}

// FuzzVerify feeds arbitrary wrapper and trust-policy bytes through the
// strict reader into attest.Verify, seeded with every wrapper of
// testdata/attestation (with its policy), signed non-canonical payloads
// and ill-typed envelope shapes. An empty policy means "no policy".
//
// Properties: Verify never panics; an error is always a
// *validator.InputError and comes with no partial result; a result is
// coherent (valid iff no diagnostics, one diagnostic or the
// ATTESTED_EVIDENCE_INVALID pair, evaluatedAt echoed); and a valid result
// with a derived level ≥ SIGNED means every envelope's signature verified,
// both in r.Evaluation and independently with crypto/ed25519 over the PAE,
// under a key that is not of small order. Levels above SIGNED need a policy
// and every envelope trusted; WITNESSED needs two distinct keys;
// TRANSPARENCY_RECORDED a digest-checked reference.
func FuzzVerify(f *testing.F) {
	_, cat, err := canonjson.ReadFile(filepath.Join("..", "testdata", "attestation", "catalog.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cat.Get("cases").Items {
		var policy []byte
		if p := c.Get("trustPolicy"); p.Is(canonjson.String) {
			policy = compactFile(f, p.Str)
		}
		f.Add(compactFile(f, c.Get("wrapper").Str), policy)
	}
	base := bundletest.Example(f)
	testPolicy := compactValue(f, attesttest.Policy(attesttest.PolicyOptions{}))
	for _, w := range payloadMutants(f, base) {
		f.Add(w, []byte(nil))
	}
	for _, w := range shapeMutants(f, base) {
		f.Add(w, testPolicy)
	}

	val := validator.New()
	const at = attesttest.EvaluatedAt
	f.Fuzz(func(t *testing.T, wrapper, policy []byte) {
		doc, err := canonjson.Parse(wrapper)
		if err != nil {
			return // the CLI stops at the strict reader (exit 2)
		}
		var pol *canonjson.Value
		if len(policy) > 0 {
			if pol, err = canonjson.Parse(policy); err != nil {
				return
			}
		}
		r, err := attest.Verify(doc, attest.Options{Policy: openPolicy(pol, val), EvaluatedAt: at, Validator: val})
		if err != nil {
			if _, ok := err.(*validator.InputError); !ok {
				t.Fatalf("Verify returned %T %v, want *validator.InputError", err, err)
			}
			if !reflect.DeepEqual(r, attest.Result{}) {
				t.Fatalf("Verify returned a partial result with its error: %+v", r)
			}
			return
		}
		checkResult(t, doc, pol, r, at)
	})
}

func checkResult(t *testing.T, doc, pol *canonjson.Value, r attest.Result, at string) {
	t.Helper()
	if r.EvaluatedAt != at {
		t.Fatalf("evaluatedAt %q, want %q", r.EvaluatedAt, at)
	}
	if !r.Valid {
		switch {
		case len(r.Diagnostics) == 1 && r.Diagnostics[0] != attest.CodeAttestedEvidenceInvalid:
		case len(r.Diagnostics) == 2 && r.Diagnostics[0] == attest.CodeAttestedEvidenceInvalid && strings.HasPrefix(r.Diagnostics[1], "MCP_RES_"):
		default:
			t.Fatalf("invalid result with diagnostics %v", r.Diagnostics)
		}
		return
	}
	if len(r.Diagnostics) != 0 {
		t.Fatalf("valid result with diagnostics %v", r.Diagnostics)
	}
	auth := doc.Get("authenticity")
	claim, err := attest.ParseLevel(auth.Get("claimedClassification").Str)
	if err != nil {
		t.Fatalf("valid result for an unknown claim: %v", err)
	}
	if r.Level < claim {
		t.Fatalf("valid with derived level %s below the claim %s", r.Level, claim)
	}
	envs := auth.Get("envelopes").Items
	if r.Level == attest.UnsignedIntegrityOnly {
		if len(envs) != 0 || claim != attest.UnsignedIntegrityOnly {
			t.Fatalf("UNSIGNED_INTEGRITY_ONLY with %d envelopes, claim %s", len(envs), claim)
		}
		return
	}
	// Level ≥ SIGNED: every envelope's signature verified.
	ev := r.Evaluation.Envelopes
	if len(envs) == 0 || len(ev) != len(envs) {
		t.Fatalf("level %s with %d envelopes but %d evaluations", r.Level, len(envs), len(ev))
	}
	keys := map[string]bool{}
	trusted, tlog := true, false
	for i, env := range envs {
		if !ev[i].SignatureValid {
			t.Fatalf("level %s but envelope %d's signature is not marked valid", r.Level, i)
		}
		trusted = trusted && ev[i].Trusted
		tlog = tlog || ev[i].Transparency == attest.TransparencyDigestOnly
		if (ev[i].Reference != nil) != (ev[i].Transparency != attest.TransparencyNone) || (ev[i].Verified != nil) != (ev[i].Transparency == attest.TransparencyVerifiedOffline) {
			t.Fatalf("envelope %d: transparency %s with reference %v and verified %v", i, ev[i].Transparency, ev[i].Reference, ev[i].Verified)
		}
		sigs := env.Get("signatures").Items
		if len(sigs) != 1 {
			t.Fatalf("envelope %d has %d signatures", i, len(sigs))
		}
		sig := sigs[0]
		payload, err1 := base64.StdEncoding.DecodeString(env.Get("payload").Str)
		der, err2 := base64.StdEncoding.DecodeString(sig.Get("publicKeySpkiBase64").Str)
		raw, err3 := base64.StdEncoding.DecodeString(sig.Get("sig").Str)
		if err1 != nil || err2 != nil || err3 != nil || len(der) != ed25519strict.SPKISize {
			t.Fatalf("envelope %d of a valid result does not decode: %v %v %v (%d-byte key)", i, err1, err2, err3, len(der))
		}
		pub := ed25519.PublicKey(der[len(ed25519strict.SPKIPrefix):])
		if !ed25519.Verify(pub, attest.PAE(env.Get("payloadType").Str, payload), raw) {
			t.Fatalf("envelope %d: crypto/ed25519 rejects a signature Verify accepted", i)
		}
		if err := ed25519strict.CheckPublicKey(pub); err != nil {
			t.Fatalf("envelope %d: accepted a key that fails the §6.7 rules: %v", i, err)
		}
		keys[sig.Get("keyid").Str] = true
	}
	if len(keys) != len(envs) {
		t.Fatalf("valid with a repeated keyid among %d envelopes", len(envs))
	}
	if r.Level >= attest.SignedWithIdentity && (pol == nil || !trusted) {
		t.Fatalf("level %s without a policy trusting every envelope", r.Level)
	}
	if r.Level == attest.Witnessed && len(keys) < 2 {
		t.Fatalf("WITNESSED with %d distinct keys", len(keys))
	}
	if r.Level == attest.TransparencyRecorded && !tlog {
		t.Fatalf("TRANSPARENCY_RECORDED without a digest-checked reference")
	}
}
