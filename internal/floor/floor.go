// Package floor is the floor of batch verification: per file, only the
// work that verifying an attested bundle cannot avoid — read it, scan its
// syntax once (encoding/json.Valid), hash it four times with SHA-256 and
// verify two Ed25519 signatures. The signatures are those of one bundle's
// first two DSSE envelopes, prepared once ([Signatures]), so the floor pays
// neither base64 nor a parse per file. The floor program (bench/floor) and
// BenchmarkFloor (cmd/mcpres) both run it, each reading files its own way.
// It links only the standard library.
package floor

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
)

// A Signature is one prepared signature check: public key, DSSE
// pre-authentication encoding and signature.
type Signature struct {
	pub      ed25519.PublicKey
	pae, sig []byte
}

// Signatures extracts the first two envelopes' signature checks of the
// attested bundle src and checks that they verify.
func Signatures(src []byte) ([]Signature, error) {
	var doc struct {
		Authenticity struct {
			Envelopes []struct {
				Payload     string `json:"payload"`
				PayloadType string `json:"payloadType"`
				Signatures  []struct {
					Key string `json:"publicKeySpkiBase64"`
					Sig string `json:"sig"`
				} `json:"signatures"`
			} `json:"envelopes"`
		} `json:"authenticity"`
	}
	if err := json.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	var out []Signature
	for _, env := range doc.Authenticity.Envelopes {
		if len(env.Signatures) == 0 {
			continue
		}
		payload, err := base64.StdEncoding.DecodeString(env.Payload)
		if err != nil {
			return nil, err
		}
		der, err := base64.StdEncoding.DecodeString(env.Signatures[0].Key)
		if err != nil {
			return nil, err
		}
		key, err := x509.ParsePKIXPublicKey(der)
		if err != nil {
			return nil, err
		}
		pub, ok := key.(ed25519.PublicKey)
		if !ok {
			return nil, errors.New("not an Ed25519 key")
		}
		sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
		if err != nil {
			return nil, err
		}
		typ := env.PayloadType
		pae := []byte("DSSEv1 " + strconv.Itoa(len(typ)) + " " + typ + " " + strconv.Itoa(len(payload)) + " " + string(payload))
		if !ed25519.Verify(pub, pae, sig) {
			return nil, errors.New("an envelope's signature does not verify")
		}
		out = append(out, Signature{pub: pub, pae: pae, sig: sig})
		if len(out) == 2 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%d signed envelopes, want 2", len(out))
}

// Check does the floor's work on the file at path, read by read.
func Check(path string, sigs []Signature, read func(string) ([]byte, error)) error {
	data, err := read(path)
	if err != nil {
		return err
	}
	if !json.Valid(data) {
		return fmt.Errorf("%s: not JSON", path)
	}
	for range 4 {
		sha256.Sum256(data)
	}
	for _, s := range sigs {
		if !ed25519.Verify(s.pub, s.pae, s.sig) {
			return fmt.Errorf("%s: signature does not verify", path)
		}
	}
	return nil
}

// Run checks every path on all cores and returns the first failure.
func Run(paths []string, sigs []Signature, read func(string) ([]byte, error)) error {
	return RunEach(paths, func(p string) error { return Check(p, sigs, read) })
}

// RunEach runs check on every path on all cores and returns the first
// failure.
func RunEach(paths []string, check func(string) error) error {
	jobs := make(chan string)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for p := range jobs {
				if err := check(p); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for _, p := range paths {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
