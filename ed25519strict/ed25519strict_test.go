package ed25519strict

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"
)

// verifySentinels are all the errors Verify may return.
var verifySentinels = []error{
	ErrPublicKeySize, ErrSignatureSize,
	ErrNonCanonicalKey, ErrKeyNotOnCurve, ErrSmallOrderKey,
	ErrNonCanonicalR, ErrRNotOnCurve, ErrSmallOrderR,
	ErrNonCanonicalS, ErrSignatureMismatch,
}

// The eight small-order encodings exactly as listed in REFERENCE §6.7.
var referenceSmallOrder = []string{
	"0100000000000000000000000000000000000000000000000000000000000000",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0000000000000000000000000000000000000000000000000000000000000080",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
}

const (
	identityHex = "0100000000000000000000000000000000000000000000000000000000000000"
	zero32Hex   = "0000000000000000000000000000000000000000000000000000000000000000"
	lHex        = "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010" // L, little-endian
)

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// addLE returns a + b for 32-byte little-endian numbers (mod 2^256).
func addLE(a, b []byte) []byte {
	out := make([]byte, 32)
	carry := 0
	for i := 0; i < 32; i++ {
		v := int(a[i]) + int(b[i]) + carry
		out[i] = byte(v)
		carry = v >> 8
	}
	return out
}

func withByte(b []byte, i int, v byte) []byte {
	c := bytes.Clone(b)
	c[i] = v
	return c
}

// The reason this layer exists: Go's verifier accepts a key-less forgery.
func TestStdlibAcceptsIdentityForgery(t *testing.T) {
	pub := mustHex(identityHex)
	sig := concat(mustHex(identityHex), mustHex(zero32Hex))
	for _, msg := range []string{"", "any message at all", "DSSEv1 28 application/vnd.in-toto+json 2 {}"} {
		if !ed25519.Verify(ed25519.PublicKey(pub), []byte(msg), sig) {
			t.Fatalf("crypto/ed25519.Verify rejects the identity forgery for %q; REFERENCE §6.7 says it accepts it", msg)
		}
		if err := Verify(pub, []byte(msg), sig); !errors.Is(err, ErrSmallOrderKey) {
			t.Fatalf("Verify(identity forgery, %q) = %v, want ErrSmallOrderKey", msg, err)
		}
	}
}

