// Package rekorfake serves the Rekor v1 createLogEntry endpoint
// (POST /api/v1/log/entries) on loopback for tests, in front of an
// in-memory log of package offline/rekor/rekortest: it decodes the proposed
// entry with rekor's generated models, accepts hashedrekord v0.0.1 entries
// whose signature rekor's own types code verifies, logs their canonical
// body, and answers 201 with {uuid: LogEntryAnon} as Rekor does (409 for a
// body already logged). The log starts with one unrelated entry, as a real
// Rekor log is never of size 1 (whose inclusion proofs have no hashes,
// which rekor's models reject).
package rekorfake

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/go-openapi/runtime"
	"github.com/mcpres/mcpres/offline/rekor/rekortest"
	"github.com/mcpres/mcpres/tlog/rekor"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/transparency-dev/merkle/rfc6962"
)

// A Server is a fake Rekor instance.
type Server struct {
	*httptest.Server
	Log *rekortest.Log
	// Requests counts the createLogEntry requests received.
	Requests int
	mu       sync.Mutex
}

// New starts a fake Rekor on loopback, closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{Log: rekortest.NewLog(t)}
	s.Log.Append(rekortest.HashedRekordBody(t, []byte("someone else's artifact")))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.Requests++
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/log/entries" {
			http.Error(w, `{"code":404,"message":"not found"}`, http.StatusNotFound)
			return
		}
		data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		pe, err := models.UnmarshalProposedEntry(bytes.NewReader(data), runtime.JSONConsumer())
		if err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		body, err := rekor.CanonicalBody(r.Context(), pe)
		if err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		uuid := hex.EncodeToString(rfc6962.DefaultHasher.HashLeaf(body))
		for _, b := range s.Log.Bodies {
			if bytes.Equal(b, body) {
				w.Header().Set("Location", "/api/v1/log/entries/"+uuid)
				writeError(w, http.StatusConflict, fmt.Errorf("an equivalent entry already exists in the transparency log with UUID %s", uuid))
				return
			}
		}
		i := s.Log.Append(body)
		e := s.Log.Entry(t, i)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", uuid)
		w.Header().Set("Location", "/api/v1/log/entries/"+uuid)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]*models.LogEntryAnon{uuid: e})
	}))
	t.Cleanup(s.Close)
	return s
}

func writeError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"code": code, "message": err.Error()})
}
