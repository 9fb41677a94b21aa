package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"

	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyref"
	"github.com/spf13/cobra"
)

func (a *app) keyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Generate Ed25519 signing keys; public halves and fingerprints of any key reference",
	}
	cmd.AddCommand(a.keyGenerateCommand(), a.keyPublicCommand(), a.keyFingerprintCommand())
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
			priv, err := keyfile.GenerateKey(rand.Reader)
			if err != nil {
				return cli.Failf("generating key: %v", err)
			}
			var privPEM []byte
			if encrypt {
				pass, err := a.msgs().NewPassphrase()
				if err != nil {
					return cli.Fail(err)
				}
				privPEM, err = keyfile.MarshalEncryptedPrivateKeyPEM(priv, pass)
				if err != nil {
					return cli.Failf("encrypting private key: %v", err)
				}
			} else if privPEM, err = keyfile.MarshalPrivateKeyPEM(priv); err != nil {
				return cli.Failf("encoding private key: %v", err)
			}
			pub := priv.Public().(ed25519.PublicKey)
			pubPEM, err := keyfile.MarshalPublicKeyPEM(pub)
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
		Use:   "fingerprint KEY...",
		Short: "Print the lowercase hex SHA-256 of a public key's SPKI DER",
		Long: `Print the key fingerprint: the lowercase hex SHA-256 of the DER
SubjectPublicKeyInfo, which is the keyid of MCP-RES envelopes and the
keyFingerprint of trust policies. KEY is a public key file (SPKI PEM or
base64 SPKI), or a private key reference — PATH, file:PATH, env:NAME,
pkcs11:URI, ssh-agent:SHA256:FINGERPRINT (see docs/keys.md) — whose public
half's fingerprint is printed.

For one KEY the line is the fingerprint alone; for several, one line per
KEY in order, "FINGERPRINT  KEY" (as sha256sum prints). A KEY that is not
such a key is reported on stderr, the others are still printed, and the
exit status is 2.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var failed error
			for _, spec := range args {
				pub, err := a.loadAnyPublicKey(spec)
				if err != nil {
					if len(args) == 1 {
						return err
					}
					a.msgs().Errorf("%v", err)
					failed = cli.Exit(exitInput)
					continue
				}
				fp := ed25519strict.Fingerprint(pub)
				if len(args) == 1 {
					fmt.Fprintln(a.stdout, fp)
				} else {
					fmt.Fprintf(a.stdout, "%s  %s\n", fp, spec)
				}
			}
			return failed
		},
	}
}

func (a *app) keyPublicCommand() *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "public KEY -o PUB.pem",
		Short: "Write the public half of a private key reference as SPKI PEM",
		Long: `Write the public key of KEY as SPKI PEM, the format trust policies
(policy add-signer/add-witness --key) and attest verify --key take. KEY is a
private key reference: PATH or file:PATH, env:NAME, pkcs11:URI (a key in a
PKCS#11 token) or ssh-agent:SHA256:FINGERPRINT (a key of the agent at
$SSH_AUTH_SOCK); see docs/keys.md. For the signed-note keys of logs and
witnesses, 'log vkey' and 'witness vkey' print the verifier key lines.
Nothing secret is written; the fingerprint is printed on stdout.`,
		Example: `  mcpres key public 'pkcs11:token=release;object=signer?module-path=/usr/lib/softhsm/libsofthsm2.so' -o release.pub
  mcpres key public ssh-agent:SHA256:drkQ9HwGr4rF65cNzP51OzueWeLcXTBa7D617NNI7rM -o release.pub`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return cli.Usagef("-o/--output is required")
			}
			if err := checkOutputs([]string{out}, keyInputs(args[0]), force); err != nil {
				return err
			}
			k, err := a.openKeyWith("KEY", args[0], "private key", keyref.Options{})
			if err != nil {
				return err
			}
			defer k.Close()
			data, err := keyfile.MarshalPublicKeyPEM(k.PublicKey())
			if err != nil {
				return cli.Failf("encoding public key: %v", err)
			}
			if out == stdoutName {
				if _, err := a.document().Write(data); err != nil {
					return cli.Failf("%v", err)
				}
				return nil
			}
			if err := a.writeOutput(out, keyInputs(args[0]), data, force); err != nil {
				return err
			}
			a.wrote(out, "public key of %s, fingerprint %s", k, k.Fingerprint())
			fmt.Fprintln(a.stdout, k.Fingerprint())
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "where to write the SPKI PEM public key (required; - for standard output)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing output file")
	return cmd
}

// loadAnyPublicKey reads the public key of spec: a public key file, or
// the public half of a private key reference.
func (a *app) loadAnyPublicKey(spec string) (ed25519.PublicKey, error) {
	if ref, err := keyref.Parse(spec); err == nil && ref.Scheme == keyref.File {
		data, err := regularfile.ReadFile(ref.Path, keyfile.MaxBytes)
		if err != nil {
			return nil, cli.Failf("%v", err)
		}
		if keyfile.Recognise(data) != keyfile.PEMPrivateKey && !bytes.Contains(data, []byte("PRIVATE KEY-----")) {
			pub, err := keyfile.ParsePublicKeyPEM(data)
			if err != nil {
				return nil, cli.Failf("public key %s: %v", ref.Path, keyhints.Word(err, "key fingerprint"))
			}
			return pub, nil
		}
	}
	k, err := a.openKeyWith("KEY", spec, "private key", keyref.Options{})
	if err != nil {
		return nil, err
	}
	defer k.Close()
	return k.PublicKey(), nil
}

// passphrase is the passphrase of the encrypted key path
// (cli.Printer.Passphrase: $MCPRES_PASSWORD, $COSIGN_PASSWORD or the
// terminal).
func (a *app) passphrase(path string) ([]byte, error) {
	p, err := a.msgs().Passphrase(path)
	if err != nil {
		return nil, cli.Fail(err)
	}
	return p, nil
}
