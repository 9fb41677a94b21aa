package loadgen

// Rekor v2: the same clients, bounds, preparation and result as Run,
// submitting hashedrekord v0.0.2 entries to a Rekor v2 server
// (rekor-tiles) instead of bundles to `mcpres log serve`, so that the
// bench measures both logs with one load generator (mcpres-loadgen
// --rekor-v2).

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// RekorV2Path is Rekor v2's write endpoint, and ecdsaP256SHA256 the key
// details of the load generator's signatures: rekor-tiles v2.3.0,
// api/proto/rekor/v2/rekor_service.proto (CreateEntry), and sigstore's
// common.v1.PublicKeyDetails.
const (
	RekorV2Path     = "/api/v2/log/entries"
	ecdsaP256SHA256 = "PKIX_ECDSA_P256_SHA_256"
	// maxRekorResponse bounds an answer read (a transparency log entry
	// is about 1.5 KB; its proof grows with the log's height).
	maxRekorResponse = 64 << 10
)

// The JSON of a CreateEntryRequest holding a HashedRekordRequestV002, in
// the proto JSON mapping rekor-tiles' HTTP gateway decodes (field names in
// lowerCamelCase, bytes as standard base64; rekor-tiles CLIENTS.md):
//
//	{"hashedRekordRequestV002": {"digest": …, "signature": {"content": …,
//	  "verifier": {"publicKey": {"rawBytes": …}, "keyDetails": "PKIX_ECDSA_P256_SHA_256"}}}}
type (
	createEntryRequest struct {
		HashedRekordRequestV002 hashedRekordRequestV002 `json:"hashedRekordRequestV002"`
	}
	hashedRekordRequestV002 struct {
		Digest    []byte         `json:"digest"`
		Signature rekorSignature `json:"signature"`
	}
	rekorSignature struct {
		Content  []byte        `json:"content"`
		Verifier rekorVerifier `json:"verifier"`
	}
	rekorVerifier struct {
		PublicKey  rekorPublicKey `json:"publicKey"`
		KeyDetails string         `json:"keyDetails"`
	}
	rekorPublicKey struct {
		RawBytes []byte `json:"rawBytes"`
	}
)

// HashedRekordRequest is the body of a submission to Rekor v2: a
// hashedrekord v0.0.2 request for the SHA-256 digest of an artifact,
// signed (ASN.1 ECDSA over the digest) by the P-256 key whose PKIX DER is
// pubDER.
func HashedRekordRequest(digest, sig, pubDER []byte) ([]byte, error) {
	if len(digest) != sha256.Size || len(sig) == 0 || len(pubDER) == 0 {
		return nil, errors.New("rekor-v2: a request needs a SHA-256 digest, a signature and a public key")
	}
	return json.Marshal(createEntryRequest{hashedRekordRequestV002{Digest: digest,
		Signature: rekorSignature{Content: sig, Verifier: rekorVerifier{PublicKey: rekorPublicKey{RawBytes: pubDER}, KeyDetails: ecdsaP256SHA256}}}})
}

// A RekorV2Submission is one request body and the digest it logs.
type RekorV2Submission struct {
	Body, Digest []byte
}

// A RekorV2Signer is an ECDSA P-256 key of the load generator's.
type RekorV2Signer struct {
	key *ecdsa.PrivateKey
	// PublicKey is the PKIX DER of the public key.
	PublicKey []byte
}

// RekorV2Submissions returns the i-th submission of a run: the digest of
// an artifact distinct in every run and for every i, signed by one of
// signers (in turn). The keys are made by the caller at start, each run
// its own.
func RekorV2Submissions(signers []RekorV2Signer) func(i int) (RekorV2Submission, error) {
	var rb [8]byte
	rand.Read(rb[:])
	runID := hex.EncodeToString(rb[:])
	return func(i int) (RekorV2Submission, error) {
		d := sha256.Sum256(fmt.Appendf(nil, "mcpres-loadgen rekor-v2 artifact %s %d", runID, i))
		s := signers[i%len(signers)]
		sig, err := ecdsa.SignASN1(rand.Reader, s.key, d[:])
		if err != nil {
			return RekorV2Submission{}, err
		}
		body, err := HashedRekordRequest(d[:], sig, s.PublicKey)
		return RekorV2Submission{Body: body, Digest: d[:]}, err
	}
}

