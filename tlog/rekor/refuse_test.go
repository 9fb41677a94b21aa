package rekor_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/offline/rekor/rekortest"
	"github.com/mcpres/mcpres/tlog/rekor"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/transparency-dev/merkle/rfc6962"
)

// pureSigner is an Ed25519 key that ignores the options and signs pure
// Ed25519: not the Ed25519ph signature hashedrekord needs.
type pureSigner struct{ ed25519.PrivateKey }

func (p pureSigner) Sign(r io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	return ed25519.Sign(p.PrivateKey, msg), nil
}

// failingSigner cannot sign.
type failingSigner struct{ ed25519.PrivateKey }

func (failingSigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("the token is gone")
}

// ProposedEntry refuses a key that is not Ed25519, a signer that fails,
// and a signature that does not verify as Ed25519ph (rekor's own check,
// as Rekor would refuse it); the control (TestProposedEntry) builds one.
func TestProposedEntryRefuses(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, c := range map[string]struct {
		s    crypto.Signer
		want string
	}{
		"an ECDSA key":             {ec, "not an Ed25519 key"},
		"a signer that fails":      {failingSigner{testOnlySubmitterKey}, "rekor: signing: the token is gone"},
		"a pure Ed25519 signature": {pureSigner{testOnlySubmitterKey}, "building the hashedrekord entry"},
	} {
		if pe, body, err := rekor.ProposedEntry(ctx(t), []byte("entry"), c.s); err == nil || pe != nil || body != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := rekor.CanonicalBody(ctx(t), &models.Rekord{}); err == nil || !strings.Contains(err.Error(), "proposed entry") {
		t.Errorf("CanonicalBody of a rekord: %v", err)
	}
}

// hostileRekor answers every submission with the entries answer makes
// from the entry Rekor would have created for it.
func hostileRekor(t *testing.T, answer func(uuid string, e *models.LogEntryAnon) any) string {
	t.Helper()
	l := rekortest.NewLog(t)
	l.Append(rekortest.HashedRekordBody(t, []byte("someone else's artifact"))) // a proof with hashes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		pe, err := models.UnmarshalProposedEntry(bytes.NewReader(data), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body, err := rekor.CanonicalBody(r.Context(), pe)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		e := l.Entry(t, l.Append(body))
		uuid := hex.EncodeToString(rfc6962.DefaultHasher.HashLeaf(body))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(answer(uuid, e))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Submit refuses what a Rekor answers unless it is exactly one entry
// whose body is the one submitted, with its logID, logIndex and
// integratedTime: no entry, two, another body, a body that is not a
// base64 string, an entry without logIndex, and an invalid entry. The
// control (TestSubmit) takes the fake Rekor's honest answer, and so does
// hostileRekor's when it changes nothing.
func TestSubmitRefusesAnswers(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(uuid string, e *models.LogEntryAnon) any
		want   string
	}{
		{"no entry", func(string, *models.LogEntryAnon) any { return map[string]any{} }, "returned 0 entries, want 1"},
		{"two entries", func(u string, e *models.LogEntryAnon) any {
			return map[string]any{u: e, strings.Repeat("0", 64): e}
		}, "returned 2 entries, want 1"},
		{"another body", func(u string, e *models.LogEntryAnon) any {
			e.Body = base64.StdEncoding.EncodeToString(rekortest.HashedRekordBody(t, []byte("another artifact")))
			return map[string]any{u: e}
		}, "whose body is not the entry submitted"},
		{"body not a string", func(u string, e *models.LogEntryAnon) any { e.Body = 7; return map[string]any{u: e} }, "want a base64 string"},
		{"body not base64", func(u string, e *models.LogEntryAnon) any { e.Body = "!!!"; return map[string]any{u: e} }, "entry body"},
		{"no logIndex", func(u string, e *models.LogEntryAnon) any { e.LogIndex = nil; return map[string]any{u: e} }, "without logID, logIndex or integratedTime"},
		{"invalid entry", func(u string, e *models.LogEntryAnon) any {
			bad := int64(-1)
			e.LogIndex = &bad
			return map[string]any{u: e}
		}, "returned an invalid entry"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := hostileRekor(t, c.answer)
			if e, err := rekor.Submit(ctx(t), url, []byte("entry"), testOnlySubmitterKey, rekor.Options{Retries: 0}); err == nil || e != nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
		})
	}
	url := hostileRekor(t, func(u string, e *models.LogEntryAnon) any { return map[string]any{u: e} })
	if e, err := rekor.Submit(ctx(t), url, []byte("entry"), testOnlySubmitterKey, rekor.Options{Retries: -1}); err != nil || e.LogIndex != 1 {
		t.Errorf("control: %+v, %v", e, err)
	}
	if _, err := rekor.Submit(ctx(t), url, []byte("entry"), pureSigner{testOnlySubmitterKey}, rekor.Options{Retries: 0}); err == nil {
		t.Error("a pure Ed25519 signature was submitted")
	}
}
