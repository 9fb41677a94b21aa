package trustpolicy

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpres/mcpres/internal/truncate"
	"github.com/mcpres/mcpres/signednote"
)

// Limits of a tlog-policy text.
const (
	// MaxTLogPolicyBytes is the largest tlog-policy text accepted (the
	// schema's maxLength counts code points; this counts bytes).
	MaxTLogPolicyBytes = 65536
	// MaxTLogPolicyLines is the largest number of lines accepted.
	MaxTLogPolicyLines = 1024
)

// A TLogLog is a "log" line: a log whose checkpoints are signed by Key.
type TLogLog struct {
	Line int
	Key  *signednote.Verifier // type 0x01, or 0x02 (a Rekor v1 log)
	URL  string               // optional
}

// A TLogWitness is a "witness" line.
type TLogWitness struct {
	Line int
	Name string
	Key  *signednote.Verifier // type 0x04
	URL  string               // optional
}

// A TLogGroup is a "group" line: satisfied when Threshold of its Members
// (witnesses or earlier groups) are.
type TLogGroup struct {
	Line      int
	Name      string
	Threshold int
	Members   []string
}

// A TLogPolicy is a parsed tlog-policy text. See [ParseTLogPolicy].
type TLogPolicy struct {
	Logs      []TLogLog
	Witnesses []TLogWitness
	Groups    []TLogGroup
	// Quorum names the witness or group that must be satisfied, or is
	// "none" (no cosignature is required).
	Quorum string
}

// A TLogError is one problem of a tlog-policy text. Line is 1-based, or 0
// for a problem of the whole text.
type TLogError struct {
	Line int
	Msg  string
}

