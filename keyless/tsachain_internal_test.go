package keyless

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"testing"
	"time"

	"github.com/digitorus/timestamp"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/sigstore/sigstore-go/pkg/root"
)

// testTSA is a throwaway timestamp authority made at test time (test-only
// keys): a root, an intermediate and a leaf with the critical
// time-stamping EKU, as timestamp-authority requires.
type testTSA struct {
	root, inter, leaf *x509.Certificate
	leafKey           *ecdsa.PrivateKey
	validUntil        time.Time // the end of the authority's validity period in the trusted root, if any
}

func testKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newTestTSA makes an authority whose intermediate is valid from
// interFrom to interUntil; the root and the leaf are valid from a day
// before now to a day after.
func newTestTSA(t testing.TB, now, interFrom, interUntil time.Time) *testTSA {
	t.Helper()
	rk, ik, lk := testKey(t), testKey(t), testKey(t)
	ca := func(cn string, serial int64, from, until time.Time, eku []x509.ExtKeyUsage) *x509.Certificate {
		return &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn}, NotBefore: from, NotAfter: until,
			KeyUsage: x509.KeyUsageCertSign, ExtKeyUsage: eku, BasicConstraintsValid: true, IsCA: true}
	}
	rt := ca("test-only TSA root", 1, now.Add(-24*time.Hour), now.Add(24*time.Hour), nil)
	r := keylesstest.Certificate(t, rt, rt, &rk.PublicKey, rk)
	i := keylesstest.Certificate(t, ca("test-only TSA intermediate", 2, interFrom, interUntil, []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}), r, &ik.PublicKey, rk)
	eku, err := asn1.Marshal([]asn1.ObjectIdentifier{{1, 3, 6, 1, 5, 5, 7, 3, 8}})
	if err != nil {
		t.Fatal(err)
	}
	lt := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "test-only TSA"}, NotBefore: now.Add(-24 * time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Critical: true, Value: eku}}}
	return &testTSA{root: r, inter: i, leaf: keylesstest.Certificate(t, lt, i, &lk.PublicKey, ik), leafKey: lk}
}

// authority is the TSA as a trusted root lists it.
func (a *testTSA) authority() *root.SigstoreTimestampingAuthority {
	return &root.SigstoreTimestampingAuthority{Root: a.root, Intermediates: []*x509.Certificate{a.inter}, Leaf: a.leaf, URI: "https://tsa.test-only.invalid", ValidityPeriodEnd: a.validUntil}
}

// token is a TimeStampResp over SHA-256(sig) at time at, signed by the
// leaf (with the leaf in it when embed).
func (a *testTSA) token(t testing.TB, sig []byte, at time.Time, embed bool) []byte {
	t.Helper()
	h := sha256.Sum256(sig)
	ts := timestamp.Timestamp{HashAlgorithm: crypto.SHA256, HashedMessage: h[:], Time: at, Policy: asn1.ObjectIdentifier{1, 2, 3, 4}, AddTSACertificate: embed}
	der, err := ts.CreateResponseWithOpts(a.leaf, a.leafKey, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// TestChainOnceAgreesWithTheLibrary: once a timestamp has verified
// through sigstore-go, chainOnce accepts a timestamp without verifying
// the chain again exactly when sigstore-go's own authority accepts it, at
// the same time; every other timestamp is sigstore-go's to refuse, with
// sigstore-go's error.
func TestChainOnceAgreesWithTheLibrary(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	sig := []byte("the DSSE signature (test-only)")
	a := newTestTSA(t, now, now.Add(-2*time.Hour), now.Add(2*time.Hour))
	other := newTestTSA(t, now, now.Add(-2*time.Hour), now.Add(2*time.Hour))
	// The same leaf key under a certificate the trusted root does not list.
	impostor := &testTSA{root: other.root, inter: other.inter, leaf: other.leaf, leafKey: a.leafKey}
	// An authority whose intermediate expires in an hour: timestamps after
	// that are inside the leaf's validity and not the chain's.
	short := newTestTSA(t, now, now.Add(-2*time.Hour), now.Add(time.Hour))
	// An authority the trusted root trusts until half an hour from now.
	retired := *a
	retired.validUntil = now.Add(30 * time.Minute)

	cases := []struct {
		name   string
		tsa    *testTSA
		token  []byte
		sig    []byte
		accept bool
		quick  bool // accepted without the chain
	}{
		{"good", a, a.token(t, sig, now, false), sig, true, true},
		{"good, the leaf in the token", a, a.token(t, sig, now, true), sig, true, true},
		{"good, an hour later", a, a.token(t, sig, now.Add(time.Hour), false), sig, true, true},
		{"over other bytes", a, a.token(t, []byte("other bytes"), now, false), sig, false, false},
		{"another authority", a, other.token(t, sig, now, false), sig, false, false},
		{"the leaf's key under another certificate", a, impostor.token(t, sig, now, true), sig, false, false},
		{"before the leaf's validity", a, a.token(t, sig, now.Add(-25*time.Hour), false), sig, false, false},
		{"after the leaf's validity", a, a.token(t, sig, now.Add(25*time.Hour), false), sig, false, false},
		{"garbage", a, []byte("not a TimeStampResp"), sig, false, false},
		{"inside the intermediate's validity", short, short.token(t, sig, now, false), sig, true, true},
		{"after the intermediate's validity", short, short.token(t, sig, now.Add(90*time.Minute), false), sig, false, false},
		{"inside the authority's validity period", &retired, a.token(t, sig, now.Add(10*time.Minute), false), sig, true, true},
		{"after the authority's validity period", &retired, a.token(t, sig, now.Add(time.Hour), false), sig, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lib := c.tsa.authority()
			once := &chainOnce{tsa: c.tsa.authority()}
			// Pinned by a good timestamp first, through sigstore-go.
			if _, err := once.Verify(c.tsa.token(t, sig, now, false), sig); err != nil || !once.chainOK.Load() || once.quick.Load() != 0 {
				t.Fatalf("the first good timestamp: %v, chain verified %v, quick %d", err, once.chainOK.Load(), once.quick.Load())
			}
			want, wantErr := lib.Verify(c.token, c.sig)
			got, err := once.Verify(c.token, c.sig)
			if (wantErr == nil) != c.accept {
				t.Fatalf("sigstore-go accepted %v, want %v (%v)", wantErr == nil, c.accept, wantErr)
			}
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("chainOnce: %v; sigstore-go: %v", err, wantErr)
			}
			if err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("chainOnce refused with %q, sigstore-go with %q", err, wantErr)
			}
			if err == nil && (!got.Time.Equal(want.Time) || got.URI != want.URI) {
				t.Fatalf("chainOnce: %v at %s; sigstore-go: %v at %s", got.URI, got.Time, want.URI, want.Time)
			}
			if q := once.quick.Load() == 1; q != c.quick {
				t.Fatalf("accepted without the chain: %v, want %v", q, c.quick)
			}
		})
	}
}