func TestVerify(t *testing.T) {
	pub1, pub2 := mustHex(testKeyOnePubHex), mustHex(testKeyTwoPubHex)
	sig1, sig2 := mustHex(rfc8032Test1SigHex), mustHex(rfc8032Test2SigHex)
	msg2 := mustHex(rfc8032Test2MsgHex)
	l := mustHex(lHex)

	type tc struct {
		name          string
		pub, msg, sig []byte
		want          error
		stdlibAccepts bool // what crypto/ed25519.Verify says (length-valid cases only)
	}
	tests := []tc{
		{name: "RFC 8032 TEST 1", pub: pub1, msg: nil, sig: sig1, stdlibAccepts: true},
		{name: "RFC 8032 TEST 2", pub: pub2, msg: msg2, sig: sig2, stdlibAccepts: true},

		{name: "key 31 bytes", pub: pub1[:31], sig: sig1, want: ErrPublicKeySize},
		{name: "key 33 bytes", pub: append(bytes.Clone(pub1), 0), sig: sig1, want: ErrPublicKeySize},
		{name: "key empty", pub: nil, sig: sig1, want: ErrPublicKeySize},
		{name: "key as 44-byte SPKI", pub: MarshalSPKI(pub1), sig: sig1, want: ErrPublicKeySize},
		{name: "signature 63 bytes", pub: pub1, sig: sig1[:63], want: ErrSignatureSize},
		{name: "signature 65 bytes", pub: pub1, sig: append(bytes.Clone(sig1), 0), want: ErrSignatureSize},
		{name: "signature empty", pub: pub1, sig: nil, want: ErrSignatureSize},

		{name: "identity key forgery", pub: mustHex(identityHex), msg: []byte("forged"),
			sig: concat(mustHex(identityHex), mustHex(zero32Hex)), want: ErrSmallOrderKey, stdlibAccepts: true},
		{name: "S replaced by S+L", pub: pub1, sig: concat(sig1[:32], addLE(sig1[32:], l)), want: ErrNonCanonicalS},
		{name: "S+L on TEST 2", pub: pub2, msg: msg2, sig: concat(sig2[:32], addLE(sig2[32:], l)), want: ErrNonCanonicalS},
		{name: "S = L", pub: pub1, sig: concat(sig1[:32], l), want: ErrNonCanonicalS},
		{name: "S = 2^256-1", pub: pub1, sig: concat(sig1[:32], bytes.Repeat([]byte{0xff}, 32)), want: ErrNonCanonicalS},

		{name: "key y = p", pub: mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), sig: sig1, want: ErrNonCanonicalKey},
		{name: "key y = p with sign bit", pub: mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"), sig: sig1, want: ErrNonCanonicalKey},
		{name: "key y = p+1, non-canonical identity", pub: mustHex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), sig: sig1, want: ErrNonCanonicalKey},
		{name: "key y = 2^255-1", pub: mustHex("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), sig: sig1, want: ErrNonCanonicalKey},
		{name: "key x = 0 (y = 1) with sign bit", pub: mustHex("0100000000000000000000000000000000000000000000000000000000000080"), sig: sig1, want: ErrNonCanonicalKey},
		{name: "key x = 0 (y = p-1) with sign bit", pub: mustHex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"), sig: sig1, want: ErrNonCanonicalKey},
		{name: "key y = 2 is not on the curve", pub: mustHex("0200000000000000000000000000000000000000000000000000000000000000"), sig: sig1, want: ErrKeyNotOnCurve},

		{name: "R y = p", pub: pub1, sig: concat(mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), sig1[32:]), want: ErrNonCanonicalR},
		{name: "R x = 0 (y = 1) with sign bit", pub: pub1, sig: concat(mustHex("0100000000000000000000000000000000000000000000000000000000000080"), sig1[32:]), want: ErrNonCanonicalR},
		{name: "R x = 0 (y = p-1) with sign bit", pub: pub1, sig: concat(mustHex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"), sig1[32:]), want: ErrNonCanonicalR},
		{name: "R y = 2 is not on the curve", pub: pub1, sig: concat(mustHex("0200000000000000000000000000000000000000000000000000000000000000"), sig1[32:]), want: ErrRNotOnCurve},

		{name: "wrong message", pub: pub1, msg: []byte("x"), sig: sig1, want: ErrSignatureMismatch},
		{name: "wrong key", pub: pub2, msg: nil, sig: sig1, want: ErrSignatureMismatch},
		{name: "S low bit flipped", pub: pub1, sig: withByte(sig1, 32, sig1[32]^1), want: ErrSignatureMismatch},
		{name: "R sign bit flipped", pub: pub1, sig: withByte(sig1, 31, sig1[31]^0x80), want: ErrSignatureMismatch},

		// Order of the rules: the first failing one is reported.
		{name: "off-curve key before small-order R", pub: mustHex("0200000000000000000000000000000000000000000000000000000000000000"),
			sig: concat(mustHex(identityHex), mustHex(zero32Hex)), want: ErrKeyNotOnCurve},
		{name: "small-order key before non-canonical R", pub: mustHex(identityHex),
			sig: concat(mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), sig1[32:]), want: ErrSmallOrderKey},
		{name: "off-curve R before S ≥ L", pub: pub1,
			sig: concat(mustHex("0200000000000000000000000000000000000000000000000000000000000000"), l), want: ErrRNotOnCurve},
		{name: "key size before signature size", pub: pub1[:1], sig: sig1[:1], want: ErrPublicKeySize},
	}
	for _, enc := range referenceSmallOrder {
		tests = append(tests,
			tc{name: "small-order key " + enc[:8] + "…" + enc[60:], pub: mustHex(enc), msg: nil, sig: sig1, want: ErrSmallOrderKey},
			tc{name: "small-order R " + enc[:8] + "…" + enc[60:], pub: pub1, msg: nil, sig: concat(mustHex(enc), sig1[32:]), want: ErrSmallOrderR},
		)
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.pub, tt.msg, tt.sig)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Verify = %v, want nil", err)
				}
			} else if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
			if err != nil {
				for _, other := range verifySentinels {
					if other != tt.want && errors.Is(err, other) {
						t.Fatalf("Verify = %v, which also matches %v", err, other)
					}
				}
			}
			if len(tt.pub) == ed25519.PublicKeySize {
				if got := ed25519.Verify(ed25519.PublicKey(tt.pub), tt.msg, tt.sig); got != tt.stdlibAccepts {
					t.Fatalf("crypto/ed25519.Verify = %v, want %v", got, tt.stdlibAccepts)
				}
			}
		})
	}
}

