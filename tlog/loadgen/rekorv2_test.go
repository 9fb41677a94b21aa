package loadgen

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
)

// jsonName is the proto JSON mapping's name of a proto field (protoc's
// rule: an underscore is dropped and the letter after it capitalised).
func jsonName(field string) string {
	var b strings.Builder
	up := false
	for _, r := range field {
		switch {
		case r == '_':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// The proto field names of a hashedrekord v0.0.2 request, as rekor-tiles
// v2.3.0 declares them (api/proto/rekor/v2/entry.proto CreateEntryRequest,
// hashedrekord.proto HashedRekordRequestV002, verifier.proto Signature,
// Verifier, PublicKey), with the public-key verifier of the oneof.
var (
	protoCreateEntryRequest = []string{"hashed_rekord_request_v002"}
	protoHashedRekordV002   = []string{"digest", "signature"}
	protoSignature          = []string{"content", "verifier"}
	protoVerifier           = []string{"public_key", "key_details"}
	protoPublicKey          = []string{"raw_bytes"}
)

// object is a JSON object whose members must be exactly the JSON names of
// fields.
func object(v any, fields []string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%T is no object", v)
	}
	var want []string
	for _, f := range fields {
		want = append(want, jsonName(f))
	}
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, want) {
		return nil, fmt.Errorf("members %q, want %q", got, want)
	}
	return m, nil
}

// bytesField is a proto JSON bytes value (standard base64, which
// encoding/json writes; protojson also reads URL-safe base64).
func bytesField(v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%T is no base64 string", v)
	}
	return base64.StdEncoding.DecodeString(s)
}

// checkHashedRekord is what the stand-in checks of a request, as Rekor v2
// does: the documented shape and nothing else, an ECDSA P-256 public key
// (PKIX DER) with PKIX_ECDSA_P256_SHA_256, a SHA-256 digest, and the
// signature of that digest by that key. It returns the request's digest
// and key.
func checkHashedRekord(body []byte) (digest, key []byte, err error) {
	var top any
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, nil, err
	}
	req, err := object(top, protoCreateEntryRequest)
	if err != nil {
		return nil, nil, fmt.Errorf("request: %v", err)
	}
	hr, err := object(req[jsonName(protoCreateEntryRequest[0])], protoHashedRekordV002)
	if err != nil {
		return nil, nil, fmt.Errorf("hashedRekordRequestV002: %v", err)
	}
	sig, err := object(hr["signature"], protoSignature)
	if err != nil {
		return nil, nil, fmt.Errorf("signature: %v", err)
	}
	ver, err := object(sig["verifier"], protoVerifier)
	if err != nil {
		return nil, nil, fmt.Errorf("verifier: %v", err)
	}
	pk, err := object(ver["publicKey"], protoPublicKey)
	if err != nil {
		return nil, nil, fmt.Errorf("publicKey: %v", err)
	}
	if ver["keyDetails"] != "PKIX_ECDSA_P256_SHA_256" {
		return nil, nil, fmt.Errorf("keyDetails %v", ver["keyDetails"])
	}
	der, err := bytesField(pk["rawBytes"])
	if err != nil {
		return nil, nil, fmt.Errorf("rawBytes: %v", err)
	}
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, nil, err
	}
	ec, ok := pub.(*ecdsa.PublicKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, nil, fmt.Errorf("a %T key, not ECDSA P-256", pub)
	}
	digest, err = bytesField(hr["digest"])
	if err != nil || len(digest) != sha256.Size {
		return nil, nil, fmt.Errorf("digest: %d bytes (%v)", len(digest), err)
	}
	content, err := bytesField(sig["content"])
	if err != nil {
		return nil, nil, fmt.Errorf("content: %v", err)
	}
	if !ecdsa.VerifyASN1(ec, digest, content) {
		return nil, nil, errors.New("the signature does not verify")
	}
	return digest, der, nil
}

