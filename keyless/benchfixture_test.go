package keyless_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/trustpolicy"
)

// benchFixtureEnv names the folder TestWriteBenchFixture writes the
// keyless rows' fixture into (go run ./bench sets it).
const benchFixtureEnv = "MCPRES_BENCH_KEYLESS_DIR"

// TestWriteBenchFixture writes the fixture of go run ./bench's keyless
// rows, made with a real Fulcio and timestamp authority: a keyless
// attested bundle and its Sigstore bundle, the trusted root, an identity
// policy, the signer's public key (for the key-file verify of the same
// bundle), and floor.json: the signature checks that verifying it cannot
// avoid, prepared (Ed25519 over the DSSE PAE; each certificate of the
// Fulcio chain and of the timestamp authority's chain under its parent's
// key; the timestamp token's signature over its signed attributes), for
// bench/floor --keyless. It runs only when $MCPRES_BENCH_KEYLESS_DIR
// names the folder, and checks that every prepared signature verifies.
func TestWriteBenchFixture(t *testing.T) {
	dir := os.Getenv(benchFixtureEnv)
	if dir == "" {
		t.Skipf("$%s is not set: this writes go run ./bench's keyless fixture", benchFixtureEnv)
	}
	s := keylesstest.NewStack(t)
	tr, err := keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		t.Fatal(err)
	}
	trJSON, _ := tr.MarshalJSON()
	tok, err := keyless.ParseToken(s.EmailToken(t, "release@example.org", nil), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	o := keyless.Options{Token: tok, FulcioURL: s.FulcioURL, TSAURL: s.TSAURL, TrustedRoot: tr}
	o.SigningTime, o.TrustPolicyID = time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "bench/keyless"
	example := bundletest.Example(t)
	res, err := keyless.Sign(context.Background(), example, o)
	if err != nil {
		t.Fatal(err)
	}
	d := trustpolicy.New("bench/keyless", "2026-01-01T00:00:00.000Z", "2100-01-01T00:00:00.000Z")
	d.AddSigner(trustpolicy.Signer{Name: "release", Roles: []string{trustpolicy.RoleSigner},
		CertificateIdentity: &trustpolicy.CertificateIdentity{Issuer: s.EmailIssuer, Identity: "release@example.org"}})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: canonjson.BytesDigest(trJSON)}
	pub, err := x509.MarshalPKIXPublicKey(res.Certificate.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	checks, err := preparedChecks(res.SigstoreBundle, trJSON)
	if err != nil {
		t.Fatal(err)
	}
	attested, _ := canonjson.Pretty(res.Attested)
	policy, _ := canonjson.Pretty(d.Value())
	floor, _ := json.MarshalIndent(checks, "", "  ")
	for name, data := range map[string][]byte{
		"bundle.attested.json": attested, "bundle.attested.json.sigstore.json": res.SigstoreBundle,
		"trusted_root.json": trJSON, "policy.json": policy, "floor.json": floor,
		"signer.pub":   []byte("-----BEGIN PUBLIC KEY-----\n" + base64.StdEncoding.EncodeToString(pub) + "\n-----END PUBLIC KEY-----\n"),
		"identity.txt": []byte(res.Identity + "\n"), "subject.txt": []byte(example.Path("evidence", "subject", "name").Str + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A floorCheck is one prepared signature check of bench/floor --keyless:
// verify Signature over Message (hashed with Hash first, for ECDSA) under
// the SPKI PublicKey.
type floorCheck struct {
	What      string `json:"what"`
	Alg       string `json:"alg"`            // "ed25519" or "ecdsa"
	Hash      string `json:"hash,omitempty"` // "sha256", "sha384" or "sha512" (ECDSA)
	PublicKey []byte `json:"publicKey"`
	Message   []byte `json:"message"`
	Signature []byte `json:"signature"`
}

// preparedChecks lists the signature checks of one keyless signature:
// the envelope's Ed25519 signature, the Fulcio chain up to its root, the
// timestamp token's signature and the timestamp authority's chain.
func preparedChecks(sigstoreBundle []byte, trJSON []byte) ([]floorCheck, error) {
	var sb struct {
		VerificationMaterial struct {
			Certificate struct {
				RawBytes []byte `json:"rawBytes"`
			} `json:"certificate"`
			TimestampVerificationData struct {
				RFC3161Timestamps []struct {
					SignedTimestamp []byte `json:"signedTimestamp"`
				} `json:"rfc3161Timestamps"`
			} `json:"timestampVerificationData"`
		} `json:"verificationMaterial"`
		DSSEEnvelope struct {
			Payload     []byte `json:"payload"`
			PayloadType string `json:"payloadType"`
			Signatures  []struct {
				Sig []byte `json:"sig"`
			} `json:"signatures"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(sigstoreBundle, &sb); err != nil {
		return nil, err
	}
	var tr struct {
		CertificateAuthorities []struct {
			CertChain struct {
				Certificates []struct {
					RawBytes []byte `json:"rawBytes"`
				} `json:"certificates"`
			} `json:"certChain"`
		} `json:"certificateAuthorities"`
		TimestampAuthorities []struct {
			CertChain struct {
				Certificates []struct {
					RawBytes []byte `json:"rawBytes"`
				} `json:"certificates"`
			} `json:"certChain"`
		} `json:"timestampAuthorities"`
	}
	if err := json.Unmarshal(trJSON, &tr); err != nil {
		return nil, err
	}
	if len(tr.CertificateAuthorities) == 0 || len(tr.TimestampAuthorities) == 0 || len(sb.DSSEEnvelope.Signatures) != 1 ||
		len(sb.VerificationMaterial.TimestampVerificationData.RFC3161Timestamps) == 0 {
		return nil, errors.New("not a keyless Sigstore bundle with a timestamp, or a trusted root without a CA and an authority")
	}
	leaf, err := x509.ParseCertificate(sb.VerificationMaterial.Certificate.RawBytes)
	if err != nil {
		return nil, err
	}
	leafKey, _ := x509.MarshalPKIXPublicKey(leaf.PublicKey)
	p := sb.DSSEEnvelope
	pae := []byte(fmt.Sprintf("DSSEv1 %d %s %d %s", len(p.PayloadType), p.PayloadType, len(p.Payload), p.Payload))
	checks := []floorCheck{{What: "envelope (Ed25519 over the DSSE PAE)", Alg: "ed25519", PublicKey: leafKey, Message: pae, Signature: p.Signatures[0].Sig}}
	chain := func(what string, certs [][]byte, first *x509.Certificate) error {
		child := first
		for _, raw := range certs {
			parent, err := x509.ParseCertificate(raw)
			if err != nil {
				return err
			}
			if child != nil && child.Equal(parent) {
				continue
			}
			if child != nil {
				c, err := certCheck(what+": "+child.Subject.CommonName, child, parent)
				if err != nil {
					return err
				}
				checks = append(checks, c)
			}
			child = parent
		}
		return nil
	}
	var fulcio [][]byte
	for _, c := range tr.CertificateAuthorities[0].CertChain.Certificates {
		fulcio = append(fulcio, c.RawBytes)
	}
	if err := chain("Fulcio chain", fulcio, leaf); err != nil {
		return nil, err
	}
	var tsa [][]byte
	for _, c := range tr.TimestampAuthorities[0].CertChain.Certificates {
		tsa = append(tsa, c.RawBytes)
	}
	tsaLeaf, err := x509.ParseCertificate(tsa[0])
	if err != nil {
		return nil, err
	}
	tc, err := tokenCheck(sb.VerificationMaterial.TimestampVerificationData.RFC3161Timestamps[0].SignedTimestamp, tsaLeaf)
	if err != nil {
		return nil, err
	}
	checks = append(checks, tc)
	if err := chain("timestamp authority chain", tsa, nil); err != nil {
		return nil, err
	}
	for _, c := range checks {
		if !verifyCheck(c) {
			return nil, fmt.Errorf("prepared check %q does not verify", c.What)
		}
	}
	return checks, nil
}

// certCheck is child's signature under parent's key.
func certCheck(what string, child, parent *x509.Certificate) (floorCheck, error) {
	if err := child.CheckSignatureFrom(parent); err != nil {
		return floorCheck{}, fmt.Errorf("%s: %v", what, err)
	}
	h := map[x509.SignatureAlgorithm]string{x509.ECDSAWithSHA256: "sha256", x509.ECDSAWithSHA384: "sha384", x509.ECDSAWithSHA512: "sha512"}[child.SignatureAlgorithm]
	if h == "" {
		return floorCheck{}, fmt.Errorf("%s: signature algorithm %v is not ECDSA", what, child.SignatureAlgorithm)
	}
	key, _ := x509.MarshalPKIXPublicKey(parent.PublicKey)
	return floorCheck{What: what, Alg: "ecdsa", Hash: h, PublicKey: key, Message: child.RawTBSCertificate, Signature: child.Signature}, nil
}

// tokenCheck is the RFC 3161 token's signature (CMS SignedData, one
// signer) over its signed attributes, under the authority's leaf key.
func tokenCheck(der []byte, tsaLeaf *x509.Certificate) (floorCheck, error) {
	type contentInfo struct {
		ContentType asn1.ObjectIdentifier
		Content     asn1.RawValue `asn1:"explicit,tag:0"`
	}
	type signerInfo struct {
		Version            int
		SID                asn1.RawValue
		DigestAlgorithm    asn1.RawValue
		SignedAttrs        asn1.RawValue `asn1:"optional,tag:0"`
		SignatureAlgorithm asn1.RawValue
		Signature          []byte
		UnsignedAttrs      asn1.RawValue `asn1:"optional,tag:1"`
	}
	type signedData struct {
		Version          int
		DigestAlgorithms asn1.RawValue
		EncapContentInfo asn1.RawValue
		Certificates     asn1.RawValue `asn1:"optional,tag:0"`
		CRLs             asn1.RawValue `asn1:"optional,tag:1"`
		SignerInfos      []signerInfo  `asn1:"set"`
	}
	var ci contentInfo
	if _, err := asn1.Unmarshal(der, &ci); err != nil {
		// A TimeStampResp: SEQUENCE { status, timeStampToken }.
		var resp struct {
			Status asn1.RawValue
			Token  contentInfo
		}
		if _, err2 := asn1.Unmarshal(der, &resp); err2 != nil {
			return floorCheck{}, fmt.Errorf("timestamp: neither a token (%v) nor a response (%v)", err, err2)
		}
		ci = resp.Token
	}
	var sd signedData
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
		return floorCheck{}, fmt.Errorf("timestamp SignedData: %v", err)
	}
	if len(sd.SignerInfos) != 1 || len(sd.SignerInfos[0].SignedAttrs.FullBytes) == 0 {
		return floorCheck{}, errors.New("timestamp: not one signer with signed attributes")
	}
	si := sd.SignerInfos[0]
	msg := append([]byte{0x31}, si.SignedAttrs.FullBytes[1:]...) // [0] IMPLICIT → SET OF
	var alg struct{ OID asn1.ObjectIdentifier }
	if _, err := asn1.Unmarshal(si.DigestAlgorithm.FullBytes, &alg); err != nil {
		return floorCheck{}, err
	}
	h := map[string]string{"2.16.840.1.101.3.4.2.1": "sha256", "2.16.840.1.101.3.4.2.2": "sha384", "2.16.840.1.101.3.4.2.3": "sha512"}[alg.OID.String()]
	if h == "" {
		return floorCheck{}, fmt.Errorf("timestamp digest algorithm %s", alg.OID)
	}
	key, _ := x509.MarshalPKIXPublicKey(tsaLeaf.PublicKey)
	return floorCheck{What: "timestamp token signature", Alg: "ecdsa", Hash: h, PublicKey: key, Message: msg, Signature: si.Signature}, nil
}

// verifyCheck is what bench/floor --keyless does for c.
func verifyCheck(c floorCheck) bool {
	key, err := x509.ParsePKIXPublicKey(c.PublicKey)
	if err != nil {
		return false
	}
	if c.Alg == "ed25519" {
		return verifyEd25519(key, c.Message, c.Signature)
	}
	pub, ok := key.(*ecdsa.PublicKey)
	if !ok {
		return false
	}
	hf := map[string]crypto.Hash{"sha256": crypto.SHA256, "sha384": crypto.SHA384, "sha512": crypto.SHA512}[c.Hash]
	if hf == 0 {
		return false
	}
	hh := hf.New()
	hh.Write(c.Message)
	return ecdsa.VerifyASN1(pub, hh.Sum(nil), c.Signature)
}

func verifyEd25519(key any, msg, sig []byte) bool {
	pub, ok := key.(ed25519.PublicKey)
	return ok && ed25519.Verify(pub, msg, sig)
}
