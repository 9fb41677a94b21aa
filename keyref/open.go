package keyref

import (
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyfile"
)

// Environment variables read by [Open] (through Options.LookupEnv).
const (
	// EnvPKCS11Module is the PKCS#11 module a pkcs11: URI without
	// module-path loads.
	EnvPKCS11Module = "MCPRES_PKCS11_MODULE"
	// EnvPKCS11PIN is the user PIN of a pkcs11: URI without pin-source or
	// pin-value.
	EnvPKCS11PIN = "MCPRES_PKCS11_PIN"
	// EnvSSHAuthSock is the ssh-agent's socket.
	EnvSSHAuthSock = "SSH_AUTH_SOCK"
)

// Errors of [Open] and of signing through a [Key]. Each is returned
// wrapped with the details a person needs to act (the tokens that exist,
// the keys the agent holds, the type a key has); test with errors.Is. No
// message contains a PIN, a passphrase or private key material.
var (
	// ErrNoPKCS11: this program cannot open pkcs11: keys (no
	// Options.PKCS11, a helper built without cgo, or none found); the
	// message says how to get that support.
	ErrNoPKCS11 = errors.New("no PKCS#11 support")
	// ErrModule: the PKCS#11 module is not given, not found or cannot be
	// loaded and initialised.
	ErrModule = errors.New("PKCS#11 module")
	// ErrTokenNotFound: no token matches the URI's token attributes (the
	// message lists the tokens there are), or several do.
	ErrTokenNotFound = errors.New("PKCS#11 token not found")
	// ErrObjectNotFound: the token holds no private key matching object=
	// and id= (the message lists those it holds), or several.
	ErrObjectNotFound = errors.New("PKCS#11 key not found")
	// ErrPINRequired: the token needs a PIN and none was given.
	ErrPINRequired = errors.New("PKCS#11 PIN required")
	// ErrPINIncorrect: the token refused the PIN.
	ErrPINIncorrect = errors.New("PKCS#11 PIN incorrect")
	// ErrPINLocked: the token's user PIN is locked (too many wrong PINs);
	// its security officer must unlock it.
	ErrPINLocked = errors.New("PKCS#11 PIN locked")
	// ErrPINFileMode: the pin-source file is readable or writable by its
	// group or other users; the message says to chmod 600 it.
	ErrPINFileMode = errors.New("PKCS#11 PIN file open to other users")
	// ErrKeyType: the key (a token object or an agent key) is not an
	// Ed25519 key; the message names its type.
	ErrKeyType = errors.New("not an Ed25519 key")
	// ErrAgentUnreachable: $SSH_AUTH_SOCK is not set or no agent answers
	// there.
	ErrAgentUnreachable = errors.New("ssh-agent not reachable")
	// ErrNotInAgent: the agent holds no key with the fingerprint (the
	// message lists those it holds).
	ErrNotInAgent = errors.New("key not in the ssh-agent")
	// ErrPrehash: an Ed25519ph (prehashed) signature was asked of a key in
	// a PKCS#11 token or an ssh-agent, which sign pure Ed25519 only
	// (mcpres asks its tokens for CKM_EDDSA without prehash parameters, and
	// the agent protocol has no prehashed Ed25519).
	ErrPrehash = errors.New("a key in a token or an agent cannot sign Ed25519ph (prehashed)")
	// ErrUnavailable: a token or agent that was opened could not sign (it
	// is gone, or refuses); the next signature tries again. Servers
	// answer it 503.
	ErrUnavailable = errors.New("the signing key is unavailable")
)

// MaxPINBytes bounds a PIN read from a pin-source file.
const MaxPINBytes = 1024

// Options configure [Open]. The zero value reads the process environment
// and takes PEM private keys.
type Options struct {
	// Want is the kind of key file a File or Env reference must hold:
	// keyfile.PEMPrivateKey (the zero value UnknownKey means that
	// too), keyfile.LogSignerKey or keyfile.WitnessSignerKey.
	// Another kind is refused with a *keyfile.KindError naming it.
	Want keyfile.Kind
	// LookupEnv reads environment variables; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Passphrase returns the passphrase of an encrypted PEM key; label
	// names the key (a path or $NAME). nil refuses encrypted keys
	// (keyfile.ErrPassphraseRequired).
	Passphrase func(label string) ([]byte, error)
	// Warn, if set, receives warnings: a key file readable by other users,
	// a PIN given in the URI itself.
	Warn func(msg string)
	// PKCS11 opens the key of a pkcs11: reference: p11.Open (package
	// keyref/p11, in this process, cgo) or [HelperOpener] (in a helper
	// process, cmd/mcpres-pkcs11). nil refuses pkcs11: with
	// [ErrNoPKCS11].
	PKCS11 PKCS11Opener
}

// A Holder is a key that stays where it is (a token, an agent, a helper
// process): an Ed25519 crypto.Signer, and Close to let it go.
type Holder interface {
	crypto.Signer
	io.Closer
}

