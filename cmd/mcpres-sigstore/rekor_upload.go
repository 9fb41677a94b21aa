package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/internal/atomicfile"
	cmdcli "github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/internal/version"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/tlog/admit"
	"github.com/mcpres/mcpres/tlog/rekor"
	"github.com/spf13/cobra"
)

// The Rekor upload: the only command of mcpres and mcpres-sigstore that
// opens a network connection. No verification command calls it. mcpres
// runs it for `mcpres log add --rekor-url`.

// rekorTimeout bounds one upload, retries included.
const rekorTimeout = 2 * time.Minute

const rekorUploadLong = `Submit a bundle's log entry to a Rekor v1 instance and write a transparency
reference for it.

BUNDLE is a conformance bundle, or an attested bundle whose embedded bundle
is logged; it is admitted first as 'mcpres log add' admits it (a valid
bundle, or an attested bundle whose every signature verifies), and invalid
evidence is never submitted (exit 1). The entry is the canonical mcpres.transparency-entry/v1 of the
bundle, submitted as a hashedrekord v0.0.1 entry: its SHA-512 digest signed
with Ed25519ph by --key (a PKCS#8 PEM Ed25519 key: PATH, file:PATH or
env:NAME; an encrypted key takes its passphrase from $MCPRES_PASSWORD,
$COSIGN_PASSWORD or the terminal). A key in a PKCS#11 token or an
ssh-agent cannot sign this entry: they sign pure Ed25519 only, and
Rekor's hashedrekord needs Ed25519ph.

REF receives the reference {logId, entryUuid, inclusionProofBase64,
inclusionProofSha256} for 'mcpres attest sign --transparency REF': logId is
the Rekor log ID, entryUuid the entry UUID, and the proof bytes are the
LogEntryAnon JSON Rekor returned (inclusion proof, checkpoint and signed
entry timestamp), which 'mcpres-sigstore attest verify' and
'verify-rekor-entry' verify offline. --entry also writes that JSON alone.

Outputs are written atomically, never replaced without --force, and
checked before anything is submitted.`

func (a *app) rekorCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rekor",
		Short: "Submit log entries to a Rekor v1 instance (the only command that uses the network)",
	}
	cmd.AddCommand(a.rekorUploadCommand())
	return cmd
}