// Every single-bit change of a valid signature or key is rejected.
func TestVerifyRejectsEveryBitFlip(t *testing.T) {
	pub, msg, sig := mustHex(testKeyTwoPubHex), mustHex(rfc8032Test2MsgHex), mustHex(rfc8032Test2SigHex)
	for bit := 0; bit < 8*len(sig); bit++ {
		mangled := withByte(sig, bit/8, sig[bit/8]^(1<<(bit%8)))
		if err := Verify(pub, msg, mangled); err == nil {
			t.Fatalf("signature with bit %d flipped verifies", bit)
		}
	}
	for bit := 0; bit < 8*len(pub); bit++ {
		mangled := withByte(pub, bit/8, pub[bit/8]^(1<<(bit%8)))
		if err := Verify(mangled, msg, sig); err == nil {
			t.Fatalf("key with bit %d flipped verifies", bit)
		}
	}
}

// Signatures made by crypto/ed25519 always verify.
func TestVerifyAcceptsRandomSignatures(t *testing.T) {
	for i := 0; i < 64; i++ {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		msg := make([]byte, i*7)
		rand.Read(msg)
		if err := Verify(pub, msg, ed25519.Sign(priv, msg)); err != nil {
			t.Fatalf("Verify(fresh signature %d) = %v", i, err)
		}
		if err := CheckPublicKey(pub); err != nil {
			t.Fatalf("CheckPublicKey(fresh key %d) = %v", i, err)
		}
	}
}

func TestCheckPublicKey(t *testing.T) {
	tests := []struct {
		name string
		pub  string
		want error
	}{
		{"key one", testKeyOnePubHex, nil},
		{"key two", testKeyTwoPubHex, nil},
		{"31 bytes", testKeyOnePubHex[:62], ErrPublicKeySize},
		{"identity", identityHex, ErrSmallOrderKey},
		{"order 8", referenceSmallOrder[7], ErrSmallOrderKey},
		{"y = p", "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", ErrNonCanonicalKey},
		{"x = 0 with sign bit", "0100000000000000000000000000000000000000000000000000000000000080", ErrNonCanonicalKey},
		{"off curve", "0200000000000000000000000000000000000000000000000000000000000000", ErrKeyNotOnCurve},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPublicKey(mustHex(tt.pub))
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("CheckPublicKey = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestVerifyMessages(t *testing.T) {
	pub, sig := mustHex(testKeyOnePubHex), mustHex(rfc8032Test1SigHex)
	for _, tc := range []struct {
		pub, sig []byte
		want     string
	}{
		{pub[:31], sig, "wrong public key size: got 31 bytes, want 32"},
		{pub, sig[:10], "wrong signature size: got 10 bytes, want 64"},
		{mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), sig, "y ≥ p"},
		{mustHex("0100000000000000000000000000000000000000000000000000000000000080"), sig, "x = 0 with the sign bit set"},
		{pub, concat(sig[:32], mustHex(lHex)), "S ≥ L"},
	} {
		err := Verify(tc.pub, nil, tc.sig)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Verify error = %v, want it to contain %q", err, tc.want)
		}
	}
}

// --- Independent model of the curve (math/big, affine coordinates), used to
// check the package's fast paths and constants. Tests only.

type testCurve struct{ p, d, sqrtM1 *big.Int }

func newTestCurve() *testCurve {
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	d := new(big.Int).Mul(big.NewInt(-121665), new(big.Int).ModInverse(big.NewInt(121666), p))
	d.Mod(d, p)
	// sqrt(-1) = 2^((p-1)/4)
	e := new(big.Int).Rsh(new(big.Int).Sub(p, big.NewInt(1)), 2)
	return &testCurve{p: p, d: d, sqrtM1: new(big.Int).Exp(big.NewInt(2), e, p)}
}

