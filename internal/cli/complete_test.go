package cli

import (
	"slices"
	"testing"
)

func TestEnumValues(t *testing.T) {
	all := []string{"json", "text", "markdown"}
	for _, c := range []struct {
		usage string
		want  []string
	}{
		{"output format: json, text or markdown", all},
		{"output format: text or json", []string{"json", "text"}},
		{"a level (default text; kept)", all}, // a default does not restrict
		{"anything", all},
		{"jsonl or texts", all}, // whole words only
	} {
		if got := EnumValues(c.usage, all); !slices.Equal(got, c.want) {
			t.Errorf("EnumValues(%q) = %q, want %q", c.usage, got, c.want)
		}
	}
}

// Completing is true for cobra's two request commands only, and only as
// the first word.
func TestCompleting(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"__complete", "attest", "verify", "--format", ""}, true},
		{[]string{"__completeNoDesc", "attest", ""}, true},
		{[]string{"__complete"}, true},
		{nil, false},
		{[]string{}, false},
		{[]string{"attest", "verify", "__complete"}, false}, // an argument, not the request
		{[]string{"completion", "bash"}, false},             // prints the script: registers nothing
		{[]string{"__completeX"}, false},
		{[]string{"--", "__complete"}, false},
	} {
		if got := Completing(c.args); got != c.want {
			t.Errorf("Completing(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
