package keyref

import (
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
)

// maxNoteKeyBytes bounds a signed-note key file: one line of well under
// 200 bytes.
const maxNoteKeyBytes = 4096

// openNoteKey parses a signed-note private key of kind want: one line
// holding one key, optionally followed by one newline.
func openNoteKey(r *Ref, data []byte, want keyfile.Kind) (*Key, error) {
	if err := keyfile.CheckKind(data, want); err != nil {
		return nil, err
	}
	if len(data) > maxNoteKeyBytes {
		return nil, fmt.Errorf("more than %d bytes: not a key", maxNoteKeyBytes)
	}
	text := strings.TrimSuffix(string(data), "\n")
	if strings.ContainsAny(text, "\r\n\t ") || text == "" {
		return nil, errors.New("not a key (one line holding one key)")
	}
	var name string
	var typ byte
	var s crypto.Signer
	if want == keyfile.LogSignerKey {
		ls, err := signednote.ParseLogSigner(text)
		if err != nil {
			return nil, err
		}
		name, typ, s = ls.Name(), signednote.TypeEd25519, ls.Signer()
	} else {
		ws, err := signednote.ParseWitnessSigner(text)
		if err != nil {
			return nil, err
		}
		name, typ, s = ws.Name(), signednote.TypeCosignatureV1, ws.Signer()
	}
	k := &Key{ref: r, pub: s.Public().(ed25519.PublicKey), signer: s, noteName: name, noteType: typ}
	if priv, ok := s.(ed25519.PrivateKey); ok {
		k.closer = clearer(priv)
	}
	return k, nil
}

// ErrNoName means that a key in a token or an agent has no name, and a
// signed-note signer needs one (a log's origin, a witness's name).
var ErrNoName = errors.New("the key has no name")

// LogSigner returns the checkpoint signer of the log whose origin is
// origin, with key k. A signed-note log key from a file or a variable
// carries its origin: origin must be "" or that name. Any other key (in a
// token or an agent) needs origin (else [ErrNoName]). A witness key is
// refused with a *keyfile.KindError; a name that is not the key file's
// with a *[NameMismatchError].
func LogSigner(k *Key, origin string) (*signednote.LogSigner, error) {
	name, err := noteName(k, origin, signednote.TypeEd25519, "log")
	if err != nil {
		return nil, err
	}
	return signednote.NewLogSigner(name, k)
}

// WitnessSigner returns the cosignature/v1 signer of the witness named
// name, with key k: as [LogSigner], for a witness key.
func WitnessSigner(k *Key, name string) (*signednote.WitnessSigner, error) {
	n, err := noteName(k, name, signednote.TypeCosignatureV1, "witness")
	if err != nil {
		return nil, err
	}
	return signednote.NewWitnessSigner(n, k)
}

// A NameMismatchError says that the name given for a signed-note signer is
// not the one its key file carries.
type NameMismatchError struct {
	Given, Name string
	// Role is "log" (the name is its origin) or "witness".
	Role string
}

func (e *NameMismatchError) Error() string {
	return fmt.Sprintf("the name %q given is not the %s key's name %q: a signed-note key file carries its name", e.Given, e.Role, e.Name)
}

// noteName is the name a signed-note signer of key k takes: the key
// file's, or given; role is "log" or "witness".
func noteName(k *Key, given string, typ byte, role string) (string, error) {
	name, got := k.NoteName()
	switch {
	case got == 0 && given == "":
		return "", fmt.Errorf("%w: a key in a token or an agent has none, and no %s name was given", ErrNoName, role)
	case got == 0:
		return given, nil
	case got != typ:
		kinds := map[byte]keyfile.Kind{signednote.TypeEd25519: keyfile.LogSignerKey, signednote.TypeCosignatureV1: keyfile.WitnessSignerKey}
		return "", &keyfile.KindError{Got: kinds[got], Want: kinds[typ]}
	case given != "" && given != name:
		return "", &NameMismatchError{Given: given, Name: name, Role: role}
	}
	return name, nil
}
