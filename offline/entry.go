package offline

import (
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
)

// SchemaVersionEntry is the schemaVersion of a transparency log entry.
const SchemaVersionEntry = "mcpres.transparency-entry/v1"

// An Entry is what mcpres appends to a transparency log for an attested
// bundle: the digests that identify the evidence. Its leaf data in the log
// is its canonical encoding (mcp-res-json-utf16-v1), so the RFC 6962 leaf
// hash is SHA-256(0x00 || canonical(entry)).
type Entry struct {
	SchemaVersion           string       `json:"schemaVersion"`
	Subject                 EntrySubject `json:"subject"`
	EvidenceBundleDigest    string       `json:"evidenceBundleDigest"`
	ScenarioFingerprint     string       `json:"scenarioFingerprint"`
	ExecutionInstanceDigest string       `json:"executionInstanceDigest"`
}

// EntrySubject names the subject artifact of the evidence.
type EntrySubject struct {
	Name   string `json:"name"`
	Sha256 string `json:"sha256"`
}

// EntryFor returns the entry that binds a conformance bundle (the value of
// a mcp-res.conformance-bundle/0.2.0 document, assumed valid).
func EntryFor(bundle *canonjson.Value) Entry {
	ev := bundle.Get("evidence")
	return Entry{
		SchemaVersion:           SchemaVersionEntry,
		Subject:                 EntrySubject{Name: ev.Path("subject", "name").Str, Sha256: ev.Path("subject", "artifactSha256").Str},
		EvidenceBundleDigest:    bundle.Path("integrity", "bundleDigest").Str,
		ScenarioFingerprint:     ev.Path("scenario", "fingerprint").Str,
		ExecutionInstanceDigest: bundle.Path("statement", "executionInstanceDigest").Str,
	}
}

// Marshal returns the canonical bytes of e: the log leaf data.
func (e Entry) Marshal() ([]byte, error) {
	v, err := canonjson.FromGo(e)
	if err != nil {
		return nil, err
	}
	return canonjson.Canonical(v)
}

// ParseEntry reads leaf data strictly: it must be the canonical encoding of
// an entry with exactly the members above, so one entry has one encoding.
func ParseEntry(data []byte) (Entry, error) {
	var e Entry
	v, err := canonjson.Parse(data)
	if err != nil {
		return e, fmt.Errorf("log entry: %w", err)
	}
	if err := canonjson.Unmarshal(v, &e); err != nil {
		return e, fmt.Errorf("log entry: %w", err)
	}
	if e.SchemaVersion != SchemaVersionEntry {
		return e, fmt.Errorf("log entry: schemaVersion is %q, want %q", e.SchemaVersion, SchemaVersionEntry)
	}
	canon, err := e.Marshal()
	if err != nil || string(canon) != string(data) {
		return e, fmt.Errorf("log entry: not the canonical encoding of an %s entry", SchemaVersionEntry)
	}
	return e, nil
}
