package keyless

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"

	"github.com/digitorus/timestamp"
)

// requestTimestamp asks the RFC 3161 endpoint at endpoint for a
// timestamp over SHA-256(sig) and returns the DER TimeStampResp. Its
// signature and binding are verified afterwards, with the rest of the
// material (sigstore-go). It does not ask for the authority's
// certificate in the token (certReq false, as sigstore-go's own signer
// asks): the trusted root lists it, verifiers take it from there, and a
// token that carries it has its signature verified twice by
// timestamp-authority's VerifyTimestampResponse (once when parsed).
func requestTimestamp(ctx context.Context, client *http.Client, endpoint string, sig []byte) ([]byte, error) {
	u, err := checkURL(endpoint, "the timestamp authority URL")
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(sig)
	reqBytes, err := (&timestamp.Request{HashAlgorithm: crypto.SHA256, HashedMessage: h[:]}).Marshal()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTimestamp, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(reqBytes))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTimestamp, err)
	}
	req.Header.Set("Content-Type", "application/timestamp-query")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: requesting it failed (%s)", ErrTimestamp, redactURLError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the authority's answer: %v", ErrTimestamp, err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("%w: the authority answered %s", ErrTimestamp, resp.Status)
	}
	if len(data) > MaxAnswerSize {
		return nil, fmt.Errorf("%w: the answer is larger than %d bytes", ErrTimestamp, MaxAnswerSize)
	}
	ts, err := timestamp.ParseResponse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: the authority's answer is not a granted RFC 3161 TimeStampResp: %v", ErrBadTimestamp, err)
	}
	if !bytes.Equal(ts.HashedMessage, h[:]) || !ts.HashAlgorithm.Available() || ts.HashAlgorithm != crypto.SHA256 {
		return nil, fmt.Errorf("%w: it is over other bytes", ErrBadTimestamp)
	}
	return data, nil
}
