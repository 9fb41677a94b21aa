package monitor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/trustpolicy"
)

// DecodeEntry decodes a log entry: it must be at most [MaxEntryBytes]
// and the canonical encoding of an mcpres.transparency-entry/v1
// (offline.ParseEntry, the rule verifiers apply to the entry of a
// reference).
func DecodeEntry(data []byte) (offline.Entry, error) {
	if len(data) > MaxEntryBytes {
		return offline.Entry{}, fmt.Errorf("log entry: %d bytes, more than %d", len(data), MaxEntryBytes)
	}
	return offline.ParseEntry(data)
}

// Watch says which entries concern the monitor's user: those whose
// subject name matches one of Subjects (the subject pattern language of
// trust policies, trustpolicy.ParseScope) or whose subject artifact
// digest is one of Digests. The zero Watch watches nothing.
type Watch struct {
	Subjects []trustpolicy.Scope
	// Digests are lowercase hex SHA-256 digests (see [ParseDigest]).
	Digests []string
}

// ParseDigest reads "sha256:HEX" (64 hex digits) and returns the
// lowercase hex.
func ParseDigest(s string) (string, error) {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 2*sha256.Size {
		return "", fmt.Errorf("digest %q: want sha256: and 64 hex digits", s)
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", fmt.Errorf("digest %q: want sha256: and 64 hex digits", s)
	}
	return strings.ToLower(h), nil
}

// Match returns the rule that e matches ("subject PATTERN" or
// "digest sha256:HEX"), or "".
func (w Watch) Match(e offline.Entry) string {
	for _, s := range w.Subjects {
		if s.Match(e.Subject.Name) {
			return "subject " + s.String()
		}
	}
	for _, d := range w.Digests {
		if e.Subject.Sha256 == d {
			return "digest sha256:" + d
		}
	}
	return ""
}

// An Authoriser judges an entry about a watched subject: nil error when
// the evidence it names is authorised, else an error saying why not.
type Authoriser interface {
	Authorise(e offline.Entry) error
}
