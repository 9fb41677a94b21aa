package trustpolicy

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
