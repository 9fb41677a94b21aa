package offline_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
)

const (
	fpA = "06e3fd8fda29bb60ab59557de61edb0aecdb231134be30e75b455f8e1b792fa9"
	fpB = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b"
)

func testEntry(signers ...offline.EntrySigner) offline.Entry {
	e := offline.Entry{SchemaVersion: offline.SchemaVersionEntry, Subject: offline.EntrySubject{Name: "acme/server", Sha256: "ab"},
		EvidenceBundleDigest: "11", ScenarioFingerprint: "cd", ExecutionInstanceDigest: "ef"}
	if signers != nil {
		e.SchemaVersion, e.Signers = offline.SchemaVersionEntrySigned, signers
	}
	return e
}

func signerA() offline.EntrySigner {
	return offline.EntrySigner{KeyFingerprint: fpA, SignerIdentity: "release@acme", SigningTime: "2026-08-27T18:00:00.000Z"}
}

// TestParseEntryVersions: a v1 entry (no signers) and a v2 entry (1 to 8
// signers) read back to themselves; a v1 entry never carries signers and
// a v2 entry always does, each well formed, and either must be the
// canonical encoding. Each refusal is a change of one member of an entry
// that parses (the controls).
func TestParseEntryVersions(t *testing.T) {
	enc := func(e offline.Entry) []byte {
		b, err := e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	v1, v2 := testEntry(), testEntry(signerA(), offline.EntrySigner{KeyFingerprint: fpB, SignerIdentity: "ci", SigningTime: "2026-08-28T00:00:00Z"})
	for _, e := range []offline.Entry{v1, v2} {
		got, err := offline.ParseEntry(enc(e))
		if err != nil || got.SchemaVersion != e.SchemaVersion || len(got.Signers) != len(e.Signers) {
			t.Fatalf("%s: %+v, %v", e.SchemaVersion, got, err)
		}
	}
	if bytes.Contains(enc(v1), []byte("signers")) {
		t.Errorf("a v1 entry encodes a signers member: %s", enc(v1))
	}
	nine := make([]offline.EntrySigner, 9)
	for i := range nine {
		nine[i] = signerA()
		nine[i].KeyFingerprint = strings.Repeat("0", 63) + string(rune('0'+i))
	}
	bad := func(f func(*offline.EntrySigner)) offline.Entry {
		s := signerA()
		f(&s)
		return testEntry(s)
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"v1 with signers":             {bytes.Replace(enc(v2), []byte("transparency-entry/v2"), []byte("transparency-entry/v1"), 1), "has no signers"},
		"v2 without signers":          {bytes.Replace(enc(v1), []byte("transparency-entry/v1"), []byte("transparency-entry/v2"), 1), "names 0 signers"},
		"v2 with an empty signers":    {[]byte(`{"evidenceBundleDigest":"11","executionInstanceDigest":"ef","scenarioFingerprint":"cd","schemaVersion":"mcpres.transparency-entry/v2","signers":[],"subject":{"name":"acme/server","sha256":"ab"}}`), "names 0 signers"},
		"v2 with nine signers":        {enc(testEntry(nine...)), "names 9 signers"},
		"a fingerprint in upper case": {enc(bad(func(s *offline.EntrySigner) { s.KeyFingerprint = strings.ToUpper(fpA) })), "not 64 lowercase hex"},
		"a short fingerprint":         {enc(bad(func(s *offline.EntrySigner) { s.KeyFingerprint = fpA[:62] })), "not 64 lowercase hex"},
		"a fingerprint twice":         {enc(testEntry(signerA(), signerA())), "named twice"},
		"an empty identity":           {enc(bad(func(s *offline.EntrySigner) { s.SignerIdentity = "" })), "0 code points"},
		"a long identity":             {enc(bad(func(s *offline.EntrySigner) { s.SignerIdentity = strings.Repeat("é", 257) })), "257 code points"},
		"a long ASCII identity":       {enc(bad(func(s *offline.EntrySigner) { s.SignerIdentity = strings.Repeat("a", 257) })), "257 code points"},
		"a fingerprint not hex":       {enc(bad(func(s *offline.EntrySigner) { s.KeyFingerprint = fpA[:63] + "g" })), "not 64 lowercase hex"},
		"a signing time that is none": {enc(bad(func(s *offline.EntrySigner) { s.SigningTime = "yesterday" })), "signingTime"},
		"an unknown member":           {bytes.Replace(enc(v2), []byte(`"signingTime"`), []byte(`"extra":"x","signingTime"`), 1), "log entry"},
		"not canonical":               {append([]byte(" "), enc(v2)...), "not the canonical encoding"},
		"v3":                          {bytes.Replace(enc(v2), []byte("transparency-entry/v2"), []byte("transparency-entry/v3"), 1), `want "mcpres.transparency-entry/v1" or "mcpres.transparency-entry/v2"`},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := offline.ParseEntry(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want an error saying %q", c.data, err, c.want)
			}
		})
	}
}

