package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/signednote"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// passwordEnv names the environment variable that supplies a private-key
// passphrase non-interactively (for CI).
const passwordEnv = "MCPRES_PASSWORD"

// cosignPasswordEnv is cosign's variable for the same passphrase, read
// when $MCPRES_PASSWORD is unset, so that a cosign-encrypted key works in
// a pipeline already set up for cosign.
const cosignPasswordEnv = "COSIGN_PASSWORD"

// lookupPassword returns $MCPRES_PASSWORD, else $COSIGN_PASSWORD, and the
// name of the variable it came from.
func lookupPassword() (pass, name string, ok bool) {
	if p, ok := os.LookupEnv(passwordEnv); ok {
		return p, passwordEnv, true
	}
	p, ok := os.LookupEnv(cosignPasswordEnv)
	return p, cosignPasswordEnv, ok
}

func (a *app) keyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Generate Ed25519 signing keys and print key fingerprints",
	}
	cmd.AddCommand(a.keyGenerateCommand(), a.keyFingerprintCommand())
	return cmd
}

func (a *app) keyGenerateCommand() *cobra.Command {
	var out string
	var encrypt bool
	cmd := &cobra.Command{
		Use:   "generate --out-base NAME",
		Short: "Generate an Ed25519 key pair: NAME.key (private) and NAME.pub (public)",
		Long: `Generate an Ed25519 key pair. NAME.key receives the private key as PKCS#8 PEM,
created with mode 0600; NAME.pub receives the public key as SPKI PEM. Existing
files are never overwritten. The key fingerprint (lowercase hex SHA-256 of the
SPKI DER, the keyid of MCP-RES envelopes) is printed on stdout.

With --encrypt the private key is encrypted (scrypt + secretbox, the format of
Sigstore/cosign "ENCRYPTED SIGSTORE PRIVATE KEY" files) with a passphrase taken
from $MCPRES_PASSWORD (else $COSIGN_PASSWORD) or, when both are unset, asked
for on the terminal.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := keyPairBase("--"+keyPairFlag, out, ".key", ".pub"); err != nil {
				return err
			}
			priv, err := attest.GenerateKey(rand.Reader)
			if err != nil {
				return cli.Failf("generating key: %v", err)
			}
			var privPEM []byte
			if encrypt {
				pass, err := a.newPassphrase()
				if err != nil {
					return err
				}
				privPEM, err = attest.MarshalEncryptedPrivateKeyPEM(priv, pass)
				if err != nil {
					return cli.Failf("encrypting private key: %v", err)
				}
			} else if privPEM, err = attest.MarshalPrivateKeyPEM(priv); err != nil {
				return cli.Failf("encoding private key: %v", err)
			}
			pub := priv.Public().(ed25519.PublicKey)
			pubPEM, err := attest.MarshalPublicKeyPEM(pub)
			if err != nil {
				return cli.Failf("encoding public key: %v", err)
			}
			if err := writeKeyPair(out+".key", privPEM, out+".pub", pubPEM); err != nil {
				return err
			}
			fp := ed25519strict.SPKIFingerprint(ed25519strict.MarshalSPKI(pub))
			a.wrote(out+".key", "Ed25519 private key (mode 0600; keep it secret)")
			a.wrote(out+".pub", "public key, fingerprint %s", fp)
			fmt.Fprintln(a.stdout, fp)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, keyPairFlag, "", keyPairUsage+" (NAME.key, NAME.pub)")
	cli.DeprecatedAlias(cmd, "out", keyPairFlag, cli.Usage)
	cmd.Flags().BoolVar(&encrypt, "encrypt", false, "encrypt the private key with a passphrase ($MCPRES_PASSWORD, $COSIGN_PASSWORD or a prompt)")
	return cmd
}

func (a *app) keyFingerprintCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "fingerprint FILE...",
		Short: "Print the lowercase hex SHA-256 of a public key's SPKI DER",
		Long: `Print the key fingerprint: the lowercase hex SHA-256 of the DER
SubjectPublicKeyInfo, which is the keyid of MCP-RES envelopes and the
keyFingerprint of trust policies. FILE is a public key (SPKI PEM or base64
SPKI) or a private key (the fingerprint of its public half is printed).

For one FILE the line is the fingerprint alone; for several, one line per
FILE in order, "FINGERPRINT  FILE" (as sha256sum prints). A FILE that is not
such a key is reported on stderr, the others are still printed, and the
exit status is 2.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var failed error
			for _, path := range args {
				pub, err := a.loadAnyPublicKey(path)
				if err != nil {
					if len(args) == 1 {
						return err
					}
					fmt.Fprintf(a.stderr, "mcpres: error: %v\n", err)
					failed = cli.Exit(exitInput)
					continue
				}
				fp := ed25519strict.SPKIFingerprint(ed25519strict.MarshalSPKI(pub))
				if len(args) == 1 {
					fmt.Fprintln(a.stdout, fp)
				} else {
					fmt.Fprintf(a.stdout, "%s  %s\n", fp, path)
				}
			}
			return failed
		},
	}
}

