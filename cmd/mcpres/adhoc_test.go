package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyfile"
)

// adHocFixture signs the example bundle with test key one (signed.json)
// and co-signs it with test key two (cosigned.json), and writes both
// public keys.
func adHocFixture(t *testing.T) (dir, signed, cosigned, pubOne, pubTwo string) {
	t.Helper()
	dir = t.TempDir()
	in := exampleBundleFile(t, dir)
	one := writeTestKey(t, dir, "one.key", attesttest.TestOnlyKeyOne())
	two := writeTestKey(t, dir, "two.key", attesttest.TestOnlyKeyTwo())
	signed = filepath.Join(dir, "signed.json")
	if _, stderr, code := runCLI(t, signArgs(in, one, attesttest.IdentityOne, signed, "--claim", "SIGNED_WITH_IDENTITY")...); code != exitValid {
		t.Fatalf("sign: exit %d, %s", code, stderr)
	}
	cosigned = filepath.Join(dir, "cosigned.json")
	if _, stderr, code := runCLI(t, signArgs(signed, two, attesttest.IdentityTwo, cosigned)...); code != exitValid {
		t.Fatalf("co-sign: exit %d, %s", code, stderr)
	}
	pubOne, pubTwo = filepath.Join(dir, "one.pub"), filepath.Join(dir, "two.pub")
	for path, priv := range map[string][]byte{pubOne: attesttest.TestOnlyKeyOne(), pubTwo: attesttest.TestOnlyKeyTwo()} {
		pemBytes, err := keyfile.MarshalPublicKeyPEM(priv[32:])
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, dir, filepath.Base(path), pemBytes, 0o644)
	}
	return dir, signed, cosigned, pubOne, pubTwo
}

func verifyAdHoc(t *testing.T, file string, pairs ...string) (*canonjson.Value, string, int) {
	t.Helper()
	// Bound to the example's subject: a gate without one warns.
	args := []string{"attest", "verify", "--evaluated-at", attesttest.EvaluatedAt, "--subject-name", exampleSubjectName}
	for i := 0; i+1 < len(pairs); i += 2 {
		args = append(args, "--key", pairs[i], "--identity", pairs[i+1])
	}
	stdout, stderr, code := runCLI(t, append(args, file)...)
	if code == exitInput {
		return nil, stderr, code
	}
	return parseOneLine(t, stdout), stderr, code
}

