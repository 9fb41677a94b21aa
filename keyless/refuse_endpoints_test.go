package keyless

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// serveOn starts h on 127.0.0.1 (httptest's default), stopped when the
// test ends.
func serveOn(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// ActionsToken refuses an endpoint that refuses (its status, never the
// bearer), one whose answer is not {"value": TOKEN}, and one that cannot
// be reached (the transport error without the URL and its query); the
// endpoint that answers a token is the control, asked for audience
// sigstore with the bearer.
func TestActionsTokenEndpoint(t *testing.T) {
	raw := jwt(good())
	const bearer = "test-only-actions-bearer"
	var asked atomic.Value
	answer := func(status int, body string) *httptest.Server {
		return serveOn(t, func(w http.ResponseWriter, r *http.Request) {
			asked.Store(r.Header.Get("Authorization") + " " + r.URL.Query().Get("audience"))
			w.WriteHeader(status)
			w.Write([]byte(body))
		})
	}
	run := func(url string) (*Token, error) {
		env := map[string]string{ActionsURLEnv: url, ActionsTokenEnv: bearer}
		if !InActions(func(k string) string { return env[k] }) {
			t.Fatal("InActions: false with both variables set")
		}
		return ActionsToken(context.Background(), nil, func(k string) string { return env[k] }, now)
	}

	good, _ := json.Marshal(map[string]string{"value": raw})
	tok, err := run(answer(http.StatusOK, string(good)).URL + "/token?api-version=2.0")
	if err != nil || tok.raw != raw || asked.Load() != "Bearer "+bearer+" "+Audience {
		t.Fatalf("control: %v, asked %q", err, asked.Load())
	}
	if InActions(func(k string) string { return map[string]string{ActionsURLEnv: "x"}[k] }) {
		t.Error("InActions: true without the request token")
	}

	for _, tt := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"refused", "bearer " + bearer + " is not valid", http.StatusForbidden, "identity token: the Actions endpoint answered 403 Forbidden"},
		{"not a value", `{"token":"x"}`, http.StatusOK, `identity token: the Actions endpoint's answer is not {"value": TOKEN}`},
		{"empty value", `{"value":""}`, http.StatusOK, `identity token: the Actions endpoint's answer is not {"value": TOKEN}`},
		{"not JSON", `<html>`, http.StatusOK, `identity token: the Actions endpoint's answer is not {"value": TOKEN}`},
	} {
		_, err := run(answer(tt.status, tt.body).URL + "/token")
		if !errors.Is(err, ErrToken) || !strings.HasSuffix(err.Error(), strings.TrimPrefix(tt.want, "identity token: ")) || strings.Contains(err.Error(), bearer) {
			t.Errorf("%s: %v, want …%q", tt.name, err, tt.want)
		}
	}

	gone := answer(http.StatusOK, string(good))
	gone.Close()
	_, err = run(gone.URL + "/token?sig=test-only-query-secret")
	if !errors.Is(err, ErrToken) || !strings.Contains(err.Error(), "requesting it from the Actions endpoint failed (") ||
		strings.Contains(err.Error(), "test-only-query-secret") || strings.Contains(err.Error(), gone.URL) {
		t.Errorf("gone: %v", err)
	}
}