func (e TLogError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// isReserved reports the words that cannot name a witness or group.
func isReserved(name string) bool {
	switch name {
	case "log", "witness", "group", "quorum", "any", "all", "none":
		return true
	}
	return false
}

// ParseTLogPolicy parses a tlog-policy text strictly and returns every
// problem it finds, or the policy when there is none (never both).
//
// The text is the line format of Sigsum policies as transparency-dev/formats
// reads it (witness.ParsePolicy), with keys written as C2SP signed-note
// verifier keys ("vkeys"):
//
//	log VKEY [URL]                   a log; VKEY has type 0x01 (Ed25519), or 0x02 (ECDSA P-256, a Rekor v1 log)
//	witness NAME VKEY [URL]          a witness; VKEY has type 0x04 (cosignature/v1)
//	group NAME K|any|all MEMBER...   K of the members (witnesses or earlier groups)
//	quorum NAME|none                 what must be satisfied
//
// "#" starts a comment; blank lines are ignored; fields are separated by
// spaces or tabs. The whole text is checked first: it must be UTF-8, at most
// [MaxTLogPolicyBytes] bytes and [MaxTLogPolicyLines] lines, with no control
// character other than LF and TAB (a CR is reported as such). Then, line by
// line:
//
//   - a NAME is 1..128 printable ASCII characters other than "#", and not
//     one of log, witness, group, quorum, any, all, none; no name is defined
//     twice;
//   - a VKEY is parsed by signednote.ParseVerifier (the one
//     parser of note keys): NAME+HASH+BASE64 with canonical padded base64 of
//     a type byte and a 32-byte Ed25519 key that passes the rules of
//     REFERENCE §6.7 (no small-order or non-canonical key), or the canonical
//     DER of a P-256 key, and HASH must be the key's hash;
//   - a URL, if given, is an absolute http or https URL; a witness's URL
//     is its base URL (C2SP tlog-witness: a log POSTs to URL/add-checkpoint),
//     so one whose last path segment is add-checkpoint is refused, naming
//     the base URL to write instead;
//   - K is a decimal number without leading zeros, any (1) or all (the
//     number of members), and must lie in 1..number of members;
//   - a group member must be defined on an earlier line (so there are no
//     cycles) and appear once in the group;
//   - exactly one quorum line, naming a witness or group (defined anywhere)
//     or none; at least one log line.
//
// Duplicates never count twice. formats' witness.ParsePolicy counts a
// witness as often as it is reachable, so three texts it accepts would
// satisfy a threshold with fewer real witnesses; all three are rejected here:
//
//   - the same key on two log or witness lines, under two names or the same
//     one (keys are compared by fingerprint, whatever the vkey name or type);
//   - a member listed twice in one group ("group g 2 W1 W1");
//   - a witness reachable through two members of one group ("group a 1 W1
//     W2", "group b 1 W1 W3", "group g 2 a b" would let W1 alone satisfy g).
//
// This is a separate parser rather than a check in front of
// witness.ParsePolicy because that function also needs a URL on every
// witness line, ignores log lines, accepts a threshold of 0 and leading
// zeros, and links the formats and sumdb/note packages into every binary;
// the tlog-policy text only needs to be syntax-checked and pinned here.
// The same holds for Tessera's tessera.NewWitnessGroupFromPolicy (it too
// counts a witness reachable twice, twice): a log that asks the witnesses
// of a policy (the URL of a witness line, tlog/witnessclient) reads the
// policy with this parser.
func ParseTLogPolicy(text string) (*TLogPolicy, []TLogError) {
	return parseTLogText(text, false)
}

// parseTLogText is ParseTLogPolicy, and with draft set
// ParseTLogPolicyDraft: the same checks, but no log line and no quorum line
// are not problems.
func parseTLogText(text string, draft bool) (*TLogPolicy, []TLogError) {
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
	if draft {
		p.haveLog = true // a draft may have no log line yet
	}
	if !draft || p.quorumLine != 0 {
		p.finish()
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return p.pol, nil
}

// precheckTLogText checks the whole text before its structure.
func precheckTLogText(text string) []TLogError {
	if len(text) > MaxTLogPolicyBytes {
		return []TLogError{{0, fmt.Sprintf("text is %d bytes, more than the limit of %d", len(text), MaxTLogPolicyBytes)}}
	}
	if n := strings.Count(text, "\n") + 1; n > MaxTLogPolicyLines {
		return []TLogError{{0, fmt.Sprintf("text has %d lines, more than the limit of %d", n, MaxTLogPolicyLines)}}
	}
	var errs []TLogError
	for i, line := range strings.Split(text, "\n") {
		if !utf8.ValidString(line) {
			errs = append(errs, TLogError{i + 1, "not valid UTF-8"})
			continue
		}
		if j := strings.IndexFunc(line, isControl); j >= 0 {
			r, _ := utf8.DecodeRuneInString(line[j:])
			if r == '\r' {
				errs = append(errs, TLogError{i + 1, "carriage return (CR): lines end with LF only"})
			} else {
				errs = append(errs, TLogError{i + 1, fmt.Sprintf("control character U+%04X", r)})
			}
		}
	}
	return errs
}

// isFieldSpace reports the characters that separate the fields of a line.
func isFieldSpace(r rune) bool { return r == ' ' || r == '\t' }

// isControl reports the characters a tlog-policy line may not contain: C0
// and C1 controls and DEL, except TAB.
func isControl(r rune) bool {
	return r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0))
}

type tlogParser struct {
	pol        *TLogPolicy
	errs       []TLogError
	defined    map[string]int      // witness or group name → line (also when the line was invalid)
	keys       map[string]string   // key fingerprint → "log \"x\" on line N" / "witness \"x\" on line N"
	leaves     map[string][]string // valid witness or group → the witnesses it reaches
	quorum     string
	quorumLine int
	haveLog    bool
}

func (p *tlogParser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, TLogError{line, fmt.Sprintf(format, args...)})
}

func (p *tlogParser) line(n int, line string) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	fields := strings.FieldsFunc(line, isFieldSpace)
	if len(fields) == 0 {
		return
	}
	switch kw := fields[0]; kw {
	case "log":
		p.log(n, fields)
	case "witness":
		p.witness(n, fields)
	case "group":
		p.group(n, fields)
	case "quorum":
		p.quorumDecl(n, fields)
	default:
		p.errorf(n, "unknown keyword %q (want log, witness, group or quorum)", truncate.String(kw, 32))
	}
}

