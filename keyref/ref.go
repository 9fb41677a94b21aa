package keyref

import (
	"encoding/base64"
	"errors"
	"fmt"
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
// A reference that starts with "pkcs11:" or "ssh-agent:" is never a path
// (give ./pkcs11:… for a file of that name). NAME is an environment
// variable name (letters, digits, "_", not starting with a digit); the
// pkcs11 URI is parsed by [ParseURI]. Errors match [ErrSyntax].
func Parse(s string) (*Ref, error) {
	switch {
	case s == "":
		return nil, fmt.Errorf("%w: empty", ErrSyntax)
	case len(s) > MaxRefBytes:
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrSyntax, len(s), MaxRefBytes)
	}
	if name, ok := strings.CutPrefix(s, "env:"); ok {
		if name == "" {
			return nil, fmt.Errorf("%w: env: needs a variable name, as in env:MCPRES_SIGNING_KEY", ErrSyntax)
		}
		if !validEnvName(name) {
			return nil, fmt.Errorf("%w: env:%s: want env:NAME with NAME a variable name, as in env:MCPRES_SIGNING_KEY", ErrSyntax, truncate.String(name, 64))
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
	path := strings.TrimPrefix(s, "file:")
	if path == "" {
		return nil, fmt.Errorf("%w: file: needs a path", ErrSyntax)
	}
	return &Ref{Scheme: File, Path: path}, nil
}

// String returns the reference as it is written, without any secret: a
// pkcs11 URI's pin-value is replaced by "REDACTED". Messages quote this.
func (r *Ref) String() string {
	switch r.Scheme {
	case File:
		return r.Path
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
		return fmt.Errorf("%w: ssh-agent:%s: want ssh-agent:SHA256:FINGERPRINT as 'ssh-keygen -l' or 'ssh-add -l' prints it", ErrSyntax, truncate.String(fp, 64))
	}
	raw, err := base64.RawStdEncoding.Strict().DecodeString(b64)
	if err != nil || len(raw) != 32 || base64.RawStdEncoding.EncodeToString(raw) != b64 {
		return fmt.Errorf("%w: ssh-agent:%s: the fingerprint is not SHA256: and 43 characters of unpadded base64", ErrSyntax, truncate.String(fp, 64))
	}
	return nil
}
