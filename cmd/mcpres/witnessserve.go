package main

import (
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness/witnesshttp"
	"github.com/spf13/cobra"
)

// witnessDefaultListen is where 'witness serve' listens unless told
// otherwise: the loopback interface only.
const witnessDefaultListen = "127.0.0.1:7380"

const witnessServeLong = `Serve the C2SP tlog-witness HTTP API: POST /add-checkpoint.

A log (any C2SP tlog-witness client: an mcpres log with --witness-policy, a
Tessera log with witnesses, Sigsum's) sends its new checkpoint with the
consistency proof from the size this witness last cosigned; the witness
checks the checkpoint with the log's key (--log, one verifier key file per
log, repeatable; the key's name is the log's origin), checks that the log
only grew, records the new size and root atomically in the state directory
(write, fsync, rename), and answers its cosignature/v1 line. It never
cosigns a rollback or a fork. Requests for one log are handled one at a
time.

The witness holds an exclusive lock on DIR/serve.lock while it runs: a
second 'witness serve' on the same state directory refuses to start (exit
status 2) rather than cosign beside the first, which could let the two
cosign different trees of one size. Stop the running one first (a blue/green
switch or restart must not overlap); the lock is released when it exits,
even when killed. Each request also holds its log's state lock
(DIR/log-....json.lock) while it reads, decides and writes, as 'witness
cosign' does on the same file. Where files cannot be locked (systems other
than Linux, macOS and the BSDs) the command refuses to run.

The key (--key) is a key reference: a witness key file (PATH, file:PATH,
env:NAME; default $MCPRES_WITNESS_KEY), or pkcs11:URI or
ssh-agent:SHA256:FINGERPRINT with --name (see docs/keys.md).

Answers: 200 the cosignature; 400 a malformed request (or an old size
larger than the checkpoint's); 403 not signed by the log's key; 404 a log
this witness does not witness; 409 (text/x.tlog.size) the old size is not
the size last cosigned, whose value is the body; 413 a body too large; 422
the consistency proof does not verify; 500 the state could not be updated
(nothing was cosigned); 503 the log's state stayed locked by another process
for 10 s, or the witness key could not sign (a key in a token or an agent
that is gone: the next request tries it again; nothing was cosigned). Sizes are at most 2^53-1 (the largest a
state records): larger ones are a malformed request (400).

A log the state directory has no record of is accepted from "old 0" (trust
on first use, as the protocol defines). The witness listens on
` + witnessDefaultListen + ` unless --listen says otherwise; put a TLS
front end before it to serve other hosts. It runs until interrupted
(SIGINT or SIGTERM).

At start it prints its base URL (http://ADDR/): that, or the URL of the
front end, is the witness's URL in a tlog policy ('policy tlog
add-witness --url'); a log appends /add-checkpoint itself.`

func (a *app) witnessServeCommand() *cobra.Command {
	var listen, keyPath, name, stateDir string
	var logKeys []string
	cmd := &cobra.Command{
		Use:   "serve --key WITNESS.key --state DIR --log LOG.vkey... [--listen ADDR]",
		Short: "Serve the C2SP tlog-witness API (POST /add-checkpoint)",
		Long:  witnessServeLong,
		Example: `  mcpres witness serve --key witness.key --state witness-state \
      --log log.vkey --listen 127.0.0.1:7380`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case stateDir == "":
				return cli.Usagef("--state DIR is required")
			case len(logKeys) == 0:
				return cli.Usagef("--log is required (the verifier key file of each log to witness)")
			}
			w, key, err := a.openWitnessSigner(keyPath, name)
			if err != nil {
				return err
			}
			defer key.Close()
			var logs []*signednote.Verifier
			for _, p := range logKeys {
				v, err := loadVerifierKey("log key", p, keyfile.LogVerifierKey)
				if err != nil {
					return err
				}
				logs = append(logs, v)
			}
			if err := os.MkdirAll(stateDir, 0o755); err != nil {
				return cli.Failf("state directory: %v", err)
			}
			logger := slog.New(slog.NewTextHandler(a.stderr, nil))
			// The cosignature timestamps: the one clock this command reads.
			srv, err := witnesshttp.New(w, logs, stateDir, time.Now, logger)
			if err != nil {
				return cli.Failf("%v", err)
			}
			defer srv.Close()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return cli.Failf("listening on %s: %v", listen, err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// The base URL, the one a tlog policy's witness line takes:
			// a log POSTs to URL/add-checkpoint.
			base := "http://" + ln.Addr().String() + "/"
			a.msgs().Notef("witness %s serving %d log(s) at %s (POST /add-checkpoint); in a tlog policy its URL is that base URL: policy tlog add-witness FILE --name NAME --key W.vkey --url %s",
				w.Name(), len(logs), base, base)
			if err := srv.Serve(ctx, ln); err != nil {
				return cli.Failf("%v", err)
			}
			a.msgs().Notef("witness stopped")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", witnessDefaultListen, "the address to listen on")
	f.StringVar(&keyPath, "key", "", "the witness's private key: "+keyRefUsage+" (default: $"+witnessKeyEnv+")")
	f.StringVar(&name, "name", "", "the witness's name, with a key in a token or an agent (a key file carries it)")
	f.StringVar(&stateDir, "state", "", "the state directory (created if missing)")
	f.StringArrayVar(&logKeys, "log", nil, "a log's verifier key file (repeat for each log)")
	return cmd
}