// TestHashedRekordRequest: the request has the shape Rekor v2 documents,
// carries the digest, and its signature verifies; each thing the checker
// refuses fires on a request wrong in that one way.
func TestHashedRekordRequest(t *testing.T) {
	if jsonName("hashed_rekord_request_v002") != "hashedRekordRequestV002" || jsonName("raw_bytes") != "rawBytes" {
		t.Fatal("jsonName")
	}
	signers, err := NewRekorV2Signers(2)
	if err != nil {
		t.Fatal(err)
	}
	sub := RekorV2Submissions(signers)
	s, err := sub(7)
	if err != nil {
		t.Fatal(err)
	}
	digest, key, err := checkHashedRekord(s.Body)
	if err != nil {
		t.Fatalf("%v\n%s", err, s.Body)
	}
	if !bytes.Equal(digest, s.Digest) || !bytes.Equal(key, signers[1].PublicKey) {
		t.Fatal("the request is not of the submission's digest, signed by the i-th key in turn")
	}
	if s2, _ := sub(8); bytes.Equal(s2.Digest, s.Digest) || !bytes.Equal(mustKey(t, s2.Body), signers[0].PublicKey) {
		t.Fatal("two submissions log the same artifact, or the keys are not used in turn")
	}
	if s3, _ := RekorV2Submissions(signers)(7); bytes.Equal(s3.Digest, s.Digest) {
		t.Fatal("two runs log the same artifact")
	}
	// Each fault alone, and the checker refuses it.
	var req map[string]map[string]any
	json.Unmarshal(s.Body, &req)
	hr := req["hashedRekordRequestV002"]
	sig := hr["signature"].(map[string]any)
	content, _ := bytesField(sig["content"])
	for name, mutate := range map[string]func(){
		"a signature of another digest": func() {
			d := slices.Clone(digest)
			d[0] ^= 1
			hr["digest"] = d
		},
		"a flipped signature bit": func() {
			c := slices.Clone(content)
			c[len(c)-1] ^= 1
			sig["content"] = c
		},
		"a SHA-512 sized digest": func() { hr["digest"] = make([]byte, 64) },
		"another key's signature": func() {
			sig["verifier"].(map[string]any)["publicKey"] = map[string]any{"rawBytes": signers[0].PublicKey}
		},
		"Ed25519 key details": func() { sig["verifier"].(map[string]any)["keyDetails"] = "PKIX_ED25519" },
		"a snake_case name": func() {
			req["hashed_rekord_request_v002"] = hr
			delete(req, "hashedRekordRequestV002")
		},
	} {
		t.Run(name, func(t *testing.T) {
			var saved map[string]map[string]any
			json.Unmarshal(s.Body, &saved)
			defer func() { req, hr = saved, saved["hashedRekordRequestV002"]; sig = hr["signature"].(map[string]any) }()
			mutate()
			bad, _ := json.Marshal(req)
			if _, _, err := checkHashedRekord(bad); err == nil {
				t.Fatalf("accepted %s", bad)
			}
		})
	}
	if _, err := HashedRekordRequest(make([]byte, 20), content, key); err == nil {
		t.Error("a request for a 20-byte digest was made")
	}
}

func mustKey(t *testing.T, body []byte) []byte {
	t.Helper()
	_, key, err := checkHashedRekord(body)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// standIn is a Rekor v2 stand-in on 127.0.0.1: it checks each request
// (checkHashedRekord), logs it in a Merkle tree as Rekor v2 does (the
// canonicalized hashedrekord v0.0.2 entry) and answers 201 with the entry
// and its inclusion proof, or with what answer says.
type standIn struct {
	*httptest.Server
	mu      sync.Mutex
	tree    *testonly.Tree
	digests map[string]bool
	keys    map[string]bool
	refused []string
	// answer, when set, replaces the answer to an accepted request.
	answer func(entry []byte) []byte
}

func newStandIn(t *testing.T) *standIn {
	s := &standIn{tree: testonly.New(rfc6962.DefaultHasher), digests: map[string]bool{}, keys: map[string]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(s.serve)}}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/api/v2/log/entries" || r.Header.Get("Content-Type") != "application/json" {
		s.refused = append(s.refused, r.Method+" "+r.URL.Path)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	digest, key, err := checkHashedRekord(body)
	if err != nil {
		s.refused = append(s.refused, err.Error())
		http.Error(w, `{"code":3, "message":"invalid hashedrekord request"}`, http.StatusBadRequest)
		return
	}
	if s.digests[string(digest)] {
		http.Error(w, `{"code":6}`, http.StatusConflict)
		return
	}
	s.digests[string(digest)], s.keys[string(key)] = true, true
	var req createEntryRequest
	json.Unmarshal(body, &req)
	entry, _ := json.Marshal(map[string]any{"apiVersion": "0.0.2", "kind": "hashedrekord", "spec": map[string]any{"hashedRekordV002": map[string]any{
		"data": map[string]any{"algorithm": "SHA2_256", "digest": digest}, "signature": req.HashedRekordRequestV002.Signature}}})
	s.tree.AppendData(entry)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	if s.answer != nil {
		w.Write(s.answer(entry))
		return
	}
	w.Write(tle(s.tree, s.tree.Size()-1, entry))
}

