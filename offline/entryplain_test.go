package offline

import (
	"reflect"
	"strings"
	"testing"
)

func plainTestEntry(signers ...EntrySigner) Entry {
	e := Entry{SchemaVersion: SchemaVersionEntry, Subject: EntrySubject{Name: "io.github.acme/weather", Sha256: strings.Repeat("ab", 32)},
		EvidenceBundleDigest: "sha256:" + strings.Repeat("11", 32), ScenarioFingerprint: "sha256:" + strings.Repeat("cd", 32), ExecutionInstanceDigest: "sha256:" + strings.Repeat("ef", 32)}
	if signers != nil {
		e.SchemaVersion, e.Signers = SchemaVersionEntrySigned, signers
	}
	return e
}

var plainSigners = []EntrySigner{
	{KeyFingerprint: strings.Repeat("0a", 32), SignerIdentity: "release@acme.example", SigningTime: "2026-08-27T18:00:00.000Z"},
	{KeyFingerprint: strings.Repeat("b1", 32), SignerIdentity: "https://github.com/acme/weather/.github/workflows/release.yml@refs/tags/v1", SigningTime: "2026-08-28T00:00:00Z"},
}

// TestParsePlainEntryTaken: the entries mcpres logs (ASCII members, v1
// and v2) take the fast path and read to what the strict parse reads, so
// a monitor decodes a million entries at close to the cost of hashing
// them; a valid entry with a member that is not plain ASCII (the
// control) is left to the strict parse, which accepts it.
func TestParsePlainEntryTaken(t *testing.T) {
	for _, e := range []Entry{plainTestEntry(), plainTestEntry(plainSigners[0]), plainTestEntry(plainSigners...)} {
		data, err := e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := parsePlainEntry(string(data))
		if !ok {
			t.Fatalf("%s with %d signers: not read by the fast path: %s", e.SchemaVersion, len(e.Signers), data)
		}
		strict, err := parseEntryStrict(data)
		if err != nil || !reflect.DeepEqual(got, strict) || !reflect.DeepEqual(got, e) {
			t.Fatalf("fast %+v, strict %+v (%v), want %+v", got, strict, err, e)
		}
	}
	e := plainTestEntry(plainSigners[0])
	e.Subject.Name = "io.github.acmé/weather"
	data, _ := e.Marshal()
	if _, ok := parsePlainEntry(string(data)); ok {
		t.Fatal("an entry with a non-ASCII member was read by the fast path")
	}
	if got, err := ParseEntry(data); err != nil || got.Subject.Name != e.Subject.Name {
		t.Fatalf("the strict parse refused a valid non-ASCII entry: %+v, %v", got, err)
	}
}

// TestParsePlainEntryLeavesTheRest: plain data one step away from an
// entry's layout, or with a member the strict parse refuses, is not read
// by the fast path (ParseEntry then explains it with the strict parse:
// TestParseEntryVersions).
func TestParsePlainEntryLeavesTheRest(t *testing.T) {
	v2, _ := plainTestEntry(plainSigners...).Marshal()
	s := string(v2)
	nine := make([]EntrySigner, 9)
	for i := range nine {
		nine[i] = plainSigners[0]
		nine[i].KeyFingerprint = strings.Repeat("0", 63) + string(rune('0'+i))
	}
	nineData, _ := plainTestEntry(nine...).Marshal()
	for name, data := range map[string]string{
		"a space after the brace":   "{ " + s[1:],
		"trailing bytes":            s + " ",
		"members out of order":      strings.Replace(s, `"evidenceBundleDigest"`, `"zevidenceBundleDigest"`, 1),
		"v1 with signers":           strings.Replace(s, "entry/v2", "entry/v1", 1),
		"v3":                        strings.Replace(s, "entry/v2", "entry/v3", 1),
		"an upper-case fingerprint": strings.Replace(s, strings.Repeat("0a", 32), strings.Repeat("0A", 32), 1),
		"a fingerprint twice":       strings.Replace(s, strings.Repeat("b1", 32), strings.Repeat("0a", 32), 1),
		"a signing time that is no": strings.Replace(s, "2026-08-28T00:00:00Z", "2026-08-28", 1),
		"an empty signers array":    s[:strings.Index(s, `"signers":[`)+len(`"signers":[`)] + s[strings.Index(s, `],"subject"`):],
		"nine signers":              string(nineData),
		"a truncated entry":         s[:len(s)-1],
		"an unterminated string":    s[:strings.Index(s, "sha256\":\"")+10],
	} {
		if _, ok := parsePlainEntry(data); ok {
			t.Errorf("%s: read by the fast path: %s", name, data)
		}
		if _, err := parseEntryStrict([]byte(data)); err == nil {
			t.Errorf("%s: the strict parse accepts it: the case tests nothing", name)
		}
	}
}

// FuzzParseEntryPlain: whatever the fast path reads, the strict parse
// reads to the same Entry.
func FuzzParseEntryPlain(f *testing.F) {
	for _, e := range []Entry{plainTestEntry(), plainTestEntry(plainSigners...)} {
		data, _ := e.Marshal()
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := parsePlainEntry(string(data))
		if !ok {
			return
		}
		strict, err := parseEntryStrict(data)
		if err != nil {
			t.Fatalf("the fast path reads what the strict parse refuses (%v): %q", err, data)
		}
		if !reflect.DeepEqual(got, strict) {
			t.Fatalf("fast %+v, strict %+v", got, strict)
		}
	})
}
