package attest_test

import (
	"crypto/ed25519"
	"fmt"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// benchSigners returns n distinct deterministic TEST-ONLY keys (seeds are
// SHA-256 of fixed labels, see testOnlyKey) with their identities.
func benchSigners(n int) ([]ed25519.PrivateKey, []string) {
	keys := make([]ed25519.PrivateKey, n)
	ids := make([]string, n)
	for i := range n {
		keys[i] = testOnlyKey(fmt.Sprintf("bench-%d", i))
		ids[i] = fmt.Sprintf("test://mcp-res/disposable/bench-signer-%d", i)
	}
	return keys, ids
}

// benchWrapper signs b with n distinct keys and returns the attested bundle
// (claim SIGNED_WITH_IDENTITY for one signer, WITNESSED for more) and a
// test policy that trusts exactly those signers.
func benchWrapper(tb testing.TB, b *canonjson.Value, n int) (wrapper, policy *canonjson.Value, want attest.Level) {
	tb.Helper()
	keys, ids := benchSigners(n)
	policy = attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{}})
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	signers := policy.Get("trustedSigners")
	envs := make([]*canonjson.Value, n)
	for i := range n {
		env, err := attest.Sign(b, keys[i], attesttest.Options(ids[i]))
		if err != nil {
			tb.Fatal(err)
		}
		envs[i] = env
		signers.Items = append(signers.Items, canonjson.NewObject(
			m("keyFingerprint", canonjson.NewString(attesttest.KeyID(keys[i]))),
			m("signerIdentity", canonjson.NewString(ids[i]))))
	}
	want = attest.SignedWithIdentity
	if n > 1 {
		want = attest.Witnessed
	}
	return attest.Wrap(b, want, envs...), policy, want
}

// BenchmarkSign measures attest.Sign on the example bundle (statement,
// canonical bytes, PAE, one Ed25519 signature).
func BenchmarkSign(b *testing.B) {
	bundle := bundletest.Example(b)
	key := attesttest.TestOnlyKeyOne()
	opts := attesttest.Options(attesttest.IdentityOne)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := attest.Sign(bundle, key, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify measures attest.Verify of the example bundle with 1 and
// with 8 envelopes (8 distinct keys, all trusted by the policy), including
// the schema and core validation of the embedded bundle. Compare with
// BenchmarkValidateBundleOnly for the cost attestation adds.
func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{1, 8} {
		name := fmt.Sprintf("%d-envelopes", n)
		if n == 1 {
			name = "1-envelope"
		}
		b.Run(name, func(b *testing.B) {
			w, policy, want := benchWrapper(b, bundletest.Example(b), n)
			val := validator.New()
			opts := attest.Options{Policy: trustpolicy.Open(policy, trustpolicy.OpenOptions{Validator: val}), EvaluatedAt: attesttest.EvaluatedAt, Validator: val}
			r, err := attest.Verify(w, opts) // also loads the schemas once
			if err != nil || !r.Valid || r.Level != want {
				b.Fatalf("setup: %v %v %s %s", err, r.Diagnostics, r.Detail, r.Level)
			}
			b.ReportAllocs()
			for b.Loop() {
				if r, err := attest.Verify(w, opts); err != nil || !r.Valid {
					b.Fatal(err, r.Diagnostics)
				}
			}
		})
	}
}

// BenchmarkValidateBundleOnly is the plain core validation of the same
// example bundle (validator.Bundle), the baseline of BenchmarkVerify.
func BenchmarkValidateBundleOnly(b *testing.B) {
	bundle := bundletest.Example(b)
	val := validator.New()
	if r, err := val.Bundle(bundle); err != nil || !r.Valid {
		b.Fatalf("setup: %v %v", err, r.Diagnostics)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := val.Bundle(bundle); err != nil || !r.Valid {
			b.Fatal(err, r.Diagnostics)
		}
	}
}
