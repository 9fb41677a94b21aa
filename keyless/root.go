package keyless

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/root"
)

// FetchTrustedRoot builds a Sigstore trusted root from what a Fulcio
// (GET /api/v2/trustBundle) and a timestamp authority (GET URL/certchain,
// sigstore's timestamp-authority) publish. Trusting it proves only that
// the servers' answers are consistent: a verifier's trusted root must come
// from elsewhere (the Sigstore TUF repository for the public instances, or
// the operator of a private one). `mcpres-sigstore trusted-root` writes
// one for a private instance from this.
func FetchTrustedRoot(ctx context.Context, client *http.Client, fulcioURL, tsaURL string) (*root.TrustedRoot, error) {
	fb, err := get(ctx, client, strings.TrimSuffix(fulcioURL, "/")+"/api/v2/trustBundle", "the Fulcio URL")
	if err != nil {
		return nil, fmt.Errorf("%w: Fulcio's trust bundle: %v", ErrCertificate, err)
	}
	var tb struct {
		Chains []struct {
			Certificates []string `json:"certificates"`
		} `json:"chains"`
	}
	if err := json.Unmarshal(fb, &tb); err != nil || len(tb.Chains) == 0 {
		return nil, fmt.Errorf("%w: Fulcio's trust bundle is not {\"chains\": [...]}", ErrCertificate)
	}
	var cas []root.CertificateAuthority
	for _, c := range tb.Chains {
		chain, err := parsePEMChain(c.Certificates)
		if err != nil {
			return nil, err
		}
		n := len(chain)
		cas = append(cas, &root.FulcioCertificateAuthority{Root: chain[n-1], Intermediates: chain[:n-1], URI: fulcioURL})
	}
	tb2, err := get(ctx, client, tsaURL+"/certchain", "the timestamp authority URL")
	if err != nil {
		return nil, fmt.Errorf("%w: the authority's certificate chain: %v", ErrTimestamp, err)
	}
	pems, err := splitPEM(tb2)
	if err != nil {
		return nil, fmt.Errorf("%w: the authority's certificate chain: %v", ErrTimestamp, err)
	}
	chain, err := parsePEMChain(pems)
	if err != nil {
		return nil, fmt.Errorf("%w: the authority's certificate chain: %v", ErrTimestamp, err)
	}
	n := len(chain)
	tsa := &root.SigstoreTimestampingAuthority{Root: chain[n-1], URI: tsaURL}
	if n > 1 {
		tsa.Leaf, tsa.Intermediates = chain[0], chain[1:n-1]
	}
	return root.NewTrustedRoot(root.TrustedRootMediaType01, cas, nil, []root.TimestampingAuthority{tsa}, nil)
}

func get(ctx context.Context, client *http.Client, raw, what string) ([]byte, error) {
	u, err := checkURL(raw, what)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s", redactURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", u.Redacted(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxAnswerSize {
		return nil, fmt.Errorf("%s answered more than %d bytes", u.Redacted(), MaxAnswerSize)
	}
	return data, nil
}
