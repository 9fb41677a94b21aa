// Package keyhints words the key-kind errors of package keyfile for the
// commands of mcpres: which command makes a kind of key file and which
// commands and flags take it. The library says what a file is ("this is a
// PEM public key; not a PEM private key"); the CLIs say where it belongs:
//
//	this is a PEM public key (NAME.pub of `mcpres key generate`), for
//	signers and co-signers (witnesses) of attested bundles: `mcpres attest
//	verify --key`, …; --key takes a PEM private key (NAME.key of `mcpres
//	key generate`)
package keyhints

import (
	"errors"
	"strings"

	"github.com/mcpres/mcpres/keyfile"
)

// kinds says, for each kind, where it comes from and what takes it.
var kinds = map[keyfile.Kind]struct{ origin, uses string }{
	keyfile.PEMPrivateKey:      {"NAME.key of `mcpres key generate`", "signing attested bundles: `mcpres attest sign --key`, the role keys of `mcpres policy tuf`"},
	keyfile.PEMPublicKey:       {"NAME.pub of `mcpres key generate`", "signers and co-signers (witnesses) of attested bundles: `mcpres attest verify --key`, `mcpres policy add-signer`/`add-witness`/`revoke --key`, `mcpres key fingerprint`"},
	keyfile.LogSignerKey:       {"NAME.key of `mcpres log keygen`", "a transparency log's checkpoints: `mcpres log init`/`add`/`serve --key`"},
	keyfile.WitnessSignerKey:   {"NAME.key of `mcpres witness keygen`", "cosigning checkpoints: `mcpres witness cosign`/`serve --key`"},
	keyfile.LogVerifierKey:     {"NAME.vkey of `mcpres log keygen`", "`--log-key`, `mcpres witness serve --log` and the log lines of tlog policies (`mcpres policy tlog add-log --key`)"},
	keyfile.RekorVerifierKey:   {"a Rekor log's signed-note key", "the log lines of tlog policies (`mcpres policy tlog add-log --key`)"},
	keyfile.WitnessVerifierKey: {"NAME.vkey of `mcpres witness keygen`", "transparency-log witnesses: `mcpres log add-cosignature --witness-key` and the witness lines of tlog policies (`mcpres policy tlog add-witness --key`)"},
	keyfile.NoteKey:            {"from `mcpres log keygen` or `mcpres witness keygen`", ""},
}

// origin is "a PEM public key (NAME.pub of `mcpres key generate`)".
func origin(k keyfile.Kind) string {
	if o := kinds[k].origin; o != "" {
		return k.String() + " (" + o + ")"
	}
	return k.String()
}

// Describe says what the kind is, where it comes from and what takes it:
// "a PEM public key (NAME.pub of `mcpres key generate`), for signers and
// co-signers …".
func Describe(k keyfile.Kind) string {
	if u := kinds[k].uses; u != "" {
		return origin(k) + ", for " + u
	}
	return origin(k)
}

// Sentence words e for the CLI: what the file is, where it comes from
// and what takes it, then what flag takes (flag "" says "not" the wanted
// kind): "this is …; --key takes a PEM private key (NAME.key of `mcpres
// key generate`)". The reader's own error comes first, as in e.Error().
func Sentence(e *keyfile.KindError, flag string) string {
	msg := "this is " + Describe(e.Got)
	if e.Err != nil {
		msg = e.Err.Error() + ": " + msg
	}
	if flag != "" {
		return msg + "; " + flag + " takes " + origin(e.Want)
	}
	return msg + "; not " + origin(e.Want)
}

// Word returns err with the message of the *keyfile.KindError it holds,
// if any, worded by [Sentence] for flag (the flag or command that was
// given the file, or ""); the result matches what err matches. Any other
// err is returned as it is.
func Word(err error, flag string) error {
	var ke *keyfile.KindError
	if !errors.As(err, &ke) {
		return err
	}
	msg, plain := err.Error(), ke.Error()
	i := strings.LastIndex(msg, plain)
	if i < 0 {
		return err // a wrapper that hides its cause's text: leave it
	}
	return &worded{err: err, msg: msg[:i] + Sentence(ke, flag) + msg[i+len(plain):]}
}

// worded is an error with a reworded message.
type worded struct {
	err error
	msg string
}

func (w *worded) Error() string { return w.msg }
func (w *worded) Unwrap() error { return w.err }