// decode implements RFC 8032 §5.1.3 point decoding, strictly (y < p, no
// x = 0 with sign bit). It returns ok = false where decoding fails.
func (c *testCurve) decode(enc []byte) (x, y *big.Int, ok bool) {
	be := make([]byte, 32)
	for i := range be {
		be[i] = enc[31-i]
	}
	sign := be[0] >> 7
	be[0] &= 0x7f
	y = new(big.Int).SetBytes(be)
	if y.Cmp(c.p) >= 0 {
		return nil, nil, false
	}
	y2 := new(big.Int).Mul(y, y)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	u.Mod(u, c.p)
	v := new(big.Int).Mul(c.d, y2)
	v.Add(v, big.NewInt(1)).Mod(v, c.p)
	x2 := new(big.Int).Mul(u, new(big.Int).ModInverse(v, c.p))
	x2.Mod(x2, c.p)
	x = new(big.Int).ModSqrt(x2, c.p)
	if x == nil {
		return nil, nil, false
	}
	if x.Sign() == 0 && sign == 1 {
		return nil, nil, false
	}
	if x.Bit(0) != uint(sign) {
		x.Sub(c.p, x)
	}
	return x, y, true
}

func (c *testCurve) encode(x, y *big.Int) []byte {
	be := make([]byte, 32)
	y.FillBytes(be)
	if x.Bit(0) == 1 {
		be[0] |= 0x80
	}
	out := make([]byte, 32)
	for i := range out {
		out[i] = be[31-i]
	}
	return out
}

// add adds two affine points of −x² + y² = 1 + d·x²·y².
func (c *testCurve) add(x1, y1, x2, y2 *big.Int) (*big.Int, *big.Int) {
	p := c.p
	t := new(big.Int).Mul(x1, x2)
	t.Mul(t, y1).Mul(t, y2).Mul(t, c.d).Mod(t, p) // d·x1·x2·y1·y2
	xn := new(big.Int).Add(new(big.Int).Mul(x1, y2), new(big.Int).Mul(y1, x2))
	xd := new(big.Int).Add(big.NewInt(1), t)
	yn := new(big.Int).Add(new(big.Int).Mul(y1, y2), new(big.Int).Mul(x1, x2))
	yd := new(big.Int).Sub(big.NewInt(1), t)
	xd.Mod(xd, p)
	yd.Mod(yd, p)
	x3 := xn.Mul(xn, new(big.Int).ModInverse(xd, p))
	y3 := yn.Mul(yn, new(big.Int).ModInverse(yd, p))
	return x3.Mod(x3, p), y3.Mod(y3, p)
}

func (c *testCurve) onCurve(x, y *big.Int) bool {
	x2 := new(big.Int).Mul(x, x)
	y2 := new(big.Int).Mul(y, y)
	lhs := new(big.Int).Sub(y2, x2)
	lhs.Mod(lhs, c.p)
	rhs := new(big.Int).Mul(c.d, x2)
	rhs.Mul(rhs, y2).Add(rhs, big.NewInt(1)).Mod(rhs, c.p)
	return lhs.Cmp(rhs) == 0
}

