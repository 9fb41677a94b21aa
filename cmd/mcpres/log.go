package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/admit"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
)

// The log commands run a self-hosted transparency log with Tessera's POSIX
// driver: this file is where the CLI chooses that driver (tlog/posix) for
// the storage-agnostic tlog package.

// logTimeout bounds one log command (appending waits for a checkpoint).
const logTimeout = 2 * time.Minute

// maxKeyFileBytes bounds a note key file: one line of well under 200 bytes.
const maxKeyFileBytes = 4096

// sigstoreBinaryEnv names the mcpres-sigstore executable explicitly.
const sigstoreBinaryEnv = "MCPRES_SIGSTORE"

const logLong = `Run a self-hosted transparency log and publish MCP-RES evidence to it.

The log is a directory in the C2SP tlog-tiles layout, written by Tessera's
POSIX driver: "checkpoint" (the signed checkpoint with any witness
cosignatures), "tile/" (hash tiles and entry bundles), and the private
".state/" (Tessera) and ".mcpres/" (the log's verifier key). Any static web
server can serve it; when one machine is not enough, Tessera's MySQL, GCP
and AWS drivers serve the same API (package tlog takes any driver).

The log key is a signed-note Ed25519 key; its name is the log's origin.
Create one with 'log keygen', the log with 'log init', then log bundles
with 'log add'. Witnesses cosign the checkpoint ('mcpres witness cosign');
'log add-cosignature' attaches their cosignatures, and 'log proof' then
gives references whose proof carries them.

A reference is the JSON {logId, entryUuid, inclusionProofBase64,
inclusionProofSha256} that 'mcpres attest sign --transparency' embeds:
logId is the origin, entryUuid the leaf index in decimal, and the proof a
C2SP tlog-proof (entry, index, inclusion hashes, signed checkpoint).

Tessera's own log messages are discarded unless --verbose.`

func (a *app) logCommand() *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Run a self-hosted transparency log (Tessera, tlog-tiles) and prove entries",
		Long:  logLong,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			configureTesseraLogging(verbose, a.stderr)
		},
	}
	cmd.PersistentFlags().BoolVar(&verbose, "verbose", false, "show Tessera's log messages on stderr")
	cmd.AddCommand(a.logKeygenCommand(), a.logVkeyCommand(), a.logInitCommand(), a.logAddCommand(), a.logServeCommand(), a.logProofCommand(), a.logAddCosignatureCommand(), a.logMonitorCommand(), a.logMigrateCommand())
	for _, c := range cmd.Commands() {
		if run := c.RunE; run != nil {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				// Whatever Tessera's goroutines log after the command
				// ends is discarded.
				defer tesseraOutput.set(nil)
				return run(cmd, args)
			}
		}
	}
	return cmd
}

// Tessera logs through klog, which is process-global: package tlog never
// configures it, and neither does any library of mcpres. The CLI owns the
// process, so it installs, once, a klog logger that writes to tesseraOutput,
// and each log command points tesseraOutput at stderr (--verbose) or at
// nothing. klog's own setting is made only once because klog.SetLogger must
// not race with goroutines that log (Tessera's may outlive a command).
var (
	tesseraOutput   = &switchWriter{}
	tesseraKlogOnce sync.Once
)

func configureTesseraLogging(verbose bool, stderr io.Writer) {
	tesseraKlogOnce.Do(func() {
		klog.SetLogger(funcr.New(func(prefix, args string) {
			fmt.Fprintf(tesseraOutput, "mcpres: tessera: %s\n", strings.TrimSpace(prefix+" "+args))
		}, funcr.Options{}))
	})
	if verbose {
		tesseraOutput.set(stderr)
	} else {
		tesseraOutput.set(nil)
	}
}

// switchWriter writes to w, or discards when w is nil; writes and
// switches are serialised, so once set(nil) returns nothing more reaches
// the previous writer.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w = w
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return len(p), nil
	}
	return s.w.Write(p)
}

