// Package doctest finds the fenced code blocks of the repository's Markdown
// documents, for the tests that check that a document says what the code
// does (the worked examples of docs/transparency.md and docs/trust-policy.md,
// the architecture block of README.md). Tests only.
package doctest

import (
	"fmt"
	"strings"
	"testing"
)

// Find returns the contents of the first block fenced with "```"+lang
// (lang may be empty: a plain "```") after the line heading of doc, with
// its final newline; an error names what is missing. Fences are followed
// line by line, so the closing fence of another block is never taken for
// the opening of a plain one.
func Find(doc, heading, lang string) (string, error) {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return "", fmt.Errorf("no heading %q", heading)
	}
	lines := strings.SplitAfter(doc[i+1+len(heading)+1:], "\n")
	inOther, found := false, false
	var b strings.Builder
	for _, l := range lines {
		line := strings.TrimSuffix(l, "\n")
		switch {
		case found && line == "```":
			return b.String(), nil
		case found:
			b.WriteString(l)
		case !strings.HasPrefix(line, "```"):
		case !inOther && line == "```"+lang:
			found = true
		default:
			inOther = !inOther
		}
	}
	if found {
		return "", fmt.Errorf("unterminated block after %q", heading)
	}
	return "", fmt.Errorf("no %q block after %q", "```"+lang, heading)
}

// Block is [Find] for a test: it fails t when the block is missing.
func Block(t testing.TB, doc, heading, lang string) string {
	t.Helper()
	b, err := Find(doc, heading, lang)
	if err != nil {
		t.Fatalf("docs: %v", err)
	}
	return b
}
