package signednote

import (
	"bytes"
	"encoding/base64"
	"errors"

	"github.com/mcpres/mcpres/ed25519strict"
)

// A KeyKind is what a key file holds, as [RecogniseKey] tells it: mcpres
// takes PEM keys (key generate) for signing and verifying attested bundles
// and signed-note keys (log keygen, witness keygen) for logs and their
// witnesses, and "witness" names a key of each world (a co-signer of
// attested bundles, a cosigner of checkpoints). A reader given the wrong
// kind says what the file is and which command takes it
// ([KeyKindError]) instead of failing on its encoding.
type KeyKind int

// The kinds of key file.
const (
	// UnknownKey: none of the kinds below (or a damaged one).
	UnknownKey KeyKind = iota
	// PEMPrivateKey: a PKCS#8 PEM private key, plain or encrypted in
	// cosign's format (NAME.key of mcpres key generate).
	PEMPrivateKey
	// PEMPublicKey: an SPKI PEM public key, or the base64 of an Ed25519
	// SPKI (NAME.pub of mcpres key generate).
	PEMPublicKey
	// LogSignerKey: a signed-note private key of type 0x01.
	LogSignerKey
	// WitnessSignerKey: a signed-note private key of type 0x04.
	WitnessSignerKey
	// LogVerifierKey: a signed-note verifier key of type 0x01.
	LogVerifierKey
	// RekorVerifierKey: a signed-note verifier key of type 0x02.
	RekorVerifierKey
	// WitnessVerifierKey: a cosignature/v1 verifier key (type 0x04).
	WitnessVerifierKey
	// NoteKey is never recognised: a reader that takes signed-note keys
	// of a kind it does not know wants one of them.
	NoteKey
)

// PEM block types of the two PEM kinds (package attest reads and writes
// them).
const (
	// PEMTypePrivateKey is an unencrypted PKCS#8 private key.
	PEMTypePrivateKey = "PRIVATE KEY"
	// PEMTypePublicKey is a DER SubjectPublicKeyInfo.
	PEMTypePublicKey = "PUBLIC KEY"
	// PEMTypeEncryptedSigstore is a private key encrypted the way cosign
	// and sigstore do it: the block's bytes are the JSON container of
	// go-securesystemslib's encrypted package (scrypt key derivation, NaCl
	// secretbox) whose plaintext is the PKCS#8 DER.
	PEMTypeEncryptedSigstore = "ENCRYPTED SIGSTORE PRIVATE KEY"
	// PEMTypeEncryptedCosign is the older name cosign gave the same format;
	// it is read but never written.
	PEMTypeEncryptedCosign = "ENCRYPTED COSIGN PRIVATE KEY"
)

// keyKinds says, for each kind, what it is, where it comes from and what
// takes it.
var keyKinds = map[KeyKind]struct{ name, origin, uses string }{
	UnknownKey:         {"not a key file mcpres recognises", "", ""},
	PEMPrivateKey:      {"a PEM private key", "NAME.key of `mcpres key generate`", "signing attested bundles: `mcpres attest sign --key`, the role keys of `mcpres policy tuf`"},
	PEMPublicKey:       {"a PEM public key", "NAME.pub of `mcpres key generate`", "signers and co-signers (witnesses) of attested bundles: `mcpres attest verify --key`, `mcpres policy add-signer`/`add-witness`/`revoke --key`, `mcpres key fingerprint`"},
	LogSignerKey:       {"a signed-note log private key", "NAME.key of `mcpres log keygen`", "a transparency log's checkpoints: `mcpres log init`/`add`/`serve --key`"},
	WitnessSignerKey:   {"a signed-note witness private key", "NAME.key of `mcpres witness keygen`", "cosigning checkpoints: `mcpres witness cosign`/`serve --key`"},
	LogVerifierKey:     {"a signed-note log verifier key", "NAME.vkey of `mcpres log keygen`", "`--log-key`, `mcpres witness serve --log` and the log lines of tlog policies (`mcpres policy tlog add-log --key`)"},
	RekorVerifierKey:   {"an ECDSA Rekor log verifier key", "a Rekor log's signed-note key", "the log lines of tlog policies (`mcpres policy tlog add-log --key`)"},
	WitnessVerifierKey: {"a cosignature/v1 witness verifier key", "NAME.vkey of `mcpres witness keygen`", "transparency-log witnesses: `mcpres log add-cosignature --witness-key` and the witness lines of tlog policies (`mcpres policy tlog add-witness --key`)"},
	NoteKey:            {"a signed-note key", "from `mcpres log keygen` or `mcpres witness keygen`", ""},
}

// String says what the kind is: "a PEM private key".
func (k KeyKind) String() string { return keyKinds[k].name }

// Public reports whether the kind holds no secret: a public or verifier
// key.
func (k KeyKind) Public() bool {
	return k == PEMPublicKey || k == LogVerifierKey || k == RekorVerifierKey || k == WitnessVerifierKey
}

// Uses says what takes keys of this kind: "signers and co-signers
// (witnesses) of attested bundles: `mcpres attest verify --key`, …".
func (k KeyKind) Uses() string { return keyKinds[k].uses }

