package main

import (
	"context"
	"errors"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/admit"
	"github.com/mcpres/mcpres/tlog/client"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
	"github.com/mcpres/mcpres/tlog/witnessclient"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The log service: 'log serve' and the client side of 'log add --server'.

// logTokenEnv holds the submission bearer token when --token-file is not
// given (CI secrets).
const logTokenEnv = "MCPRES_LOG_TOKEN"

const (
	// serveMemoryHeadroom is what log serve needs beyond the submissions'
	// memory budget: the runtime, the compiled schemas, Tessera, and the
	// submissions waiting for their checkpoint. Unless $GOMEMLIMIT is set,
	// the Go runtime's memory limit is the budget plus this.
	serveMemoryHeadroom = 128 << 20
	// maxServeMemoryMiB bounds --max-memory (1 TiB).
	maxServeMemoryMiB = 1 << 20
	// serveGCPercent is log serve's GOGC unless $GOGC is set. The memory
	// limit bounds the process; below it, collecting each time the heap
	// doubles (GOGC 100) spent a quarter of the server's CPU at 512
	// clients, much of it scanning the stacks of the goroutines waiting
	// for their checkpoint: at 400 a submission costs 0.7 ms of CPU
	// instead of 1 ms, and the peak resident set at 512 clients is 170 MB
	// instead of 81 MB (the bound stays --max-memory + 128 MiB).
	serveGCPercent = 400
)

var logServeLong = `Serve a log over HTTP for the pipelines of an organisation.

Reads are the C2SP tlog-tiles API, public: GET /checkpoint (text/plain,
never cached), GET /tile/L/N[.p/W] and /tile/entries/N[.p/W]
(application/octet-stream; full tiles cached as immutable). GET /healthz
answers 200 while the published checkpoint verifies.

Submissions: POST /add with a conformance bundle or an attested bundle as
the body, as 'log add' takes it. The body is read with the strict reader
and validated before anything is logged (an attested bundle whole: its
wrapper's schema and every envelope's signature): unreadable input is
answered 400, invalid evidence 422, each with the diagnostic JSON of
'mcpres validate --format json' (at most 100 schema errors listed); a
body over 16 MiB 413. Once a published checkpoint covers the entry, the
answer (200, application/json) is the transparency reference 'log add -o'
writes. A bundle already in the log is answered with its existing entry,
so clients may retry safely.

Memory: the submissions being read and admitted share --max-memory MiB
(default 256). Each holds, for the n bytes of its body read so far, what
reading, parsing and validating them can cost (2n + min(48n, 48 MiB) +
256 KiB; 80.25 MiB for a 16 MiB body), taken as the bytes arrive and given
back once it is validated. A submission whose next bytes do not fit is
answered 503 with Retry-After at once, and a body past its first 64 KiB may
use only three quarters of the budget, so small submissions go through
while large ones wait their turn. Unless $GOMEMLIMIT is set, the Go
runtime's memory limit is --max-memory + 128 MiB, and the process stays
under that (32 bodies of 16 MiB at once: 176 MiB at the default, where
they took 0.7 to 1.1 GiB before the budget); within it the collector runs
when the heap has grown fourfold (GOGC 400 unless $GOGC is set), which
costs less CPU than at each doubling.

Concurrency: a body is read completely before the submission takes one of
the --max-concurrent slots, so a slow client holds no slot (and only the
memory of what it sent, for at most the 30 s read timeout); beyond them the
answer is 429 with Retry-After. When Tessera is behind the answer is 503
with Retry-After.

The log key (--key) is a key reference: a log key file (PATH, file:PATH,
env:NAME; default $MCPRES_LOG_KEY), or pkcs11:URI or
ssh-agent:SHA256:FINGERPRINT with --origin (see docs/keys.md). It signs
each checkpoint, once per integration. While it cannot sign (a token or an
agent that is gone), submissions are answered 503 with Retry-After at once
and GET /healthz 503; the key is tried again at most once a second, and
the log serves again as soon as it is back.

With --token-file (or $MCPRES_LOG_TOKEN), a submission needs the header
"Authorization: Bearer TOKEN". The server listens on 127.0.0.1 unless
--listen says otherwise: put a reverse proxy that terminates TLS in front
of it. SIGTERM or SIGINT stops it: no new connections, the submissions in
flight are finished and answered, then it exits 0.

One process at a time serves a log directory (--dir): a second 'log serve'
on it refuses to start (exit status 2), unless the first is stopping (it
has received SIGTERM or SIGINT and finishes its submissions): then the new
one says so, waits for it (at most ` + server.RestartWait.String() + `), and only then
binds --listen, so that a restart on the same address works at once.

--s3 CONFIG serves a log on S3-compatible object storage with a
MySQL-compatible database (Tessera's AWS driver): the tiles, entry bundles
and checkpoint are objects in the bucket, which any static server or CDN
can serve to readers, and the database sequences entries and holds the
shared deduplication index. CONFIG is a JSON file: {"endpoint":
"https://s3.example.org", "region": "us-east-1", "bucket": "mcpres-log",
"pathStyle": true, "database": "env:MCPRES_LOG_DSN"} (endpoint: empty for
AWS; plain http only to a loopback host unless "allowInsecureHTTP": true).
The S3 credentials come from the environment (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY) or the standard AWS credential chain, never from
the file or the command line. At start the store is probed: two racing
conditional creates (If-None-Match: *) of one key must give exactly one
winner, else the server refuses to start (Tessera relies on them; a store
that ignores them corrupts a log silently). Several 'log serve' processes
on one bucket and database serve one log: a bundle sent to two of them at
once gets one entry. The driver integrates once a second, so an answer
takes one to three seconds.

--mysql DSN (deprecated: Tessera removed its MySQL driver after v1.0.2;
'log migrate' moves a log to --s3) serves a log kept in MariaDB/MySQL
through Tessera's MySQL driver ("user:password@tcp(127.0.0.1:3306)/dbname", go-sql-driver/mysql's
format; env:NAME reads it from an environment variable, which keeps the
password out of the process list). mcpres applies its schema (Tessera's
tables and its own) at start. The tiles, checkpoints and references are
the same as a POSIX log's for the same entries; the deduplication index is
a table; Tessera's MySQL driver publishes at most one checkpoint a second.

--witness-policy FILE (a tlog policy; see 'mcpres policy tlog'): after each
new published checkpoint, every witness with a URL there is asked for its
cosignature over C2SP tlog-witness (in parallel, each within
--witness-timeout), and the cosignatures obtained are attached to the
published checkpoint. Submissions are then answered with a reference whose
checkpoint carries them, so a pipeline's reference can meet a v1 trust
policy's witness quorum. A witness that is down or refuses delays the
answers by at most its deadline and is logged as a warning; the verifier's
quorum decides whether what was obtained is enough.`

func (a *app) logServeCommand() *cobra.Command {
	var dir, dsn, s3, keyPath, origin, listen, tokenFile string
	var maxConcurrent, maxMemoryMiB int
	var wp witnessPolicyFlags
	cmd := &cobra.Command{
		Use:   "serve (--dir DIR | --s3 CONFIG | --mysql DSN) [--key LOG.key] [--listen 127.0.0.1:8080] [--token-file FILE] [--witness-policy FILE]",
		Short: "Serve the log (tlog-tiles reads, POST /add submissions) over HTTP",
		Long:  logServeLong,
		Example: `  mcpres log serve --dir /var/lib/mcpres/log --key env:MCPRES_LOG_KEY --token-file /etc/mcpres/log.token
  mcpres log add --server https://log.example.org --log-key log.vkey bundle.json -o bundle.ref.json`,
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
			token, err := loadToken(tokenFile)
			if err != nil {
				return err
			}
			minMiB := int((server.MinMemory(server.DefaultMaxBody, admit.Cost) + 1<<20 - 1) >> 20)
			if maxMemoryMiB < minMiB || maxMemoryMiB > maxServeMemoryMiB {
				return cli.Usagef("--max-memory %d: between %d MiB (what one %d MiB submission may need) and %d MiB", maxMemoryMiB, minMiB, server.DefaultMaxBody>>20, maxServeMemoryMiB)
			}
			if wp.timeout > server.MaxWitnessTimeout {
				return cli.Usagef("--witness-timeout %v: at most %v with log serve (a submission waits for its checkpoint's witnesses within %v)", wp.timeout, server.MaxWitnessTimeout, server.DefaultAddTimeout)
			}
			pol, err := wp.read(a)
			if err != nil {
				return err
			}
			store, _, done, err := openLog(dir, dsn, s3, signer.Verifier())
			if err != nil {
				return err
			}
			defer done()
			if st, ok := store.(s3Log); ok {
				ctx, cancel := logContext()
				err := probeS3(ctx, st)
				cancel()
				if err != nil {
					return err
				}
			}
			logger := log.New(a.stderr, "mcpres: log serve: ", 0)
			var wg *witnessclient.Witnessing
			if pol != nil {
				if wg, err = wp.open(a, pol, store, signer.Verifier(), logger); err != nil {
					return err
				}
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				// The bound the process stays under: the collector
				// works harder as the heap nears it.
				debug.SetMemoryLimit(int64(maxMemoryMiB)<<20 + serveMemoryHeadroom)
			}
			if os.Getenv("GOGC") == "" {
				debug.SetGCPercent(serveGCPercent)
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			svc := server.Service{
				Storage: store, Signer: signer, Witnessing: wg,
				Token: token, MaxConcurrent: maxConcurrent, MaxMemory: int64(maxMemoryMiB) << 20,
				Logger: logger,
			}
			// The address is bound once the log is locked, so that a
			// restart waits for a server that is stopping instead of
			// failing to bind the address it still holds.
			if err := svc.ListenAndRun(ctx, listen); errors.Is(err, server.ErrNoWitnessing) {
				return cli.Failf("--witness-policy: %v; use --mysql, or collect cosignatures with 'log proof --witness-policy' from another process", err)
			} else if err != nil {
				return cli.Failf("%v", err)
			}
			return nil
		},
	}
	wp.register(cmd)
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the log directory (created by 'log init')")
	f.StringVar(&s3, "s3", "", s3FlagUsage)
	f.StringVar(&dsn, "mysql", "", "deprecated (use --s3): serve the log in this MariaDB/MySQL database (created by 'log init --mysql'): a DSN, or env:NAME")
	f.StringVar(&keyPath, "key", "", "the log's private key: "+keyRefUsage+" (default: $"+logKeyEnv+")")
	f.StringVar(&origin, "origin", "", "the log's origin, with a key in a token or an agent (a key file carries it)")
	f.StringVar(&listen, "listen", "127.0.0.1:8080", "the address to listen on (host:port; port 0 picks one)")
	f.StringVar(&tokenFile, "token-file", "", "a file holding the bearer token submissions need (default: $"+logTokenEnv+"; none: open submissions)")
	f.IntVar(&maxConcurrent, "max-concurrent", server.DefaultMaxConcurrent, "submissions in flight (admitted, waiting for their checkpoint) beyond which the answer is 429")
	f.IntVar(&maxMemoryMiB, "max-memory", server.DefaultMaxMemory>>20, "MiB of memory the submissions being read and admitted may take together; beyond, the answer is 503 (see 'Memory' above)")
	return cmd
}

// loadToken reads the bearer token: --token-file, else $MCPRES_LOG_TOKEN,
// else none.
func loadToken(file string) (string, error) {
	if file == "" {
		return os.Getenv(logTokenEnv), nil
	}
	t, err := readKeyFile(file)
	if err != nil {
		return "", cli.Failf("token %s: %v", file, err)
	}
	return t, nil
}

// submitClient holds the flags of 'log add --server' (tlog/client).
type submitClient struct {
	tokenFile     string
	logKey        string
	timeout       time.Duration
	attempts      int
	requireQuorum string
}

func (c *submitClient) flags(f *pflag.FlagSet) {
	f.StringVar(&c.tokenFile, "token-file", "", "with --server: a file holding the server's bearer token (default: $"+logTokenEnv+")")
	f.StringVar(&c.logKey, "log-key", "", "with --server (required): the log's verifier key; the answer must verify against it before anything is written")
	f.DurationVar(&c.timeout, "timeout", logTimeout, "with --server: give up after this long, retries included")
	f.IntVar(&c.attempts, "attempts", client.DefaultAttempts, "with --server: at most this many attempts")
}

// submit posts body, the bytes of the bundle file path that adm admitted,
// to the log service at base, and writes the reference the client
// verified (tlog/client).
func (a *app) submit(base, path string, body []byte, adm *admit.Admission, c submitClient, out, proofOut string, force bool) error {
	v, err := loadVerifierKey("log key", c.logKey, keyfile.LogVerifierKey)
	if err != nil {
		return err
	}
	quorum, err := a.loadQuorumTrust(c.requireQuorum)
	if err != nil {
		return err
	}
	trust := offline.Trust{Logs: []offline.Log{{Origin: v.Name(), Key: v}}}
	token, err := loadToken(c.tokenFile)
	if err != nil {
		return err
	}
	cl, err := client.New(base, client.Options{Token: token, Attempts: c.attempts, OnRetry: func(attempt int, err error, wait time.Duration) {
		a.msgs().Notef("%s: attempt %d: %v; retrying in %v", path, attempt, err, wait.Round(time.Millisecond))
	}})
	if errors.Is(err, client.ErrTokenOverHTTP) {
		return cli.Failf("--server %s: %v", base, err)
	} else if err != nil {
		return cli.Usagef("--server: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	want, err := offline.ParseEntry(adm.LogEntry()) // the entry the log must append: an attested bundle's names its signers
	if err != nil {
		return cli.Failf("%s: %v", path, err)
	}
	ref, err := cl.Submit(ctx, body, want, trust)
	var refused *client.RefusedError
	switch {
	case errors.As(err, &refused):
		a.msgs().Errorf("%s: %v", path, err)
		if refused.Invalid() {
			return cli.Exit(exitInvalid)
		}
		return cli.Exit(exitInput)
	case err != nil:
		return cli.Failf("%s: submitting to %s: %v", path, cl.URL(), err)
	}
	verb := "logged"
	if ref.Existing {
		verb = "already logged"
	}
	a.msgs().Notef("%s: %s as entry %s of %s (tree size %d, verified with the log key %s)", path, verb, ref.Verified.EntryUUID, ref.Verified.LogID, ref.Verified.Checkpoint.Size, ref.Verified.Checkpoint.LogKey)
	if err := a.reportWitnessing(path, ref.Proof, ref.Verified.Entry, quorum, c.requireQuorum, "submit the bundle again: the server asks the witnesses missing from its checkpoint and answers a re-witnessed reference"); err != nil {
		return err
	}
	return a.writeReferenceBytes(ref.JSON, ref.Proof, out, proofOut, []string{path, c.logKey}, force)
}

// openLogReader opens the log of 'log proof' and 'log add-cosignature'
// (see openLog), authenticated with the --log-key file logKey, or the key
// 'log init' recorded there.
func (a *app) openLogReader(dir, dsn, s3, logKey string) (tlog.Storage, *signednote.Verifier, func(), error) {
	a.warnMySQL(dsn)
	var key *signednote.Verifier
	if logKey != "" {
		var err error
		if key, err = loadVerifierKey("log key", logKey, keyfile.LogVerifierKey); err != nil {
			return nil, nil, nil, err
		}
	}
	return openLog(dir, dsn, s3, key)
}

// openLog opens the log of a command: the directory (--dir), the bucket
// and database (--s3) or the database (--mysql), authenticated with key
// or, when key is nil, the key 'log init' recorded there (tlog.Key). The
// caller calls done.
func openLog(dir, dsn, s3 string, key *signednote.Verifier) (tlog.Storage, *signednote.Verifier, func(), error) {
	if err := oneLogFlag(dir, dsn, s3); err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := logContext()
	defer cancel()
	if s3 != "" {
		st, v, err := openS3Log(ctx, s3, key)
		if err != nil {
			return nil, nil, nil, err
		}
		return st, v, func() { st.Close() }, nil
	}
	if dir != "" {
		st := posix.New(dir)
		v, err := tlog.Key(ctx, st, key)
		if err != nil {
			return nil, nil, nil, logKeyError(err)
		}
		return st, v, func() {}, nil
	}
	st, v, err := mysql.OpenLog(ctx, dsn, key)
	if err != nil {
		return nil, nil, nil, logKeyError(err)
	}
	return st, v, func() { st.Close() }, nil
}

// logKeyError says what to do about a log with no recorded key.
func logKeyError(err error) error {
	if errors.Is(err, tlog.ErrNoRecordedKey) {
		return cli.Failf("%v: give the log's verifier key with --log-key", err)
	}
	return cli.Failf("%v", err)
}
