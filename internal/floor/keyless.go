package floor

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	_ "crypto/sha512" // SHA-384 and SHA-512 for the prepared ECDSA checks
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
)

// A Prepared is one signature check of a keyless signature, prepared once
// from go run ./bench's fixture (floor.json, written by the keyless
// package's TestWriteBenchFixture with a real Fulcio and timestamp
// authority): verify Signature over Message — hashed with Hash first, for
// ECDSA — under the SPKI PublicKey. The floor of a keyless verification
// is the floor of a file plus these: the envelope's Ed25519 signature, the
// Fulcio chain, the timestamp token's signature and the authority's chain.
type Prepared struct {
	What      string `json:"what"`
	Alg       string `json:"alg"`
	Hash      string `json:"hash,omitempty"`
	PublicKey []byte `json:"publicKey"`
	Message   []byte `json:"message"`
	Signature []byte `json:"signature"`

	ed  ed25519.PublicKey
	ec  *ecdsa.PublicKey
	hfn crypto.Hash
}

// PreparedChecks reads floor.json and checks that every check verifies.
func PreparedChecks(floorJSON []byte) ([]Prepared, error) {
	var ps []Prepared
	if err := json.Unmarshal(floorJSON, &ps); err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, errors.New("no prepared checks")
	}
	for i := range ps {
		p := &ps[i]
		key, err := x509.ParsePKIXPublicKey(p.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p.What, err)
		}
		switch k := key.(type) {
		case ed25519.PublicKey:
			p.ed = k
		case *ecdsa.PublicKey:
			p.ec = k
			p.hfn = map[string]crypto.Hash{"sha256": crypto.SHA256, "sha384": crypto.SHA384, "sha512": crypto.SHA512}[p.Hash]
			if p.hfn == 0 {
				return nil, fmt.Errorf("%s: hash %q", p.What, p.Hash)
			}
		default:
			return nil, fmt.Errorf("%s: key of type %T", p.What, key)
		}
		if !p.verify() {
			return nil, fmt.Errorf("%s: does not verify", p.What)
		}
	}
	return ps, nil
}

// verify does the check: hash the message for ECDSA, verify.
func (p *Prepared) verify() bool {
	if p.ed != nil {
		return ed25519.Verify(p.ed, p.Message, p.Signature)
	}
	h := p.hfn.New()
	h.Write(p.Message)
	return ecdsa.VerifyASN1(p.ec, h.Sum(nil), p.Signature)
}

// CheckKeyless does the floor's work for one keyless attested bundle at
// path and its Sigstore bundle at material, read by read: read both, scan
// each once (encoding/json.Valid), hash the bundle four times with
// SHA-256, and every prepared check.
func CheckKeyless(path, material string, checks []Prepared, read func(string) ([]byte, error)) error {
	for _, p := range []string{path, material} {
		data, err := read(p)
		if err != nil {
			return err
		}
		if !json.Valid(data) {
			return fmt.Errorf("%s: not JSON", p)
		}
		if p == path {
			for range 4 {
				sha256.Sum256(data)
			}
		}
	}
	for i := range checks {
		if !checks[i].verify() {
			return fmt.Errorf("%s: %s does not verify", path, checks[i].What)
		}
	}
	return nil
}