// tle is Rekor v2's answer for entry i of tree (the proto JSON of a
// TransparencyLogEntry: int64 as strings).
func tle(tree *testonly.Tree, i uint64, entry []byte) []byte {
	size := tree.Size()
	hashes, _ := tree.InclusionProof(i, size)
	if hashes == nil {
		hashes = [][]byte{}
	}
	cp := fmt.Sprintf("bench.example/rekor-v2\n%d\n%s\n\n— bench.example/rekor-v2 c2ln\n", size, base64.StdEncoding.EncodeToString(tree.Hash()))
	out, _ := json.Marshal(map[string]any{"logIndex": fmt.Sprint(i), "kindVersion": map[string]any{"kind": "hashedrekord", "version": "0.0.2"},
		"inclusionProof": map[string]any{"logIndex": fmt.Sprint(i), "rootHash": tree.Hash(), "treeSize": fmt.Sprint(size), "hashes": hashes,
			"checkpoint": map[string]any{"envelope": cp}},
		"canonicalizedBody": entry})
	return out
}

// TestRunRekorV2: a run against the stand-in submits distinct digests
// signed by each of the keys in turn, every one of which the stand-in
// verifies and logs, and counts each as logged; the prepared submissions
// are sent like the others.
func TestRunRekorV2(t *testing.T) {
	s := newStandIn(t)
	signers, err := NewRekorV2Signers(3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunRekorV2(context.Background(), RekorV2Config{URL: s.URL + "/", Clients: 3, Requests: 12, Prepare: 5, Duration: time.Minute,
		Submit: RekorV2Submissions(signers)})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 12 || len(res.Failed) != 0 || res.Unproven != 0 || res.FirstReject != "" || res.P50 <= 0 || res.Max < res.P99 {
		t.Fatalf("%+v; refused %q", res, s.refused)
	}
	if len(s.digests) != 12 || len(s.keys) != 3 || len(s.refused) != 0 || s.tree.Size() != 12 {
		t.Fatalf("%d digests, %d keys, %d logged, refused %q", len(s.digests), len(s.keys), s.tree.Size(), s.refused)
	}
}

// TestRunRekorV2Refused: a submission the server refuses (here a
// signature that does not verify) is a failure, by status, never a
// success.
func TestRunRekorV2Refused(t *testing.T) {
	s := newStandIn(t)
	signers, _ := NewRekorV2Signers(1)
	honest := RekorV2Submissions(signers)
	res, err := RunRekorV2(context.Background(), RekorV2Config{URL: s.URL, Clients: 2, Requests: 6, Duration: time.Minute,
		Submit: func(i int) (RekorV2Submission, error) {
			sub, err := honest(i)
			if i%2 == 1 { // the signature of another digest
				other, _ := honest(i + 1000)
				sub.Body = bytes.Replace(sub.Body, []byte(base64.StdEncoding.EncodeToString(sub.Digest)), []byte(base64.StdEncoding.EncodeToString(other.Digest)), 1)
			}
			return sub, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 3 || res.Failed[http.StatusBadRequest] != 3 || len(s.refused) != 3 || !strings.Contains(s.refused[0], "does not verify") {
		t.Fatalf("%+v; refused %q", res, s.refused)
	}
}

// TestRunRekorV2Unproven: an answer 201 that is not the submitted entry
// with a valid inclusion proof is counted failed, not logged.
func TestRunRekorV2Unproven(t *testing.T) {
	for name, answer := range map[string]func(entry []byte) []byte{
		"no inclusion proof": func(entry []byte) []byte {
			out, _ := json.Marshal(map[string]any{"logIndex": "0", "canonicalizedBody": entry})
			return out
		},
		"an empty object": func([]byte) []byte { return []byte("{}") },
	} {
		t.Run(name, func(t *testing.T) {
			s := newStandIn(t)
			s.answer = answer
			signers, _ := NewRekorV2Signers(1)
			res, err := RunRekorV2(context.Background(), RekorV2Config{URL: s.URL, Clients: 1, Requests: 4, Duration: time.Minute, Submit: RekorV2Submissions(signers)})
			if err != nil {
				t.Fatal(err)
			}
			if res.OK != 0 || res.Unproven != 4 || res.Failed[http.StatusCreated] != 4 || res.FirstReject == "" {
				t.Fatalf("%+v", res)
			}
		})
	}
	if _, err := RunRekorV2(context.Background(), RekorV2Config{URL: "http://192.0.2.1/", Submit: RekorV2Submissions(nil)}); err == nil {
		t.Fatal("ran against a non-loopback server")
	}
}

// TestCheckRekorV2Entry: the answer counts only when it is the submitted
// digest's entry with an inclusion proof that verifies, in a tree whose
// checkpoint it carries; each fault alone is refused.
func TestCheckRekorV2Entry(t *testing.T) {
	tree := testonly.New(rfc6962.DefaultHasher)
	entry := func(d []byte) []byte {
		e, _ := json.Marshal(map[string]any{"apiVersion": "0.0.2", "kind": "hashedrekord", "spec": map[string]any{"hashedRekordV002": map[string]any{
			"data": map[string]any{"algorithm": "SHA2_256", "digest": d}}}})
		return e
	}
	var digests [][]byte
	for i := range 5 {
		d := sha256.Sum256([]byte{byte(i)})
		digests = append(digests, d[:])
		tree.AppendData(entry(d[:]))
	}
	good := tle(tree, 2, entry(digests[2]))
	if err := CheckRekorV2Entry(good, digests[2]); err != nil {
		t.Fatalf("the honest answer: %v\n%s", err, good)
	}
	mutate := func(f func(m map[string]any, p map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(good, &m)
		f(m, m["inclusionProof"].(map[string]any))
		out, _ := json.Marshal(m)
		return out
	}
	for name, c := range map[string]struct {
		resp   []byte
		digest []byte
		want   string
	}{
		"another digest":      {good, digests[3], "not the hashedrekord"},
		"no proof":            {mutate(func(m, p map[string]any) { delete(m, "inclusionProof") }), digests[2], "no inclusion proof"},
		"a proof of another":  {mutate(func(m, p map[string]any) { p["logIndex"] = "3" }), digests[2], "is for entry 3"},
		"index past the tree": {mutate(func(m, p map[string]any) { m["logIndex"], p["logIndex"] = "5", "5" }), digests[2], "tree of 5"},
		"no checkpoint":       {mutate(func(m, p map[string]any) { delete(p, "checkpoint") }), digests[2], "no checkpoint"},
		"another tree's note": {mutate(func(m, p map[string]any) { p["treeSize"] = "4" }), digests[2], "no checkpoint"},
		"a wrong proof hash": {mutate(func(m, p map[string]any) {
			p["hashes"].([]any)[0] = base64.StdEncoding.EncodeToString(make([]byte, 32))
		}), digests[2], "inclusion proof"},
		"another root":           {mutate(func(m, p map[string]any) { p["rootHash"] = base64.StdEncoding.EncodeToString(digests[0]) }), digests[2], "inclusion proof"},
		"a string index":         {mutate(func(m, p map[string]any) { m["logIndex"] = "two" }), digests[2], "not an int64"},
		"not json":               {[]byte("<html>"), digests[2], "no transparency log entry"},
		"a DSSE entry":           {mutate(func(m, p map[string]any) { m["canonicalizedBody"] = []byte(`{"kind":"dsse"}`) }), digests[2], "not the hashedrekord"},
		"a body that is no JSON": {mutate(func(m, p map[string]any) { m["canonicalizedBody"] = []byte("x") }), digests[2], "canonicalized body"},
	} {
		if err := CheckRekorV2Entry(c.resp, c.digest); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	// A number where Rekor writes a string is the same int64.
	if err := CheckRekorV2Entry(mutate(func(m, p map[string]any) { m["logIndex"], p["logIndex"] = 2, 2 }), digests[2]); err != nil {
		t.Errorf("numeric indexes: %v", err)
	}
}

// FuzzCheckRekorV2Entry: any answer is either refused or the entry of the
// digest with a proof that verifies; nothing panics.
func FuzzCheckRekorV2Entry(f *testing.F) {
	tree := testonly.New(rfc6962.DefaultHasher)
	d := sha256.Sum256([]byte("artifact"))
	e, _ := json.Marshal(map[string]any{"apiVersion": "0.0.2", "kind": "hashedrekord", "spec": map[string]any{"hashedRekordV002": map[string]any{
		"data": map[string]any{"algorithm": "SHA2_256", "digest": d[:]}}}})
	tree.AppendData([]byte("first"), e, []byte("third"))
	f.Add(tle(tree, 1, e))
	f.Add([]byte(`{"logIndex":"0","inclusionProof":{"logIndex":"0","treeSize":"1","checkpoint":{"envelope":"o\n1\n"}}}`))
	f.Add([]byte(`{"logIndex":-1}`))
	f.Fuzz(func(t *testing.T, resp []byte) {
		if err := CheckRekorV2Entry(resp, d[:]); err != nil {
			return
		}
		var m transparencyLogEntry
		if json.Unmarshal(resp, &m) != nil || m.InclusionProof == nil || !bytes.Contains(m.CanonicalizedBody, []byte(base64.StdEncoding.EncodeToString(d[:]))) {
			t.Fatalf("accepted %q", resp)
		}
	})
}
