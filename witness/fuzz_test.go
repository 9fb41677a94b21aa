package witness_test

import (
	"bytes"
	"testing"

	"github.com/mcpres/mcpres/witness"
)

// FuzzParseState: a state that parses marshals back to a document that
// parses to the same state, and a failure returns no state.
func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"schemaVersion":"mcpres.witness-state/v1","logs":[]}`))
	f.Add([]byte(`{"schemaVersion":"mcpres.witness-state/v1","logs":[{"origin":"example.org/log","size":2,"rootHash":"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}]}`))
	f.Add([]byte(`{"schemaVersion":"mcpres.witness-state/v1","logs":[{"origin":"b","size":0,"rootHash":"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},{"origin":"a","size":9007199254740991,"rootHash":"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := witness.ParseState(data)
		if err != nil {
			if s != nil {
				t.Fatal("a state returned with an error")
			}
			return
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed state: %v", err)
		}
		back, err := witness.ParseState(out)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		again, _ := back.Marshal()
		if !bytes.Equal(out, again) || len(back.Logs) != len(s.Logs) {
			t.Fatalf("round trip differs:\n%s\n%s", out, again)
		}
	})
}

// FuzzParseAddRequest: a request that parses marshals back to the same
// bytes (one encoding per request), and a failure returns no request.
// Seeds in testdata/fuzz/FuzzParseAddRequest.
func FuzzParseAddRequest(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := witness.ParseAddRequest(data)
		if err != nil {
			if r != nil {
				t.Fatal("a request returned with an error")
			}
			return
		}
		if out := r.Marshal(); !bytes.Equal(out, data) {
			t.Fatalf("round trip differs:\n%q\n%q", data, out)
		}
		if len(r.Proof) > witness.MaxProofLines || (r.OldSize == 0 && len(r.Proof) > 0) || len(r.Checkpoint) == 0 || r.OldSize > witness.MaxTreeSize {
			t.Fatalf("accepted %+v", r)
		}
	})
}
