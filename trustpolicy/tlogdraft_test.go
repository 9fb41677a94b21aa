package trustpolicy

import (
	"maps"
	"slices"
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

// TestSetTLogWitnessURL: the URL of one witness line is set or replaced
// (its comment kept, the other lines untouched); a witness that is not
// there, a URL that is not one field and a text with problems are refused.
func TestSetTLogWitnessURL(t *testing.T) {
	text := "log " + testLogVKey + "\nwitness W1 " + testW1 + " http://127.0.0.1:7380/add-checkpoint-was-here\nwitness W2 " + testW2 + " # second\ngroup g any W1 W2\nquorum g\n"
	got, err := SetTLogWitnessURL(text, "W1", "http://127.0.0.1:7380/")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(text, "http://127.0.0.1:7380/add-checkpoint-was-here", "http://127.0.0.1:7380/", 1)
	if got != want {
		t.Errorf("set W1:\n%s\nwant\n%s", got, want)
	}
	got, err = SetTLogWitnessURL(text, "W2", "https://w2.example/")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(text, "witness W2 "+testW2+" # second", "witness W2 "+testW2+" https://w2.example/ # second", 1); got != want {
		t.Errorf("set W2 (no URL before, a comment):\n%s\nwant\n%s", got, want)
	}
	p, errs := ParseTLogPolicy(got)
	if errs != nil || p.Witnesses[1].URL != "https://w2.example/" || p.Witnesses[1].Key.String() != testW2 {
		t.Fatalf("the result: %+v %v", p, errs)
	}
	// The endpoint URL is written here and refused by the parser that
	// checks every edit.
	got, err = SetTLogWitnessURL(text, "W1", "http://127.0.0.1:7380/add-checkpoint")
	if _, errs := ParseTLogPolicyDraft(got); err != nil || len(errs) != 1 || !strings.Contains(errs[0].Error(), `give the witness's base URL "http://127.0.0.1:7380/"`) {
		t.Errorf("the endpoint URL: %v %v", err, errs)
	}
	for name, tc := range map[string]struct{ text, name, url, want string }{
		"unknown witness":     {text, "W9", "https://w9.example/", `no witness "W9" (the witnesses are W1, W2)`},
		"a group":             {text, "g", "https://g.example/", `no witness "g"`},
		"no witness":          {"log " + testLogVKey + "\n", "W1", "https://w1.example/", `no witness "W1": the text has no witness line`},
		"URL with a space":    {text, "W1", "https://w1.example/ x", "must be one field"},
		"URL with a #":        {text, "W1", "https://w1.example/#x", "must be one field"},
		"empty URL":           {text, "W1", "", "must be one field"},
		"text with a problem": {text + "quorum W1\n", "W1", "https://w1.example/", "the text has problems (first: line 6: quorum is already defined on line 5)"},
	} {
		if _, err := SetTLogWitnessURL(tc.text, tc.name, tc.url); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
}

// TestRemoveTLogWitness: a witness no group or quorum names is removed
// with its line; one that a group or the quorum names is refused, naming
// each.
func TestRemoveTLogWitness(t *testing.T) {
	text := "log " + testLogVKey + "\nwitness W1 " + testW1 + " https://w1.example/\nwitness W2 " + testW2 + " # spare\nwitness W3 " + testW3 + "\ngroup g any W1 W3\nquorum W3\n"
	got, err := RemoveTLogWitness(text, "W2")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(text, "witness W2 "+testW2+" # spare\n", "", 1); got != want {
		t.Errorf("remove W2:\n%s\nwant\n%s", got, want)
	}
	if p, errs := ParseTLogPolicy(got); errs != nil || len(p.Witnesses) != 2 || p.Witnesses[1].Name != "W3" {
		t.Errorf("the result: %+v %v", p, errs)
	}
	for name, tc := range map[string]struct{ name, want string }{
		"in a group":             {"W1", `witness "W1" is named by group "g" (line 5): removing it would leave them naming an unknown witness; change them first`},
		"in a group, the quorum": {"W3", `witness "W3" is named by group "g" (line 5), the quorum: removing it`},
		"unknown":                {"W9", `no witness "W9" (the witnesses are W1, W2, W3)`},
	} {
		if _, err := RemoveTLogWitness(text, tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
}

// FuzzTLogWitnessEdits: an edit of a text that parses as a draft changes
// only the line of that witness. After SetTLogWitnessURL the result, if it
// parses, has that witness with that key and URL and every other witness
// as it was; after RemoveTLogWitness it parses, without that witness and
// with every other witness as it was.
func FuzzTLogWitnessEdits(f *testing.F) {
	f.Add("log "+testLogVKey+"\nwitness W1 "+testW1+" https://w1.example/ # c\nwitness W2 "+testW2+"\nquorum W2\n", "W1", "http://127.0.0.1:7380/")
	f.Add("witness W1 "+testW1+"\nwitness W2 "+testW2+"\ngroup g 1 W1\n", "W2", "https://w2.example/add-checkpoint")
	f.Add("witness W1\t"+testW1+"\t \n", "W1", "https://w1.example/")
	f.Fuzz(func(t *testing.T, text, name, u string) {
		before, errs := ParseTLogPolicyDraft(text)
		if errs != nil {
			return
		}
		others := func(p *TLogPolicy) map[string]string {
			m := map[string]string{}
			for _, w := range p.Witnesses {
				if w.Name != name {
					m[w.Name] = w.Key.String() + " " + w.URL
				}
			}
			return m
		}
		if got, err := SetTLogWitnessURL(text, name, u); err == nil {
			after, errs := ParseTLogPolicyDraft(got)
			if errs == nil {
				i := slices.IndexFunc(after.Witnesses, func(w TLogWitness) bool { return w.Name == name })
				j := slices.IndexFunc(before.Witnesses, func(w TLogWitness) bool { return w.Name == name })
				if i < 0 || j < 0 || after.Witnesses[i].URL != u || after.Witnesses[i].Key.String() != before.Witnesses[j].Key.String() {
					t.Fatalf("set-url %s %q:\n%s", name, u, got)
				}
				if !maps.Equal(others(before), others(after)) || after.Quorum != before.Quorum || len(after.Groups) != len(before.Groups) {
					t.Fatalf("set-url changed another line:\n%s", got)
				}
			}
		}
		if got, err := RemoveTLogWitness(text, name); err == nil {
			after, errs := ParseTLogPolicyDraft(got)
			if errs != nil {
				t.Fatalf("remove %s: %v\n%s", name, errs, got)
			}
			if len(after.Witnesses) != len(before.Witnesses)-1 || !maps.Equal(others(before), others(after)) || after.Quorum != before.Quorum || len(after.Groups) != len(before.Groups) {
				t.Fatalf("remove %s:\n%s", name, got)
			}
		}
	})
}