// The package's constants agree with the curve model: d, L, the eight
// small-order encodings (each decodes, is canonical, and 8·P = identity,
// and they are eight distinct points), and REFERENCE's list.
func TestCurveConstants(t *testing.T) {
	c := newTestCurve()
	if got := new(big.Int).SetBytes([]byte(curveDBE)); got.Cmp(c.d) != 0 {
		t.Fatalf("curveDBE = %x, want %x", got, c.d)
	}
	l, _ := new(big.Int).SetString("27742317777372353535851937790883648493", 10)
	l.Add(l, new(big.Int).Lsh(big.NewInt(1), 252))
	lLE := make([]byte, 32)
	l.FillBytes(lLE)
	for i, j := 0, 31; i < j; i, j = i+1, j-1 {
		lLE[i], lLE[j] = lLE[j], lLE[i]
	}
	if string(lLE) != groupOrderLE || hex.EncodeToString(lLE) != lHex {
		t.Fatalf("groupOrderLE = %x, want %x", groupOrderLE, lLE)
	}

	if len(smallOrderEncodings) != 8*32 {
		t.Fatalf("smallOrderEncodings has %d bytes, want 256", len(smallOrderEncodings))
	}
	seen := map[string]bool{}
	for i, want := range referenceSmallOrder {
		enc := []byte(smallOrderEncodings[i*32 : i*32+32])
		if hex.EncodeToString(enc) != want {
			t.Fatalf("small-order encoding %d = %x, REFERENCE §6.7 lists %s", i, enc, want)
		}
		x, y, ok := c.decode(enc)
		if !ok || !c.onCurve(x, y) {
			t.Fatalf("small-order encoding %s does not decode", want)
		}
		if !bytes.Equal(c.encode(x, y), enc) {
			t.Fatalf("small-order encoding %s is not canonical", want)
		}
		px, py := x, y
		for k := 0; k < 3; k++ {
			px, py = c.add(px, py, px, py)
		}
		if px.Sign() != 0 || py.Cmp(big.NewInt(1)) != 0 {
			t.Fatalf("8·P ≠ identity for %s", want)
		}
		seen[x.String()+","+y.String()] = true
	}
	if len(seen) != 8 {
		t.Fatalf("the small-order list holds %d distinct points, want 8", len(seen))
	}
	// A point of large order (the base point) and an RFC key are not in it.
	if isSmallOrder(mustHex("5866666666666666666666666666666666666666666666666666666666666666")) || isSmallOrder(mustHex(testKeyOnePubHex)) {
		t.Fatal("large-order point classified as small order")
	}
}

// decodesToPoint (a Jacobi symbol) agrees with full RFC 8032 decoding.
func TestDecodesToPointMatchesFullDecoding(t *testing.T) {
	c := newTestCurve()
	check := func(enc []byte) {
		t.Helper()
		if yAtLeastP(enc) {
			return // decodesToPoint assumes y < p
		}
		_, _, full := c.decode(enc)
		if enc[31]>>7 == 1 && xIsZero(enc) {
			if full {
				t.Fatalf("%x: full decoding accepts x = 0 with sign bit", enc)
			}
			return
		}
		if got := decodesToPoint(enc); got != full {
			t.Fatalf("decodesToPoint(%x) = %v, full decoding says %v", enc, got, full)
		}
	}
	edge := []string{zero32Hex, identityHex, referenceSmallOrder[1], "0200000000000000000000000000000000000000000000000000000000000000",
		"ebffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", testKeyOnePubHex, testKeyTwoPubHex}
	for _, e := range edge {
		check(mustHex(e))
	}
	onCurve := 0
	const n = 2000
	for i := 0; i < n; i++ {
		enc := make([]byte, 32)
		rand.Read(enc)
		check(enc)
		if !yAtLeastP(enc) && decodesToPoint(enc) {
			onCurve++
		}
	}
	// About half of all y values are on the curve.
	if onCurve < n/3 || onCurve > 2*n/3 {
		t.Fatalf("%d of %d random encodings decode; expected about half", onCurve, n)
	}
}

// The byte-level encoding checks agree with the curve model.
func TestCanonicalityChecks(t *testing.T) {
	p := newTestCurve().p
	for _, tc := range []struct {
		hex        string
		atLeastP   bool
		xZeroForms bool
	}{
		{"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", false, true}, // p-1
		{"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", true, false}, // p
		{"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", true, false},
		{"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", true, false},
		{"ecfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeff", false, false},
		{"0100000000000000000000000000000000000000000000000000000000000080", false, true},
		{identityHex, false, true},
		{zero32Hex, false, false},
		{"0100000000000000000000000000000000000000000000000000000000000100", false, false},
	} {
		enc := mustHex(tc.hex)
		if got := yAtLeastP(enc); got != tc.atLeastP {
			t.Errorf("yAtLeastP(%s) = %v, want %v", tc.hex, got, tc.atLeastP)
		}
		be := make([]byte, 32)
		for i := range be {
			be[i] = enc[31-i]
		}
		be[0] &= 0x7f
		if (new(big.Int).SetBytes(be).Cmp(p) >= 0) != tc.atLeastP {
			t.Errorf("test table wrong for %s", tc.hex)
		}
		if !tc.atLeastP {
			if got := xIsZero(enc); got != tc.xZeroForms {
				t.Errorf("xIsZero(%s) = %v, want %v", tc.hex, got, tc.xZeroForms)
			}
		}
	}
}

