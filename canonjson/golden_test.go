package canonjson

import (
	"encoding/base64"
	"os"
	"testing"

	"github.com/mcpres/mcpres/internal/upstreamtest"
)

// Canonicalization goldens of REFERENCE §1.4.
func TestCanonicalGoldens(t *testing.T) {
	tests := []struct {
		name, in, b64 string
		n             int
		sha           string
	}{
		{"key order with astral key", `{"":2,"\ud83d\ude00":1}`, "eyIiOjIsIvCfmIAiOjF9", 15, "9b3e6d0da45c6d64be8c48aadf369a9ab83f122e93f8514757ef9cdfba332770"},
		{"UTF-16 vs UTF-8 order", `{"\ue000":1,"\ud83d\ude00":2,"z":3,"Z":4,"\u00e9":5}`, "eyJaIjo0LCJ6IjozLCLDqSI6NSwi8J+YgCI6Miwi7oCAIjoxfQ==", 37, "15f0be75245a05f7c2c8b2f84190a362ebf079fc467ac99b33dde733d8e4ee2a"},
		{"string escapes", `{"s":"\u0000\u001f\"\\/\b\f\n\r\t\u007f\u2028\u2029\u00e9"}`, "eyJzIjoiXHUwMDAwXHUwMDFmXCJcXC9cYlxmXG5cclx0f+KAqOKAqcOpIn0=", 44, "9f7eee691a333a38a9ed464a56da0c534b5847c472cc1bd4732ae80ebf1dc571"},
		{"nesting, -0, min safe int", `{"b":[3,{"y":null,"x":true}],"a":-0,"c":-9007199254740991}`, "eyJhIjowLCJiIjpbMyx7IngiOnRydWUsInkiOm51bGx9XSwiYyI6LTkwMDcxOTkyNTQ3NDA5OTF9", 57, "970e1059c532512ea436afa70768f0cc74ea6cd8b3a29543593a2de21fb49818"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			b, err := Canonical(v)
			if err != nil {
				t.Fatalf("Canonical: %v", err)
			}
			if got := base64.StdEncoding.EncodeToString(b); got != tt.b64 {
				t.Errorf("canonical bytes = %s, want %s", got, tt.b64)
			}
			sum, n, err := Digest(v)
			if err != nil || sum != tt.sha || n != tt.n {
				t.Errorf("Digest = %s, %d, %v; want %s, %d", sum, n, err, tt.sha, tt.n)
			}
		})
	}
}

// sharedVector returns the path of an upstream vector, skipping the test when
// ../shared is absent (a plain clone of the project does not have it).
func sharedVector(t testing.TB, rel string) string {
	t.Helper()
	p := upstreamtest.Path(t, "..", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("upstream vectors not available (%s): %v", p, err)
	}
	return p
}

// Digest goldens of REFERENCE §2.4 for valid/reason-bound-negative.json.
func TestReasonBoundNegativeDigests(t *testing.T) {
	raw, v, err := ReadFile(sharedVector(t, "v0.2.0/valid/reason-bound-negative.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := BytesDigest(raw); got != "d7b6bea30de5b55fbcbbddcf569e6909f6aabfb9134cf7d06e225f12913ca1c8" || len(raw) != 15265 {
		t.Fatalf("raw file digest = %s (%d bytes)", got, len(raw))
	}
	ev := v.Get("evidence")
	subj := ev.Get("subject")
	check := func(name string, x *Value, wantSum string, wantLen int) {
		t.Helper()
		sum, n, err := Digest(x)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sum != wantSum || (wantLen != 0 && n != wantLen) {
			t.Errorf("%s = %s (%d bytes), want %s (%d bytes)", name, sum, n, wantSum, wantLen)
		}
	}
	check("subject.identityDigest", NewObject(
		Member{"subjectType", subj.Get("subjectType")}, Member{"name", subj.Get("name")},
		Member{"version", subj.Get("version")}, Member{"artifactSha256", subj.Get("artifactSha256")},
	), "b9556404d13de805a962089152d733f08001e603df62bfdee2c59caa739dca5a", 0)
	check("scenario.fingerprint", ev.Path("scenario", "descriptor"), "af617a946877bcfb5b2a1fc2feb3b353d1ba7f845f301bd70b7cbac65d811123", 1126)
	obs := map[string]struct {
		sum string
		n   int
	}{
		"obs-process":         {"06b170564a9e8cef6e8928d78789905860c19efb7852f8f836f7d030a84b2124", 514},
		"obs-protocol":        {"522ed0d3ae2f1bbceb098c87161f41aa13ec52d6bb8f99f00002960ddc8cf452", 516},
		"obs-fixture":         {"bb3affae0a4c0cccd75c5411349e71581481ecaa1d6047718ca38f953575e35e", 518},
		"obs-negative-oracle": {"5c3834cdd6e7d81ed607ea1891afd22eb4ad2c94908d5a428313603b1b8083d3", 538},
		"obs-privacy":         {"d14f4da94df1f10ee77a0d29473215ec93db8f99fc510efb936561f6383169a2", 499},
		"obs-cleanup":         {"1d62eb7cd142cab653679cd1daf1ad1fbdf1253ad461b3e3f896f5e4fa1a1f7b", 498},
	}
	for _, o := range ev.Get("observations").Items {
		want := obs[o.Get("id").Str]
		check("observation "+o.Get("id").Str, o.Without("observationSha256"), want.sum, want.n)
	}
	check("evidence", ev, "95d8ceb38be1a7e9c5a84cff13e0fc71c842bb0eb50369352f5f3b286f37460c", 8676)
	check("statement", v.Get("statement"), "56b8733d5c45596e8002fb1117fc8d9640f61c269f068b7a3324f9c1fb7bf740", 829)
	check("whole bundle", v, "566de6b7dd5e93e29f81fe7463f3330a143889dcaa719e5d149e4776f4128e3c", 11291)
}
