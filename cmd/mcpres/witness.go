package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
	"github.com/mcpres/mcpres/witness/witnesshttp"
	"github.com/spf13/cobra"
)

// witnessLockWait is how long 'witness cosign' waits for the lock of its
// state file held by another process: longer than one cosign run holds it
// (its log reads end within logTimeout).
const witnessLockWait = logTimeout + 30*time.Second

const witnessLong = `Witness transparency logs: cosign a log's checkpoint after checking that the
log only ever grew (C2SP tlog-witness, cosignature/v1).

A witness key is an Ed25519 signed-note key of type 0x04 ('witness keygen');
its verifier key goes on a "witness" line of a trust policy's tlog-policy.
The witness remembers, in a state file, the tree it last cosigned for each
log; 'witness cosign' refuses a log that went backwards or forked.
'witness serve' does the same as a C2SP tlog-witness server (POST
/add-checkpoint), for logs that send their checkpoints themselves.`

func (a *app) witnessCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "witness",
		Short: "Cosign transparency-log checkpoints as a witness",
		Long:  witnessLong,
	}
	cmd.AddCommand(a.witnessKeygenCommand(), a.witnessVkeyCommand(), a.witnessCosignCommand(), a.witnessServeCommand())
	return cmd
}

func (a *app) witnessKeygenCommand() *cobra.Command {
	var name, out string
	cmd := &cobra.Command{
		Use:   "keygen --name NAME --out-base NAME",
		Short: "Generate a witness key: NAME.key (private, 0600) and NAME.vkey (verifier key)",
		Long: `Generate an Ed25519 cosignature/v1 witness key named NAME (by convention a
schema-less URL such as "example.org/witness"; no spaces or "+").

NAME.key receives the private key "PRIVATE+KEY+NAME+HASH+BASE64" (type 0x04),
created with mode 0600; NAME.vkey the verifier key "NAME+HASH+BASE64", also
printed on stdout. Existing files are never overwritten.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				return cli.Usagef("--name is required")
			}
			if out == "" {
				return cli.Usagef("--%s NAME is required", keyPairFlag)
			}
			return a.generateNoteKey(signednote.TypeCosignatureV1, name, out)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the witness's name (the key's name)")
	cmd.Flags().StringVar(&out, keyPairFlag, "", keyPairUsage+" (NAME.key, NAME.vkey)")
	cli.DeprecatedAlias(cmd, "out", keyPairFlag, cli.Usage)
	return cmd
}

func (a *app) witnessVkeyCommand() *cobra.Command {
	var keyPath, name string
	cmd := &cobra.Command{
		Use:   "vkey --key KEY [--name NAME]",
		Short: "Print the verifier key line of a witness key (for tlog policies)",
		Long: `Print the cosignature/v1 verifier key "NAME+HASH+BASE64" (type 0x04) of the
witness key KEY: what the witness lines of tlog policies (policy tlog
add-witness --key) and 'log add-cosignature --witness-key' take. KEY is a
key reference: a witness key file (PATH, file:PATH, env:NAME; default
$MCPRES_WITNESS_KEY), whose name is the witness's, or pkcs11:URI or
ssh-agent:SHA256:FINGERPRINT (an Ed25519 key that never leaves its token
or agent, as litewitness keeps its key), for which --name gives the
witness's name. See docs/keys.md.`,
		Example: `  mcpres witness vkey --key ssh-agent:SHA256:drkQ9HwGr4rF65cNzP51OzueWeLcXTBa7D617NNI7rM --name example.org/witness > witness.vkey`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w, key, err := a.openWitnessSigner(keyPath, name)
			if err != nil {
				return err
			}
			defer key.Close()
			fmt.Fprintln(a.stdout, w.Verifier())
			return nil
		},
	}
	cmd.Flags().StringVar(&keyPath, "key", "", "the witness's private key: "+keyRefUsage+" (default: $"+witnessKeyEnv+")")
	cmd.Flags().StringVar(&name, "name", "", "the witness's name: required with a key in a token or an agent, checked against a key file's name")
	return cmd
}

