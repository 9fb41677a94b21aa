package trustpolicy

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
)

// TestParseTLogPolicyDraft: a draft may lack its log and quorum lines (the
// full parser refuses both), but every line refusal of the full parser
// fires on a draft too, and a quorum line must name something defined.
func TestParseTLogPolicyDraft(t *testing.T) {
	draft := "witness W1 " + testW1 + " https://w1.example/\nwitness W2 " + testW2 + "\n"
	p, errs := ParseTLogPolicyDraft(draft)
	if len(errs) != 0 || len(p.Witnesses) != 2 || p.Witnesses[0].URL != "https://w1.example/" || p.Quorum != "" {
		t.Fatalf("draft: %+v %v", p, errs)
	}
	if _, errs := ParseTLogPolicy(draft); len(errs) != 2 {
		t.Fatalf("full parser on the draft: %v", errs)
	}
	w1Again := signednote.FormatVerifierKey("w1-alias.example", signednote.TypeCosignatureV1, testKey("w1"))
	for name, tc := range map[string]struct{ text, want string }{
		"same key twice":       {draft + "witness W3 " + w1Again + "\n", "the same key is already listed"},
		"name twice":           {draft + "witness W1 " + testW3 + "\n", `name "W1" is already defined`},
		"reachable twice":      {draft + "group a 1 W1 W2\ngroup g 2 a W1\n", "reachable through both"},
		"unknown quorum":       {draft + "quorum nobody\n", "unknown witness or group"},
		"second quorum":        {draft + "quorum W1\nquorum W2\n", "already defined on line"},
		"bad URL":              {"witness W1 " + testW1 + " ftp://x/\n", "not an absolute http or https URL"},
		"witness endpoint URL": {"witness W1 " + testW1 + " http://127.0.0.1:7380/add-checkpoint\n", `give the witness's base URL "http://127.0.0.1:7380/"`},
		"CR (whole-text rule)": {"witness W1 " + testW1 + "\r\n", "carriage return"},
	} {
		if _, errs := ParseTLogPolicyDraft(tc.text); len(errs) == 0 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, errs, tc.want)
		}
	}
	// Control: complete, the draft and the full parser agree.
	full := "log " + testLogVKey + "\n" + draft + "group a 1 W1 W2\nquorum a\n"
	d, errs1 := ParseTLogPolicyDraft(full)
	f, errs2 := ParseTLogPolicy(full)
	if len(errs1)+len(errs2) != 0 || d.Quorum != "a" || f.Quorum != "a" {
		t.Fatalf("complete: %v %v", errs1, errs2)
	}
}