// --key/--identity trust exactly the given keys with their identities,
// through a real trust policy named in the result.
func TestCLIAttestVerifyAdHocKeys(t *testing.T) {
	_, signed, cosigned, pubOne, pubTwo := adHocFixture(t)

	t.Run("one key: SIGNED_WITH_IDENTITY, named ad hoc", func(t *testing.T) {
		res, stderr, code := verifyAdHoc(t, signed, pubOne, attesttest.IdentityOne)
		if code != exitValid || strOf(res.Get("authenticityClassification")) != "SIGNED_WITH_IDENTITY" {
			t.Fatalf("exit %d, %s", code, mustCompact(res))
		}
		if stderr != "" {
			t.Errorf("stderr %q: a trust source was given, no warning is due", stderr)
		}
		notes := stringItems(res.Path("evaluation", "notes"))
		if len(notes) == 0 || !strings.HasPrefix(notes[0], "ad-hoc trust policy (mcpres.ad-hoc)") {
			t.Errorf("the result does not name the ad-hoc policy: %q", notes)
		}
		if got := strOf(res.Path("evaluation", "policyId")); got != attesttest.TrustPolicyID {
			t.Errorf("policyId %q, want the trustPolicyId the envelope names", got)
		}
	})
	t.Run("two distinct keys: WITNESSED, in either order", func(t *testing.T) {
		for _, pairs := range [][]string{
			{pubOne, attesttest.IdentityOne, pubTwo, attesttest.IdentityTwo},
			{pubTwo, attesttest.IdentityTwo, pubOne, attesttest.IdentityOne},
		} {
			res, _, code := verifyAdHoc(t, cosigned, pairs...)
			if code != exitValid || strOf(res.Get("authenticityClassification")) != "WITNESSED" {
				t.Errorf("exit %d, %s", code, mustCompact(res))
			}
		}
	})
	t.Run("control: only the primary key given, the co-signer is not trusted", func(t *testing.T) {
		res, _, code := verifyAdHoc(t, cosigned, pubOne, attesttest.IdentityOne)
		if code != exitInvalid || !strings.Contains(mustCompact(res), attest.CodeUntrustedSigner) {
			t.Errorf("exit %d, %s; want %s", code, mustCompact(res), attest.CodeUntrustedSigner)
		}
	})
	t.Run("wrong identity for the key", func(t *testing.T) {
		res, _, code := verifyAdHoc(t, signed, pubOne, attesttest.IdentityTwo)
		if code != exitInvalid || !strings.Contains(mustCompact(res), attest.CodeUntrustedSigner) || !strings.Contains(mustCompact(res), "differs from signer") {
			t.Errorf("exit %d, %s; want an untrusted signer because of the identity", code, mustCompact(res))
		}
	})
	t.Run("a key not in the bundle", func(t *testing.T) {
		res, _, code := verifyAdHoc(t, signed, pubTwo, attesttest.IdentityOne)
		if code != exitInvalid || !strings.Contains(mustCompact(res), "is not a signer of the policy") {
			t.Errorf("exit %d, %s; want an untrusted signer because of the key", code, mustCompact(res))
		}
	})
	t.Run("one key given twice", func(t *testing.T) {
		_, stderr, code := verifyAdHoc(t, cosigned, pubOne, attesttest.IdentityOne, pubOne, attesttest.IdentityTwo)
		if code != exitInput || !strings.Contains(stderr, "one key is one signer") {
			t.Errorf("exit %d, stderr %q; want the policy's uniqueKey check as a usage error", code, stderr)
		}
	})
	t.Run("an ECDSA key", func(t *testing.T) {
		ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader) // generated at test time
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalPKIXPublicKey(&ec.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		ecPub := writeTestFile(t, t.TempDir(), "ec.pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
		_, stderr, code := verifyAdHoc(t, signed, ecPub, attesttest.IdentityOne)
		if code != exitInput || !strings.Contains(stderr, "only Ed25519") {
			t.Errorf("exit %d, stderr %q; want only Ed25519", code, stderr)
		}
	})
	t.Run("usage: unpaired flags, --key with --policy", func(t *testing.T) {
		for _, args := range [][]string{
			{"attest", "verify", "--key", pubOne, signed},
			{"attest", "verify", "--key", pubOne, "--identity", attesttest.IdentityOne, "--policy", filepath.Join(attestDir, "witnessed.trust-policy.json"), signed},
		} {
			if _, stderr, code := runCLI(t, args...); code != exitInput || !strings.Contains(stderr, "--key") {
				t.Errorf("%q: exit %d, stderr %q; want a usage error", args, code, stderr)
			}
		}
	})
}

// Without a trust source the upstream result is kept, with a warning; a
// gate above SIGNED is refused with the reason.
func TestCLIAttestVerifyNoTrustSource(t *testing.T) {
	_, signed, _, pubOne, _ := adHocFixture(t)
	// SIGNED_WITH_IDENTITY claimed: without a policy it is an untrusted
	// signer upstream; the warning says why.
	stdout, stderr, code := runCLI(t, "attest", "verify", "--evaluated-at", attesttest.EvaluatedAt, signed)
	if code != exitInvalid || !strings.Contains(stdout, attest.CodeUntrustedSigner) {
		t.Errorf("exit %d, stdout %q: the upstream result must stay", code, stdout)
	}
	if !strings.Contains(stderr, "no signer was trusted") {
		t.Errorf("stderr %q: want the no-trust warning", stderr)
	}
	// Every gate flag needs a trust source: without one nothing can pass.
	for _, gate := range [][]string{{"--require-level", "SIGNED_WITH_IDENTITY"}, {"--require-level", "SIGNED"},
		{"--require-level-unsafe", "SIGNED"}, {"--accept-result", "FAIL"}, {"--subject-name", exampleSubjectName}} {
		_, stderr, code = runCLI(t, append(append([]string{"attest", "verify"}, gate...), signed)...)
		if code != exitInput || !strings.Contains(stderr, gate[0]+": a gate needs a trust source (--policy, --policy-tuf or --key)") {
			t.Errorf("%q: exit %d, stderr %q; want the reason the gate can never pass", gate, code, stderr)
		}
	}
	// Control: with --key the gate runs.
	if _, stderr, code := runCLI(t, "attest", "verify", "--evaluated-at", attesttest.EvaluatedAt, "--require-level", "SIGNED_WITH_IDENTITY",
		"--key", pubOne, "--identity", attesttest.IdentityOne, signed); code != exitValid {
		t.Errorf("--require-level with --key: exit %d, stderr %q", code, stderr)
	}
}

// exampleSubjectName is the subject name of the example bundle
// (bundletest.Example), for gates bound to it.
const exampleSubjectName = "ledger-notes-server"

// verifyStderr is what attest verify prints on stderr for a bundle it
// reads: nothing with a policy, the no-trust warning without one.
func verifyStderr(policy string) string {
	if policy != "" {
		return ""
	}
	return "mcpres: warning: no trust policy (--policy, --policy-tuf or --key): no signer was trusted, so at most SIGNED is derived; this verifies signatures and is not a gate\n"
}
