package trustpolicy

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest"
)

// Limits of a tlog-policy text.
const (
	// MaxTLogPolicyBytes is the largest tlog-policy text accepted (the
	// schema's maxLength counts code points; this counts bytes).
	MaxTLogPolicyBytes = 65536
	// MaxTLogPolicyLines is the largest number of lines accepted.
	MaxTLogPolicyLines = 1024
)

// Signed-note verifier key types (C2SP signed-note, tlog-cosignature).
const (
	// NoteKeyEd25519 is an Ed25519 signed-note key: what a log signs its
	// checkpoints with.
	NoteKeyEd25519 byte = 0x01
	// NoteKeyECDSA is an ECDSA P-256 key in PKIX DER with the key hash
	// SHA-256(DER)[:4], the form transparency-dev/formats gives Rekor v1
	// checkpoint keys: a Rekor log, verified by mcpres-sigstore.
	NoteKeyECDSA byte = 0x02
	// NoteKeyCosignatureV1 is a cosignature/v1 Ed25519 key: what a witness
	// cosigns checkpoints with.
	NoteKeyCosignatureV1 byte = 0x04
)

// A NoteKey is a parsed signed-note verifier key ("vkey"):
// NAME "+" HASH "+" base64(TYPE ‖ KEY), where HASH is 8 lowercase hex
// digits of the first 4 bytes (big-endian) of SHA-256(NAME ‖ "\n" ‖ TYPE ‖
// KEY), or of SHA-256(DER) for an ECDSA key.
type NoteKey struct {
	Name string
	Hash uint32
	Type byte
	Key  ed25519.PublicKey // types 0x01 and 0x04
	DER  []byte            // type 0x02: the PKIX DER of an ECDSA P-256 key
}

// String returns the vkey.
func (k NoteKey) String() string {
	if k.Type == NoteKeyECDSA {
		return fmt.Sprintf("%s+%08x+%s", k.Name, k.Hash, base64.StdEncoding.EncodeToString(append([]byte{NoteKeyECDSA}, k.DER...)))
	}
	return FormatNoteKey(k.Name, k.Type, k.Key)
}

// raw is the key material that identifies the key whatever its name.
func (k NoteKey) raw() string {
	if k.Type == NoteKeyECDSA {
		return string(k.DER)
	}
	return string(k.Key)
}

// A TLogLog is a "log" line: a log whose checkpoints are signed by Key.
type TLogLog struct {
	Line int
	Key  NoteKey
	URL  string // optional
}

// A TLogWitness is a "witness" line.
type TLogWitness struct {
	Line int
	Name string
	Key  NoteKey
	URL  string // optional
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
//   - a VKEY is NAME+HASH+BASE64 with canonical padded base64 of a type byte
//     and a 32-byte Ed25519 key that passes attest.CheckEd25519PublicKey (no
//     small-order or non-canonical key), and HASH must be the key's hash;
//   - a URL, if given, is an absolute http or https URL;
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
//   - the same Ed25519 key on two log or witness lines, under two names or
//     the same one (keys are compared as raw 32-byte keys, whatever the vkey
//     name or type);
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
	p.finish()
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

// isControl reports the characters a tlog-policy line may not contain: C0
// and C1 controls and DEL, except TAB.
func isControl(r rune) bool {
	return r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0))
}

type tlogParser struct {
	pol        *TLogPolicy
	errs       []TLogError
	defined    map[string]int      // witness or group name → line (also when the line was invalid)
	keys       map[string]string   // raw key → "log \"x\" on line N" / "witness \"x\" on line N"
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
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
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
		p.errorf(n, "unknown keyword %q (want log, witness, group or quorum)", truncate(kw, 32))
	}
}