const witnessCosignLong = `Cosign the latest checkpoint of a log.

LOG is a log directory or the http(s) URL of a tlog-tiles log. The checkpoint
is authenticated with the log's verifier key (--log-key; its name is the
log's origin) and compared with the tree this witness last cosigned for that
origin, recorded in the state file: a smaller tree is refused, and so is a
fork (the same size with another root hash, or a larger tree whose
consistency proof, built from the log's tiles, does not verify). A refusal
exits with status 1 and changes nothing.

On success the state file is updated atomically first, then COSIG receives
the cosignature/v1 signature line for 'mcpres log add-cosignature'.

The state file is locked (an exclusive lock on STATE.lock, created beside it
and left in place) from before it is read until after it is written, so
runs sharing a state file (one per log, from cron) take turns: a run waits
up to 2m30s for another to finish, then gives up with status 2 and
changes nothing. A state file of a 'witness serve' folder is locked the
same way. Where files cannot be locked (systems other than Linux, macOS
and the BSDs) the command refuses to run.

The witness key is a file (PATH or file:PATH), or env:NAME for a key held in
an environment variable; without --key it is taken from $MCPRES_WITNESS_KEY.

A log the state file does not know yet (or a missing state file) is only
accepted with --init: its current checkpoint is then trusted on first use.
--init never overrides a recorded state.`

func (a *app) witnessCosignCommand() *cobra.Command {
	var logArg, logKey, keyPath, name, statePath, out string
	var initState, force bool
	cmd := &cobra.Command{
		Use:   "cosign --log DIR_OR_URL --log-key LOG.vkey --key WITNESS.key --state FILE -o COSIG",
		Short: "Check a log's latest checkpoint against the witness state and cosign it",
		Long:  witnessCosignLong,
		Example: `  mcpres witness cosign --log https://example.org/log/ --log-key log.vkey \
      --key witness.key --state witness.state.json -o log.cosig`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case logArg == "":
				return cli.Usagef("--log is required")
			case logKey == "":
				return cli.Usagef("--log-key is required")
			case statePath == "":
				return cli.Usagef("--state is required")
			case out == "":
				return cli.Usagef("-o/--output is required")
			}
			if sameFile(statePath, out) {
				return cli.Usagef("--state and -o name the same file")
			}
			if sameFile(statePath+witness.StateLockSuffix, out) {
				return cli.Usagef("-o names the lock file of --state")
			}
			if err := checkOutputs([]string{out}, append(keyInputs(keyPath), logKey, statePath), force); err != nil {
				return err
			}
			lv, err := loadVerifierKey("log key", logKey, keyfile.LogVerifierKey)
			if err != nil {
				return err
			}
			w, key, err := a.openWitnessSigner(keyPath, name)
			if err != nil {
				return err
			}
			defer key.Close()
			reader, err := witnesshttp.OpenLog(logArg)
			if err != nil {
				return cli.Failf("--log %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), logTimeout)
			defer cancel()
			// The cosignature's timestamp: the one place this command
			// reads the clock.
			c, err := witness.CosignCheckpointWithState(ctx, reader, lv, w, statePath, witness.StateOptions{LockWait: witnessLockWait, TrustOnFirstUse: initState}, time.Now())
			var we *witness.StateWriteError
			switch {
			case errors.Is(err, witness.ErrRefused):
				a.msgs().Errorf("%v", err)
				return cli.Exit(exitInvalid)
			case errors.Is(err, witness.ErrUnknownLog):
				return cli.Failf("%v: pass --init to start witnessing %s from its current checkpoint (trust on first use)", err, lv.Name())
			case errors.As(err, &we):
				return writeFileError(we.Path, we.Err)
			case err != nil:
				return cli.Failf("%v", err)
			}
			// The state holds the tree: the cosignature may be published.
			if err := a.writeOutput(out, []string{keyPath, statePath}, c.Line, force); err != nil {
				return err
			}
			from := "first use"
			if c.From != nil {
				from = fmt.Sprintf("consistent with size %d", c.From.Size)
			}
			a.msgs().Notef("cosigned %s at size %d (%s) as %s", c.State.Origin, c.State.Size, from, w.Name())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&logArg, "log", "", "the log: a directory or an http(s) URL")
	f.StringVar(&logKey, "log-key", "", "the log's verifier key file")
	f.StringVar(&keyPath, "key", "", "the witness's private key: "+keyRefUsage+" (default: $"+witnessKeyEnv+")")
	f.StringVar(&name, "name", "", "the witness's name, with a key in a token or an agent (a key file carries it)")
	f.StringVar(&statePath, "state", "", "the witness state file (updated atomically)")
	f.StringVarP(&out, "output", "o", "", "where to write the cosignature line (required; - for standard output)")
	f.BoolVar(&initState, "init", false, "accept a log the state file does not know (trust on first use)")
	f.BoolVar(&force, "force", false, "replace an existing output file")
	return cmd
}