func (a *app) logKeygenCommand() *cobra.Command {
	var origin, out string
	cmd := &cobra.Command{
		Use:   "keygen --origin ORIGIN --out-base NAME",
		Short: "Generate a log key: NAME.key (private, 0600) and NAME.vkey (verifier key)",
		Long: `Generate an Ed25519 signed-note key for a log whose origin is ORIGIN (for
example "example.org/mcpres-log": the C2SP tlog-checkpoint origin, a
schema-less URL by convention; no spaces or "+").

NAME.key receives the private key "PRIVATE+KEY+ORIGIN+HASH+BASE64", created
with mode 0600; NAME.vkey the verifier key "ORIGIN+HASH+BASE64" (type 0x01),
which is also printed on stdout: it goes on the "log" line of a trust
policy's tlog-policy. Existing files are never overwritten.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if origin == "" {
				return cli.Usagef("--origin is required")
			}
			if out == "" {
				return cli.Usagef("--%s NAME is required", keyPairFlag)
			}
			return a.generateNoteKey(signednote.TypeEd25519, origin, out)
		},
	}
	cmd.Flags().StringVar(&origin, "origin", "", "the log's origin (the key's name)")
	cmd.Flags().StringVar(&out, keyPairFlag, "", keyPairUsage+" (NAME.key, NAME.vkey)")
	cli.DeprecatedAlias(cmd, "out", keyPairFlag, cli.Usage)
	return cmd
}

func (a *app) logVkeyCommand() *cobra.Command {
	var keyPath, origin string
	cmd := &cobra.Command{
		Use:   "vkey --key KEY [--origin ORIGIN]",
		Short: "Print the verifier key line of a log key (for tlog policies, --log-key and witnesses)",
		Long: `Print the signed-note verifier key "ORIGIN+HASH+BASE64" (type 0x01) of the
log key KEY: what tlog policies (policy tlog add-log --key), 'log add
--server --log-key' and 'witness serve --log' take. KEY is a key
reference: a log key file (PATH, file:PATH, env:NAME; default
$MCPRES_LOG_KEY), whose name is the origin, or pkcs11:URI or
ssh-agent:SHA256:FINGERPRINT (an Ed25519 key that never leaves its token
or agent), for which --origin gives the log's origin. See docs/keys.md.`,
		Example: `  mcpres log vkey --key 'pkcs11:token=log;object=checkpoints' --origin example.org/mcpres-log > log.vkey`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			signer, key, err := a.openLogSigner(keyPath, origin)
			if err != nil {
				return err
			}
			defer key.Close()
			fmt.Fprintln(a.stdout, signer.Verifier())
			return nil
		},
	}
	cmd.Flags().StringVar(&keyPath, "key", "", "the log's private key: "+keyRefUsage+" (default: $"+logKeyEnv+")")
	cmd.Flags().StringVar(&origin, "origin", "", "the log's origin: required with a key in a token or an agent, checked against a key file's name")
	return cmd
}

// generateNoteKey writes NAME.key and NAME.vkey and prints the vkey.
func (a *app) generateNoteKey(typ byte, name, out string) error {
	skey, vkey, err := signednote.GenerateKey(rand.Reader, typ, name)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if err := keyPairBase("--"+keyPairFlag, out, ".key", ".vkey"); err != nil {
		return err
	}
	if err := writeKeyPair(out+".key", []byte(skey+"\n"), out+".vkey", []byte(vkey+"\n")); err != nil {
		return err
	}
	a.wrote(out+".key", "note signing key (mode 0600; keep it secret)")
	a.wrote(out+".vkey", "verifier key %s", vkey)
	fmt.Fprintln(a.stdout, vkey)
	return nil
}

// Environment variables that hold a note private key when --key is not
// given (CI secrets).
const (
	logKeyEnv     = "MCPRES_LOG_KEY"
	witnessKeyEnv = "MCPRES_WITNESS_KEY"
)

// parseKeyText checks that data is one line holding one key, optionally
// followed by one newline, and returns the key.
func parseKeyText(data []byte) (string, error) {
	if len(data) > maxKeyFileBytes {
		return "", fmt.Errorf("more than %d bytes: not a key", maxKeyFileBytes)
	}
	s := strings.TrimSuffix(string(data), "\n")
	if strings.ContainsAny(s, "\r\n\t ") || s == "" {
		return "", errors.New("not a key (one line holding one key)")
	}
	return s, nil
}

// readKeyFile reads a one-line key file.
func readKeyFile(path string) (string, error) {
	data, err := regularfile.ReadFile(path, maxKeyFileBytes)
	if err != nil {
		return "", err
	}
	return parseKeyText(data)
}

// noteKeyText is parseKeyText for a signed-note key of kind want: data
// that is another kind of key file is named instead
// (keyfile.KindError). With want keyfile.NoteKey only a file
// that is no note key at all (a PEM key) is, and the note-key parsers name
// a note key of the wrong kind.
func noteKeyText(data []byte, want keyfile.Kind) (string, error) {
	if err := keyfile.CheckKind(data, want); err != nil {
		return "", err
	}
	return parseKeyText(data)
}