// TestCheckEntrySigner: a tlog-proof of a v2 entry binds only a signer it
// names (key fingerprint and identity together); a v1 entry binds any,
// and bytes that are no tlog-proof are left to the other checks.
func TestCheckEntrySigner(t *testing.T) {
	v1, _ := testEntry().Marshal()
	v2, _ := testEntry(signerA()).Marshal()
	lg := offlinetest.NewLog("example.org/check-entry-signer", "check-entry-signer")
	lg.Append(v1, v2)
	p1, p2 := lg.Proof(0).Marshal(), lg.Proof(1).Marshal()
	for _, c := range []struct {
		name      string
		proof     []byte
		key, id   string
		wantError bool
	}{
		{"v2, the signer it names", p2, fpA, "release@acme", false},
		{"v2, another key", p2, fpB, "release@acme", true},
		{"v2, another identity", p2, fpA, "someone else", true},
		{"v1, any signer", p1, fpB, "anyone", false},
		{"opaque bytes", []byte("opaque"), fpB, "anyone", false},
	} {
		err := offline.CheckEntrySigner(c.proof, c.key, c.id)
		if (err != nil) != c.wantError {
			t.Errorf("%s: %v", c.name, err)
		}
		if err != nil && !strings.Contains(err.Error(), `it names `+fpA+` as "release@acme", not key `+c.key) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// FuzzParseEntry: whatever parses re-encodes to the same bytes (one entry,
// one encoding), a v1 entry names no signer and a v2 entry 1 to 8.
func FuzzParseEntry(f *testing.F) {
	v1, _ := testEntry().Marshal()
	v2, _ := testEntry(signerA()).Marshal()
	f.Add(v1)
	f.Add(v2)
	f.Add(bytes.Replace(v2, []byte("/v2"), []byte("/v1"), 1))
	f.Add([]byte(`{"schemaVersion":"mcpres.transparency-entry/v2","signers":[]}`))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := offline.ParseEntry(data)
		if err != nil {
			return
		}
		b, err := e.Marshal()
		if err != nil || !bytes.Equal(b, data) {
			t.Fatalf("parsed entry re-encodes to %q", b)
		}
		switch e.SchemaVersion {
		case offline.SchemaVersionEntry:
			if e.Signers != nil {
				t.Fatal("a v1 entry with signers")
			}
		case offline.SchemaVersionEntrySigned:
			if len(e.Signers) == 0 || len(e.Signers) > offline.MaxEntrySigners {
				t.Fatalf("a v2 entry with %d signers", len(e.Signers))
			}
		default:
			t.Fatalf("schemaVersion %q parsed", e.SchemaVersion)
		}
	})
}

// TestVerifyWantSigners: a want that names signers (what the submitter of
// an attested bundle expects logged) binds a proof only of the entry
// naming exactly them; a want with none (a verifier rebuilding the entry
// from the bundle) accepts either version, as it did v1.
func TestVerifyWantSigners(t *testing.T) {
	v1, _ := testEntry().Marshal()
	v2, _ := testEntry(signerA()).Marshal()
	other := signerA()
	other.SigningTime = "2026-08-28T00:00:00Z"
	lg := offlinetest.NewLog("example.org/want-signers", "want-signers")
	lg.Append(v1, v2)
	trust := offlinetest.Trust([]*offlinetest.Log{lg}, nil, nil, "none")
	for _, c := range []struct {
		name  string
		index uint64
		want  offline.Entry
		err   string
	}{
		{"v2, the signers expected", 1, testEntry(signerA()), ""},
		{"v2, no signers expected", 1, testEntry(), ""},
		{"v1, no signers expected", 0, testEntry(), ""},
		{"v1, signers expected", 0, testEntry(signerA()), "log entry names other signers: it names none"},
		{"v2, other signers expected", 1, testEntry(other), "log entry names other signers"},
	} {
		_, err := offline.Verify(lg.Proof(c.index).Marshal(), c.want, trust)
		var be *offline.BindingError
		if c.err == "" && err != nil || c.err != "" && (!errors.As(err, &be) || be.Field != "signers" || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