// TestChainOnceNotPinnedByARefusal: a refused timestamp does not mark the
// chain verified, so the next one goes through sigstore-go's whole
// verification; an authority whose chain never verified (its leaf under
// another root) is refused every time, quick path or not.
func TestChainOnceNotPinnedByARefusal(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	sig := []byte("sig (test-only)")
	a := newTestTSA(t, now, now.Add(-2*time.Hour), now.Add(2*time.Hour))
	once := &chainOnce{tsa: a.authority()}
	if _, err := once.Verify(a.token(t, []byte("other bytes"), now, false), sig); err == nil || once.chainOK.Load() {
		t.Fatalf("a timestamp over other bytes: %v, chain verified %v", err, once.chainOK.Load())
	}
	if _, err := once.Verify(a.token(t, sig, now, false), sig); err != nil || once.quick.Load() != 0 || !once.chainOK.Load() {
		t.Fatalf("the first good timestamp: %v, quick %d", err, once.quick.Load())
	}

	// A trusted root listing a leaf that its root did not issue.
	other := newTestTSA(t, now, now.Add(-2*time.Hour), now.Add(2*time.Hour))
	broken := a.authority()
	broken.Root, broken.Intermediates = other.root, []*x509.Certificate{other.inter}
	once = &chainOnce{tsa: broken}
	for range 2 {
		if _, err := once.Verify(a.token(t, sig, now, false), sig); err == nil || once.chainOK.Load() || once.quick.Load() != 0 {
			t.Fatalf("a leaf outside its root's chain: %v, chain verified %v, quick %d", err, once.chainOK.Load(), once.quick.Load())
		}
	}
}

// TestTrustedRootWrapsAuthorities: the trusted root given to sigstore-go
// has each authority with a leaf and a root wrapped, and the rest as
// they are.
func TestTrustedRootWrapsAuthorities(t *testing.T) {
	now := time.Now()
	a := newTestTSA(t, now, now.Add(-time.Hour), now.Add(time.Hour))
	noLeaf := a.authority()
	noLeaf.Leaf = nil
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, nil, nil, []root.TimestampingAuthority{a.authority(), noLeaf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := newTrustedRoot(tr).TimestampingAuthorities()
	if len(got) != 2 {
		t.Fatalf("%d authorities", len(got))
	}
	if _, ok := got[0].(*chainOnce); !ok {
		t.Fatalf("the authority with a leaf is %T", got[0])
	}
	if got[1] != root.TimestampingAuthority(noLeaf) {
		t.Fatalf("the authority without a leaf is %T, want it unchanged", got[1])
	}
}

// FuzzChainOnce: whatever bytes are given as a timestamp, the pinned
// authority accepts them only when sigstore-go's own authority does, with
// the same time, and refuses them with sigstore-go's error otherwise.
func FuzzChainOnce(f *testing.F) {
	now := time.Now().Truncate(time.Second)
	sig := []byte("the DSSE signature (test-only)")
	a := newTestTSA(f, now, now.Add(-2*time.Hour), now.Add(2*time.Hour))
	good := a.token(f, sig, now, false)
	f.Add(good)
	f.Add(a.token(f, sig, now.Add(time.Hour), true))
	f.Add(a.token(f, []byte("other bytes"), now, false))
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x00})
	lib := a.authority()
	once := &chainOnce{tsa: a.authority()}
	if _, err := once.Verify(good, sig); err != nil || !once.chainOK.Load() {
		f.Fatalf("pinning: %v", err)
	}
	f.Fuzz(func(t *testing.T, token []byte) {
		want, wantErr := lib.Verify(token, sig)
		got, err := once.Verify(token, sig)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("chainOnce: %v; sigstore-go: %v", err, wantErr)
		}
		if err != nil {
			if err.Error() != wantErr.Error() {
				t.Fatalf("chainOnce refused with %q, sigstore-go with %q", err, wantErr)
			}
			return
		}
		if !got.Time.Equal(want.Time) || got.URI != want.URI {
			t.Fatalf("chainOnce: %s at %s; sigstore-go: %s at %s", got.URI, got.Time, want.URI, want.Time)
		}
	})
}