// NewRekorV2Signers makes n ECDSA P-256 keys.
func NewRekorV2Signers(n int) ([]RekorV2Signer, error) {
	out := make([]RekorV2Signer, n)
	for i := range out {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		if err != nil {
			return nil, err
		}
		out[i] = RekorV2Signer{key: k, PublicKey: der}
	}
	return out, nil
}

// protoInt64 is an int64 of the proto JSON mapping: a decimal string (as
// rekor-tiles writes it) or a number.
type protoInt64 int64

func (p *protoInt64) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("not an int64: %.40q", b)
	}
	*p = protoInt64(v)
	return nil
}

// transparencyLogEntry is what Rekor v2 answers a submission with once
// its entry is integrated (sigstore's rekor.v1.TransparencyLogEntry, in
// the proto JSON mapping): the parts the load generator checks.
type transparencyLogEntry struct {
	LogIndex       *protoInt64 `json:"logIndex"`
	InclusionProof *struct {
		LogIndex   *protoInt64 `json:"logIndex"`
		RootHash   []byte      `json:"rootHash"`
		TreeSize   *protoInt64 `json:"treeSize"`
		Hashes     [][]byte    `json:"hashes"`
		Checkpoint *struct {
			Envelope string `json:"envelope"`
		} `json:"checkpoint"`
	} `json:"inclusionProof"`
	CanonicalizedBody []byte `json:"canonicalizedBody"`
}

