package keyless

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/keyfile"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// The public Sigstore instances, the defaults of mcpres attest sign
// --keyless.
const (
	PublicFulcio = "https://fulcio.sigstore.dev"
	PublicTSA    = "https://timestamp.sigstore.dev/api/v1/timestamp"
)

// BundleMediaType is the media type of the Sigstore bundle Sign returns.
const BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Errors of Sign besides ErrToken and ErrCertificate (test with errors.Is).
var (
	// ErrIdentity: the signer identity asked for is not the certificate's.
	ErrIdentity = errors.New("signer identity")
	// ErrTimestamp: the timestamp authority failed or its timestamp does
	// not verify.
	ErrTimestamp = errors.New("RFC 3161 timestamp")
	// ErrBadTimestamp (also ErrTimestamp): the authority answered with
	// something that is not a granted timestamp over the signature.
	ErrBadTimestamp = fmt.Errorf("%w: not a timestamp over this signature", ErrTimestamp)
	// ErrMaterial: the Sigstore bundle made of the certificate, the
	// timestamp and the envelope does not verify against the trusted root.
	ErrMaterial = errors.New("keyless verification material")
)

// Options configure [Sign].
type Options struct {
	// BundleSignOptions are attest's. SignerIdentity may be empty (the
	// certificate's identity is used); a non-empty one must equal it.
	attest.BundleSignOptions
	// Token is the OIDC identity token sent to Fulcio.
	Token *Token
	// FulcioURL is the certificate authority's base URL; TSAURL the
	// timestamp authority's RFC 3161 endpoint. Empty: the public ones.
	FulcioURL, TSAURL string
	// TrustedRoot is what the material is verified against before Sign
	// returns. Nil: the chains the two servers publish (Fulcio's
	// /api/v2/trustBundle, the authority's /certchain), which only proves
	// the answers consistent with each other: verifiers use their own.
	TrustedRoot *root.TrustedRoot
	// Client makes the requests; nil means a client with a one-minute
	// timeout that follows no redirect.
	Client *http.Client
}

// Result is what Sign did.
type Result struct {
	// Signing is attest's account of the attested bundle.
	*attest.Signing
	// SigstoreBundle is the Sigstore bundle v0.3 (proto3 JSON) for the new
	// envelope: the Fulcio certificate, the RFC 3161 timestamp and the same
	// DSSE signature.
	SigstoreBundle []byte
	// Identity and Issuer are the certificate's SAN and OIDC issuer.
	Identity, Issuer string
	// Timestamp is the verified time of the RFC 3161 timestamp.
	Timestamp time.Time
	// Certificate is the Fulcio leaf certificate.
	Certificate *x509.Certificate
}

