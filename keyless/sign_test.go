package keyless_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/digitorus/timestamp"
	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

func signOpts(tok *keyless.Token, s *keylesstest.Stack) keyless.Options {
	return keyless.Options{
		BundleSignOptions: attest.BundleSignOptions{SignOptions: attest.SignOptions{
			SigningTime: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), TrustPolicyID: "example/keyless",
		}},
		Token: tok, FulcioURL: s.FulcioURL, TSAURL: s.TSAURL,
	}
}

func parse(t *testing.T, raw string) *keyless.Token {
	t.Helper()
	tok, err := keyless.ParseToken(raw, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// sgVerify verifies a Sigstore bundle with sigstore-go against tr,
// requiring issuer and identity exactly (what a consumer does).
func sgVerify(t *testing.T, data []byte, tr root.TrustedMaterial, issuer, identity string) (*verify.VerificationResult, error) {
	t.Helper()
	var b sgbundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	v, err := verify.NewVerifier(tr, verify.WithSignedTimestamps(1))
	if err != nil {
		t.Fatal(err)
	}
	id, err := verify.NewShortCertificateIdentity(issuer, "", identity, "")
	if err != nil {
		t.Fatal(err)
	}
	return v.Verify(&b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithCertificateIdentity(id)))
}

// TestSignFulcio signs with a real Fulcio and timestamp authority, for an
// email identity and a GitHub Actions workflow identity, and checks the
// attested bundle, the certificate and the Sigstore bundle.
func TestSignFulcio(t *testing.T) {
	s := keylesstest.NewStack(t)
	tr, err := keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, token, issuer, identity string }{
		{"email", s.EmailToken(t, "release@example.org", nil), s.EmailIssuer, "release@example.org"},
		{"github", s.GitHubToken(t, nil), s.GitHubIssuer, keylesstest.GitHubIdentity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := signOpts(parse(t, tc.token), s)
			o.TrustedRoot = tr
			res, err := keyless.Sign(context.Background(), bundletest.Example(t), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Identity != tc.identity || res.Issuer != tc.issuer {
				t.Fatalf("certificate identity %q issuer %q, want %q %q", res.Identity, res.Issuer, tc.identity, tc.issuer)
			}
			sig := res.Envelope.Get("signatures").Items[0]
			if got := sig.Get("signerIdentity").Str; got != tc.identity {
				t.Fatalf("envelope signerIdentity %q, want the certificate's %q", got, tc.identity)
			}
			// The envelope's key is the certified key.
			if !res.Certificate.PublicKey.(ed25519.PublicKey).Equal(publicKeyOf(t, res.Envelope)) {
				t.Fatal("the envelope's key is not the certificate's")
			}
			if time.Since(res.Timestamp) > time.Minute || res.Timestamp.Before(res.Certificate.NotBefore) || res.Timestamp.After(res.Certificate.NotAfter) {
				t.Fatalf("timestamp %v outside the certificate's validity %v–%v", res.Timestamp, res.Certificate.NotBefore, res.Certificate.NotAfter)
			}
			// A consumer with sigstore-go verifies the same signature.
			if _, err := sgVerify(t, res.SigstoreBundle, tr, tc.issuer, tc.identity); err != nil {
				t.Fatalf("sigstore-go: %v", err)
			}
			// ... and another identity fails (control of the identity check).
			if _, err := sgVerify(t, res.SigstoreBundle, tr, tc.issuer, "someone@example.org"); err == nil {
				t.Fatal("sigstore-go accepted another identity")
			}
			// The token is nowhere in what Sign returns.
			attested, _ := canonjson.Pretty(res.Attested)
			for what, b := range map[string][]byte{"attested bundle": attested, "Sigstore bundle": res.SigstoreBundle} {
				if strings.Contains(string(b), tc.token) || strings.Contains(string(b), strings.Split(tc.token, ".")[2]) {
					t.Fatalf("the token is in the %s", what)
				}
			}
			if tc.name == "github" {
				sum, err := certificate.SummarizeCertificate(res.Certificate)
				if err != nil {
					t.Fatal(err)
				}
				if sum.SourceRepositoryURI != "https://github.com/"+keylesstest.GitHubRepo || sum.SourceRepositoryRef != "refs/tags/v1.4.0" || sum.BuildSignerURI != keylesstest.GitHubIdentity {
					t.Fatalf("GitHub extensions: %+v", sum.Extensions)
				}
			}
		})
	}

	t.Run("identity mismatch", func(t *testing.T) {
		o := signOpts(parse(t, s.EmailToken(t, "release@example.org", nil)), s)
		o.SignerIdentity = "someone-else@example.org"
		o.TrustedRoot = tr
		if _, err := keyless.Sign(context.Background(), bundletest.Example(t), o); !errors.Is(err, keyless.ErrIdentity) {
			t.Fatalf("got %v, want ErrIdentity", err)
		}
		// Control: the certificate's own identity is accepted.
		o = signOpts(parse(t, s.EmailToken(t, "release@example.org", nil)), s)
		o.SignerIdentity = "release@example.org"
		o.TrustedRoot = tr
		if _, err := keyless.Sign(context.Background(), bundletest.Example(t), o); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("token Fulcio refuses", func(t *testing.T) {
		// Signed by the issuer's key but for an issuer Fulcio does not know.
		raw := s.Mint(t, map[string]any{"iss": s.EmailIssuer + "x", "sub": "x", "aud": "sigstore", "email": "a@example.org", "email_verified": true})
		o := signOpts(parse(t, raw), s)
		_, err := keyless.Sign(context.Background(), bundletest.Example(t), o)
		if !errors.Is(err, keyless.ErrCertificate) || strings.Contains(err.Error(), raw) {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("untrusted root", func(t *testing.T) {
		other := keylesstest.OtherTrustedRoot(t)
		o := signOpts(parse(t, s.EmailToken(t, "release@example.org", nil)), s)
		o.TrustedRoot = other
		if _, err := keyless.Sign(context.Background(), bundletest.Example(t), o); !errors.Is(err, keyless.ErrMaterial) {
			t.Fatalf("got %v, want ErrMaterial", err)
		}
	})

	t.Run("cosign", func(t *testing.T) {
		o := signOpts(parse(t, s.EmailToken(t, "release@example.org", nil)), s)
		o.TrustedRoot = tr
		first, err := keyless.Sign(context.Background(), bundletest.Example(t), o)
		if err != nil {
			t.Fatal(err)
		}
		o = signOpts(parse(t, s.GitHubToken(t, nil)), s)
		o.TrustedRoot = tr
		second, err := keyless.Sign(context.Background(), first.Attested, o)
		if err != nil {
			t.Fatal(err)
		}
		if !second.Cosigned || second.Envelopes != 2 {
			t.Fatalf("cosigned %v, %d envelopes", second.Cosigned, second.Envelopes)
		}
	})
}

func publicKeyOf(t *testing.T, env *canonjson.Value) ed25519.PublicKey {
	t.Helper()
	der, err := keyfile.DecodeStrictBase64(env.Get("signatures").Items[0].Get("publicKeySpkiBase64").Str)
	if err != nil {
		t.Fatal(err)
	}
	k, err := keyfile.ParseSPKI(der)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSignTimestampFaults: a timestamp authority that answers garbage, one
// that timestamps other bytes, and one the trusted root does not list, and
// a Fulcio CA the trusted root does not list; each refused with its own
// error, and the honest path as control.
func TestSignTimestampFaults(t *testing.T) {
	s := keylesstest.NewStack(t)
	tr, err := keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		t.Fatal(err)
	}
	other := keylesstest.OtherTrustedRoot(t)
	mix := func(cas root.TrustedMaterial, tsas root.TrustedMaterial) *root.TrustedRoot {
		r, err := root.NewTrustedRoot(root.TrustedRootMediaType01, cas.FulcioCertificateAuthorities(), nil, tsas.TimestampingAuthorities(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("not a TimeStampResp")) }))
	defer garbage.Close()
	// otherBytes forwards a request for SHA-256("other bytes") to the real
	// authority and returns its (valid, signed) answer.
	otherBytes := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := sha256.Sum256([]byte("other bytes"))
		q, _ := (&timestamp.Request{HashAlgorithm: crypto.SHA256, HashedMessage: h[:], Certificates: true}).Marshal()
		resp, err := http.Post(s.TSAURL, "application/timestamp-query", bytes.NewReader(q))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer resp.Body.Close()
		io.Copy(w, resp.Body)
	}))
	defer otherBytes.Close()
	for _, tc := range []struct {
		name, tsa string
		root      *root.TrustedRoot
		want      error
		says      string
	}{
		{"control", s.TSAURL, tr, nil, ""},
		{"garbage", garbage.URL, tr, keyless.ErrBadTimestamp, "not a granted RFC 3161"},
		{"other bytes", otherBytes.URL, tr, keyless.ErrBadTimestamp, "over other bytes"},
		{"untrusted authority", s.TSAURL, mix(tr, other), keyless.ErrMaterial, "verify signed timestamps"},
		{"untrusted CA", s.TSAURL, mix(other, tr), keyless.ErrMaterial, "leaf certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := signOpts(parse(t, s.EmailToken(t, "release@example.org", nil)), s)
			o.TSAURL, o.TrustedRoot = tc.tsa, tc.root
			_, err := keyless.Sign(context.Background(), bundletest.Example(t), o)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want %v saying %q", err, tc.want, tc.says)
			}
			t.Log(err)
		})
	}
}
