package keyfile

import (
	"bytes"
	"encoding/base64"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/signednote"
)

// A Kind is what a key file holds, as [Recognise] tells it: PEM keys sign
// and verify attested bundles, signed-note keys sign and verify a log's
// checkpoints and their cosignatures; "witness" names a key of each world
// (a co-signer of attested bundles, a cosigner of checkpoints). A reader
// given the wrong kind says what the file is ([KindError]) instead of
// failing on its encoding.
type Kind int

// The kinds of key file.
const (
	// UnknownKey: none of the kinds below (or a damaged one).
	UnknownKey Kind = iota
	// PEMPrivateKey: a PKCS#8 PEM private key, plain or encrypted in
	// cosign's format ([ParsePrivateKeyPEM]).
	PEMPrivateKey
	// PEMPublicKey: an SPKI PEM public key, or the base64 of an Ed25519
	// SPKI ([ParsePublicKeyPEM]).
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

// kindNames says what each kind is.
var kindNames = [...]string{
	UnknownKey:         "not a recognised key file",
	PEMPrivateKey:      "a PEM private key",
	PEMPublicKey:       "a PEM public key",
	LogSignerKey:       "a signed-note log private key",
	WitnessSignerKey:   "a signed-note witness private key",
	LogVerifierKey:     "a signed-note log verifier key",
	RekorVerifierKey:   "an ECDSA Rekor log verifier key",
	WitnessVerifierKey: "a cosignature/v1 witness verifier key",
	NoteKey:            "a signed-note key",
}

// String says what the kind is: "a PEM private key".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return kindNames[UnknownKey]
	}
	return kindNames[k]
}

// Public reports whether the kind holds no secret: a public or verifier
// key.
func (k Kind) Public() bool {
	return k == PEMPublicKey || k == LogVerifierKey || k == RekorVerifierKey || k == WitnessVerifierKey
}

// Recognise tells which kind of key file data is: a PEM block by its type
// (PEMType… only), base64 of an Ed25519 SPKI, or a signed-note key that
// parses strictly (signednote.ParseVerifier, signednote.SignerKeyType). It
// decides nothing: every reader still parses what it takes with its own
// strict parser; this only names what it was given instead. Nothing of a
// private key is kept or returned.
func Recognise(data []byte) Kind {
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
		switch typ, ok := signednote.SignerKeyType(string(t)); {
		case !ok:
			return UnknownKey
		case typ == signednote.TypeEd25519:
			return LogSignerKey
		case typ == signednote.TypeCosignatureV1:
			return WitnessSignerKey
		}
		return UnknownKey
	}
	v, err := signednote.ParseVerifier(string(t))
	if err != nil {
		return UnknownKey
	}
	switch v.Type() {
	case signednote.TypeEd25519:
		return LogVerifierKey
	case signednote.TypeECDSA:
		return RekorVerifierKey
	case signednote.TypeCosignatureV1:
		return WitnessVerifierKey
	}
	return UnknownKey
}

// A KindError says that a reader was given a key file of another kind than
// it takes, and what the file is:
//
//	this is a signed-note log verifier key; not a PEM private key
//
// It names kinds only: which command or flag takes which kind is the
// business of the program that prints it.
type KindError struct {
	Got, Want Kind
	// Err, when set, is the reader's own error, printed first: a key-type
	// check's message, or a sentinel the reader's errors match.
	Err error
}

// Unwrap returns Err.
func (e *KindError) Unwrap() error { return e.Err }

func (e *KindError) Error() string {
	msg := "this is " + e.Got.String() + "; not " + e.Want.String()
	if e.Err != nil {
		return e.Err.Error() + ": " + msg
	}
	return msg
}

// CheckKind returns a *KindError when data is recognisably a key file of
// another kind than any of want (the first is the one named), and nil when
// it is of one of them or not recognised (the reader's own error then says
// what is wrong). [NoteKey] stands for every signed-note kind.
func CheckKind(data []byte, want ...Kind) error {
	got := Recognise(data)
	if got == UnknownKey || len(want) == 0 {
		return nil
	}
	for _, w := range want {
		if got == w || (w == NoteKey && got >= LogSignerKey && got <= WitnessVerifierKey) {
			return nil
		}
	}
	return &KindError{Got: got, Want: want[0]}
}
