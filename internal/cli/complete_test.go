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
