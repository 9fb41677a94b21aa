package layering_test

import (
	"slices"
	"strings"
	"testing"
)

// TestCmdHoldsNoHTTP: no package of cmd/ imports net/http. The binaries'
// HTTP servers and clients live below cmd (tlog/server, tlog/client,
// tlog/rekor, tlog/loadgen, witness/witnesshttp, trustpolicy/tufdist), so
// that what a request does is a package's decision, tested there, and cmd
// only parses flags, calls and prints.
func TestCmdHoldsNoHTTP(t *testing.T) {
	g := loadGraph(t)
	n := 0
	for _, p := range g.own {
		if !match("cmd/...", p) {
			continue
		}
		n++
		if slices.Contains(g.imports[full(p)], "net/http") {
			t.Errorf("%s imports net/http: move the HTTP code to the package below cmd that owns it", p)
		}
	}
	if n < 5 {
		t.Fatalf("only %d packages under cmd/", n)
	}
}

// TestSubmissionWalkStaysBelowCmd: the log service's walk of a submission
// (POST /add: admit, append, witness, answer) is assembled in tlog/server
// from packages below cmd: it reaches the admission rule (tlog/admit) and
// the witnesses (tlog/witnessclient) itself, and nothing it reaches is
// under cmd/. A signing (attest.SignBundle, attest.Cosign) reaches its
// transparency check (offline) the same way.
func TestSubmissionWalkStaysBelowCmd(t *testing.T) {
	g := loadGraph(t)
	for _, w := range []struct {
		from  string
		needs []string
	}{
		{"tlog/server", []string{"tlog/admit", "tlog/witnessclient"}},
		{"tlog/client", []string{"offline"}},
		{"attest", []string{"offline"}},
		{"witness/witnesshttp", []string{"witness"}},
	} {
		if c := g.chain(full(w.from), []string{module + "/cmd/..."}); c != nil {
			t.Errorf("%s reaches cmd: %s", w.from, strings.Join(c, " → "))
		}
		for _, n := range w.needs {
			if !slices.Contains(g.imports[full(w.from)], full(n)) {
				t.Errorf("%s does not import %s: the walk would need a value from above", w.from, n)
			}
		}
	}
}
