package offline

import (
	"strings"

	"github.com/mcpres/mcpres/canonjson"
)

// parsePlainEntry is ParseEntry's fast path, for a log monitor that
// decodes every entry of a log (issue 36: a million entries at close to
// the cost of hashing them). When data is printable ASCII with no
// backslash (canonjson.HasNoEscape: no string holds an escape, so every
// quote opens or closes one, and the canonical encoding writes each
// string as itself), it reads the one layout the canonical encoding gives
// an entry — members in canonical order, no whitespace — and checks the
// schemaVersion and the signers as the strict parse does. Anything else,
// valid or not, is ok == false and left to parseEntryStrict, the one
// place that decides and explains: so ok is true only for data the strict
// parse accepts with the same Entry (FuzzParseEntryPlain checks exactly
// that).
func parsePlainEntry(data string) (e Entry, ok bool) {
	if !canonjson.HasNoEscape(data) {
		return Entry{}, false
	}
	r := plainReader{s: data, ok: true} // every field is a substring of data
	e.EvidenceBundleDigest = r.member(`{"evidenceBundleDigest":"`)
	e.ExecutionInstanceDigest = r.member(`,"executionInstanceDigest":"`)
	e.ScenarioFingerprint = r.member(`,"scenarioFingerprint":"`)
	e.SchemaVersion = r.member(`,"schemaVersion":"`)
	switch e.SchemaVersion {
	case SchemaVersionEntry:
	case SchemaVersionEntrySigned:
		r.lit(`,"signers":[`)
		for r.ok && len(e.Signers) <= MaxEntrySigners {
			var s EntrySigner
			s.KeyFingerprint = r.member(`{"keyFingerprint":"`)
			s.SignerIdentity = r.member(`,"signerIdentity":"`)
			s.SigningTime = r.member(`,"signingTime":"`)
			r.lit(`}`)
			e.Signers = append(e.Signers, s)
			if !strings.HasPrefix(r.s, ",") {
				break
			}
			r.s = r.s[1:]
		}
		r.lit(`]`)
		if r.ok && checkSigners(e.Signers) != nil {
			return Entry{}, false
		}
	default:
		return Entry{}, false
	}
	e.Subject.Name = r.member(`,"subject":{"name":"`)
	e.Subject.Sha256 = r.member(`,"sha256":"`)
	r.lit(`}}`)
	if !r.ok || r.s != "" {
		return Entry{}, false
	}
	return e, true
}

// plainReader reads a plain canonical document from the front of s; ok
// turns false at the first byte that is not where the layout wants it,
// and stays false.
type plainReader struct {
	s  string
	ok bool
}

// lit consumes the literal l.
func (r *plainReader) lit(l string) {
	if !r.ok || !strings.HasPrefix(r.s, l) {
		r.ok = false
		return
	}
	r.s = r.s[len(l):]
}

// member consumes key, which ends with the opening quote of a string
// value, and the value up to and including its closing quote, and
// returns the value.
func (r *plainReader) member(key string) string {
	r.lit(key)
	i := strings.IndexByte(r.s, '"')
	if !r.ok || i < 0 {
		r.ok = false
		return ""
	}
	v := r.s[:i]
	r.s = r.s[i+1:]
	return v
}
