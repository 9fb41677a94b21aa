// Package keyref resolves key references: the one syntax by which every
// command of mcpres takes a private key, and the one signer every signing
// function takes (attest.SignBundle, attest.Cosign, signednote's
// LogSigner and WitnessSigner, trustpolicy/tufdist): a crypto.Signer whose
// Public() is an ed25519.PublicKey. A Go program that keeps its keys
// elsewhere (a KMS) passes its own crypto.Signer to those functions and
// needs nothing of this package.
//
// # Syntax
//
//	PATH, file:PATH      a key file (PKCS#8 PEM, optionally encrypted in
//	                     cosign's format; or a signed-note key for logs
//	                     and witnesses)
//	env:NAME             the same text in environment variable NAME (a CI
//	                     secret)
//	pkcs11:URI           an RFC 7512 PKCS#11 URI: a key in a token (an HSM,
//	                     SoftHSM2, a smart card)
//	ssh-agent:SHA256:FP  a key held by the ssh-agent at $SSH_AUTH_SOCK, by
//	                     its fingerprint as ssh-keygen -l prints it
//
// The schemes are exact. What only looks like a reference (PKCS11:,
// pkcs11;, white space around it, another URI scheme, a path holding a
// PIN attribute) is refused, never read as a path; a key file whose path
// has a colon before its first "/" is given as file:PATH or ./PATH
// ([Parse]).
//
// A pkcs11 URI takes the path attributes token, manufacturer, serial,
// model and slot-id (which token), object and id (which key: its CKA_LABEL
// and CKA_ID; one of them is required) and type (private, or absent), and
// the query attributes module-path (default $MCPRES_PKCS11_MODULE),
// pin-source (a file holding the PIN) and pin-value (the PIN itself;
// default for both: $MCPRES_PKCS11_PIN); every other attribute is refused.
// The URI must match exactly one token and one private key, which must be
// an Ed25519 key (CKK_EC_EDWARDS on edwards25519, with its public key
// object beside it); it signs with CKM_EDDSA, pure Ed25519, never
// pre-hashed. An ssh-agent key must be a plain ssh-ed25519 key.
//
//	pkcs11:token=release;object=mcpres-signer?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=/run/secrets/pin
//	ssh-agent:SHA256:drkQ9HwGr4rF65cNzP51OzueWeLcXTBa7D617NNI7rM
//
// # Guarantees
//
// A key in a token or an agent never leaves it: [Key.Sign] asks it for
// each signature, and nothing is written to disk. A PIN is never printed
// or put in an error message: everything that quotes a reference passes
// it through [Redact] ([Ref.String] and [URI.String] do), which replaces
// pin-value in every spelling. A pin-source file that other users may
// read is refused ([ErrPINFileMode]). The signatures a [Key] returns are the holder's: the signing
// functions of mcpres verify each one with the public key before they use
// it (ed25519strict.Sign), so a token that signs with another key, or
// returns an Ed25519ph signature, is refused. A token or agent that goes
// away after [Open] makes Sign fail with [ErrUnavailable], and the next
// signature tries again (a new session, a new agent connection), so a
// long-running server recovers when the key returns.
//
// PKCS#11 modules are C libraries, loaded through cgo, and this package
// links no cgo: Options.PKCS11 opens pkcs11: references, either in this
// process (package keyref/p11's Open, which needs cgo; p11.Supported says
// whether this build has it) or in the helper process cmd/mcpres-pkcs11
// ([HelperOpener], [FindHelperOpener]: what mcpres does, so that its own
// binary stays internally linked and small). Without one, or with a
// helper built with CGO_ENABLED=0, pkcs11: fails with [ErrNoPKCS11] and
// says how to get a build that has it; every other scheme works in every
// build.
//
// # The helper protocol
//
// How a program that links no cgo (mcpres) signs
// with a PKCS#11 key held by a helper process (cmd/mcpres-pkcs11, which
// runs [ServeHelper] with package keyref/p11's opener). The parent writes
// frames to the helper's standard input and reads its answers on its
// standard output; a frame is
//
//	TYPE (1 byte) ‖ LENGTH (4 bytes, big-endian) ‖ PAYLOAD (LENGTH bytes)
//
// with LENGTH at most [MaxHelperFrame]. The parent sends one 'O' (open:
// four fields, each a 4-byte big-endian length and its bytes: the URI
// with pin-value redacted, the module path, "1" or "0" for whether a PIN
// follows, and the PIN), answered 'K' (the 32-byte public key) or 'E';
// then any number of 'S' (sign: the message), each answered 'G' (the
// signature) or 'E'. An 'E' payload is one byte of error code (the Err…
// value it matches) and the message. The helper ends when its standard
// input ends, and after an 'E' to 'O'. The PIN never appears on a
// command line or in the environment of the helper.
//
// The package reads the environment only through Options.LookupEnv and
// files only through internal/regularfile (a FIFO or a device is refused
// at once); it keeps no global state.
package keyref
