// Package crosscheck_test holds the tests of facts that span packages, so
// that one test can import every package that must agree. It has no
// non-test code.
package crosscheck_test

import (
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/trustpolicy/tufdist"
	"github.com/mcpres/mcpres/validator"
)

// badKeys are 32-byte Ed25519 public key encodings that every key parser
// must refuse (REFERENCE §6.7): each small-order point in each of its
// encodings, canonical or not, y ≥ p, and a y that is not on the curve.
var badKeys = []struct{ name, hex string }{
	// The eight canonical small-order encodings of REFERENCE §6.7.
	{"identity (0, 1)", "0100000000000000000000000000000000000000000000000000000000000000"},
	{"order 2 (0, -1)", "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
	{"order 4, y = 0, x > 0", "0000000000000000000000000000000000000000000000000000000000000000"},
	{"order 4, y = 0, x < 0", "0000000000000000000000000000000000000000000000000000000000000080"},
	{"order 8 (1)", "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"},
	{"order 8 (2)", "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"},
	{"order 8 (3)", "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"},
	{"order 8 (4)", "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"},
	// The six non-canonical encodings of small-order points: x = 0 with
	// the sign bit set, and y + p for the y < 19 of small-order points.
	{"identity with the sign bit (01 00…00 80)", "0100000000000000000000000000000000000000000000000000000000000080"},
	{"order 2 with the sign bit", "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"},
	{"order 4 as y = p", "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
	{"order 4 as y = p, sign bit", "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"},
	{"identity as y = p + 1", "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
	{"identity as y = p + 1, sign bit", "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"},
	// y ≥ p that is not small order, and a y off the curve.
	{"y = 2^255 - 1", "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
	{"y = p + 2", "efffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
	{"y = 2, not on the curve", "0200000000000000000000000000000000000000000000000000000000000000"},
}

// goodKeys are valid keys every parser must accept. edfefe…fe7f (0xed, 30
// bytes 0xfe, 0x7f) is the key offline/vkey.go once rejected as "y ≥ p"
// (strings.Trim with the cutset "\xff", staticcheck SA1011): its y is
// below p and it is a point of the curve (TestGoodKeysAreCanonicalPoints
// checks both with math/big), not of small order.
var goodKeys = []struct{ name, hex string }{
	{"RFC 8032 TEST 1", "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"},
	{"RFC 8032 TEST 2", "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"},
	{"the base point", "5866666666666666666666666666666666666666666666666666666666666666"},
	{"edfefe…fe7f", "ed" + strings.Repeat("fe", 30) + "7f"},
}

// testOnlyOtherKey is the public key of the all-zero seed, distinct from every
// key of the tables: the other key of a policy that needs two. Test only.
var testOnlyOtherKey = ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)

// keyErrs are the errors that mean "this key is refused".
var keyErrs = []error{ed25519strict.ErrNonCanonicalKey, ed25519strict.ErrKeyNotOnCurve, ed25519strict.ErrSmallOrderKey}

func isKeyErr(err error) bool {
	for _, e := range keyErrs {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// A parser takes a raw 32-byte key in the form it reads and returns nil if
// and only if it accepts the key.
type parser struct {
	name  string
	parse func(pub []byte) error
}

// forgery is the signature that verifies under the identity key for every
// message with crypto/ed25519.Verify: R = identity, S = 0.
var forgery = append(mustHex(badKeys[0].hex), make([]byte, 32)...)

func parsers(t *testing.T) []parser {
	verify := func(f func(pub, msg, sig []byte) error) func([]byte) error {
		return func(pub []byte) error {
			// A bad key fails with a key error; a good key passes the
			// key rules and fails later, on the forged R.
			if err := f(pub, []byte("any message"), forgery); isKeyErr(err) || err == nil {
				return errors.Join(errors.New("key refused (or forgery accepted)"), err)
			}
			return nil
		}
	}
	vkey := func(typ byte, f func(string) error) func([]byte) error {
		return func(pub []byte) error { return f(signednote.FormatVerifierKey("example.org/k", typ, pub)) }
	}
	errOf := func(_ any, err error) error { return err }
	goodLog := signednote.FormatVerifierKey("example.org/log", signednote.TypeEd25519, testOnlyOtherKey)
	tlog := func(typ byte, text func(string) string) func([]byte) error {
		return func(pub []byte) error {
			if _, errs := trustpolicy.ParseTLogPolicy(text(signednote.FormatVerifierKey("example.org/k", typ, pub))); len(errs) > 0 {
				return errs[0]
			}
			return nil
		}
	}
	load := func(edit func(d *trustpolicy.Document, pub []byte)) func([]byte) error {
		return func(pub []byte) error {
			d := trustpolicy.New("https://example.org/policy", "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
			edit(d, pub)
			if _, problems := trustpolicy.Load(d.Value(), validator.New()); len(problems) > 0 {
				return errors.New(problems[0].Message)
			}
			return nil
		}
	}
	tufInit := func(pub []byte) error {
		signer := ed25519.NewKeyFromSeed(make([]byte, 32))
		_, err := tufdist.Init(tufdist.InitConfig{
			Dir: t.TempDir(), RootKeys: []ed25519.PublicKey{testOnlyOtherKey, pub}, RootThreshold: 1, RootSigners: []crypto.Signer{signer},
			Targets: signer, Snapshot: signer, Timestamp: signer, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Expiry: tufdist.DefaultExpiry(),
		})
		return err
	}
	spkiB64 := func(pub []byte) string { return base64.StdEncoding.EncodeToString(ed25519strict.MarshalSPKI(pub)) }
	return []parser{
		{"ed25519strict.CheckPublicKey", ed25519strict.CheckPublicKey},
		{"ed25519strict.Verify", verify(ed25519strict.Verify)},
		{"keyfile.ParsePublicKeyPEM (PEM)", func(pub []byte) error {
			return errOf(keyfile.ParsePublicKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: ed25519strict.MarshalSPKI(pub)})))
		}},
		{"keyfile.ParsePublicKeyPEM (base64 SPKI)", func(pub []byte) error { return errOf(keyfile.ParsePublicKeyPEM([]byte(spkiB64(pub)))) }},
		{"signednote.ParseVerifier (type 0x01)", vkey(signednote.TypeEd25519, func(s string) error { return errOf(signednote.ParseVerifier(s)) })},
		{"signednote.ParseVerifier (type 0x04)", vkey(signednote.TypeCosignatureV1, func(s string) error { return errOf(signednote.ParseVerifier(s)) })},
		{"signednote.ParseLogVerifier", vkey(signednote.TypeEd25519, func(s string) error { return errOf(signednote.ParseLogVerifier(s)) })},
		{"signednote.ParseWitnessVerifier", vkey(signednote.TypeCosignatureV1, func(s string) error { return errOf(signednote.ParseWitnessVerifier(s)) })},
		{"trustpolicy.ParseTLogPolicy (log line)", tlog(signednote.TypeEd25519, logLine)},
		{"trustpolicy.ParseTLogPolicy (witness line)", tlog(signednote.TypeCosignatureV1, func(k string) string { return "log " + goodLog + "\nwitness W " + k + "\nquorum W\n" })},
		{"tufdist.Init (root keys)", tufInit},
		{"ed25519strict.SignerPublicKey", func(pub []byte) error { return errOf(ed25519strict.SignerPublicKey(publicOnly(pub))) }},
		{"signednote.NewLogSigner", func(pub []byte) error { return errOf(signednote.NewLogSigner("example.org/log", publicOnly(pub))) }},
		{"signednote.NewWitnessSigner", func(pub []byte) error { return errOf(signednote.NewWitnessSigner("example.org/w", publicOnly(pub))) }},
		{"trustpolicy.Load (signer publicKey)", load(func(d *trustpolicy.Document, pub []byte) {
			d.AddSigner(trustpolicy.Signer{Name: "s", Identity: "https://example.org/s", PublicKey: spkiB64(pub), Roles: []string{trustpolicy.RoleSigner}})
		})},
		{"trustpolicy.Load (transparency.tlogPolicy)", load(func(d *trustpolicy.Document, pub []byte) {
			d.AddSigner(trustpolicy.Signer{Name: "s", Identity: "https://example.org/s", PublicKey: spkiB64(testOnlyOtherKey), Roles: []string{trustpolicy.RoleSigner}})
			d.Transparency = &trustpolicy.Transparency{TLogPolicy: logLine(signednote.FormatVerifierKey("example.org/k", signednote.TypeEd25519, pub))}
		})},
	}
}

// publicOnly is a crypto.Signer (a token, an agent, a KMS) whose public
// key is pub and which cannot sign.
type publicOnly ed25519.PublicKey

func (p publicOnly) Public() crypto.PublicKey { return ed25519.PublicKey(p) }
func (p publicOnly) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("cannot sign")
}

func logLine(k string) string { return "log " + k + "\nquorum none\n" }

// TestEveryKeyParserIsStrict: one table of bad Ed25519 keys, fed to every
// exported parser and verifier of the module that takes an Ed25519 key;
// each refuses every bad key and accepts every good one. It exists because
// a copy of the rules in offline once accepted 01 00…00 80 and rejected
// edfefe…fe7f.
//
// Not in the table, by design: package witness and package tlog have no key
// parser (they take *signednote.Verifier, which only the parsers above
// make, and signednote.Open takes nothing else); offline.Trust holds parsed
// *signednote.Verifier (TestZeroVerifierIsRefused covers a zero value); keyfile.ParseSPKI
// is the layout step (check E5) whose key goes to ed25519strict.Verify only,
// and keyfile.ParsePrivateKeyPEM derives its public key from a seed.
func TestEveryKeyParserIsStrict(t *testing.T) {
	for _, p := range parsers(t) {
		t.Run(p.name, func(t *testing.T) {
			for _, k := range badKeys {
				if err := p.parse(mustHex(k.hex)); err == nil {
					t.Errorf("accepts the bad key %s (%s)", k.name, k.hex)
				}
			}
			for _, k := range goodKeys {
				if err := p.parse(mustHex(k.hex)); err != nil {
					t.Errorf("refuses the good key %s (%s): %v", k.name, k.hex, err)
				}
			}
		})
	}
}

// The tables themselves: every bad key is refused by the rules for a key
// reason (not its size), and every good key is a canonical encoding of a
// curve point (y < p, x recovered with math/big) that is not small order.
func TestGoodKeysAreCanonicalPoints(t *testing.T) {
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	// d = -121665/121666 mod p
	d := new(big.Int).Mul(big.NewInt(-121665), new(big.Int).ModInverse(big.NewInt(121666), p))
	d.Mod(d, p)
	for _, k := range goodKeys {
		enc := mustHex(k.hex)
		be := make([]byte, 32)
		for i := range enc {
			be[31-i] = enc[i]
		}
		sign := be[0] >> 7
		be[0] &= 0x7f
		y := new(big.Int).SetBytes(be)
		if y.Cmp(p) >= 0 {
			t.Errorf("%s: y ≥ p", k.name)
			continue
		}
		// x² = (y² − 1) / (d·y² + 1)
		y2 := new(big.Int).Mul(y, y)
		u := new(big.Int).Sub(y2, big.NewInt(1))
		v := new(big.Int).Add(new(big.Int).Mul(d, y2), big.NewInt(1))
		x2 := new(big.Int).Mul(u, new(big.Int).ModInverse(v.Mod(v, p), p))
		x2.Mod(x2, p)
		x := new(big.Int).ModSqrt(x2, p)
		if x == nil {
			t.Errorf("%s: not a point of the curve", k.name)
			continue
		}
		if x.Sign() == 0 && sign == 1 {
			t.Errorf("%s: x = 0 with the sign bit", k.name)
		}
		if err := ed25519strict.CheckPublicKey(enc); err != nil {
			t.Errorf("%s: %v", k.name, err)
		}
	}
	for _, k := range badKeys {
		if err := ed25519strict.CheckPublicKey(mustHex(k.hex)); !isKeyErr(err) {
			t.Errorf("%s: %v, want a key-rule error", k.name, err)
		}
	}
	// The forgery the verify rows use does verify with crypto/ed25519
	// under the identity key: the rows test what they claim.
	if !ed25519.Verify(mustHex(badKeys[0].hex), []byte("any message"), forgery) {
		t.Fatal("crypto/ed25519.Verify rejects the identity forgery: the verify rows prove nothing")
	}
}

// A zero signednote.Verifier (the only key a caller can make without a parser) is
// refused by every Trust that holds it.
func TestZeroVerifierIsRefused(t *testing.T) {
	good, err := signednote.ParseVerifier(signednote.FormatVerifierKey("example.org/log", signednote.TypeEd25519, mustHex(goodKeys[0].hex)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []offline.Trust{
		{Logs: []offline.Log{{Origin: "example.org/log", Key: &signednote.Verifier{}}}, Quorum: "none"},
		{Logs: []offline.Log{{Origin: "example.org/log", Key: good}},
			Witnesses: []offline.Witness{{Name: "W", Key: &signednote.Verifier{}}}, Quorum: "W"},
		{Logs: []offline.Log{{Origin: "example.org/log"}}, Quorum: "none"},
	} {
		var te *offline.TrustError
		if err := tr.Check(); !errors.As(err, &te) {
			t.Errorf("Trust.Check = %v, want a *TrustError", err)
		}
	}
	if (&signednote.Verifier{}).Verify([]byte("m"), forgery) {
		t.Error("a zero Verifier verifies a signature")
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