func FuzzVerify(f *testing.F) {
	pub1, sig1 := mustHex(testKeyOnePubHex), mustHex(rfc8032Test1SigHex)
	f.Add(pub1, []byte{}, sig1)
	f.Add(mustHex(testKeyTwoPubHex), mustHex(rfc8032Test2MsgHex), mustHex(rfc8032Test2SigHex))
	f.Add(mustHex(identityHex), []byte("forged"), concat(mustHex(identityHex), mustHex(zero32Hex)))
	f.Add(pub1, []byte{}, concat(sig1[:32], addLE(sig1[32:], mustHex(lHex))))
	f.Add(mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), []byte{}, sig1)
	for _, enc := range referenceSmallOrder {
		f.Add(mustHex(enc), []byte("m"), concat(mustHex(enc), sig1[32:]))
	}
	c := newTestCurve()
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte) {
		err := Verify(pub, msg, sig)
		if err != nil {
			known := false
			for _, s := range verifySentinels {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("Verify returned an error of no documented kind: %v", err)
			}
			if errors.Is(err, ErrSignatureMismatch) && ed25519.Verify(ed25519.PublicKey(pub), msg, sig) {
				t.Fatalf("ErrSignatureMismatch although crypto/ed25519.Verify accepts")
			}
			return
		}
		// Accepted: crypto/ed25519 agrees, and every §6.7 rule holds in
		// the independent model.
		if !ed25519.Verify(ed25519.PublicKey(pub), msg, sig) {
			t.Fatalf("Verify accepts what crypto/ed25519.Verify rejects")
		}
		for _, enc := range [][]byte{pub, sig[:32]} {
			x, y, ok := c.decode(enc)
			if !ok || !bytes.Equal(c.encode(x, y), enc) || isSmallOrder(enc) {
				t.Fatalf("accepted a non-canonical, off-curve or small-order point %x", enc)
			}
		}
		if !scalarIsCanonical(sig[32:]) {
			t.Fatalf("accepted S ≥ L")
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	priv := testOnlyKeyOne()
	pub := priv.Public().(ed25519.PublicKey)
	msg := bytes.Repeat([]byte("x"), 1100) // about the PAE of a small MCP-RES statement
	sig := ed25519.Sign(priv, msg)
	b.Run("crypto-ed25519", func(b *testing.B) {
		for b.Loop() {
			if !ed25519.Verify(pub, msg, sig) {
				b.Fatal("rejected")
			}
		}
	})
	b.Run("Verify", func(b *testing.B) {
		for b.Loop() {
			if err := Verify(pub, msg, sig); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The whole cost Verify adds to an accepted signature.
	b.Run("prechecks-only", func(b *testing.B) {
		for b.Loop() {
			if !encodingAcceptable(pub) || !encodingAcceptable(sig[:32]) || !scalarIsCanonical(sig[32:]) {
				b.Fatal("rejected")
			}
		}
	})
	bad := withByte(sig, 40, sig[40]^1)
	b.Run("Verify-mismatch", func(b *testing.B) {
		for b.Loop() {
			if err := Verify(pub, msg, bad); err == nil {
				b.Fatal("accepted")
			}
		}
	})
	forgedPub, forgedSig := mustHex(identityHex), concat(mustHex(identityHex), mustHex(zero32Hex))
	b.Run("Verify-small-order-key", func(b *testing.B) {
		for b.Loop() {
			if err := Verify(forgedPub, msg, forgedSig); err == nil {
				b.Fatal("accepted")
			}
		}
	})
	b.Run("CheckPublicKey", func(b *testing.B) {
		for b.Loop() {
			if err := CheckPublicKey(pub); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestMarshalSPKIPanicsOnBadLength(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "31 bytes") {
			t.Fatalf("recover() = %v, want a panic naming the length", r)
		}
	}()
	MarshalSPKI(make([]byte, 31))
}

func TestSPKIFingerprintHashesAsGiven(t *testing.T) {
	// E4 compares the key id before E5 checks the layout, so SPKIFingerprint must
	// work on any bytes.
	if got, want := SPKIFingerprint(nil), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Fatalf("SPKIFingerprint(nil) = %s, want %s", got, want)
	}
}
