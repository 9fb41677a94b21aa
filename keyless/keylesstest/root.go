package keylesstest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
)

// OtherTrustedRoot is a Sigstore trusted root whose Fulcio CA and
// timestamp authority are throwaway self-signed certificates no Stack
// uses: material from a Stack must not verify against it.
func OtherTrustedRoot(t testing.TB) *root.TrustedRoot {
	t.Helper()
	ca := selfSigned(t, "other fulcio", x509.KeyUsageCertSign, nil)
	tsa := selfSigned(t, "other tsa", x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping})
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		[]root.CertificateAuthority{&root.FulcioCertificateAuthority{Root: ca}}, nil,
		[]root.TimestampingAuthority{&root.SigstoreTimestampingAuthority{Root: tsa}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func selfSigned(t testing.TB, cn string, ku x509.KeyUsage, eku []x509.ExtKeyUsage) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: ku | x509.KeyUsageCertSign, ExtKeyUsage: eku, BasicConstraintsValid: true, IsCA: true,
	}
	return Certificate(t, tmpl, tmpl, &key.PublicKey, key)
}

// Certificate is tmpl issued by parent (signed with priv) for pub, made
// and parsed at test time.
func Certificate(t testing.TB, tmpl, parent *x509.Certificate, pub any, priv crypto.Signer) *x509.Certificate {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