// Sign signs doc (a bundle; an attested bundle is co-signed) keylessly:
// see the package documentation for the steps. Refusals from attest come
// back as *attest.SignError.
func Sign(ctx context.Context, doc *canonjson.Value, o Options) (*Result, error) {
	if o.Token == nil {
		return nil, fmt.Errorf("%w: none given", ErrToken)
	}
	client := o.Client
	if client == nil {
		client = defaultClient()
	}
	fulcioURL, tsaURL := or(o.FulcioURL, PublicFulcio), or(o.TSAURL, PublicTSA)
	if _, err := checkURL(tsaURL, "the timestamp authority URL"); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	defer clear(priv)
	chain, err := requestCertificate(ctx, client, fulcioURL, o.Token, priv)
	if err != nil {
		return nil, err
	}
	summary, err := certificate.SummarizeCertificate(chain[0])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCertificate, err)
	}
	identity, issuer := summary.SubjectAlternativeName, summary.Extensions.Issuer
	if identity == "" || issuer == "" {
		return nil, fmt.Errorf("%w: it names no identity (SAN) or no OIDC issuer", ErrCertificate)
	}
	if o.SignerIdentity != "" && o.SignerIdentity != identity {
		return nil, fmt.Errorf("%w: %q was asked for but the certificate certifies %q; a keyless signature's identity is the certificate's (leave it out)", ErrIdentity, o.SignerIdentity, identity)
	}
	bo := o.BundleSignOptions
	bo.SignerIdentity = identity
	var s *attest.Signing
	if document.Detect(doc) == document.AttestedBundle {
		s, err = attest.Cosign(doc, priv, bo)
	} else {
		s, err = attest.SignBundle(doc, priv, bo)
	}
	if err != nil {
		return nil, err
	}
	payload, sig, err := envelopeParts(s.Envelope)
	if err != nil {
		return nil, err
	}
	ts, err := requestTimestamp(ctx, client, tsaURL, sig)
	if err != nil {
		return nil, err
	}
	b, err := sigstoreBundle(chain[0], ts, payload, sig)
	if err != nil {
		return nil, err
	}
	tr := o.TrustedRoot
	if tr == nil {
		if tr, err = FetchTrustedRoot(ctx, client, fulcioURL, tsaURL); err != nil {
			return nil, err
		}
	}
	res, err := verifyMaterial(b, tr, issuer, identity)
	if err != nil {
		return nil, err
	}
	data, err := b.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return &Result{Signing: s, SigstoreBundle: data, Identity: identity, Issuer: issuer, Timestamp: res, Certificate: chain[0]}, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// envelopeParts returns the payload and the signature of an envelope
// attest made (one signature, strict base64).
func envelopeParts(env *canonjson.Value) (payload, sig []byte, err error) {
	payload, err = keyfile.DecodeStrictBase64(env.Get("payload").Str)
	if err != nil {
		return nil, nil, err
	}
	sigs := env.Get("signatures")
	if !sigs.Is(canonjson.Array) || len(sigs.Items) != 1 {
		return nil, nil, errors.New("the new envelope does not hold one signature")
	}
	sig, err = keyfile.DecodeStrictBase64(sigs.Items[0].Get("sig").Str)
	return payload, sig, err
}

// sigstoreBundle builds the Sigstore bundle v0.3 for one DSSE signature
// with a certificate and an RFC 3161 timestamp. The DSSE keyid is empty
// (see attest/sigstore: sigstore-go's verifier needs it so).
func sigstoreBundle(leaf *x509.Certificate, ts, payload, sig []byte) (*sgbundle.Bundle, error) {
	pb := &protobundle.Bundle{
		MediaType: BundleMediaType,
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: leaf.Raw}},
			TimestampVerificationData: &protobundle.TimestampVerificationData{
				Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: ts}},
			},
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload:     payload,
			PayloadType: attest.PayloadType,
			Signatures:  []*protodsse.Signature{{Sig: sig}},
		}},
	}
	b, err := sgbundle.NewBundle(pb)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMaterial, err)
	}
	return b, nil
}

// verifyMaterial verifies b with sigstore-go against tr: the certificate
// chains to a trusted Fulcio CA at the time of a verified RFC 3161
// timestamp from a trusted authority over the signature, the signature
// verifies under the certificate key, and the certificate names issuer
// and identity exactly. It returns the timestamp's time.
func verifyMaterial(b *sgbundle.Bundle, tr root.TrustedMaterial, issuer, identity string) (time.Time, error) {
	v, err := verify.NewVerifier(tr, verify.WithSignedTimestamps(1))
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %v", ErrMaterial, err)
	}
	id, err := verify.NewShortCertificateIdentity(issuer, "", identity, "")
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %v", ErrMaterial, err)
	}
	// The statement is the one attest just made and checked; what is
	// verified here is the material around its signature.
	r, err := v.Verify(b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithCertificateIdentity(id)))
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: sigstore-go: %v", ErrMaterial, err)
	}
	for _, t := range r.VerifiedTimestamps {
		if t.Type == "TimestampAuthority" {
			return t.Timestamp, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: sigstore-go verified none", ErrBadTimestamp)
}
