package keyless

import (
	"bytes"
	"crypto/x509"
	"sync/atomic"

	"github.com/sigstore/sigstore-go/pkg/root"
	tsaverification "github.com/sigstore/timestamp-authority/v2/pkg/verification"
)

// trustedRoot is the trusted root as sigstore-go reads it, with each of
// its timestamp authorities wrapped in a chainOnce: what Certify passes
// to sigstore-go's verifiers.
type trustedRoot struct {
	*root.TrustedRoot
	tsas []root.TimestampingAuthority
}

func newTrustedRoot(r *root.TrustedRoot) *trustedRoot {
	t := &trustedRoot{TrustedRoot: r}
	for _, a := range r.TimestampingAuthorities() {
		if s, ok := a.(*root.SigstoreTimestampingAuthority); ok && s.Leaf != nil && s.Root != nil {
			a = &chainOnce{tsa: s}
		}
		t.tsas = append(t.tsas, a)
	}
	return t
}

// TimestampingAuthorities overrides the trusted root's.
func (t *trustedRoot) TimestampingAuthorities() []root.TimestampingAuthority { return t.tsas }

// chainOnce is a timestamp authority of the trusted root whose
// certificate chain is not verified again for every timestamp.
//
// Why: every timestamp of one authority is signed by the same leaf
// certificate, listed with its intermediates and root in the trusted
// root, which the policy pins by digest; sigstore-go's Verify (through
// timestamp-authority's VerifyTimestampResponse) checks that chain's
// signatures (two ECDSA verifications) for each of them: the same
// computation on the same bytes, a fifth of a keyless batch's CPU.
//
// How, without deciding anything sigstore-go would not: until one
// timestamp has verified through sigstore-go's own Verify (the whole
// chain, at that timestamp's time), every timestamp goes there. After,
// a timestamp is first checked by the same VerifyTimestampResponse with
// the leaf as the only anchor — the token's signature under the leaf's
// key, the leaf's validity at the token's time and its critical
// time-stamping EKU, the ESS certificate ID, the hashed signature — and
// then the token's time against the validity of every intermediate and
// of the root, and against the authority's validity period. What the
// library checked of the chain once and this does not repeat — the
// signatures, basic constraints and key usages along it — does not
// depend on time. When any of these does not hold, the timestamp goes to
// sigstore-go's Verify, which alone refuses and explains: this path only
// accepts what that one accepts (TestChainOnceAgreesWithTheLibrary).
type chainOnce struct {
	tsa     *root.SigstoreTimestampingAuthority
	chainOK atomic.Bool  // a timestamp verified through tsa.Verify
	quick   atomic.Int64 // timestamps accepted without the chain (tests)
}

// Verify is root.TimestampingAuthority's.
func (c *chainOnce) Verify(signedTimestamp, signature []byte) (*root.Timestamp, error) {
	if c.chainOK.Load() {
		if ts := c.quickVerify(signedTimestamp, signature); ts != nil {
			c.quick.Add(1)
			return ts, nil
		}
	}
	ts, err := c.tsa.Verify(signedTimestamp, signature)
	if err == nil {
		c.chainOK.Store(true)
	}
	return ts, err
}

// quickVerify is the timestamp when it verifies with the leaf as its
// anchor and its time is inside the validity of every certificate of the
// authority's chain and of the authority itself; nil otherwise.
func (c *chainOnce) quickVerify(signedTimestamp, signature []byte) *root.Timestamp {
	t := c.tsa
	ts, err := tsaverification.VerifyTimestampResponse(signedTimestamp, bytes.NewReader(signature), tsaverification.VerifyOpts{
		Roots:          []*x509.Certificate{t.Leaf},
		TSACertificate: t.Leaf,
	})
	if err != nil {
		return nil
	}
	at := ts.Time
	for _, cert := range append([]*x509.Certificate{t.Root}, t.Intermediates...) {
		if at.Before(cert.NotBefore) || at.After(cert.NotAfter) {
			return nil
		}
	}
	if (!t.ValidityPeriodStart.IsZero() && at.Before(t.ValidityPeriodStart)) || (!t.ValidityPeriodEnd.IsZero() && at.After(t.ValidityPeriodEnd)) {
		return nil
	}
	return &root.Timestamp{Time: at, URI: t.URI}
}