func (p *tlogParser) log(n int, f []string) {
	p.haveLog = true
	if len(f) != 2 && len(f) != 3 {
		p.errorf(n, "log: want \"log VKEY [URL]\", got %d fields", len(f))
		return
	}
	key, err := signednote.ParseVerifier(f[1])
	if err != nil {
		p.errorf(n, "log: %v", err)
		return
	}
	what := fmt.Sprintf("log %q", key.Name())
	ok := key.Type() == signednote.TypeECDSA || p.checkKeyType(n, what, key, signednote.TypeEd25519)
	ok = p.claimKey(n, what, key) && ok
	u := ""
	if len(f) == 3 {
		if u, err = checkURL(f[2]); err != nil {
			p.errorf(n, "%s: %v", what, err)
			ok = false
		}
	}
	if ok {
		p.pol.Logs = append(p.pol.Logs, TLogLog{Line: n, Key: key, URL: u})
	}
}

func (p *tlogParser) witness(n int, f []string) {
	if len(f) != 3 && len(f) != 4 {
		p.errorf(n, "witness: want \"witness NAME VKEY [URL]\", got %d fields", len(f))
		if len(f) >= 2 {
			p.define(n, f[1]) // so that references to it are not reported again
		}
		return
	}
	name := f[1]
	ok := p.define(n, name)
	key, err := signednote.ParseVerifier(f[2])
	if err != nil {
		p.errorf(n, "witness %q: %v", name, err)
		return
	}
	what := fmt.Sprintf("witness %q", name)
	ok = p.checkKeyType(n, what, key, signednote.TypeCosignatureV1) && ok
	ok = p.claimKey(n, what, key) && ok
	u := ""
	if len(f) == 4 {
		if u, err = checkURL(f[3]); err == nil {
			err = checkWitnessBaseURL(u)
		}
		if err != nil {
			p.errorf(n, "%s: %v", what, err)
			ok = false
		}
	}
	if ok {
		p.pol.Witnesses = append(p.pol.Witnesses, TLogWitness{Line: n, Name: name, Key: key, URL: u})
		p.leaves[name] = []string{name}
	}
}

func (p *tlogParser) group(n int, f []string) {
	if len(f) < 4 {
		p.errorf(n, "group: want \"group NAME K|any|all MEMBER...\", got %d fields", len(f))
		if len(f) >= 2 {
			p.define(n, f[1])
		}
		return
	}
	name, k, members := f[1], f[2], f[3:]
	ok := p.define(n, name)
	var threshold int
	switch k {
	case "any":
		threshold = 1
	case "all":
		threshold = len(members)
	default:
		v, err := strconv.Atoi(k)
		if err != nil || strings.Trim(k, "0123456789") != "" || strconv.Itoa(v) != k || len(k) > 9 {
			p.errorf(n, "group %q: threshold %q is not a decimal number, any or all", name, truncate.String(k, 32))
			ok = false
			break
		}
		threshold = v
		if v < 1 || v > len(members) {
			p.errorf(n, "group %q: threshold %d is outside 1..%d (the number of members)", name, v, len(members))
			ok = false
		}
	}
	seen := map[string]bool{}
	var reach []string
	from := map[string]string{} // witness → member it was reached through
	for _, m := range members {
		if seen[m] {
			p.errorf(n, "group %q lists %q twice: a member counts once", name, m)
			ok = false
			continue
		}
		seen[m] = true
		if m == name {
			p.errorf(n, "group %q lists itself", name)
			ok = false
			continue
		}
		line, isDefined := p.defined[m]
		if !isDefined || line == n {
			p.errorf(n, "group %q: unknown member %q (members are witnesses or groups defined on earlier lines)", name, truncate.String(m, 128))
			ok = false
			continue
		}
		lv, valid := p.leaves[m]
		if !valid {
			ok = false // its own line was reported
			continue
		}
		for _, w := range lv {
			if other, dup := from[w]; dup {
				p.errorf(n, "group %q: witness %q is reachable through both %q and %q and would count twice", name, w, other, m)
				ok = false
				continue
			}
			from[w] = m
			reach = append(reach, w)
		}
	}
	if ok {
		p.pol.Groups = append(p.pol.Groups, TLogGroup{Line: n, Name: name, Threshold: threshold, Members: slices.Clone(members)})
		p.leaves[name] = reach
	}
}

