package keyref

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpres/mcpres/internal/truncate"
)

// A Scheme is where a reference says the key is.
type Scheme int

// The schemes of a key reference.
const (
	// File: PATH or file:PATH, a key file.
	File Scheme = iota + 1
	// Env: env:NAME, the key file's text in environment variable NAME.
	Env
	// PKCS11: pkcs11:…, an RFC 7512 URI naming a key in a token.
	PKCS11
	// SSHAgent: ssh-agent:SHA256:…, a key held by the ssh-agent at
	// $SSH_AUTH_SOCK.
	SSHAgent
)

// MaxRefBytes bounds a key reference: a PKCS#11 URI is well under 1 KiB.
const MaxRefBytes = 4096

// A Ref is a parsed key reference. Exactly the fields of its Scheme are
// set.
type Ref struct {
	Scheme Scheme
	// Path is the key file of a File reference.
	Path string
	// Env is the variable of an Env reference.
	Env string
	// PKCS11 is the URI of a PKCS11 reference.
	PKCS11 *URI
	// Fingerprint is the key fingerprint of an SSHAgent reference as
	// ssh-keygen -l prints it: "SHA256:" and 43 characters of unpadded
	// base64.
	Fingerprint string
}

// ErrSyntax means that a reference is malformed (a usage error); the
// message says which rule it breaks and never quotes a PIN.
var ErrSyntax = errors.New("malformed key reference")

// Parse parses a key reference:
//
//	PATH | file:PATH | env:NAME | pkcs11:URI-BODY | ssh-agent:SHA256:FINGERPRINT
//
// The schemes are exact and lower-case. What looks like a reference but
// is not one is refused rather than read as a path, so that a typo never
// sends a PKCS#11 URI and its PIN to the file system and into messages:
//
//   - a reference with white space before or after it;
//   - one whose scheme part (before its first ":" or ";") resembles
//     file, env, pkcs11 or ssh-agent without being it followed by ":"
//     ("PKCS11:", "pkcs11;", "pkcs12:", "ssh_agent:", "File:"): the
//     error asks "did you mean pkcs11:?";
//   - one that starts like any URI, SCHEME: with SCHEME a letter then
//     letters, digits, "+", "-" or "." ("https:", "c:d.key"), but a
//     drive letter followed by "\" or "/" (C:\keys\a.key);
//   - a path that holds a PIN attribute (pin-value=, pin=: see [Redact]).
//
// So a key file whose path has a colon before any "/" is given as
// file:PATH or ./PATH (file:c:d.key, ./pkcs11:x). NAME is an environment
// variable name (letters, digits, "_", not starting with a digit); the
// pkcs11 URI is parsed by [ParseURI]. Errors match [ErrSyntax] and quote
// nothing of the reference but through [Redact].
func Parse(s string) (*Ref, error) {
	switch {
	case s == "":
		return nil, fmt.Errorf("%w: empty", ErrSyntax)
	case len(s) > MaxRefBytes:
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrSyntax, len(s), MaxRefBytes)
	case strings.TrimSpace(s) != s:
		hint := ""
		if near := nearScheme(strings.TrimSpace(s)); near != "" {
			hint = " (did you mean " + near + ":…?)"
		}
		return nil, fmt.Errorf("%w: white space before or after the reference%s; remove it", ErrSyntax, hint)
	}
	if name, ok := strings.CutPrefix(s, "env:"); ok {
		if name == "" {
			return nil, fmt.Errorf("%w: env: needs a variable name, as in env:MCPRES_SIGNING_KEY", ErrSyntax)
		}
		if !validEnvName(name) {
			return nil, fmt.Errorf("%w: env:%s: want env:NAME with NAME a variable name, as in env:MCPRES_SIGNING_KEY", ErrSyntax, redactTrunc(name, 64))
		}
		return &Ref{Scheme: Env, Env: name}, nil
	}
	if strings.HasPrefix(s, "pkcs11:") {
		u, err := ParseURI(s)
		if err != nil {
			return nil, err
		}
		return &Ref{Scheme: PKCS11, PKCS11: u}, nil
	}
	if fp, ok := strings.CutPrefix(s, "ssh-agent:"); ok {
		if err := checkSSHFingerprint(fp); err != nil {
			return nil, err
		}
		return &Ref{Scheme: SSHAgent, Fingerprint: fp}, nil
	}
	path, explicit := strings.CutPrefix(s, "file:")
	if !explicit {
		if err := checkNotScheme(s); err != nil {
			return nil, err
		}
	}
	switch {
	case path == "":
		return nil, fmt.Errorf("%w: file: needs a path", ErrSyntax)
	case holdsPIN(path):
		return nil, fmt.Errorf("%w: %s: a key file path that holds a PIN attribute looks like a mistyped PKCS#11 URI (did you mean pkcs11:?)", ErrSyntax, quoteRef(path, 64))
	}
	return &Ref{Scheme: File, Path: path}, nil
}