func (a *app) rekorUploadCommand() *cobra.Command {
	var rekorURL, keySpec, out, entryOut, expect string
	var force bool
	cmd := &cobra.Command{
		Use:     "upload --rekor-url URL --key KEY BUNDLE -o REF",
		Short:   "Submit a bundle's log entry to Rekor and write its transparency reference",
		Long:    rekorUploadLong,
		Example: `  mcpres-sigstore rekor upload --rekor-url https://rekor.example.org --key release.key bundle.json -o bundle.rekor-ref.json`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case rekorURL == "":
				return cmdcli.Usage(errors.New("--rekor-url is required"))
			case keySpec == "":
				return cmdcli.Usage(errors.New("--key is required"))
			case out == "":
				return cmdcli.Usage(errors.New("-o/--output is required"))
			case out == entryOut:
				return cmdcli.Usage(errors.New("-o and --entry name the same file"))
			case entryOut == "-":
				return cmdcli.Usage(errors.New("--entry -: the entry is written to a file (only -o may be - for standard output)"))
			}
			for _, o := range []string{out, entryOut} {
				if o == "" || o == "-" {
					continue
				}
				if err := atomicfile.CheckTarget(o, force); err != nil {
					return errors.New(cmdcli.WriteError(o, err))
				}
			}
			entry, err := a.rekorEntry(args[0])
			if err != nil {
				return err
			}
			sum := sha256.Sum256(entry)
			if expect != "" && expect != hex.EncodeToString(sum[:]) {
				return fmt.Errorf("%s: the log entry's SHA-256 is %x, not %s as the caller computed (mcpres and mcpres-sigstore of different versions?); nothing submitted", args[0], sum, expect)
			}
			key, err := a.openSigningKey(keySpec)
			if err != nil {
				return err
			}
			defer key.Close()
			ctx, cancel := context.WithTimeout(context.Background(), rekorTimeout)
			defer cancel()
			e, err := rekor.Submit(ctx, rekorURL, entry, key, rekor.Options{UserAgent: "mcpres-sigstore/" + version.Version, Retries: -1})
			if err != nil {
				return err
			}
			ref := attest.NewTransparencyReference(e.LogID, e.UUID, e.JSON)
			v, err := canonjson.FromGo(ref)
			if err != nil {
				return err
			}
			data, err := canonjson.Pretty(v)
			if err != nil {
				return err
			}
			if out == "-" {
				if _, err := termsafe.Unwrap(a.stdout).Write(data); err != nil { // the reference: data, not text
					return fmt.Errorf("entry %s logged, but writing to standard output: %v", e.UUID, err)
				}
			} else if err := atomicfile.WriteFile(out, data, 0o644, force); err != nil {
				return fmt.Errorf("entry %s logged, but %s", e.UUID, cmdcli.WriteError(out, err))
			}
			if entryOut != "" {
				if err := atomicfile.WriteFile(entryOut, e.JSON, 0o644, force); err != nil {
					return fmt.Errorf("entry %s logged, but %s", e.UUID, cmdcli.WriteError(entryOut, err))
				}
			}
			a.msgs().Notef("%s: logged in Rekor %s as entry %s (log index %d)", args[0], rekorURL, e.UUID, e.LogIndex)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&rekorURL, "rekor-url", "", "the Rekor instance (https://…)")
	f.StringVar(&keySpec, "key", "", "Ed25519 private key that signs the entry: PATH, file:PATH or env:NAME (PKCS#8 PEM; not a token or an agent key, which cannot sign Ed25519ph)")
	f.StringVarP(&out, "output", "o", "", "where to write the transparency reference (required; - for standard output)")
	f.StringVar(&entryOut, "entry", "", "also write the LogEntryAnon JSON Rekor returned to this file")
	f.StringVar(&expect, "expect-entry-sha256", "", "refuse unless the entry's SHA-256 is this (used by mcpres log add)")
	f.BoolVar(&force, "force", false, "replace existing output files")
	return cmd
}

// rekorEntry reads a bundle (or an attested bundle) and admits it by the
// rule of mcpres's own log (tlog/admit: a valid bundle, or an attested
// bundle whose every signature verifies), and returns its log entry.
func (a *app) rekorEntry(path string) ([]byte, error) {
	_, doc, err := canonjson.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %v", path, err)
	}
	adm, err := admit.New().Admit(doc, verifycmd.NowMillis())
	var r *admit.Refusal
	if errors.As(err, &r) {
		fmt.Fprintf(a.stdout, "%s: INVALID %s: %s\n", path, strings.Join(r.Result.Diagnostics, ", "), r.Result.Detail)
		a.msgs().Errorf("refusing to log invalid evidence")
		return nil, cmdcli.Exit(exitInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %v", path, err)
	}
	return adm.Entry, nil
}

// openSigningKey opens the key reference spec (package keyref, as every
// --key of mcpres): PATH, file:PATH or env:NAME (PKCS#8 PEM, an encrypted
// one with its passphrase from $MCPRES_PASSWORD, $COSIGN_PASSWORD or the
// terminal). A key in a PKCS#11 token or an ssh-agent is refused before
// it is opened: Rekor's hashedrekord entry needs an Ed25519ph (prehashed)
// signature, and those keys sign pure Ed25519 only (keyref.ErrPrehash).
// The key, PIN and passphrase never appear in messages.
func (a *app) openSigningKey(spec string) (*keyref.Key, error) {
	ref, err := keyref.Parse(spec)
	if err != nil {
		return nil, cmdcli.Usagef("--key: %v", err)
	}
	if !ref.Secret() {
		return nil, cmdcli.Failf("--key %s: %v: a Rekor hashedrekord entry is signed with Ed25519ph; give a key file (PATH, file:PATH) or env:NAME", ref, keyref.ErrPrehash)
	}
	k, err := keyref.OpenRef(ref, keyref.Options{
		Passphrase: a.msgs().Passphrase,
		Warn:       func(msg string) { a.msgs().Warnf("%s", msg) },
	})
	if err != nil {
		return nil, cmdcli.Failf("private key %s: %v", ref, keyhints.Word(err, "--key"))
	}
	return k, nil
}