// loadVerifierKey reads a vkey file of kind want (keyfile.LogVerifierKey
// or keyfile.WitnessVerifierKey); another kind of key file is named
// (keyfile.KindError, worded by keyhints).
func loadVerifierKey(what, path string, want keyfile.Kind) (*signednote.Verifier, error) {
	parse := signednote.ParseLogVerifier
	if want == keyfile.WitnessVerifierKey {
		parse = signednote.ParseWitnessVerifier
	}
	data, err := regularfile.ReadFile(path, maxKeyFileBytes)
	if err != nil {
		return nil, cli.Failf("%s %s: %v", what, path, err)
	}
	s, err := noteKeyText(data, keyfile.NoteKey)
	if err == nil {
		err = keyfile.CheckKind(data, want)
	}
	if err != nil {
		return nil, cli.Failf("%s %s: %v", what, path, keyhints.Word(err, ""))
	}
	v, err := parse(s)
	if err != nil {
		return nil, cli.Failf("%s %s: %v", what, path, err)
	}
	return v, nil
}

func logContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), logTimeout)
}

func (a *app) logInitCommand() *cobra.Command {
	var dir, dsn, s3, keyPath, origin string
	cmd := &cobra.Command{
		Use:   "init (--dir DIR | --s3 CONFIG | --mysql DSN) [--key LOG.key] [--origin ORIGIN]",
		Short: "Create an empty log in a new directory",
		Long: `Create an empty log in DIR with Tessera's POSIX driver: the tlog-tiles layout
and a checkpoint of size 0 signed with the log key. DIR must not exist or be
empty. The origin is the key file's name; --origin, if given, must equal it.
The key is a file (PATH or file:PATH), env:NAME for a key held in an
environment variable (without --key it is taken from $MCPRES_LOG_KEY), or
a key that never leaves its token or agent: pkcs11:URI or
ssh-agent:SHA256:FINGERPRINT (an Ed25519 key), which has no name, so
--origin is required with it (see docs/keys.md).

The log's verifier key is recorded in DIR/.mcpres/log.vkey (for 'log proof'
and 'log add-cosignature') and printed on stdout.

With --s3 CONFIG the log is created on S3-compatible object storage (the
tiles and checkpoint in a bucket) with a MySQL-compatible database that
sequences it (see 'log serve' and docs/transparency.md, "Object storage"):
the store is first probed for conditional writes, a bucket or database that
already holds a log is refused, and the verifier key is recorded in the
database. With --mysql (deprecated) the log is created in a MariaDB/MySQL
database: the schema is applied, and the verifier key recorded there.`,
		Example: `  mcpres log keygen --origin example.org/mcpres-log --out-base log
  mcpres log init --dir public/log --key log.key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneLogFlag(dir, dsn, s3); err != nil {
				return err
			}
			a.warnMySQL(dsn)
			signer, key, err := a.openLogSigner(keyPath, origin)
			if err != nil {
				return err
			}
			defer key.Close()
			ctx, cancel := logContext()
			defer cancel()
			var store tlog.Storage
			if s3 != "" {
				st, _, err := openS3Log(ctx, s3, signer.Verifier())
				if err != nil {
					return err
				}
				defer st.Close()
				if err := probeS3(ctx, st); err != nil {
					return err
				}
				store = st
			} else if dsn != "" {
				st, _, err := mysql.OpenLog(ctx, dsn, signer.Verifier())
				if err != nil {
					return cli.Failf("%v", err)
				}
				defer st.Close()
				store = st
			} else {
				st, err := posix.Create(dir)
				if err != nil {
					return cli.Failf("%v", err)
				}
				store = st
			}
			if _, err := tlog.Open(store, signer.Verifier()).Init(ctx, signer); err != nil {
				return cli.Failf("creating the log in %s: %v", store, err)
			}
			if dir != "" {
				a.wrote(filepath.Join(dir, posix.KeyFile), "the log's verifier key (log created in %s)", dir)
			}
			fmt.Fprintln(a.stdout, signer.Verifier())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the log directory to create")
	f.StringVar(&s3, "s3", "", "create the log here instead: "+s3FlagUsage)
	f.StringVar(&dsn, "mysql", "", "deprecated (use --s3): create the log in this MariaDB/MySQL database instead: a DSN, or env:NAME")
	f.StringVar(&keyPath, "key", "", "the log's private key: "+keyRefUsage+" (default: $"+logKeyEnv+")")
	f.StringVar(&origin, "origin", "", "the log's origin: checked against a key file's name, required with a key in a token or an agent")
	return cmd
}

const logAddLong = `Append a bundle's log entry to the log and write a transparency reference.

BUNDLE is a conformance bundle, or an attested bundle whose embedded bundle
is logged. It is validated first: invalid evidence is never logged (exit 1).
An attested bundle is verified whole, as 'mcpres attest verify' without a
policy does, except that its claimed classification is not judged (that
needs the verifier's trust policy): the wrapper must be schema-valid and
every envelope's signature must verify, or nothing is logged (exit 1).
The entry is the canonical mcpres.transparency-entry/v1 document (subject,
bundle digest, scenario fingerprint, execution instance digest); for an
attested bundle, the v2 document that also names the key fingerprint,
signer identity and signing time of each envelope, so that 'log monitor
--policy' can judge who signed, and whose reference only those signers'
statements can carry (docs/transparency.md). The
command waits until a signed checkpoint covers it, then writes REF, the
reference for 'mcpres attest sign --transparency REF', and with --proof the
raw C2SP tlog-proof bytes. A checkpoint published by an append carries no
cosignature yet: after witnesses cosign it, 'log proof' gives a reference
that carries them. A bundle whose entry is already in the log is not
logged again: REF is a fresh reference to the existing entry (the log's
deduplication index, in DIR/.state, survives restarts and crashes).

With --witness-policy FILE (a tlog policy whose "witness NAME VKEY URL"
lines give each witness's C2SP tlog-witness URL), the new checkpoint is
sent to every witness with a URL, in parallel, each within
--witness-timeout; the cosignatures obtained are attached to the published
checkpoint and carried by REF. A witness that fails or does not answer in
time is a warning: the verifier's quorum decides whether what was obtained
is enough.

With --rekor-url the entry is also submitted to a Rekor (v1) instance, as a
hashedrekord entry signed (Ed25519ph) by --rekor-key, a PKCS#8 PEM key.
REF.rekor.json then receives a reference to that entry, whose proof bytes
are the LogEntryAnon JSON Rekor returned: 'attest sign --transparency'
takes it too, and 'mcpres-sigstore attest verify' verifies it offline. The
upload is run by the mcpres-sigstore binary ($MCPRES_SIGSTORE, next to
mcpres, or on PATH), which keeps the Rekor client out of mcpres. No
verification command ever reaches it.

The log key (--key PATH, file:PATH, env:NAME, pkcs11:URI or
ssh-agent:SHA256:FINGERPRINT; default $MCPRES_LOG_KEY) must be the key of
the log in DIR: it signs the new checkpoint. A key in a token or an agent
has no name: give the log's origin with --origin.

With --s3 CONFIG instead of --dir, the bundle is appended to a log on
S3-compatible object storage and a MySQL-compatible database (see 'log
serve' and docs/transparency.md, "Object storage"), without a server and
beside any 'log serve --s3' of the same log: the database sequences and
deduplicates for all of them.

With --server URL instead of --dir, the bundle is submitted to a 'mcpres
log serve' (POST URL/add). The bundle is validated here first. Answers 429
and 5xx and connection errors are retried with exponential backoff and
jitter (honouring Retry-After), up to --attempts within --timeout; this is
safe because the server answers a bundle it already logged with that
entry. A redirect is never followed: it is an error naming where it
pointed. The bearer token comes from --token-file or $MCPRES_LOG_TOKEN,
and is never sent over plain http:// to a host other than the loopback
interface (use https). --log-key (required) is the log's verifier key: the
answer is written only once it verifies as a verifier will check it
(package offline): a strict reference whose proof includes this bundle's
entry in a checkpoint signed by that key, with the log's origin as logId
and the proof's digest. REF is rebuilt from the verified proof, byte for
byte what a local add writes, never copied from the server.

How many witness cosignatures the reference carries, and from whom, is
always said on stderr; a bundle already in the log is "already logged as
entry N". With --require-quorum TLOG-POLICY (the tlog policy the consumers
verify references with) the cosignatures are verified against its
witnesses ("cosigned by 2 of 3: w1, w2; missing: w3"), and when they do not
satisfy its quorum, or the policy does not trust this log, the command
exits 1 and writes no reference: nothing is signed that the consumers'
verification will fail. Once the witnesses are back, run the same command
again: a 'log serve' with --witness-policy asks the witnesses missing from
the checkpoint of an entry it already holds and answers a re-witnessed
reference ('log proof --witness-policy' does the same for a local log).

Outputs are written atomically and never replaced without --force; they
are checked before anything is appended.`

func (a *app) logAddCommand() *cobra.Command {
	var dir, s3, serverURL, keyPath, origin, out, proofOut, rekorURL, rekorKey string
	var force bool
	var wp witnessPolicyFlags
	var client submitClient
	cmd := &cobra.Command{
		Use:   "add ((--dir DIR | --s3 CONFIG) [--key LOG.key] [--witness-policy FILE] | --server URL) BUNDLE -o REF [--require-quorum TLOG-POLICY]",
		Short: "Log a bundle and write its transparency reference",
		Long:  logAddLong,
		Example: `  mcpres log add --dir public/log --key log.key bundle.json -o bundle.ref.json
  mcpres log add --server https://log.example.org --log-key log.vkey bundle.json -o bundle.ref.json
  mcpres attest sign bundle.json --key release.key --identity https://example.org/release \
      --policy-id example/policy --transparency bundle.ref.json -o bundle.attested.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := addTarget(dir, s3, serverURL); err != nil {
				return err
			}
			switch {
			case out == "":
				return cli.Usagef("-o/--output is required")
			case (rekorURL == "") != (rekorKey == ""):
				return cli.Usagef("--rekor-url and --rekor-key go together")
			case serverURL != "" && wp.policy != "":
				return cli.Usagef("--witness-policy goes with --dir: a 'log serve' asks its own witnesses")
			case serverURL != "" && client.logKey == "":
				return cli.Usagef("--log-key is required with --server: the server's answer is verified against the log's key before a reference is written")
			case serverURL != "" && client.attempts < 1:
				return cli.Usagef("--attempts must be at least 1")
			}
			outputs := []string{out}
			if proofOut != "" {
				outputs = append(outputs, proofOut)
			}
			if rekorURL != "" {
				outputs = append(outputs, out+".rekor.json")
			}
			if err := checkOutputs(outputs, append([]string{args[0]}, keyInputs(keyPath)...), force); err != nil {
				return err
			}
			raw, adm, err := a.bundleEntry(args[0])
			if err != nil {
				return err
			}
			if serverURL != "" {
				if err := a.submit(serverURL, args[0], raw, adm, client, out, proofOut, force); err != nil {
					return err
				}
			} else if err := a.addLocal(dir, s3, keyPath, origin, args[0], adm, out, proofOut, force, wp, client.requireQuorum); err != nil {
				return err
			}
			if rekorURL != "" {
				sum := sha256.Sum256(adm.Entry)
				return a.runSigstore("rekor", "upload", "--rekor-url="+rekorURL, "--key="+rekorKey,
					"--expect-entry-sha256="+hex.EncodeToString(sum[:]), "--output="+out+".rekor.json",
					"--force="+strconv.FormatBool(force), "--", args[0])
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the log directory")
	f.StringVar(&s3, "s3", "", "the log here instead, without a server: "+s3FlagUsage)
	f.StringVar(&serverURL, "server", "", "submit to this 'mcpres log serve' (base URL) instead of a local --dir")
	client.flags(f)
	f.StringVar(&client.requireQuorum, "require-quorum", "", requireQuorumUsage)
	f.StringVar(&keyPath, "key", "", "the log's private key, which signs the new checkpoint: "+keyRefUsage+" (default: $"+logKeyEnv+")")
	f.StringVar(&origin, "origin", "", "the log's origin, with a key in a token or an agent (a key file carries it)")
	f.StringVarP(&out, "output", "o", "", "where to write the transparency reference (required; - for standard output)")
	f.StringVar(&proofOut, "proof", "", "also write the raw C2SP tlog-proof bytes to this file")
	f.BoolVar(&force, "force", false, "replace existing output files")
	f.StringVar(&rekorURL, "rekor-url", "", "also submit the entry to this Rekor instance (runs mcpres-sigstore)")
	f.StringVar(&rekorKey, "rekor-key", "", "private key (PKCS#8 PEM) that signs the Rekor entry")
	wp.register(cmd)
	return cmd
}

// addLocal appends entry to the log in dir, or on the object storage of
// the --s3 config file s3, collects the witnesses'
// cosignatures when a witness policy is given, and writes the reference.
func (a *app) addLocal(dir, s3, keyPath, origin, path string, adm *admit.Admission, out, proofOut string, force bool, wp witnessPolicyFlags, requireQuorum string) error {
	signer, key, err := a.openLogSigner(keyPath, origin)
	if err != nil {
		return err
	}
	defer key.Close()
	quorum, err := a.loadQuorumTrust(requireQuorum)
	if err != nil {
		return err
	}
	entry := adm.LogEntry()
	ctx, cancel := logContext()
	defer cancel()
	store, done, err := addStore(ctx, dir, s3, signer.Verifier())
	if err != nil {
		return err
	}
	defer done()
	if err := tlog.CheckKey(ctx, store, signer.Verifier()); err != nil {
		return cli.Failf("%v", err)
	}
	wg, err := wp.witnessing(a, store, signer.Verifier(), a.roundLogger())
	if err != nil {
		return err
	}
	lg := tlog.Open(store, signer.Verifier())
	if wg != nil {
		_ = wg.Hint(ctx, lg) // CheckKey read the checkpoint: Add says why it fails
	}
	p, err := lg.Add(ctx, signer, entry)
	if err != nil {
		return cli.Failf("logging %s: %v", path, err)
	}
	if wg != nil {
		if p.Checkpoint, err = wg.Round(ctx, lg); err != nil {
			return cli.Failf("collecting cosignatures: %v", err)
		}
	}
	a.reportLogged(path, p)
	if err := a.reportWitnessing(path, p.Marshal(), offline.EntryFor(adm.Bundle), quorum, requireQuorum, "run 'mcpres log proof --witness-policy FILE' for a re-witnessed reference"); err != nil {
		return err
	}
	return a.writeReference(p, out, proofOut, append([]string{path}, keyInputs(keyPath)...), force)
}

// reportLogged says on stderr where the entry of path is in the log.
func (a *app) reportLogged(path string, p *tlog.Proof) {
	verb := "logged"
	if p.Existing {
		verb = "already logged"
	}
	a.msgs().Notef("%s: %s as entry %d of %s (tree size %d)", path, verb, p.Index, p.Checkpoint.Origin, p.Checkpoint.Size)
}

// bundleEntry reads a conformance bundle or an attested bundle and admits
// it (tlog/admit: a valid bundle, or an attested bundle whose every
// signature verifies). It returns the file's bytes, exactly what was
// admitted, and the admission. A refusal is reported like 'mcpres
// validate' reports the document (exit 1 for invalid evidence, 2 for
// unreadable input).
func (a *app) bundleEntry(path string) ([]byte, *admit.Admission, error) {
	raw, doc, err := canonjson.ReadFile(path)
	if err == nil {
		var adm *admit.Admission
		if adm, err = admit.New().Admit(doc, nowMillis()); err == nil {
			return raw, adm, nil
		}
	}
	rep := refusalReport(path, err)
	a.render(rep, "text", false, true)
	if rep.Code == exitInvalid {
		a.msgs().Errorf("refusing to log invalid evidence")
	}
	return nil, nil, cli.Exit(rep.Code)
}

// refusalReport is the report of a document that was not admitted: its
// validation result (an *admit.Refusal: exit 1), or why it could not be
// read or evaluated (exit 2). 'log add' and 'log serve' (POST /add) both
// report with it.
func refusalReport(path string, err error) report {
	var r *admit.Refusal
	switch {
	case !errors.As(err, &r):
		return inputInvalidReport(path, err)
	case r.Result.Attestation != nil:
		return attestReport(path, *r.Result.Attestation)
	}
	return resultReport(path, r.Result.Result)
}

// writeReference writes the reference JSON for p to out (stdout when out
// is empty) and the raw proof bytes to proofOut when given.
func (a *app) writeReference(p *tlog.Proof, out, proofOut string, inputs []string, force bool) error {
	data, err := p.Reference().Marshal()
	if err != nil {
		return cli.Failf("encoding the reference: %v", err)
	}
	return a.writeReferenceBytes(data, p.Marshal(), out, proofOut, inputs, force)
}

func (a *app) writeReferenceBytes(data, proofBytes []byte, out, proofOut string, inputs []string, force bool) error {
	if out == "" {
		_, err := a.document().Write(data)
		if err != nil {
			return cli.Failf("%v", err)
		}
	} else if err := a.writeOutput(out, inputs, data, force); err != nil {
		return err
	} else {
		a.wrote(out, "transparency reference (for attest sign --transparency)")
	}
	if proofOut != "" {
		if err := a.writeOutput(proofOut, inputs, proofBytes, force); err != nil {
			return err
		}
		a.wrote(proofOut, "c2sp.org/tlog-proof, %d bytes", len(proofBytes))
	}
	return nil
}

func (a *app) logProofCommand() *cobra.Command {
	var dir, dsn, s3, url, logKey, out, proofOut, index, requireQuorum string
	var force bool
	var wp witnessPolicyFlags
	cmd := &cobra.Command{
		Use:   "proof (--dir DIR | --s3 CONFIG | --url URL --log-key LOG.vkey | --mysql DSN) --index N [--witness-policy FILE] [--require-quorum TLOG-POLICY] [-o REF]",
		Short: "Write a fresh reference for entry N against the latest checkpoint",
		Long: `Build a fresh inclusion proof for the entry at index N against the log's
latest checkpoint, with every cosignature attached to it, and write the
transparency reference to REF (stdout when -o is not given); with --proof
also the raw C2SP tlog-proof bytes. The checkpoint is authenticated with the
log key recorded by 'log init' or given with --log-key, and the proof is
verified before it is written. --s3 CONFIG reads a log on object storage
(its tiles from the bucket; see 'log serve'), --mysql DSN (deprecated) one
kept in MariaDB/MySQL, instead of a directory. --url URL reads the log's
tlog-tiles resources (checkpoint, tile/...) at URL, with nothing else: a
bucket's public URL, a CDN or static server in front of it, or a 'log
serve'; --log-key is required with it (docs/transparency.md, "Object
storage").

With --witness-policy FILE, the witnesses with a URL in that tlog policy
whose cosignature the latest checkpoint lacks are first asked to cosign it
(as 'log add' does; the others are not asked again), and the reference
carries what they gave: the way to a fresh, re-witnessed reference for an
entry already logged once witnesses that were down are back.

How many cosignatures the reference carries, and from whom, is said on
stderr. With --require-quorum TLOG-POLICY (the tlog policy consumers
verify with) they are verified against its witnesses, and the command
exits 1 and writes nothing unless they satisfy its quorum ("cosigned by
2 of 3: w1, w2; missing: w3").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneLogSource(dir, dsn, s3, url); err != nil {
				return err
			}
			n, err := strconv.ParseUint(index, 10, 63)
			if err != nil || strconv.FormatUint(n, 10) != index {
				return cli.Usagef("--index %q is not a leaf index (a decimal number)", index)
			}
			var outputs []string
			for _, o := range []string{out, proofOut} {
				if o != "" {
					outputs = append(outputs, o)
				}
			}
			if err := checkOutputs(outputs, []string{logKey}, force); err != nil {
				return err
			}
			quorum, err := a.loadQuorumTrust(requireQuorum)
			if err != nil {
				return err
			}
			store, v, done, err := a.openProofLog(dir, dsn, s3, url, logKey, wp.policy != "")
			if err != nil {
				return err
			}
			defer done()
			where := cmp.Or(dir, url, "the database")
			wg, err := wp.witnessing(a, store, v, a.roundLogger())
			if err != nil {
				return err
			}
			ctx, cancel := logContext()
			defer cancel()
			lg := tlog.Open(store, v)
			if wg != nil {
				if err := wg.Hint(ctx, lg); err != nil {
					return cli.Failf("%s: %v", where, err)
				}
				if _, err := wg.Round(ctx, lg); err != nil {
					return cli.Failf("collecting cosignatures: %v", err)
				}
			}
			p, err := lg.Proof(ctx, n)
			if err != nil {
				return cli.Failf("proof of entry %d in %s: %v", n, where, err)
			}
			e, err := offline.ParseEntry(p.Entry)
			if err != nil {
				return cli.Failf("entry %d in %s: %v", n, where, err)
			}
			again := "run it again with --witness-policy FILE to ask the witnesses missing from the checkpoint"
			if err := a.reportWitnessing(fmt.Sprintf("entry %d", n), p.Marshal(), e, quorum, requireQuorum, again); err != nil {
				return err
			}
			return a.writeReference(p, out, proofOut, nil, force)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the log directory")
	f.StringVar(&s3, "s3", "", "the log here instead: "+s3FlagUsage)
	f.StringVar(&url, "url", "", "read the log from its tiles at this URL instead (the bucket's public URL, a static server or CDN, a 'log serve'); needs --log-key")
	f.StringVar(&dsn, "mysql", "", "deprecated (use --s3): the log in this MariaDB/MySQL database instead: a DSN, or env:NAME")
	f.StringVar(&index, "index", "", "the entry's leaf index")
	f.StringVar(&requireQuorum, "require-quorum", "", requireQuorumUsage)
	wp.register(cmd)
	f.StringVar(&logKey, "log-key", "", "the log's verifier key file (default: the key 'log init' recorded: DIR/"+posix.KeyFile+", or in the database)")
	f.StringVarP(&out, "output", "o", "", "where to write the reference (default and -: standard output)")
	f.StringVar(&proofOut, "proof", "", "also write the raw C2SP tlog-proof bytes to this file")
	f.BoolVar(&force, "force", false, "replace existing output files")
	return cmd
}

func (a *app) logAddCosignatureCommand() *cobra.Command {
	var dir, dsn, s3, logKey string
	var witnessKeys []string
	cmd := &cobra.Command{
		Use:   "add-cosignature (--dir DIR | --s3 CONFIG | --mysql DSN) --witness-key W.vkey... COSIG...",
		Short: "Attach witness cosignatures to the published checkpoint",
		Long: `Attach collected witness cosignatures (files written by 'mcpres witness
cosign': C2SP cosignature/v1 signature lines) to the log's published
checkpoint, so that later 'log proof' references carry them.

Each cosignature must be by one of the --witness-key keys (cosignature/v1
verifier keys, type 0x04) and verify against the published checkpoint's
body; one that does not is refused (exit 1): it is for another checkpoint
(the log has grown since: cosign again) or corrupt, and so is one dated
after the current time, which no verifier counts before that date (the
witness's clock runs ahead). A second cosignature by a key that already
cosigned (keys compared by fingerprint) is dropped with a warning. The
checkpoint body and log signature are kept; the file is replaced
atomically, and not at all if the log published a new checkpoint meanwhile.
With --s3 CONFIG the checkpoint object in the bucket is replaced while the
database's publisher row lock is held (Tessera's publisher takes it in
every process); with --mysql DSN (deprecated) the checkpoint row is
replaced in one transaction holding the row lock Tessera's publisher takes.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneLogFlag(dir, dsn, s3); err != nil {
				return err
			}
			if len(witnessKeys) == 0 {
				return cli.Usagef("--witness-key is required (the keys the cosignatures are by)")
			}
			store, lv, done, err := a.openLogReader(dir, dsn, s3, logKey)
			if err != nil {
				return err
			}
			defer done()
			var ws []*signednote.Verifier
			for _, p := range witnessKeys {
				w, err := loadVerifierKey("witness key", p, keyfile.WitnessVerifierKey)
				if err != nil {
					return err
				}
				ws = append(ws, w)
			}
			var inputs []witness.CosignatureInput
			for _, p := range args {
				data, err := regularfile.ReadFile(p, signednote.MaxBytes)
				if err != nil {
					return cli.Failf("%v", err)
				}
				inputs = append(inputs, witness.CosignatureInput{Source: p, Data: data})
			}
			ctx, cancel := logContext()
			defer cancel()
			var res *witness.AttachResult
			cp, err := tlog.Open(store, lv).UpdateCheckpoint(ctx, func(cp *signednote.Checkpoint) ([]byte, error) {
				var err error
				res, err = witness.AttachAt(cp.Note, lv, ws, inputs, time.Now())
				if err != nil {
					return nil, err
				}
				return res.Checkpoint, nil
			})
			if _, uncounted := errors.AsType[*signednote.UncountedCosignature](err); uncounted || errors.Is(err, witness.ErrBadCosignature) {
				a.msgs().Errorf("%v", err)
				return cli.Exit(exitInvalid)
			}
			if err != nil {
				return cli.Failf("%v", err)
			}
			for _, d := range res.Dropped {
				a.warnf("%s: dropped the cosignature by %s: %s", d.Source, d.Name, d.Reason)
			}
			a.msgs().Notef("checkpoint of %s at size %d: %d cosignature(s) added, %d witness key(s) now: %s",
				cp.Origin, cp.Size, len(res.Added), len(res.Cosigners), witness.FormatCosigners(res.Cosigners))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the log directory")
	f.StringVar(&s3, "s3", "", "the log here instead: "+s3FlagUsage)
	f.StringVar(&dsn, "mysql", "", "deprecated (use --s3): the log in this MariaDB/MySQL database instead: a DSN, or env:NAME")
	f.StringArrayVar(&witnessKeys, "witness-key", nil, "a witness's verifier key file (repeat for each witness)")
	f.StringVar(&logKey, "log-key", "", "the log's verifier key file (default: the key 'log init' recorded: DIR/"+posix.KeyFile+", or in the database)")
	return cmd
}

// findSigstoreBinary returns $MCPRES_SIGSTORE, else mcpres-sigstore next to
// this executable, else mcpres-sigstore on PATH.
func findSigstoreBinary() (string, error) {
	return findCompanion("mcpres-sigstore", sigstoreBinaryEnv, "the Rekor upload is")
}

// runSigstore runs mcpres-sigstore with args and the same streams; its exit
// status becomes ours.
func (a *app) runSigstore(args ...string) error {
	bin, err := findSigstoreBinary()
	if err != nil {
		return cli.Failf("%v", err)
	}
	c := exec.Command(bin, args...)
	c.Stdin, c.Stdout, c.Stderr = a.stdin, a.document(), termsafe.Unwrap(a.stderr) // it escapes its own text
	err = c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return cli.Exit(ee.ExitCode()) // mcpres-sigstore has printed why
	}
	if err != nil {
		return cli.Failf("running %s: %v", bin, err)
	}
	return nil
}
