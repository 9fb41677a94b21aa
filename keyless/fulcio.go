package keyless

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Bounds on what a certificate authority or timestamp authority may send.
const (
	// MaxAnswerSize bounds a Fulcio or timestamp-authority answer.
	MaxAnswerSize = 256 << 10
	// MaxChainLength bounds a certificate chain (leaf included).
	MaxChainLength = 8
)

// ErrCertificate is the error when Fulcio refused, or answered with a certificate that
// cannot be used (unparsable, too many, or for another key).
var ErrCertificate = errors.New("certificate from Fulcio")

// ErrOtherKey is the error when the certificate Fulcio returned certifies a key other than
// the ephemeral one; nothing is signed.
var ErrOtherKey = fmt.Errorf("%w: it certifies another public key than the ephemeral key", ErrCertificate)

// requestCertificate asks the Fulcio at base for a certificate for pub,
// proving possession with priv, and returns the chain, leaf first. The
// leaf's public key is checked to be pub (ErrOtherKey).
func requestCertificate(ctx context.Context, client *http.Client, base string, tok *Token, priv ed25519.PrivateKey) ([]*x509.Certificate, error) {
	u, err := checkURL(strings.TrimSuffix(base, "/")+"/api/v2/signingCert", "the Fulcio URL")
	if err != nil {
		return nil, err
	}
	subject, err := tok.proofSubject()
	if err != nil {
		return nil, err
	}
	pub := priv.Public().(ed25519.PublicKey)
	spki, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	var body struct {
		PublicKeyRequest struct {
			PublicKey struct {
				Algorithm string `json:"algorithm"`
				Content   string `json:"content"`
			} `json:"publicKey"`
			ProofOfPossession string `json:"proofOfPossession"`
		} `json:"publicKeyRequest"`
	}
	body.PublicKeyRequest.PublicKey.Algorithm = "ED25519"
	body.PublicKeyRequest.PublicKey.Content = string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki}))
	body.PublicKeyRequest.ProofOfPossession = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte(subject)))
	reqBody, err := json.Marshal(&body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(reqBody))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok.raw)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: requesting it failed (%s)", ErrCertificate, redactURLError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading Fulcio's answer: %v", ErrCertificate, err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		// The body is not quoted: a server may echo the request.
		return nil, fmt.Errorf("%w: Fulcio answered %s (was the token for audience %s, from an issuer Fulcio trusts, and unexpired?)", ErrCertificate, resp.Status, Audience)
	}
	if len(data) > MaxAnswerSize {
		return nil, fmt.Errorf("%w: Fulcio's answer is larger than %d bytes", ErrCertificate, MaxAnswerSize)
	}
	chain, err := parseSigningCertAnswer(data)
	if err != nil {
		return nil, err
	}
	leafKey, ok := chain[0].PublicKey.(ed25519.PublicKey)
	if !ok || !leafKey.Equal(pub) {
		return nil, ErrOtherKey
	}
	return chain, nil
}

// parseSigningCertAnswer decodes the answer of POST /api/v2/signingCert:
// the chain of signedCertificateEmbeddedSct or signedCertificateDetachedSct,
// PEM certificates, leaf first.
func parseSigningCertAnswer(data []byte) ([]*x509.Certificate, error) {
	type chain struct {
		Chain struct {
			Certificates []string `json:"certificates"`
		} `json:"chain"`
	}
	var a struct {
		Embedded *chain `json:"signedCertificateEmbeddedSct"`
		Detached *chain `json:"signedCertificateDetachedSct"`
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("%w: Fulcio's answer is not JSON", ErrCertificate)
	}
	var pems []string
	switch {
	case a.Embedded != nil && a.Detached != nil:
		return nil, fmt.Errorf("%w: Fulcio's answer has both an embedded-SCT and a detached-SCT chain", ErrCertificate)
	case a.Embedded != nil:
		pems = a.Embedded.Chain.Certificates
	case a.Detached != nil:
		pems = a.Detached.Chain.Certificates
	}
	return parsePEMChain(pems)
}

// parsePEMChain parses a chain of PEM certificates (each string one
// CERTIFICATE block), leaf first, at most MaxChainLength.
func parsePEMChain(pems []string) ([]*x509.Certificate, error) {
	if len(pems) == 0 {
		return nil, fmt.Errorf("%w: the answer has no certificate", ErrCertificate)
	}
	if len(pems) > MaxChainLength {
		return nil, fmt.Errorf("%w: a chain of %d certificates, more than the %d allowed", ErrCertificate, len(pems), MaxChainLength)
	}
	chain := make([]*x509.Certificate, 0, len(pems))
	for i, p := range pems {
		block, rest := pem.Decode([]byte(p))
		if block == nil || block.Type != "CERTIFICATE" || len(bytes.TrimSpace(rest)) != 0 {
			return nil, fmt.Errorf("%w: certificate %d is not one PEM CERTIFICATE block", ErrCertificate, i)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: certificate %d: %v", ErrCertificate, i, err)
		}
		chain = append(chain, c)
	}
	return chain, nil
}

// splitPEM splits concatenated PEM CERTIFICATE blocks (the timestamp
// authority's /certchain answer), at most MaxChainLength.
func splitPEM(data []byte) ([]string, error) {
	var out []string
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			if len(bytes.TrimSpace(data)) != 0 {
				return nil, errors.New("trailing bytes that are not PEM")
			}
			return out, nil
		}
		if len(out) == MaxChainLength {
			return nil, fmt.Errorf("more than %d certificates", MaxChainLength)
		}
		out = append(out, string(pem.EncodeToMemory(block)))
		data = rest
	}
}
