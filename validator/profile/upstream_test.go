package profile_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
	"github.com/mcpres/mcpres/validator/profile"
)

// upstreamProfiles returns ../shared/conformance/upstream/v0.2.0/profiles,
// skipping the test when the shared folder is absent. The upstream
// manifests are never copied into this repository.
func upstreamProfiles(t testing.TB) string {
	t.Helper()
	return upstreamtest.Dir(t, "../..", "v0.2.0/profiles")
}

func upstreamSet(t testing.TB) *profile.Set {
	t.Helper()
	set, err := profile.LoadDir(upstreamProfiles(t))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestUpstreamManifestTable: the twelve upstream manifests load as a valid
// set and match REFERENCE §3.5.3 (raw and canonical digests, ids, status,
// revisions and every check id in order).
func TestUpstreamManifestTable(t *testing.T) {
	dir := upstreamProfiles(t)
	set := upstreamSet(t)
	ms, err := testValidator(t).Manifests(set)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 12 || len(upstreamManifests) != 12 {
		t.Fatalf("%d manifests, table has %d; want 12", len(ms), len(upstreamManifests))
	}
	for _, s := range upstreamManifests {
		m := ms[s.id]
		if m == nil {
			t.Errorf("%s missing", s.id)
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, s.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := canonjson.BytesDigest(raw); got != s.rawSha256 {
			t.Errorf("%s raw SHA-256 %s, REFERENCE says %s", s.file, got, s.rawSha256)
		}
		if m.Sha256 != s.manifestSha256 || m.File != s.file || m.Status != s.status ||
			!slices.Equal(m.ProtocolRevisions, s.revisions) || !slices.Equal(m.RequiredChecks, s.required) ||
			!slices.Equal(m.ExperimentalChecks, s.experimental) ||
			!slices.EqualFunc(m.ConditionalChecks, s.conditional, func(a, b profile.ConditionalCheck) bool {
				return a.ID == b.ID && slices.Equal(a.ProtocolRevisions, b.ProtocolRevisions)
			}) {
			t.Errorf("%s differs from REFERENCE §3.5.3: %+v", s.file, m)
		}
	}
}

// TestUpstreamEvaluations: a full evaluation of every upstream manifest on
// every revision it supports validates; the other revision is
// MCP_RES_PROFILE_REVISION_UNSUPPORTED; experimental checks are allowed in
// a bounded claim and never in a full one.
func TestUpstreamEvaluations(t *testing.T) {
	set := upstreamSet(t)
	val := testValidator(t)
	for _, s := range upstreamManifests {
		for _, rev := range []string{"2025-11-25", "2026-07-28"} {
			r, err := val.Validate(evaluation(t, s, s.manifestSha256, rev, evalOpts{}), set)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(s.revisions, rev) {
				if !r.Valid || r.ProfileStatus != s.status || r.Derived != "PASS" {
					t.Errorf("%s %s: %v (%s) status %s", s.id, rev, r.Diagnostics, r.Detail, r.ProfileStatus)
				}
			} else if !slices.Equal(r.Diagnostics, []string{cRevision}) {
				t.Errorf("%s %s: %v, want %s", s.id, rev, r.Diagnostics, cRevision)
			}
		}
		if len(s.experimental) == 0 {
			continue
		}
		rev := s.revisions[len(s.revisions)-1]
		full := append(s.applicable(rev), s.experimental...)
		r, _ := val.Validate(evaluation(t, s, s.manifestSha256, rev, evalOpts{checks: full}), set)
		if !slices.Equal(r.Diagnostics, []string{cCoverage}) {
			t.Errorf("%s: full claim with experimental checks: %v", s.id, r.Diagnostics)
		}
		r, _ = val.Validate(evaluation(t, s, s.manifestSha256, rev, evalOpts{claim: "BOUNDED_CHECK_SET", checks: s.experimental}), set)
		if !r.Valid || r.ClaimScope != "BOUNDED_CHECK_SET" {
			t.Errorf("%s: bounded experimental claim: %v (%s)", s.id, r.Diagnostics, r.Detail)
		}
	}
}