func (p *tlogParser) quorumDecl(n int, f []string) {
	if len(f) != 2 {
		p.errorf(n, "quorum: want \"quorum NAME\" or \"quorum none\", got %d fields", len(f))
		return
	}
	if p.quorumLine != 0 {
		p.errorf(n, "quorum is already defined on line %d", p.quorumLine)
		return
	}
	p.quorum, p.quorumLine = f[1], n
}

func (p *tlogParser) finish() {
	if !p.haveLog {
		p.errorf(0, "no log line: a tlog policy names at least one log key")
	}
	switch {
	case p.quorumLine == 0:
		p.errorf(0, "no quorum line")
	case p.quorum == "none":
		p.pol.Quorum = "none"
	default:
		if _, ok := p.defined[p.quorum]; !ok {
			p.errorf(p.quorumLine, "quorum names unknown witness or group %q", truncate.String(p.quorum, 128))
			return
		}
		p.pol.Quorum = p.quorum
	}
}

// define records a witness or group name; it reports a bad or repeated name.
func (p *tlogParser) define(n int, name string) bool {
	if msg := checkName(name); msg != "" {
		p.errorf(n, "%s", msg)
		return false
	}
	if line, dup := p.defined[name]; dup {
		p.errorf(n, "name %q is already defined on line %d", name, line)
		return false
	}
	p.defined[name] = n
	return true
}

func (p *tlogParser) checkKeyType(n int, what string, k *signednote.Verifier, want byte) bool {
	if err := k.CheckType(want); err != nil {
		p.errorf(n, "%s: %v", what, err)
		return false
	}
	return true
}

// claimKey records a key; the same key may appear on one line only.
func (p *tlogParser) claimKey(n int, what string, k *signednote.Verifier) bool {
	raw := k.Fingerprint()
	if prev, dup := p.keys[raw]; dup {
		p.errorf(n, "%s: the same key is already listed for %s; one key under two names would count twice", what, prev)
		return false
	}
	p.keys[raw] = fmt.Sprintf("%s on line %d", what, n)
	return true
}

func checkName(name string) string {
	if isReserved(name) {
		return fmt.Sprintf("%q is a keyword and cannot be a name", name)
	}
	if len(name) > 128 {
		return fmt.Sprintf("name %q is %d bytes, more than 128", truncate.String(name, 32), len(name))
	}
	for _, r := range name {
		if r <= ' ' || r > '~' {
			return fmt.Sprintf("name %q: only printable ASCII characters are allowed", truncate.String(name, 128))
		}
	}
	return ""
}

func checkURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("URL %q is not an absolute http or https URL", truncate.String(s, 128))
	}
	return s, nil
}

// witnessEndpoint is the path segment a log appends to a witness's URL to
// submit a checkpoint (C2SP tlog-witness: POST URL/add-checkpoint).
const witnessEndpoint = "add-checkpoint"

// checkWitnessBaseURL refuses a witness URL that names the endpoint rather
// than the witness: a log would POST to .../add-checkpoint/add-checkpoint,
// be answered 404, and never get that witness's cosignature, a loss no
// verifier would see until a quorum failed. The URL is refused, not
// rewritten: a policy means what its text says, and the error gives the
// text to write.
func checkWitnessBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err // checkURL parsed it
	}
	dir, last := path.Split(strings.TrimRight(u.Path, "/"))
	if last != witnessEndpoint {
		return nil
	}
	base := *u
	base.Path, base.RawPath = dir, ""
	return fmt.Errorf("URL %q ends in /%s, the submission endpoint: give the witness's base URL %q (a log POSTs to URL/%s)",
		truncate.String(s, 128), witnessEndpoint, truncate.String(base.String(), 128), witnessEndpoint)
}
