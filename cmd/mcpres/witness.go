package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
	"github.com/spf13/cobra"
	"github.com/transparency-dev/tessera/api/layout"
)

// witnessHTTPTimeout bounds each request to a remote log.
const witnessHTTPTimeout = 30 * time.Second

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
	cmd.AddCommand(a.witnessKeygenCommand(), a.witnessCosignCommand(), a.witnessServeCommand())
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
				return usagef("--name is required")
			}
			if out == "" {
				return usagef("--%s NAME is required", keyPairFlag)
			}
			return a.generateNoteKey(signednote.TypeCosignatureV1, name, out)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the witness's name (the key's name)")
	cmd.Flags().StringVar(&out, keyPairFlag, "", keyPairUsage+" (NAME.key, NAME.vkey)")
	cli.DeprecatedAlias(cmd, "out", keyPairFlag, func(err error) error { return &usageError{err} })
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
	var logArg, logKey, keyPath, statePath, out string
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
				return usagef("--log is required")
			case logKey == "":
				return usagef("--log-key is required")
			case statePath == "":
				return usagef("--state is required")
			case out == "":
				return usagef("-o/--output is required")
			}
			if sameFile(statePath, out) {
				return usagef("--state and -o name the same file")
			}
			if sameFile(statePath+witness.StateLockSuffix, out) {
				return usagef("-o names the lock file of --state")
			}
			if err := checkOutputs([]string{out}, []string{keyPath, logKey, statePath}, force); err != nil {
				return err
			}
			lv, err := loadVerifierKey("log key", logKey, signednote.ParseLogVerifier)
			if err != nil {
				return err
			}
			w, err := a.loadWitnessSigner(keyPath)
			if err != nil {
				return err
			}
			reader, err := openLogReader(logArg)
			if err != nil {
				return err
			}
			// Held from the read of the state to after its write: another
			// process deciding on the same state waits for this one.
			sf, err := witness.LockStateFile(statePath, witnessLockWait)
			if err != nil {
				return failf("%v", err)
			}
			defer sf.Unlock()
			state, err := readWitnessState(sf, lv.Name(), initState)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), logTimeout)
			defer cancel()
			prev := state.Get(lv.Name())
			// The cosignature's timestamp: the one place this command
			// reads the clock.
			c, err := witness.Cosign(ctx, reader, lv, w, prev, time.Now())
			if errors.Is(err, witness.ErrRefused) {
				fmt.Fprintf(a.stderr, "mcpres: error: %v\n", err)
				return &exitError{exitInvalid}
			}
			if err != nil {
				return failf("%v", err)
			}
			// Record first: a cosignature is never published for a tree
			// the state does not hold.
			state.Put(c.State)
			if err := sf.Write(state); err != nil {
				return writeFileError(statePath, err)
			}
			if err := a.writeOutput(out, []string{keyPath, statePath}, c.Line, force); err != nil {
				return err
			}
			from := "first use"
			if c.From != nil {
				from = fmt.Sprintf("consistent with size %d", c.From.Size)
			}
			fmt.Fprintf(a.stderr, "mcpres: cosigned %s at size %d (%s) as %s\n", c.State.Origin, c.State.Size, from, w.Name())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&logArg, "log", "", "the log: a directory or an http(s) URL")
	f.StringVar(&logKey, "log-key", "", "the log's verifier key file")
	f.StringVar(&keyPath, "key", "", "the witness's private key: PATH, file:PATH or env:NAME (default: $"+witnessKeyEnv+")")
	f.StringVar(&statePath, "state", "", "the witness state file (updated atomically)")
	f.StringVarP(&out, "output", "o", "", "where to write the cosignature line (required; - for standard output)")
	f.BoolVar(&initState, "init", false, "accept a log the state file does not know (trust on first use)")
	f.BoolVar(&force, "force", false, "replace an existing output file")
	return cmd
}

// readWitnessState reads the locked state file; a missing file or a log it
// does not know is accepted only with --init.
func readWitnessState(sf *witness.StateFile, origin string, initState bool) (*witness.State, error) {
	path := sf.Path()
	s, err := sf.Read()
	if err != nil {
		return nil, failf("%v", err)
	}
	if s == nil {
		if !initState {
			return nil, failf("witness state %s does not exist: pass --init to start witnessing %s from its current checkpoint (trust on first use)", path, origin)
		}
		return &witness.State{}, nil
	}
	if s.Get(origin) == nil && !initState {
		return nil, failf("witness state %s has no record of log %s: pass --init to start witnessing it from its current checkpoint (trust on first use)", path, origin)
	}
	return s, nil
}

// openLogReader chooses how to read the log: an http(s) URL, or a
// directory.
func openLogReader(arg string) (witness.LogReader, error) {
	if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
		u, err := url.Parse(arg)
		if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return nil, usagef("--log %q is not a log URL (http or https, no credentials, query or fragment)", arg)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		return &httpLog{base: u, client: &http.Client{Timeout: witnessHTTPTimeout}}, nil
	}
	st, err := os.Stat(arg)
	if err != nil {
		return nil, failf("log %v", err)
	}
	if !st.IsDir() {
		return nil, failf("log %s is not a directory (or an http(s) URL)", arg)
	}
	return dirLog(arg), nil
}

// dirLog reads a tlog-tiles log directory with the limits of httpLog; its
// files must be regular files (a FIFO is refused at once, never waited on).
type dirLog string

func (d dirLog) ReadCheckpoint(context.Context) ([]byte, error) {
	return regularfile.ReadFile(filepath.Join(string(d), layout.CheckpointPath), signednote.MaxBytes)
}

func (d dirLog) ReadTile(_ context.Context, level, index uint64, p uint8) ([]byte, error) {
	data, err := regularfile.ReadFile(filepath.Join(string(d), layout.TilePath(level, index, p)), maxTileBytes)
	if errors.Is(err, fs.ErrNotExist) && p > 0 {
		// The partial tile may have been replaced by the full one.
		return regularfile.ReadFile(filepath.Join(string(d), layout.TilePath(level, index, 0)), maxTileBytes)
	}
	return data, err
}

// httpLog reads a tlog-tiles log over HTTP, with size limits: a checkpoint
// of at most signednote.MaxBytes, tiles of at most 8 KiB.
type httpLog struct {
	base   *url.URL
	client *http.Client
}

const maxTileBytes = 256 * 32

func (h *httpLog) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	return h.get(ctx, layout.CheckpointPath, signednote.MaxBytes)
}

func (h *httpLog) ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	data, err := h.get(ctx, layout.TilePath(level, index, p), maxTileBytes)
	if errors.Is(err, fs.ErrNotExist) && p > 0 {
		// The partial tile may have been replaced by the full one.
		return h.get(ctx, layout.TilePath(level, index, 0), maxTileBytes)
	}
	return data, err
}

func (h *httpLog) get(ctx context.Context, path string, max int64) ([]byte, error) {
	u := h.base.JoinPath(path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, fmt.Errorf("GET %s: %w", u, fs.ErrNotExist)
	default:
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("GET %s: more than %d bytes", u, max)
	}
	return data, nil
}
