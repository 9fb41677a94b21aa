package trustpolicy

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
)

// testKey derives a deterministic test-only key from a label.
func testKey(label string) ed25519.PublicKey {
	seed := sha256.Sum256([]byte("mcpres trustpolicy test key: " + label))
	return ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey)
}

var (
	testLogVKey = signednote.FormatVerifierKey("example.org/log", signednote.TypeEd25519, testKey("log"))
	testW1      = signednote.FormatVerifierKey("w1.example", signednote.TypeCosignatureV1, testKey("w1"))
	testW2      = signednote.FormatVerifierKey("w2.example", signednote.TypeCosignatureV1, testKey("w2"))
	testW3      = signednote.FormatVerifierKey("w3.example", signednote.TypeCosignatureV1, testKey("w3"))
	// testTLogText is a valid tlog policy: one log, three witnesses, two
	// of them required.
	testTLogText = fmt.Sprintf(`# example tlog policy
log %s https://log.example.org/
witness W1 %s https://w1.example/
witness W2 %s
witness W3	%s   # tab and spaces separate fields
group g 2 W1 W2 W3
quorum g
`, testLogVKey, testW1, testW2, testW3)
)

// testRekorVKey is a type 0x02 (ECDSA P-256) log key, as formats writes
// Rekor's checkpoint key.
var testRekorVKey = func() string {
	seed := sha256.Sum256([]byte("mcpres trustpolicy test key: rekor"))
	k, err := ecdsa.GenerateKey(elliptic.P256(), bytes.NewReader(bytes.Repeat(seed[:], 8)))
	if err != nil {
		panic(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		panic(err)
	}
	return signednote.FormatECDSAVerifierKey("rekor.example", der)
}()

func TestParseTLogPolicyRekorLog(t *testing.T) {
	p, errs := ParseTLogPolicy("log " + testRekorVKey + "\nlog " + testLogVKey + "\nquorum none\n")
	if errs != nil {
		t.Fatal(errs)
	}
	if k := p.Logs[0].Key; k.Type() != signednote.TypeECDSA || k.Name() != "rekor.example" || k.String() != testRekorVKey || len(k.DER()) == 0 {
		t.Errorf("Rekor log key %+v", k)
	}
	if p.Logs[1].Key.String() != testLogVKey {
		t.Errorf("Ed25519 log key round trip %q", p.Logs[1].Key.String())
	}
}

func TestParseTLogPolicyValid(t *testing.T) {
	p, errs := ParseTLogPolicy(testTLogText)
	if errs != nil {
		t.Fatal(errs)
	}
	if len(p.Logs) != 1 || p.Logs[0].Key.Name() != "example.org/log" || p.Logs[0].URL != "https://log.example.org/" || p.Logs[0].Line != 2 {
		t.Errorf("logs = %+v", p.Logs)
	}
	if len(p.Witnesses) != 3 || p.Witnesses[2].Name != "W3" || !p.Witnesses[2].Key.PublicKey().Equal(testKey("w3")) {
		t.Errorf("witnesses = %+v", p.Witnesses)
	}
	if len(p.Groups) != 1 || p.Groups[0].Threshold != 2 || !slices.Equal(p.Groups[0].Members, []string{"W1", "W2", "W3"}) || p.Quorum != "g" {
		t.Errorf("groups = %+v, quorum %q", p.Groups, p.Quorum)
	}
	for _, text := range []string{
		"log " + testLogVKey + "\nquorum none",                                                                                    // no witness needed
		"log " + testLogVKey + "\nwitness W1 " + testW1 + "\nquorum W1",                                                           // a witness as the quorum
		"quorum g\nlog " + testLogVKey + "\nwitness W1 " + testW1 + "\ngroup g any W1",                                            // quorum before its group
		"log " + testLogVKey + "\nwitness W1 " + testW1 + "\nwitness W2 " + testW2 + "\ngroup a all W1 W2\ngroup b 1 a\nquorum b", // nested groups
		"log " + testLogVKey + "\nwitness W1 " + testW1 + "\nwitness W2 " + testW2 + "\ngroup a 1 W1\ngroup b 1 W2\ngroup g 2 a b\nquorum g",
		// Controls of the endpoint refusal: base URLs, a segment that only
		// contains the word, and a log URL (the rule is the witnesses').
		"log " + testLogVKey + "\nwitness W1 " + testW1 + " http://127.0.0.1:7380\nwitness W2 " + testW2 + " https://w2.example/tlog/\nquorum W1",
		"log " + testLogVKey + "\nwitness W1 " + testW1 + " https://w1.example/add-checkpoints/\nwitness W2 " + testW2 + " https://w2.example/my-add-checkpoint\nquorum W1",
		"log " + testLogVKey + " https://log.example/add-checkpoint\nquorum none",
	} {
		if _, errs := ParseTLogPolicy(text); errs != nil {
			t.Errorf("%q: %v", text, errs)
		}
	}
}

// TestParseTLogPolicyDoubleCounting: the three texts that formats'
// witness.ParsePolicy accepts and then counts one witness twice.
func TestParseTLogPolicyDoubleCounting(t *testing.T) {
	w1Again := signednote.FormatVerifierKey("w1-alias.example", signednote.TypeCosignatureV1, testKey("w1"))
	logAsWitness := signednote.FormatVerifierKey("example.org/log", signednote.TypeCosignatureV1, testKey("log"))
	logAgain := signednote.FormatVerifierKey("other-name.example/log", signednote.TypeEd25519, testKey("log"))
	head := "log " + testLogVKey + "\nwitness W1 " + testW1 + "\n"
	tests := []struct {
		name, text string
		want       []string
	}{
		{"same witness key under two names", head + "witness W2 " + w1Again + "\ngroup g 2 W1 W2\nquorum g\n",
			[]string{`line 3: witness "W2": the same key is already listed for witness "W1" on line 2; one key under two names would count twice`}},
		{"identical witness lines under two names", head + "witness W2 " + testW1 + "\ngroup g 2 W1 W2\nquorum g\n",
			[]string{`line 3: witness "W2": the same key is already listed for witness "W1" on line 2; one key under two names would count twice`}},
		{"one key as a log and a witness", head + "witness W2 " + logAsWitness + "\ngroup g 2 W1 W2\nquorum g\n",
			[]string{`line 3: witness "W2": the same key is already listed for log "example.org/log" on line 1; one key under two names would count twice`}},
		{"one log key under two names", head + "log " + logAgain + "\nquorum W1\n",
			[]string{`line 3: log "other-name.example/log": the same key is already listed for log "example.org/log" on line 1; one key under two names would count twice`}},
		{"member twice in a group", head + "group g 2 W1 W1\nquorum g\n",
			[]string{`line 3: group "g" lists "W1" twice: a member counts once`}},
		{"witness reachable twice through subgroups", head + "witness W2 " + testW2 + "\nwitness W3 " + testW3 + "\ngroup a 1 W1 W2\ngroup b 1 W1 W3\ngroup g 2 a b\nquorum g\n",
			[]string{`line 7: group "g": witness "W1" is reachable through both "a" and "b" and would count twice`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, errs := ParseTLogPolicy(tt.text)
			if p != nil {
				t.Error("a policy was returned with errors")
			}
			if got := errStrings(errs); !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func errStrings(errs []TLogError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestParseTLogPolicyErrors(t *testing.T) {
	head := "log " + testLogVKey + "\nwitness W1 " + testW1 + "\nwitness W2 " + testW2 + "\n"
	w1Raw := strings.SplitN(testW1, "+", 3)
	badHash := w1Raw[0] + "+00000000+" + w1Raw[2]
	upperHash := w1Raw[0] + "+" + strings.ToUpper(w1Raw[1]) + "+" + w1Raw[2]
	overpadded := w1Raw[0] + "+" + w1Raw[1] + "+" + w1Raw[2] + "=="
	smallOrder := signednote.FormatVerifierKey("bad", signednote.TypeCosignatureV1, append([]byte{1}, make([]byte, 31)...))
	rsaType := signednote.FormatVerifierKey("x", 0x03, testKey("x")) // an unsupported type with a valid hash
	tests := []struct {
		name, text string
		want       []string
	}{
		{"no quorum", head, []string{"no quorum line"}},
		{"no log", "witness W1 " + testW1 + "\nquorum W1", []string{"no log line: a tlog policy names at least one log key"}},
		{"two quorums", head + "quorum W1\nquorum W2\n", []string{"line 5: quorum is already defined on line 4"}},
		{"quorum unknown", head + "quorum W9\n", []string{`line 4: quorum names unknown witness or group "W9"`}},
		{"quorum malformed", head + "quorum W1 W2\n", []string{`line 4: quorum: want "quorum NAME" or "quorum none", got 3 fields`, "no quorum line"}},
		{"threshold 0", head + "group g 0 W1 W2\nquorum g", []string{`line 4: group "g": threshold 0 is outside 1..2 (the number of members)`}},
		{"threshold above n", head + "group g 3 W1 W2\nquorum g", []string{`line 4: group "g": threshold 3 is outside 1..2 (the number of members)`}},
		{"threshold leading zero", head + "group g 01 W1 W2\nquorum g", []string{`line 4: group "g": threshold "01" is not a decimal number, any or all`}},
		{"threshold negative", head + "group g -1 W1 W2\nquorum g", []string{`line 4: group "g": threshold "-1" is not a decimal number, any or all`}},
		{"group without members", head + "group g any\nquorum W1", []string{`line 4: group: want "group NAME K|any|all MEMBER...", got 3 fields`}},
		{"unknown member", head + "group g 1 W1 W9\nquorum g", []string{`line 4: group "g": unknown member "W9" (members are witnesses or groups defined on earlier lines)`}},
		{"member defined later", head + "group g 1 h\ngroup h 1 W1\nquorum g", []string{`line 4: group "g": unknown member "h" (members are witnesses or groups defined on earlier lines)`}},
		{"group lists itself", head + "group g 1 W1 g\nquorum g", []string{`line 4: group "g" lists itself`}},
		{"unknown keyword", head + "witnesses W3 " + testW3 + "\nquorum W1", []string{`line 4: unknown keyword "witnesses" (want log, witness, group or quorum)`}},
		{"witness without key", head + "witness W3\nquorum W1", []string{`line 4: witness: want "witness NAME VKEY [URL]", got 2 fields`}},
		{"log with extra field", "log " + testLogVKey + " https://l.example/ extra\nwitness W1 " + testW1 + "\nquorum W1", []string{`line 1: log: want "log VKEY [URL]", got 4 fields`}},
		{"duplicate name", head + "witness W1 " + testW3 + "\nquorum W1", []string{`line 4: name "W1" is already defined on line 2`}},
		{"keyword as name", head + "witness any " + testW3 + "\nquorum W1", []string{`line 4: "any" is a keyword and cannot be a name`}},
		{"long name", head + "witness " + strings.Repeat("a", 129) + " " + testW3 + "\nquorum W1", []string{`line 4: name "` + strings.Repeat("a", 32) + `…" is 129 bytes, more than 128`}},
		{"non-ASCII name", head + "witness Wé " + testW3 + "\nquorum W1", []string{`line 4: name "Wé": only printable ASCII characters are allowed`}},
		{"witness key of log type", "log " + testLogVKey + "\nwitness W1 " + signednote.FormatVerifierKey("w", signednote.TypeEd25519, testKey("w1")) + "\nquorum W1",
			[]string{`line 2: witness "W1": key type 0x01 (Ed25519 signed-note key), want 0x04 (cosignature/v1 key)`}},
		{"log key of witness type", "log " + testW3 + "\nwitness W1 " + testW1 + "\nquorum W1",
			[]string{`line 1: log "w3.example": key type 0x04 (cosignature/v1 key), want 0x01 (Ed25519 signed-note key)`}},
		{"unsupported key type", head + "witness W3 " + rsaType + "\nquorum W1", []string{`line 4: witness "W3": vkey "x": key type 0x03 is not supported (want 0x01 Ed25519, 0x02 ECDSA or 0x04 cosignature/v1)`}},
		{"ECDSA key that is not P-256 DER", head + "log " + signednote.FormatECDSAVerifierKey("rekor.example", []byte("not DER")) + "\nquorum W1", []string{`line 4: log: vkey "rekor.example": type 0x02 key is not the PKIX DER of an ECDSA P-256 key`}},
		{"ECDSA key as a witness", head + "witness W3 " + testRekorVKey + "\nquorum W1", []string{`line 4: witness "W3": key type 0x02 (ECDSA Rekor log key), want 0x04 (cosignature/v1 key)`}},
		{"ECDSA log key twice", head + "log " + testRekorVKey + "\nlog " + testRekorVKey + "\nquorum W1", []string{`line 5: log "rekor.example": the same key is already listed for log "rekor.example" on line 4; one key under two names would count twice`}},
		{"wrong key hash", head + "witness W3 " + badHash + "\nquorum W1", []string{fmt.Sprintf(`line 4: witness "W3": vkey "w1.example": hash 00000000 does not match the key (want %s)`, w1Raw[1])}},
		{"upper-case key hash", head + "witness W3 " + upperHash + "\nquorum W1", []string{fmt.Sprintf(`line 4: witness "W3": vkey "w1.example": hash %q is not 8 lowercase hex digits`, strings.ToUpper(w1Raw[1]))}},
		{"superfluous base64 padding", head + "witness W3 " + overpadded + "\nquorum W1", []string{`line 4: witness "W3": vkey "w1.example": key is not canonical padded base64`}},
		{"not a vkey", head + "witness W3 abc\nquorum W1", []string{`line 4: witness "W3": malformed vkey (want NAME+HASH+BASE64, got 1 parts)`}},
		{"small-order key", head + "witness W3 " + smallOrder + "\nquorum W1", []string{`line 4: witness "W3": vkey "bad": ed25519: public key is a small-order point`}},
		{"bad URL", head + "witness W3 " + testW3 + " ftp://w3.example/\nquorum W1", []string{`line 4: witness "W3": URL "ftp://w3.example/" is not an absolute http or https URL`}},
		{"relative URL", head + "witness W3 " + testW3 + " /add\nquorum W1", []string{`line 4: witness "W3": URL "/add" is not an absolute http or https URL`}},
		// The endpoint instead of the witness's base URL (what 'witness
		// serve' used to print): refused, naming the URL to write.
		{"witness endpoint URL", head + "witness W3 " + testW3 + " http://127.0.0.1:7380/add-checkpoint\nquorum W1",
			[]string{`line 4: witness "W3": URL "http://127.0.0.1:7380/add-checkpoint" ends in /add-checkpoint, the submission endpoint: give the witness's base URL "http://127.0.0.1:7380/" (a log POSTs to URL/add-checkpoint)`}},
		{"witness endpoint URL under a prefix", head + "witness W3 " + testW3 + " https://w3.example/tlog/add-checkpoint/\nquorum W1",
			[]string{`line 4: witness "W3": URL "https://w3.example/tlog/add-checkpoint/" ends in /add-checkpoint, the submission endpoint: give the witness's base URL "https://w3.example/tlog/" (a log POSTs to URL/add-checkpoint)`}},
		{"CRLF", strings.ReplaceAll(head+"quorum W1\n", "\n", "\r\n"), []string{
			"line 1: carriage return (CR): lines end with LF only", "line 2: carriage return (CR): lines end with LF only",
			"line 3: carriage return (CR): lines end with LF only", "line 4: carriage return (CR): lines end with LF only"}},
		{"NUL", head + "quorum W1\x00\n", []string{"line 4: control character U+0000"}},
		{"invalid UTF-8", head + "quorum W1 # \xff\n", []string{"line 4: not valid UTF-8"}},
		{"too long", head + "quorum W1\n#" + strings.Repeat("x", MaxTLogPolicyBytes), []string{fmt.Sprintf("text is %d bytes, more than the limit of 65536", len(head)+11+MaxTLogPolicyBytes)}},
		{"too many lines", head + "quorum W1" + strings.Repeat("\n", MaxTLogPolicyLines), []string{"text has 1028 lines, more than the limit of 1024"}},
		{"errors on several lines", "log x\nwitness W1 " + testW1 + "\ngroup g 2 W1\nquorum g\n", []string{
			`line 1: log: malformed vkey (want NAME+HASH+BASE64, got 1 parts)`,
			`line 3: group "g": threshold 2 is outside 1..1 (the number of members)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, errs := ParseTLogPolicy(tt.text)
			if p != nil {
				t.Error("a policy was returned with errors")
			}
			if got := errStrings(errs); !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestParseTLogPolicyLimitEdges accepts a text of exactly the limits.
func TestParseTLogPolicyLimitEdges(t *testing.T) {
	base := "log " + testLogVKey + "\nquorum none\n"
	text := base + "#" + strings.Repeat("x", MaxTLogPolicyBytes-len(base)-1)
	if _, errs := ParseTLogPolicy(text); errs != nil {
		t.Errorf("%d bytes: %v", len(text), errs)
	}
	text = base + strings.Repeat("\n", MaxTLogPolicyLines-3)
	if _, errs := ParseTLogPolicy(text); errs != nil {
		t.Errorf("%d lines: %v", strings.Count(text, "\n")+1, errs)
	}
}

// FuzzParseTLogPolicy: errors and a policy are never returned together, and
// an accepted text has no key twice and every group threshold in range.
func FuzzParseTLogPolicy(f *testing.F) {
	f.Add(testTLogText)
	f.Add("log " + testLogVKey + "\nwitness W1 " + testW1 + "\ngroup g 2 W1 W1\nquorum g\n")
	f.Add("log " + testLogVKey + "\nquorum none")
	f.Add("log " + testLogVKey + "\nwitness W1 " + testW1 + " http://127.0.0.1:7380/add-checkpoint\nquorum W1\n")
	f.Add("log " + testLogVKey + "\nwitness W1 " + testW1 + " http://127.0.0.1:7380/a/%61dd-checkpoint/\nquorum W1\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, errs := ParseTLogPolicy(text)
		if (p == nil) == (errs == nil) {
			t.Fatalf("policy %v with errors %v", p, errs)
		}
		if p == nil {
			return
		}
		keys := map[string]bool{}
		for _, l := range p.Logs {
			if keys[l.Key.Fingerprint()] {
				t.Fatal("key twice")
			}
			keys[l.Key.Fingerprint()] = true
		}
		for _, w := range p.Witnesses {
			if keys[w.Key.Fingerprint()] {
				t.Fatal("key twice")
			}
			if u, err := url.Parse(w.URL); err == nil && path.Base(strings.TrimRight(u.Path, "/")) == "add-checkpoint" {
				t.Fatalf("witness %s: endpoint URL %q accepted", w.Name, w.URL)
			}
			keys[w.Key.Fingerprint()] = true
		}
		for _, g := range p.Groups {
			if g.Threshold < 1 || g.Threshold > len(g.Members) {
				t.Fatalf("group %s threshold %d of %d", g.Name, g.Threshold, len(g.Members))
			}
		}
	})
}
