package doctest

import (
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	doc := "# T\n\n## A\n\ntext\n\n```sh\nno\n```\n\n```json\n{}\n[]\n```\n\n## B\n\n```\nplain\n```\n\n## C\n\n```text\nopen\n"
	for _, tc := range []struct {
		heading, lang, want, err string
	}{
		{"## A", "json", "{}\n[]\n", ""},
		{"## A", "sh", "no\n", ""},
		{"## B", "", "plain\n", ""},
		// A block of another heading's section still counts as "after":
		// the first one after the heading is taken.
		{"## A", "", "plain\n", ""},
		{"## D", "", "", `no heading "## D"`},
		{"## A", "yaml", "", "no \"```yaml\" block"},
		{"## B", "sh", "", "no \"```sh\" block"},
		{"## C", "text", "", "unterminated block"},
		// "## A" is a line, not a prefix: "## " alone is no heading.
		{"## ", "json", "", `no heading "## "`},
	} {
		got, err := Find(doc, tc.heading, tc.lang)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Find(%q, %q) = %q, %v; want error %q", tc.heading, tc.lang, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Find(%q, %q) = %q, %v; want %q", tc.heading, tc.lang, got, err, tc.want)
		}
	}
}