func (p *tlogParser) log(n int, f []string) {
	p.haveLog = true
	if len(f) != 2 && len(f) != 3 {
		p.errorf(n, "log: want \"log VKEY [URL]\", got %d fields", len(f))
		return
	}
	key, err := parseNoteKey(f[1])
	if err != nil {
		p.errorf(n, "log: %v", err)
		return
	}
	what := fmt.Sprintf("log %q", key.Name)
	ok := key.Type == NoteKeyECDSA || p.checkKeyType(n, what, key, NoteKeyEd25519)
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
	key, err := parseNoteKey(f[2])
	if err != nil {
		p.errorf(n, "witness %q: %v", name, err)
		return
	}
	what := fmt.Sprintf("witness %q", name)
	ok = p.checkKeyType(n, what, key, NoteKeyCosignatureV1) && ok
	ok = p.claimKey(n, what, key) && ok
	u := ""
	if len(f) == 4 {
		if u, err = checkURL(f[3]); err != nil {
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
			p.errorf(n, "group %q: threshold %q is not a decimal number, any or all", name, truncate(k, 32))
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
			p.errorf(n, "group %q: unknown member %q (members are witnesses or groups defined on earlier lines)", name, truncate(m, 128))
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
			p.errorf(p.quorumLine, "quorum names unknown witness or group %q", truncate(p.quorum, 128))
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

func (p *tlogParser) checkKeyType(n int, what string, k NoteKey, want byte) bool {
	if k.Type != want {
		p.errorf(n, "%s: key type 0x%02x (%s), want 0x%02x (%s)", what, k.Type, keyTypeName(k.Type), want, keyTypeName(want))
		return false
	}
	return true
}

// claimKey records a key; the same raw key may appear on one line only.
func (p *tlogParser) claimKey(n int, what string, k NoteKey) bool {
	raw := k.raw()
	if prev, dup := p.keys[raw]; dup {
		p.errorf(n, "%s: the same key is already listed for %s; one key under two names would count twice", what, prev)
		return false
	}
	p.keys[raw] = fmt.Sprintf("%s on line %d", what, n)
	return true
}

func keyTypeName(t byte) string {
	switch t {
	case NoteKeyEd25519:
		return "Ed25519 signed-note key"
	case NoteKeyCosignatureV1:
		return "cosignature/v1 key"
	case NoteKeyECDSA:
		return "ECDSA Rekor log key"
	}
	return "unsupported"
}

func checkName(name string) string {
	if isReserved(name) {
		return fmt.Sprintf("%q is a keyword and cannot be a name", name)
	}
	if len(name) > 128 {
		return fmt.Sprintf("name %q is %d bytes, more than 128", truncate(name, 32), len(name))
	}
	for _, r := range name {
		if r <= ' ' || r > '~' {
			return fmt.Sprintf("name %q: only printable ASCII characters are allowed", truncate(name, 128))
		}
	}
	return ""
}

func checkURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("URL %q is not an absolute http or https URL", truncate(s, 128))
	}
	return s, nil
}

// parseNoteKey parses a signed-note verifier key strictly: one encoding per
// key (lowercase hash, canonical padded base64), the hash checked, and the
// Ed25519 key checked with attest.CheckEd25519PublicKey.
func parseNoteKey(vkey string) (NoteKey, error) {
	// The base64 may itself contain "+": split at the first two only.
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return NoteKey{}, fmt.Errorf("malformed vkey (want NAME+HASH+BASE64, got %d parts)", len(parts))
	}
	name, hash, b64 := parts[0], parts[1], parts[2]
	if name == "" || strings.IndexFunc(name, unicode.IsSpace) >= 0 {
		return NoteKey{}, fmt.Errorf("vkey name %q is empty or contains spaces", truncate(name, 128))
	}
	if len(hash) != 8 || strings.Trim(hash, "0123456789abcdef") != "" {
		return NoteKey{}, fmt.Errorf("vkey %q: hash %q is not 8 lowercase hex digits", truncate(name, 128), truncate(hash, 16))
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || base64.StdEncoding.EncodeToString(raw) != b64 {
		return NoteKey{}, fmt.Errorf("vkey %q: key is not canonical padded base64", truncate(name, 128))
	}
	if len(raw) > 1 && raw[0] == NoteKeyECDSA {
		return parseECDSANoteKey(name, hash, raw[1:])
	}
	if len(raw) != 1+ed25519.PublicKeySize {
		return NoteKey{}, fmt.Errorf("vkey %q: key is %d bytes, want %d (a type byte and a 32-byte Ed25519 key)", truncate(name, 128), len(raw), 1+ed25519.PublicKeySize)
	}
	if raw[0] != NoteKeyEd25519 && raw[0] != NoteKeyCosignatureV1 {
		return NoteKey{}, fmt.Errorf("vkey %q: key type 0x%02x is not supported (want 0x01 Ed25519, 0x02 ECDSA or 0x04 cosignature/v1)", truncate(name, 128), raw[0])
	}
	want := noteKeyHash(name, raw)
	got, _ := strconv.ParseUint(hash, 16, 32)
	if uint32(got) != want {
		return NoteKey{}, fmt.Errorf("vkey %q: hash %s does not match the key (want %08x)", truncate(name, 128), hash, want)
	}
	pub := ed25519.PublicKey(slices.Clone(raw[1:]))
	if err := attest.CheckEd25519PublicKey(pub); err != nil {
		return NoteKey{}, fmt.Errorf("vkey %q: %w", truncate(name, 128), err)
	}
	return NoteKey{Name: name, Hash: want, Type: raw[0], Key: pub}, nil
}

// parseECDSANoteKey parses the key of a type 0x02 vkey: the PKIX DER of an
// ECDSA P-256 public key, re-encoded identically, whose hash is
// SHA-256(DER)[:4] (transparency-dev/formats' NewECDSAVerifier, Rekor's
// checkpoint key hint).
func parseECDSANoteKey(name, hash string, der []byte) (NoteKey, error) {
	pub, err := x509.ParsePKIXPublicKey(der)
	ec, ok := pub.(*ecdsa.PublicKey)
	if err != nil || !ok || ec.Curve != elliptic.P256() {
		return NoteKey{}, fmt.Errorf("vkey %q: type 0x02 key is not the PKIX DER of an ECDSA P-256 key", truncate(name, 128))
	}
	if again, err := x509.MarshalPKIXPublicKey(ec); err != nil || string(again) != string(der) {
		return NoteKey{}, fmt.Errorf("vkey %q: type 0x02 key is not in canonical DER", truncate(name, 128))
	}
	sum := sha256.Sum256(der)
	want := binary.BigEndian.Uint32(sum[:4])
	if got, _ := strconv.ParseUint(hash, 16, 32); uint32(got) != want {
		return NoteKey{}, fmt.Errorf("vkey %q: hash %s does not match the key (want %08x)", truncate(name, 128), hash, want)
	}
	return NoteKey{Name: name, Hash: want, Type: NoteKeyECDSA, DER: slices.Clone(der)}, nil
}

// noteKeyHash is the signed-note key hash of name and typed key bytes.
func noteKeyHash(name string, typedKey []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte("\n"))
	h.Write(typedKey)
	return binary.BigEndian.Uint32(h.Sum(nil)[:4])
}

// FormatNoteKey returns the vkey of an Ed25519 key of the given type
// ([NoteKeyEd25519] or [NoteKeyCosignatureV1]) under name.
func FormatNoteKey(name string, typ byte, pub ed25519.PublicKey) string {
	typed := append([]byte{typ}, pub...)
	return fmt.Sprintf("%s+%08x+%s", name, noteKeyHash(name, typed), base64.StdEncoding.EncodeToString(typed))
}

// truncate shortens s to at most n bytes for a message, on a character
// boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
