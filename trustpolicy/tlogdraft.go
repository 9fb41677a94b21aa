package trustpolicy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpres/mcpres/internal/truncate"
)

// ParseTLogPolicyDraft is [ParseTLogPolicy] for a text being written line
// by line (mcpres policy tlog): every line is checked by the same parser
// with the same refusals (a key listed twice, a name defined twice, a
// witness reachable twice through one group, a bad threshold or URL), but
// a text with no log line or no quorum line yet is not a problem. A quorum
// line, when there is one, must name a defined witness or group. The
// policy returned has Quorum "" when there is no quorum line.
func ParseTLogPolicyDraft(text string) (*TLogPolicy, []TLogError) {
	return parseTLogText(text, true)
}

// SetTLogWitnessURL returns text with the URL of the witness line of name
// set to u (added when the line has none); a comment at the end of the
// line is kept. text must parse as a draft; the result is not checked here:
// the caller checks it, as every edit, with [ParseTLogPolicyDraft] (which
// refuses a URL that is not an absolute http(s) URL, or that ends in
// /add-checkpoint). u must be one field: no spaces, tabs, newlines or "#".
func SetTLogWitnessURL(text, name, u string) (string, error) {
	if u == "" || strings.ContainsAny(u, " \t\n\r#") {
		return "", fmt.Errorf("URL %q must be one field: not empty, no spaces, tabs, newlines or '#'", truncate.String(u, 128))
	}
	lines, w, err := draftWitnessLine(text, name)
	if err != nil {
		return "", err
	}
	line, comment, hasComment := strings.Cut(lines[w.Line-1], "#")
	fields := strings.FieldsFunc(line, isFieldSpace)
	line = strings.Join(append(fields[:3:3], u), " ")
	if hasComment {
		line += " #" + comment
	}
	lines[w.Line-1] = line
	return strings.Join(lines, "\n"), nil
}

// RemoveTLogWitness returns text without the witness line of name (its
// comment included). It refuses, naming them, when groups or the quorum
// name the witness: removing it would leave them naming nothing. text must
// parse as a draft.
func RemoveTLogWitness(text, name string) (string, error) {
	lines, w, err := draftWitnessLine(text, name)
	if err != nil {
		return "", err
	}
	pol, _ := ParseTLogPolicyDraft(text) // draftWitnessLine parsed it
	var users []string
	for _, g := range pol.Groups {
		if slices.Contains(g.Members, name) {
			users = append(users, fmt.Sprintf("group %q (line %d)", g.Name, g.Line))
		}
	}
	if pol.Quorum == name {
		users = append(users, "the quorum")
	}
	if len(users) > 0 {
		return "", fmt.Errorf("witness %q is named by %s: removing it would leave them naming an unknown witness; change them first", name, strings.Join(users, ", "))
	}
	return strings.Join(slices.Delete(lines, w.Line-1, w.Line), "\n"), nil
}

// draftWitnessLine parses text as a draft and returns its lines and the
// witness called name.
func draftWitnessLine(text, name string) ([]string, TLogWitness, error) {
	pol, errs := ParseTLogPolicyDraft(text)
	if len(errs) > 0 {
		return nil, TLogWitness{}, fmt.Errorf("the text has problems (first: %v)", errs[0])
	}
	var names []string
	for _, w := range pol.Witnesses {
		if w.Name == name {
			return strings.Split(text, "\n"), w, nil
		}
		names = append(names, w.Name)
	}
	if len(names) == 0 {
		return nil, TLogWitness{}, fmt.Errorf("no witness %q: the text has no witness line", truncate.String(name, 128))
	}
	return nil, TLogWitness{}, fmt.Errorf("no witness %q (the witnesses are %s)", truncate.String(name, 128), strings.Join(names, ", "))
}