// A PKCS11Request is a pkcs11: reference resolved for a [PKCS11Opener]:
// the URI, the module to load and the user PIN (HasPIN false: none was
// given). PIN is a secret: openers never print it.
type PKCS11Request struct {
	URI    *URI
	Module string
	PIN    string
	HasPIN bool
}

// A PKCS11Opener opens the one Ed25519 private key a request names,
// with the errors of [Open] (ErrModule, ErrTokenNotFound, …); its Holder
// signs with CKM_EDDSA and, once it fails, tries again on the next
// signature ([ErrUnavailable] meanwhile).
type PKCS11Opener func(*PKCS11Request) (Holder, error)

func (o *Options) lookupEnv(name string) (string, bool) {
	if o.LookupEnv != nil {
		return o.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

func (o *Options) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

// A Key is an opened key reference: an Ed25519 crypto.Signer whose
// Public() is its ed25519.PublicKey. A key in a token or an agent stays
// there: Sign asks it each time. Close releases the token session or the
// agent connection. A Key is safe for concurrent use (signatures through
// one token session or agent connection are made one at a time).
type Key struct {
	ref      *Ref
	pub      ed25519.PublicKey
	signer   crypto.Signer
	closer   io.Closer
	noteName string
	noteType byte
}

var _ crypto.Signer = (*Key)(nil)

// Public returns the ed25519.PublicKey of the key.
func (k *Key) Public() crypto.PublicKey { return k.pub }

// PublicKey returns the Ed25519 public key.
func (k *Key) PublicKey() ed25519.PublicKey { return k.pub }

// Fingerprint returns the key fingerprint (ed25519strict.Fingerprint):
// the lowercase hex SHA-256 of its SPKI DER.
func (k *Key) Fingerprint() string { return ed25519strict.Fingerprint(k.pub) }

// Sign signs digest, which is the whole message: opts must be
// crypto.Hash(0) (pure Ed25519). A key read from a file or a variable
// also signs Ed25519ph, the prehashed variant (opts an *ed25519.Options
// with Hash crypto.SHA512 and digest the SHA-512 of the message), which
// Rekor's hashedrekord entries need; a key in a token or an agent cannot
// (they sign pure Ed25519 only) and fails with [ErrPrehash]. A token or an
// agent that cannot sign yields an error matching [ErrUnavailable]. The
// signature is the key holder's: callers check it (ed25519strict.Sign,
// which every signing function of mcpres uses).
func (k *Key) Sign(rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	if eo, ok := opts.(*ed25519.Options); ok && eo.Context != "" {
		return nil, errors.New("keyref: Ed25519ctx is not supported")
	}
	if eo, ok := opts.(*ed25519.Options); ok && eo.Hash == crypto.SHA512 {
		priv, ok := k.signer.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("%w: %s is held by a token or an agent", ErrPrehash, k)
		}
		return priv.Sign(rand, digest, &ed25519.Options{Hash: crypto.SHA512})
	}
	if opts == nil || opts.HashFunc() != crypto.Hash(0) {
		return nil, errors.New("keyref: only pure Ed25519 (crypto.Hash(0)) and, for a key file, Ed25519ph are supported")
	}
	return k.signer.Sign(rand, digest, crypto.Hash(0))
}

// Ref returns the reference the key was opened from.
func (k *Key) Ref() *Ref { return k.ref }

// String names the key for messages: the path, $NAME, the URI (without a
// PIN) or ssh-agent:SHA256:….
func (k *Key) String() string { return k.ref.String() }

// InToken reports whether the key is held by a token or an agent (it never
// left it), not read from a file or a variable.
func (k *Key) InToken() bool { return !k.ref.Secret() }

// NoteName returns the name (log origin or witness name) and type of a
// signed-note private key read from a file or a variable, or "" and 0:
// a PEM key, or a key in a token or an agent, has no name.
func (k *Key) NoteName() (string, byte) { return k.noteName, k.noteType }

// Close releases the token session or the agent connection; for a key
// read from a file it clears the private key from memory. The Key cannot
// sign afterwards.
func (k *Key) Close() error {
	if k.closer == nil {
		return nil
	}
	err := k.closer.Close()
	k.closer = nil
	return err
}

// Open resolves the key reference ref (see [Parse]) to its key:
//
//   - File, Env: the key file's text (read through internal/regularfile:
//     a regular file only, at most keyfile.MaxBytes) is parsed as
//     o.Want says: a PEM private key with keyfile.ParsePrivateKeyPEM
//     (o.Passphrase for an encrypted one), a signed-note key with
//     signednote's parsers (its name is [Key.NoteName]). A key file
//     readable by other users is warned about (o.Warn).
//   - PKCS11: the module (module-path=, else $MCPRES_PKCS11_MODULE) is
//     loaded, the one token matching the URI's token attributes found,
//     the user logged in with the PIN (pin-source= file, which its group
//     and other users may neither read nor write: ErrPINFileMode;
//     pin-value=; else $MCPRES_PKCS11_PIN; none when the token needs no
//     login), and the
//     one private key matching object= and id= found. It must be
//     CKK_EC_EDWARDS on edwards25519, with its public key object (same
//     CKA_ID) beside it; it signs with CKM_EDDSA (pure Ed25519).
//   - SSHAgent: the agent at $SSH_AUTH_SOCK must hold an ssh-ed25519 key
//     with the fingerprint.
//
// Failures are the Err… values above (wrapped), package keyfile's errors
// (another kind of key file: a *keyfile.KindError), signednote's key
// errors, or [ErrSyntax].
func Open(ref string, o Options) (*Key, error) {
	r, err := Parse(ref)
	if err != nil {
		return nil, err
	}
	return OpenRef(r, o)
}

// OpenRef is [Open] of a parsed reference.
func OpenRef(r *Ref, o Options) (*Key, error) {
	switch r.Scheme {
	case File, Env:
		return openText(r, o)
	case PKCS11:
		return openPKCS11(r, &o)
	case SSHAgent:
		return openAgent(r, &o)
	}
	return nil, fmt.Errorf("%w: unknown scheme", ErrSyntax)
}

// openPKCS11 resolves the module and the PIN of a pkcs11: reference and
// opens it with o.PKCS11.
func openPKCS11(r *Ref, o *Options) (*Key, error) {
	u := r.PKCS11
	req := &PKCS11Request{URI: u, Module: u.ModulePath}
	if req.Module == "" {
		req.Module, _ = o.lookupEnv(EnvPKCS11Module)
	}
	if req.Module == "" {
		return nil, fmt.Errorf("%w: none given: add ?module-path=/path/to/module.so to the URI or set $%s (SoftHSM2: /usr/lib/softhsm/libsofthsm2.so)", ErrModule, EnvPKCS11Module)
	}
	if st, err := os.Stat(req.Module); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s: not found (or not a regular file)", ErrModule, req.Module)
	}
	switch {
	case u.HasPINValue():
		req.PIN, req.HasPIN = u.pinValue, true
		o.warn("%s carries its PIN (pin-value): anyone who sees the command line sees it; prefer pin-source=FILE or $%s", r, EnvPKCS11PIN)
	case u.PINSource != "":
		path := strings.TrimPrefix(u.PINSource, "file:")
		data, err := regularfile.ReadFile(path, MaxPINBytes)
		if err != nil {
			return nil, fmt.Errorf("PKCS#11 pin-source: %w", redactError(err))
		}
		if err := checkPINFileMode(path); err != nil {
			clear(data)
			return nil, err
		}
		req.PIN, req.HasPIN = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r"), true
		clear(data)
	default:
		req.PIN, req.HasPIN = o.lookupEnv(EnvPKCS11PIN)
	}
	if o.PKCS11 == nil {
		return nil, fmt.Errorf("%s: %w in this program", r, ErrNoPKCS11)
	}
	h, err := o.PKCS11(req)
	if err != nil {
		return nil, err
	}
	pub, err := ed25519strict.SignerPublicKey(h)
	if err != nil {
		h.Close()
		return nil, err
	}
	return &Key{ref: r, pub: pub, signer: h, closer: h}, nil
}

