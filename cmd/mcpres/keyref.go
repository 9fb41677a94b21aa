package main

import (
	"errors"
	"os"
	"strings"

	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/signednote"
)

// keyRefUsage is the help text of every --key that takes a private key.
const keyRefUsage = "PATH or file:PATH, env:NAME, pkcs11:URI (a key in a PKCS#11 token) or ssh-agent:SHA256:FINGERPRINT; see docs/keys.md"

// openKey opens the private key reference spec (package keyref) given to
// flag; a key file must be of kind want (keyref.Options.Want). what names
// the key in messages ("private key", "log key"). Every failure is exit 2
// and says what to do; no message holds a PIN or key material.
func (a *app) openKey(flag, spec, what string, want keyfile.Kind) (*keyref.Key, error) {
	return a.openKeyWith(flag, spec, what, keyref.Options{Want: want})
}

func (a *app) openKeyWith(flag, spec, what string, o keyref.Options) (*keyref.Key, error) {
	ref, err := keyref.Parse(spec)
	if err != nil {
		return nil, cli.Usagef("%s: %v", flag, err)
	}
	o.Passphrase = a.passphrase
	o.PKCS11 = keyref.FindHelperOpener(nil)
	o.Warn = func(msg string) { a.warnf("%s", msg) }
	k, err := keyref.OpenRef(ref, o)
	if err != nil {
		if ref.Scheme == keyref.Env && strings.Contains(err.Error(), "is not set or empty") {
			return nil, cli.Failf("%s: %v", what, err)
		}
		return nil, cli.Failf("%s %s: %v", what, ref, keyhints.Word(err, flag))
	}
	return k, nil
}

// keyInputs is the key file of spec, when it names one, for the check
// that no output replaces an input.
func keyInputs(spec string) []string {
	if ref, err := keyref.Parse(spec); err == nil && ref.Scheme == keyref.File {
		return []string{ref.Path}
	}
	return nil
}

// noteKeySpec is spec, or env:defEnv when spec is empty and that
// variable is set (the CI default of the log and witness keys).
func noteKeySpec(spec, defEnv string) (string, error) {
	if spec != "" {
		return spec, nil
	}
	if _, ok := os.LookupEnv(defEnv); !ok {
		return "", cli.Usagef("--key is required (or set $%s to the private key)", defEnv)
	}
	return "env:" + defEnv, nil
}

// openLogSigner opens a log's key (--key, default $MCPRES_LOG_KEY) as
// the checkpoint signer of the log whose origin is origin: a signed-note
// key file carries its origin (origin "" or the same), a key in a token
// or an agent takes origin.
func (a *app) openLogSigner(spec, origin string) (*signednote.LogSigner, *keyref.Key, error) {
	spec, err := noteKeySpec(spec, logKeyEnv)
	if err != nil {
		return nil, nil, err
	}
	k, err := a.openKey("--key", spec, "log key", keyfile.LogSignerKey)
	if err != nil {
		return nil, nil, err
	}
	s, err := keyref.LogSigner(k, origin)
	if err != nil {
		k.Close()
		return nil, nil, noteSignerError("log key", "--origin", k, err)
	}
	return s, k, nil
}

// openWitnessSigner opens a witness's key (--key, default
// $MCPRES_WITNESS_KEY) for the witness named name (see openLogSigner).
func (a *app) openWitnessSigner(spec, name string) (*signednote.WitnessSigner, *keyref.Key, error) {
	spec, err := noteKeySpec(spec, witnessKeyEnv)
	if err != nil {
		return nil, nil, err
	}
	k, err := a.openKey("--key", spec, "witness key", keyfile.WitnessSignerKey)
	if err != nil {
		return nil, nil, err
	}
	s, err := keyref.WitnessSigner(k, name)
	if err != nil {
		k.Close()
		return nil, nil, noteSignerError("witness key", "--name", k, err)
	}
	return s, k, nil
}

// noteSignerError words an error of keyref.LogSigner or WitnessSigner for
// the key k (what: "log key"); nameFlag is the flag that gives the name
// (--origin, --name).
func noteSignerError(what, nameFlag string, k *keyref.Key, err error) error {
	var ne *keyref.NameMismatchError
	switch {
	case errors.Is(err, keyref.ErrNoName):
		return cli.Usagef("%s %s: %v; give the %s's with %s", what, k, err, strings.Fields(what)[0], nameFlag)
	case errors.As(err, &ne):
		return cli.Failf("%s %s: %s %q is not the %s key's name %q: a signed-note key file carries its name", what, k, nameFlag, ne.Given, ne.Role, ne.Name)
	}
	return cli.Failf("%s %s: %v", what, k, keyhints.Word(err, "--key"))
}