func (a *app) loadAnyPublicKey(path string) (ed25519.PublicKey, error) {
	data, err := regularfile.ReadFile(path, attest.MaxKeyFileBytes)
	if err != nil {
		return nil, cli.Failf("%v", err)
	}
	if signednote.RecogniseKey(data) != signednote.PEMPrivateKey && !bytes.Contains(data, []byte("PRIVATE KEY-----")) {
		pub, err := attest.ParsePublicKeyPEM(data)
		if err != nil {
			return nil, cli.Failf("public key %s: %v", path, signednote.WithFlag(err, "key fingerprint"))
		}
		return pub, nil
	}
	priv, err := a.parsePrivateKey(path, data)
	if err != nil {
		return nil, err
	}
	return priv.Public().(ed25519.PublicKey), nil
}

// loadPrivateKey reads a private key given as PATH, file:PATH or env:NAME
// (the PEM text in environment variable NAME, for CI secrets), warning when
// a key file is readable by other users. The key and passphrase never
// appear in messages, and the key is never written anywhere.
func (a *app) loadPrivateKey(spec string) (ed25519.PrivateKey, error) {
	if name, ok := strings.CutPrefix(spec, "env:"); ok {
		if name == "" {
			return nil, cli.Usagef("--key env: needs a variable name, as in env:MCPRES_SIGNING_KEY")
		}
		data, ok := os.LookupEnv(name)
		if !ok || data == "" {
			return nil, cli.Failf("private key: environment variable %s is not set or empty", name)
		}
		priv, err := attest.ParsePrivateKeyPEM([]byte(data), func() ([]byte, error) { return a.passphrase("$" + name) })
		if err != nil {
			return nil, cli.Failf("private key $%s: %v", name, signednote.WithFlag(err, "--key"))
		}
		return priv, nil
	}
	path := strings.TrimPrefix(spec, "file:")
	data, err := regularfile.ReadFile(path, attest.MaxKeyFileBytes)
	if err != nil {
		return nil, cli.Failf("private key: %v", err)
	}
	if st, err := os.Stat(path); err == nil && !signednote.RecogniseKey(data).Public() {
		// A public key given by mistake is refused below, not warned about.
		if w := cli.KeyFileWarning(path, st); w != "" {
			a.warnf("%s", w)
		}
	}
	priv, err := attest.ParsePrivateKeyPEM(data, func() ([]byte, error) { return a.passphrase(path) })
	if err != nil {
		return nil, cli.Failf("private key %s: %v", path, signednote.WithFlag(err, "--key"))
	}
	return priv, nil
}

func (a *app) parsePrivateKey(path string, data []byte) (ed25519.PrivateKey, error) {
	priv, err := attest.ParsePrivateKeyPEM(data, func() ([]byte, error) { return a.passphrase(path) })
	if err != nil {
		return nil, cli.Failf("private key %s: %v", path, err)
	}
	return priv, nil
}

// passphrase returns $MCPRES_PASSWORD, else $COSIGN_PASSWORD, or asks on
// the terminal.
func (a *app) passphrase(path string) ([]byte, error) {
	if p, _, ok := lookupPassword(); ok {
		return []byte(p), nil
	}
	return a.prompt(fmt.Sprintf("passphrase for %s: ", path))
}

// newPassphrase returns $MCPRES_PASSWORD, else $COSIGN_PASSWORD, or asks
// twice on the terminal.
func (a *app) newPassphrase() ([]byte, error) {
	if p, name, ok := lookupPassword(); ok {
		if p == "" {
			return nil, cli.Failf("$%s is set but empty", name)
		}
		return []byte(p), nil
	}
	p1, err := a.prompt("passphrase for the new key: ")
	if err != nil {
		return nil, err
	}
	p2, err := a.prompt("same passphrase again: ")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(p1, p2) {
		return nil, cli.Failf("the passphrases differ")
	}
	if len(p1) == 0 {
		return nil, cli.Failf("refusing an empty passphrase")
	}
	return p1, nil
}

var errNoTerminal = errors.New("no terminal to ask for a passphrase; set $" + passwordEnv)

func (a *app) prompt(msg string) ([]byte, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, cli.Fail(errNoTerminal)
	}
	defer tty.Close()
	if !term.IsTerminal(int(tty.Fd())) {
		return nil, cli.Fail(errNoTerminal)
	}
	fmt.Fprint(tty, msg)
	p, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, cli.Failf("reading passphrase: %v", err)
	}
	return p, nil
}