// requestCertificate refuses a Fulcio URL that is plain HTTP off
// loopback before sending the token, a Fulcio that cannot be reached
// (without its URL), and an answer larger than MaxAnswerSize.
func TestRequestCertificateRefusals(t *testing.T) {
	raw := jwt(good())
	tok, err := ParseToken(raw, now)
	if err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	ctx := context.Background()

	if _, err := requestCertificate(ctx, http.DefaultClient, "http://fulcio.example.org", tok, priv); err == nil ||
		err.Error() != "the Fulcio URL is plain HTTP to fulcio.example.org: only https is accepted, or http on a loopback address (tests)" {
		t.Errorf("plain HTTP: %v", err)
	}

	gone := serveOn(t, func(http.ResponseWriter, *http.Request) {})
	gone.Close()
	if _, err := requestCertificate(ctx, http.DefaultClient, gone.URL, tok, priv); !errors.Is(err, ErrCertificate) ||
		!strings.Contains(err.Error(), "requesting it failed (") || strings.Contains(err.Error(), gone.URL) {
		t.Errorf("gone: %v", err)
	}

	huge := serveOn(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"signedCertificateEmbeddedSct":{"chain":{"certificates":["` + strings.Repeat("A", MaxAnswerSize) + `"]}}}`))
	})
	if _, err := requestCertificate(ctx, http.DefaultClient, huge.URL, tok, priv); !errors.Is(err, ErrCertificate) ||
		!strings.HasSuffix(err.Error(), "Fulcio's answer is larger than 262144 bytes") {
		t.Errorf("huge: %v", err)
	}
	// Control: TestRequestCertificateOtherKey's honest Fulcio.
}

// Sign refuses no token, and a timestamp authority URL that is plain
// HTTP off loopback, before anything is asked of Fulcio.
func TestSignRefusesBeforeAsking(t *testing.T) {
	var requests atomic.Int32
	fulcio := serveOn(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusUnauthorized)
	})
	tok, err := ParseToken(jwt(good()), now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(context.Background(), nil, Options{FulcioURL: fulcio.URL, TSAURL: fulcio.URL}); !errors.Is(err, ErrToken) || !strings.HasSuffix(err.Error(), ": none given") {
		t.Errorf("no token: %v", err)
	}
	_, err = Sign(context.Background(), nil, Options{Token: tok, FulcioURL: fulcio.URL, TSAURL: "http://tsa.example.org"})
	if err == nil || err.Error() != "the timestamp authority URL is plain HTTP to tsa.example.org: only https is accepted, or http on a loopback address (tests)" {
		t.Errorf("TSA URL: %v", err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests to Fulcio", n)
	}
	// Control: with both URLs on loopback, Fulcio is asked (and refuses).
	_, err = Sign(context.Background(), nil, Options{Token: tok, FulcioURL: fulcio.URL, TSAURL: fulcio.URL})
	if !errors.Is(err, ErrCertificate) || requests.Load() != 1 {
		t.Errorf("control: %v, %d requests", err, requests.Load())
	}
}

// FetchTrustedRoot refuses a Fulcio trust bundle that is refused, too
// large or not {"chains": [...]}, and an authority's chain that is
// refused or not PEM certificates, each naming which; the two servers
// answering certificates is the control.
func TestFetchTrustedRootRefusals(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	cert := selfSigned(t, pub)
	bundle, _ := json.Marshal(map[string]any{"chains": []any{map[string]any{"certificates": []string{cert}}}})
	server := func(status int, body string) string {
		return serveOn(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte(body))
		}).URL
	}
	goodFulcio, goodTSA := server(http.StatusOK, string(bundle)), server(http.StatusOK, cert)
	ctx := context.Background()
	if tr, err := FetchTrustedRoot(ctx, http.DefaultClient, goodFulcio, goodTSA); err != nil || len(tr.FulcioCertificateAuthorities()) != 1 || len(tr.TimestampingAuthorities()) != 1 {
		t.Fatalf("control: %v", err)
	}
	for _, tt := range []struct {
		name, fulcio, tsa string
		is                error
		want              string
	}{
		{"Fulcio refuses", server(http.StatusNotFound, ""), goodTSA, ErrCertificate, "Fulcio's trust bundle: http://127.0.0.1:"},
		{"Fulcio too large", server(http.StatusOK, strings.Repeat(" ", MaxAnswerSize+1)), goodTSA, ErrCertificate, "answered more than 262144 bytes"},
		{"Fulcio not chains", server(http.StatusOK, `{"chains":[]}`), goodTSA, ErrCertificate, `Fulcio's trust bundle is not {"chains": [...]}`},
		{"Fulcio not JSON", server(http.StatusOK, `<html>`), goodTSA, ErrCertificate, `Fulcio's trust bundle is not {"chains": [...]}`},
		{"authority refuses", goodFulcio, server(http.StatusInternalServerError, ""), ErrTimestamp, "the authority's certificate chain: "},
		{"authority not PEM", goodFulcio, server(http.StatusOK, cert+"trailing"), ErrTimestamp, "the authority's certificate chain: trailing bytes that are not PEM"},
		{"authority no certificate", goodFulcio, server(http.StatusOK, ""), ErrTimestamp, "the authority's certificate chain: "},
	} {
		_, err := FetchTrustedRoot(ctx, http.DefaultClient, tt.fulcio, tt.tsa)
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %v with %q", tt.name, err, tt.is, tt.want)
		}
	}
}

// requestTimestamp refuses a plain-HTTP authority off loopback, an
// authority gone (without its URL), one that refuses (its status, not its
// body) and an answer over MaxAnswerSize, each as ErrTimestamp; an answer
// 200 goes on to be parsed (control: garbage is ErrBadTimestamp, a
// different fault).
func TestRequestTimestampRefusals(t *testing.T) {
	ctx := context.Background()
	sig := []byte("signature")
	if _, err := requestTimestamp(ctx, http.DefaultClient, "http://tsa.example.org/api/v1/timestamp", sig); err == nil ||
		err.Error() != "the timestamp authority URL is plain HTTP to tsa.example.org: only https is accepted, or http on a loopback address (tests)" {
		t.Errorf("plain HTTP: %v", err)
	}
	gone := serveOn(t, func(http.ResponseWriter, *http.Request) {})
	gone.Close()
	if _, err := requestTimestamp(ctx, http.DefaultClient, gone.URL, sig); !errors.Is(err, ErrTimestamp) ||
		!strings.Contains(err.Error(), "requesting it failed (") || strings.Contains(err.Error(), gone.URL) {
		t.Errorf("gone: %v", err)
	}
	var contentType atomic.Value
	answer := func(status int, body string) string {
		return serveOn(t, func(w http.ResponseWriter, r *http.Request) {
			contentType.Store(r.Header.Get("Content-Type"))
			w.WriteHeader(status)
			w.Write([]byte(body))
		}).URL
	}
	if _, err := requestTimestamp(ctx, http.DefaultClient, answer(http.StatusInternalServerError, "echo: secret"), sig); !errors.Is(err, ErrTimestamp) ||
		!strings.HasSuffix(err.Error(), "the authority answered 500 Internal Server Error") || strings.Contains(err.Error(), "secret") {
		t.Errorf("refused: %v", err)
	}
	if _, err := requestTimestamp(ctx, http.DefaultClient, answer(http.StatusOK, strings.Repeat("x", MaxAnswerSize+1)), sig); !errors.Is(err, ErrTimestamp) ||
		!strings.HasSuffix(err.Error(), "the answer is larger than 262144 bytes") {
		t.Errorf("huge: %v", err)
	}
	_, err := requestTimestamp(ctx, http.DefaultClient, answer(http.StatusOK, "not a TimeStampResp"), sig)
	if !errors.Is(err, ErrBadTimestamp) || !strings.Contains(err.Error(), "not a granted RFC 3161 TimeStampResp") || contentType.Load() != "application/timestamp-query" {
		t.Errorf("control: %v (content type %v)", err, contentType.Load())
	}
}