// The schemes of a reference as written, for the typo checks.
var schemeNames = []string{"file", "env", "pkcs11", "ssh-agent"}

// checkNotScheme refuses a reference that is no exact scheme (those are
// parsed before) but starts like one, or like a URI: see [Parse].
func checkNotScheme(s string) error {
	i := strings.IndexAny(s, ":;")
	if i <= 0 {
		return nil
	}
	part, sep := s[:i], s[i]
	if near := nearScheme(s); near != "" {
		return fmt.Errorf("%w: %s%c is not a scheme of a key reference (did you mean %s:?); a key file whose path starts so is given as file:PATH or ./PATH",
			ErrSyntax, quoteRef(part, 32), sep, near)
	}
	if sep == ':' && uriScheme(part) && !(len(part) == 1 && len(s) > 2 && (s[2] == '/' || s[2] == '\\')) {
		return fmt.Errorf("%w: %s: is not a scheme of a key reference (file:, env:, pkcs11:, ssh-agent:); a key file whose path has a colon is given as file:PATH or ./PATH",
			ErrSyntax, quoteRef(part, 32))
	}
	return nil
}

// nearScheme returns the scheme that the scheme part of s (before its
// first ":" or ";", and with no "/" or "\\": that is a path) resembles, or
// "": the same letters and digits in any case, or for pkcs11 and
// ssh-agent up to two letters off (pkcs12, pcks11, sshagent, ssh_agnet).
func nearScheme(s string) string {
	i := strings.IndexAny(s, ":;")
	if i <= 0 || strings.ContainsAny(s[:i], "/\\") {
		return ""
	}
	part := letters(s[:i])
	for _, name := range schemeNames {
		n := letters(name)
		if part == n || (len(n) > 4 && editDistance(part, n) <= 2) {
			return name
		}
	}
	return ""
}

// letters is s lower-cased, with only its ASCII letters and digits.
func letters(s string) string {
	var b strings.Builder
	for _, c := range []byte(strings.ToLower(s)) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// editDistance is the Levenshtein distance of a and b (bytes), with a
// swap of two neighbours counted once; it gives up (returns 3) for
// strings more than twice as long as a scheme.
func editDistance(a, b string) int {
	if len(a) > 2*len(b)+2 {
		return 3
	}
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// uriScheme reports whether s has the syntax of a URI scheme (RFC 3986:
// a letter, then letters, digits, "+", "-" and ".").
func uriScheme(s string) bool {
	for i, c := range []byte(s) {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// redactTrunc is part of a reference for a message: redacted, then cut
// to at most max bytes.
func redactTrunc(s string, max int) string { return truncate.String(Redact(s), max) }

// quoteRef is redactTrunc, quoted.
func quoteRef(s string, max int) string { return strconv.Quote(redactTrunc(s, max)) }

// String returns the reference as it is written, without any secret
// ([Redact]: a pkcs11 URI's pin-value is replaced by "REDACTED").
// Messages quote this.
func (r *Ref) String() string {
	switch r.Scheme {
	case File:
		return Redact(r.Path)
	case Env:
		return "$" + r.Env
	case PKCS11:
		return r.PKCS11.String()
	case SSHAgent:
		return "ssh-agent:" + r.Fingerprint
	}
	return "(no key reference)"
}

// Secret reports whether the reference is a key file or text that holds
// the private key itself (File, Env), rather than naming a key that never
// leaves its token or agent.
func (r *Ref) Secret() bool { return r.Scheme == File || r.Scheme == Env }

func validEnvName(name string) bool {
	if name == "" || len(name) > 256 || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, c := range []byte(name) {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// checkSSHFingerprint checks "SHA256:" and the unpadded base64 of 32
// bytes, the form ssh-keygen -l prints.
func checkSSHFingerprint(fp string) error {
	b64, ok := strings.CutPrefix(fp, "SHA256:")
	if !ok {
		return fmt.Errorf("%w: ssh-agent:%s: want ssh-agent:SHA256:FINGERPRINT as 'ssh-keygen -l' or 'ssh-add -l' prints it", ErrSyntax, redactTrunc(fp, 64))
	}
	raw, err := base64.RawStdEncoding.Strict().DecodeString(b64)
	if err != nil || len(raw) != 32 || base64.RawStdEncoding.EncodeToString(raw) != b64 {
		return fmt.Errorf("%w: ssh-agent:%s: the fingerprint is not SHA256: and 43 characters of unpadded base64", ErrSyntax, redactTrunc(fp, 64))
	}
	return nil
}
