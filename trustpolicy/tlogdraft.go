package trustpolicy

import "strings"

// ParseTLogPolicyDraft is [ParseTLogPolicy] for a text being written line
// by line (mcpres policy tlog): every line is checked by the same parser
// with the same refusals (a key listed twice, a name defined twice, a
// witness reachable twice through one group, a bad threshold or URL), but
// a text with no log line or no quorum line yet is not a problem. A quorum
// line, when there is one, must name a defined witness or group. The
// policy returned has Quorum "" when there is no quorum line.
func ParseTLogPolicyDraft(text string) (*TLogPolicy, []TLogError) {
	if errs := precheckTLogText(text); len(errs) > 0 {
		return nil, errs
	}
	p := &tlogParser{
		pol:     &TLogPolicy{},
		defined: map[string]int{},
		keys:    map[string]string{},
		leaves:  map[string][]string{},
	}
	for i, line := range strings.Split(text, "\n") {
		p.line(i+1, line)
	}
	p.haveLog = true // a draft may have no log line yet
	if p.quorumLine != 0 {
		p.finish()
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return p.pol, nil
}