// CheckRekorV2Entry checks Rekor v2's answer to the submission of digest:
// a transparency log entry whose canonicalized body is a hashedrekord
// v0.0.2 entry of that digest, with an inclusion proof of it (verified)
// in a tree with a checkpoint. It is what counts a submission as logged,
// as mcpres-loadgen counts an mcpres reference.
func CheckRekorV2Entry(resp, digest []byte) error {
	var e transparencyLogEntry
	if err := json.Unmarshal(resp, &e); err != nil {
		return fmt.Errorf("the answer is no transparency log entry: %v", err)
	}
	p := e.InclusionProof
	switch {
	case p == nil:
		return errors.New("the entry has no inclusion proof")
	case e.LogIndex == nil || p.LogIndex == nil || p.TreeSize == nil:
		return errors.New("the entry or its proof has no log index or tree size")
	case *p.LogIndex != *e.LogIndex || *p.LogIndex < 0 || *p.TreeSize <= *p.LogIndex:
		return fmt.Errorf("the proof of entry %d is for entry %d of a tree of %d", *e.LogIndex, *p.LogIndex, *p.TreeSize)
	case p.Checkpoint == nil || !strings.Contains(p.Checkpoint.Envelope, "\n"+strconv.FormatInt(int64(*p.TreeSize), 10)+"\n"):
		return errors.New("the proof has no checkpoint of its tree")
	}
	var body struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			HashedRekordV002 *struct {
				Data struct {
					Algorithm string `json:"algorithm"`
					Digest    []byte `json:"digest"`
				} `json:"data"`
			} `json:"hashedRekordV002"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(e.CanonicalizedBody, &body); err != nil {
		return fmt.Errorf("the entry's canonicalized body: %v", err)
	}
	if hr := body.Spec.HashedRekordV002; body.Kind != "hashedrekord" || body.APIVersion != "0.0.2" || hr == nil ||
		hr.Data.Algorithm != "SHA2_256" || !bytes.Equal(hr.Data.Digest, digest) {
		return errors.New("the entry is not the hashedrekord v0.0.2 of the submitted digest")
	}
	leaf := rfc6962.DefaultHasher.HashLeaf(e.CanonicalizedBody)
	if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(*p.LogIndex), uint64(*p.TreeSize), leaf, p.Hashes, p.RootHash); err != nil {
		return fmt.Errorf("the inclusion proof: %v", err)
	}
	return nil
}

// RekorV2Config describes a Rekor v2 run: URL, Clients, Duration,
// Requests and Prepare as in Config; Submit returns the i-th submission
// (RekorV2Submissions).
type RekorV2Config struct {
	URL      string
	Clients  int
	Duration time.Duration
	Requests int
	Prepare  int
	Submit   func(i int) (RekorV2Submission, error)
}

// RekorV2Result is a run's Result, with the answers 201 that were not the
// submitted entry with its inclusion proof (Unproven, also counted in
// Failed under 201) and the first answer that was no logged entry
// (FirstReject: a refusal's status and body, or why an answer 201 was
// not taken).
type RekorV2Result struct {
	Result
	Unproven    int
	FirstReject string
}

// RunRekorV2 runs the load against a Rekor v2 server with Run's
// rules (bounds, prepared submissions, no redirects, a result cut off by
// the end of the run not counted); a submission succeeds when it is
// answered 201 with its entry and inclusion proof (CheckRekorV2Entry).
func RunRekorV2(ctx context.Context, cfg RekorV2Config) (RekorV2Result, error) {
	if err := CheckLoopback(cfg.URL); err != nil {
		return RekorV2Result{}, err
	}
	clients := min(max(cfg.Clients, 1), MaxClients)
	d := min(cfg.Duration, MaxDuration)
	if d <= 0 {
		d = MaxDuration
	}
	n := min(cfg.Requests, MaxRequests)
	if n <= 0 {
		n = MaxRequests
	}
	prepared, err := prepareRekor(cfg.Submit, min(max(cfg.Prepare, 0), MaxPrepare, n))
	if err != nil {
		return RekorV2Result{}, fmt.Errorf("rekor-v2: making a submission: %w", err)
	}
	submission := func(i int) (RekorV2Submission, error) {
		if i < len(prepared) {
			s := prepared[i]
			prepared[i] = RekorV2Submission{}
			return s, nil
		}
		return cfg.Submit(i)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	target := strings.TrimSuffix(cfg.URL, "/") + RekorV2Path
	var (
		next    atomic.Int64
		mu      sync.Mutex
		lat     []time.Duration
		res     = RekorV2Result{Result: Result{Failed: map[int]int{}}}
		wg      sync.WaitGroup
		makeErr error
	)
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				s, err := submission(i)
				if err != nil {
					mu.Lock()
					makeErr = err
					mu.Unlock()
					cancel()
					return
				}
				status, body, took, err := postRekor(ctx, hc, target, s.Body)
				if ctx.Err() != nil && status != http.StatusCreated {
					return // cut off by the end of the run
				}
				var reject error
				if status == http.StatusCreated {
					reject = CheckRekorV2Entry(body, s.Digest)
				}
				mu.Lock()
				switch {
				case status == http.StatusCreated && reject == nil:
					lat = append(lat, took)
				case status == http.StatusCreated:
					res.Failed[status]++
					res.Unproven++
					if res.FirstReject == "" {
						res.FirstReject = reject.Error()
					}
				default:
					res.Failed[status]++
					if err != nil && res.FirstError == "" {
						res.FirstError = err.Error()
					} else if err == nil && res.FirstReject == "" {
						res.FirstReject = fmt.Sprintf("%d %.200q", status, body)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if makeErr != nil {
		return RekorV2Result{}, fmt.Errorf("rekor-v2: making a submission: %w", makeErr)
	}
	slices.Sort(lat)
	res.OK, res.Elapsed, res.Rate = len(lat), elapsed, float64(len(lat))/elapsed.Seconds()
	if len(lat) > 0 {
		res.P50, res.P99, res.Max = quantile(lat, 0.50), quantile(lat, 0.99), lat[len(lat)-1]
	}
	return res, nil
}

// prepareRekor makes the first n submissions on all cores.
func prepareRekor(submit func(int) (RekorV2Submission, error), n int) ([]RekorV2Submission, error) {
	out := make([]RekorV2Submission, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				s, err := submit(i)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					next.Store(int64(n))
					return
				}
				out[i] = s
			}
		})
	}
	wg.Wait()
	return out, first
}

// postRekor sends one submission and reads the answer (at most
// maxRekorResponse bytes); the time is until the answer is read.
func postRekor(ctx context.Context, hc *http.Client, url string, body []byte) (int, []byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	t := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRekorResponse))
	resp.Body.Close()
	if err != nil {
		return 0, nil, 0, err
	}
	return resp.StatusCode, data, time.Since(t), nil
}