// checkPINFileMode refuses a pin-source file that its group or other
// users may read or write, as ssh refuses such a private key file: the
// PIN is the key's only guard.
func checkPINFileMode(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("PKCS#11 pin-source: %w", redactError(err))
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %04o, so other users can read the PIN: chmod 600 %s", ErrPINFileMode, Redact(path), perm, Redact(path))
	}
	return nil
}

// openText reads a key file or a variable and parses it.
func openText(r *Ref, o Options) (*Key, error) {
	var data []byte
	label := r.String()
	if r.Scheme == Env {
		v, ok := o.lookupEnv(r.Env)
		if !ok || v == "" {
			return nil, fmt.Errorf("environment variable %s is not set or empty", r.Env)
		}
		data = []byte(v)
	} else {
		var err error
		if data, err = regularfile.ReadFile(r.Path, keyfile.MaxBytes); err != nil {
			return nil, redactError(err)
		}
		if st, err := os.Stat(r.Path); err == nil && st.Mode().Perm()&0o077 != 0 && !keyfile.Recognise(data).Public() {
			// A public key given by mistake is refused below, not warned about.
			o.warn("private key %s is readable by other users (mode %04o); chmod 600 it", r, st.Mode().Perm())
		}
	}
	defer clear(data)
	want := o.Want
	if want == keyfile.UnknownKey {
		want = keyfile.PEMPrivateKey
	}
	switch want {
	case keyfile.LogSignerKey, keyfile.WitnessSignerKey:
		return openNoteKey(r, data, want)
	}
	var pass func() ([]byte, error)
	if o.Passphrase != nil {
		pass = func() ([]byte, error) { return o.Passphrase(label) }
	}
	priv, err := keyfile.ParsePrivateKeyPEM(data, pass)
	if err != nil {
		return nil, err
	}
	pub := priv.Public().(ed25519.PublicKey)
	if err := ed25519strict.CheckPublicKey(pub); err != nil {
		clear(priv)
		return nil, err
	}
	return &Key{ref: r, pub: pub, signer: priv, closer: clearer(priv)}, nil
}

// clearer clears a private key on Close.
type clearer ed25519.PrivateKey

func (c clearer) Close() error { clear(c); return nil }
