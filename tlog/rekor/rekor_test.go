package rekor_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/offline"
	orekor "github.com/mcpres/mcpres/offline/rekor"
	"github.com/mcpres/mcpres/offline/rekor/rekortest"
	"github.com/mcpres/mcpres/tlog/rekor"
	"github.com/mcpres/mcpres/tlog/rekor/rekorfake"
	"github.com/transparency-dev/merkle/rfc6962"
)

// testOnlySubmitterKey signs the test entries: a test key only.
var testOnlySubmitterKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x81}, 32))

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestSubmit uploads the example bundle's entry to a fake Rekor on
// loopback and verifies what it returns offline, with package
// offline/rekor.
func TestSubmit(t *testing.T) {
	srv := rekorfake.New(t)
	want := offline.EntryFor(bundletest.Example(t))
	entry, err := want.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	e, err := rekor.Submit(ctx(t), srv.URL, entry, testOnlySubmitterKey, rekor.Options{UserAgent: "mcpres-test", Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	leaf := rfc6962.DefaultHasher.HashLeaf(srv.Log.Bodies[1])
	if e.UUID != hex.EncodeToString(leaf) || e.LogID != srv.Log.LogID || e.LogIndex != 1 || !bytes.HasPrefix(e.JSON, []byte("{")) {
		t.Fatalf("entry %+v", e)
	}
	trust := offline.Trust{Logs: []offline.Log{{Origin: rekortest.Name + " - " + rekortest.TreeID, Key: srv.Log.Key}}, Quorum: "none"}
	v, err := orekor.Verifier{}.Verify(e.JSON, want, trust)
	if err != nil {
		t.Fatalf("offline verification of the returned entry: %v", err)
	}
	if err := v.MatchesReference(e.LogID, e.UUID); err != nil {
		t.Fatal(err)
	}
	// Another bundle's entry does not verify against this one.
	other := want
	other.EvidenceBundleDigest = strings.Repeat("0", 64)
	if _, err := (orekor.Verifier{}).Verify(e.JSON, other, trust); err == nil {
		t.Error("the entry verifies for another bundle")
	}

	// Submitting again: Rekor answers 409, reported as such.
	if _, err := rekor.Submit(ctx(t), srv.URL, entry, testOnlySubmitterKey, rekor.Options{Retries: 0}); err == nil || !strings.Contains(err.Error(), "already holds this entry") {
		t.Errorf("second submission: %v", err)
	}
}

func TestProposedEntry(t *testing.T) {
	pe, body, err := rekor.ProposedEntry(ctx(t), []byte("entry"), testOnlySubmitterKey)
	if err != nil {
		t.Fatal(err)
	}
	s := string(body)
	for _, want := range []string{`"kind":"hashedrekord"`, `"apiVersion":"0.0.1"`, `"algorithm":"sha512"`} {
		if !strings.Contains(s, want) {
			t.Errorf("canonical body lacks %s: %s", want, s)
		}
	}
	again, err := rekor.CanonicalBody(ctx(t), pe)
	if err != nil || !bytes.Equal(again, body) {
		t.Errorf("CanonicalBody: %v", err)
	}
	if _, _, err := rekor.ProposedEntry(ctx(t), nil, testOnlySubmitterKey); err == nil {
		t.Error("empty entry accepted")
	}
}

func TestSubmitErrors(t *testing.T) {
	srv := rekorfake.New(t)
	for _, tt := range []struct{ name, url, msg string }{
		{"not a URL", "ftp://example.org", "is not an http(s) URL"},
		{"wrong path", srv.URL + "/nothing/", "submitting to"},
		{"nothing listens", "http://127.0.0.1:1", "submitting to"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := rekor.Submit(ctx(t), tt.url, []byte("e"), testOnlySubmitterKey, rekor.Options{Retries: 0}); err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Submit: %v, want %q", err, tt.msg)
			}
		})
	}
}