// describe is "a PEM public key (NAME.pub of `mcpres key generate`)".
func (k KeyKind) describe() string {
	if o := keyKinds[k].origin; o != "" {
		return k.String() + " (" + o + ")"
	}
	return k.String()
}

// Describe says what the kind is, where it comes from and what takes it:
// "a PEM public key (NAME.pub of `mcpres key generate`), for signers and
// co-signers …".
func (k KeyKind) Describe() string {
	if u := k.Uses(); u != "" {
		return k.describe() + ", for " + u
	}
	return k.describe()
}

// RecogniseKey tells which kind of key file data is: a PEM block by its
// type (PEMType… only), base64 of an Ed25519 SPKI, or a signed-note key
// that parses strictly ([ParseVerifier], or the rules of the signer
// parsers). It decides nothing: every reader still parses what it takes
// with its own strict parser; this only names what it was given instead.
// Nothing of a private key is kept or returned.
func RecogniseKey(data []byte) KeyKind {
	t := bytes.TrimSpace(data)
	if rest, ok := bytes.CutPrefix(t, []byte("-----BEGIN ")); ok {
		typ, _, _ := bytes.Cut(rest, []byte("-----"))
		switch string(typ) {
		case PEMTypePrivateKey, PEMTypeEncryptedSigstore, PEMTypeEncryptedCosign:
			return PEMPrivateKey
		case PEMTypePublicKey:
			return PEMPublicKey
		}
		return UnknownKey
	}
	if len(t) > 4096 || bytes.ContainsAny(t, " \t\r\n") {
		return UnknownKey
	}
	if der, err := base64.StdEncoding.Strict().DecodeString(string(t)); err == nil {
		if _, ok := ed25519strict.KeyFromSPKI(der); ok {
			return PEMPublicKey
		}
	}
	if bytes.HasPrefix(t, []byte("PRIVATE+KEY+")) {
		_, typ, priv, err := parsePrivate(string(t))
		clear(priv)
		switch {
		case err != nil:
			return UnknownKey
		case typ == TypeEd25519:
			return LogSignerKey
		case typ == TypeCosignatureV1:
			return WitnessSignerKey
		}
		return UnknownKey
	}
	v, err := ParseVerifier(string(t))
	if err != nil {
		return UnknownKey
	}
	switch v.Type() {
	case TypeEd25519:
		return LogVerifierKey
	case TypeECDSA:
		return RekorVerifierKey
	case TypeCosignatureV1:
		return WitnessVerifierKey
	}
	return UnknownKey
}

// A KeyKindError says that a reader was given a key file of another kind
// than it takes, what the file is and which command takes it:
//
//	this is a signed-note log verifier key (NAME.vkey of `mcpres log
//	keygen`), for `--log-key`, …; --key takes a PEM private key (NAME.key
//	of `mcpres key generate`)
type KeyKindError struct {
	Got, Want KeyKind
	// Flag names the flag or command that was given the file, when the
	// reader's caller knows it ([WithFlag]); else the message says "not"
	// the wanted kind.
	Flag string
	// Err, when set, is the reader's own error, printed first: a key-type
	// check's message, or a sentinel the reader's errors match.
	Err error
}

// Unwrap returns Err.
func (e *KeyKindError) Unwrap() error { return e.Err }

func (e *KeyKindError) Error() string {
	msg := "this is " + e.Got.Describe()
	if e.Err != nil {
		msg = e.Err.Error() + ": " + msg
	}
	if e.Flag != "" {
		return msg + "; " + e.Flag + " takes " + e.Want.describe()
	}
	return msg + "; not " + e.Want.describe()
}

// CheckKeyKind returns a *KeyKindError when data is recognisably a key file
// of another kind than any of want (the first is the one named), and nil
// when it is of one of them or not recognised (the reader's own error then
// says what is wrong).
func CheckKeyKind(data []byte, want ...KeyKind) error {
	got := RecogniseKey(data)
	if got == UnknownKey || len(want) == 0 {
		return nil
	}
	for _, w := range want {
		if got == w || (w == NoteKey && got >= LogSignerKey && got <= WitnessVerifierKey) {
			return nil
		}
	}
	return &KeyKindError{Got: got, Want: want[0]}
}

// WithFlag names flag in a *KeyKindError that err holds ("--key takes …")
// and returns err. Call it on a reader's error before wrapping it: a
// message wrapped with fmt.Errorf is fixed when the wrapper is made.
func WithFlag(err error, flag string) error {
	var ke *KeyKindError
	if errors.As(err, &ke) && ke.Flag == "" {
		ke.Flag = flag
	}
	return err
}

// kindMismatch is the error err of a note-key parser that wants want and
// was given text: the *KeyKindError instead when text is another kind of
// key file, or after err when err is the parser's key-type check (whose
// message stays first).
func kindMismatch(text string, want KeyKind, err error, typeCheck bool) error {
	var ke *KeyKindError
	if !errors.As(CheckKeyKind([]byte(text), want), &ke) {
		return err
	}
	if typeCheck {
		ke.Err = err
	}
	return ke
}
