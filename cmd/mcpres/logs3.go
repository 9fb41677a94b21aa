package main

import (
	"context"
	"errors"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/monitor"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/spf13/cobra"
	"github.com/transparency-dev/tessera"
)

// The log on object storage (--s3 CONFIG, tlog/aws) and the way off the
// deprecated --mysql.

// s3FlagUsage describes --s3 in every command that takes it.
const s3FlagUsage = "the log on S3-compatible object storage and a MySQL-compatible database: a JSON config file (endpoint, region, bucket, pathStyle, database; credentials from the environment or the AWS credential chain, never in the file)"

// mysqlDeprecation is printed whenever --mysql is used.
const mysqlDeprecation = "--mysql (Tessera's MySQL driver) is deprecated: Tessera removed that driver after v1.0.2; move the log to object storage with 'mcpres log migrate --from-mysql DSN --to-s3 CONFIG' and use --s3 (docs/transparency.md, \"Object storage\")"

// warnMySQL prints the deprecation warning when dsn is given.
func (a *app) warnMySQL(dsn string) {
	if dsn != "" {
		a.warnf("%s", mysqlDeprecation)
	}
}

// oneLogFlag is the usage error unless exactly one of --dir, --mysql and
// --s3 is given.
func oneLogFlag(dir, dsn, s3 string) error {
	n := 0
	for _, v := range []string{dir, dsn, s3} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		return cli.Usagef("give one of --dir, --s3 and --mysql")
	}
	if s3 != "" {
		return s3Missing()
	}
	return nil
}

// oneLogSource is oneLogFlag for 'log proof', which also reads a log from
// its tiles at a URL (--url).
func oneLogSource(dir, dsn, s3, url string) error {
	if url == "" {
		return oneLogFlag(dir, dsn, s3)
	}
	if dir != "" || dsn != "" || s3 != "" {
		return cli.Usagef("give one of --dir, --s3, --mysql and --url")
	}
	return nil
}

// openProofLog opens the log of 'log proof': at url (read from its
// tiles, authenticated with the --log-key file logKey, which is then
// required: nothing is recorded at a URL), else as openLogReader does.
// witnessing says --witness-policy was given, which needs a log it can
// write to.
func (a *app) openProofLog(dir, dsn, s3, url, logKey string, witnessing bool) (tlog.Storage, *signednote.Verifier, func(), error) {
	if url == "" {
		return a.openLogReader(dir, dsn, s3, logKey)
	}
	switch {
	case logKey == "":
		return nil, nil, nil, cli.Usagef("--log-key is required with --url: a log read from its tiles records no key")
	case witnessing:
		return nil, nil, nil, cli.Usagef("--witness-policy cannot go with --url: cosignatures are attached where the log is written (--dir, --s3)")
	}
	key, err := loadVerifierKey("log key", logKey, keyfile.LogVerifierKey)
	if err != nil {
		return nil, nil, nil, err
	}
	src, err := monitor.NewHTTPSource(url, 0)
	if err != nil {
		return nil, nil, nil, cli.Usagef("--url: %v", err)
	}
	return tilesLog{src}, key, func() {}, nil
}

// A tilesLog is a log read from its tlog-tiles resources alone
// (checkpoint, tile/..., tile/entries/...): at a URL (a bucket's public
// URL, a CDN or static server in front of it, a 'log serve') or in a copy
// of the tree in a directory, through tlog/monitor's sources, which bound
// every answer, never follow a redirect and send no credential. Nothing
// read is trusted: tlog.Log authenticates the checkpoint with the log key
// and checks every proof it builds. It writes nothing.
type tilesLog struct{ monitor.Source }

var _ tlog.Storage = tilesLog{}

// errTilesReadOnly is the error of every write to a tilesLog.
var errTilesReadOnly = errors.New("a log read from its tiles is read-only")

func (tilesLog) Driver(context.Context) (tessera.Driver, error) { return nil, errTilesReadOnly }

func (tilesLog) ReplaceCheckpoint(context.Context, []byte, []byte) error { return errTilesReadOnly }

func (tilesLog) OpenDedup(context.Context) (tlog.DedupIndex, error) { return nil, errTilesReadOnly }

// String names the log in messages: its URL or directory.
func (l tilesLog) String() string { return l.Name() }

// addStore opens the log 'log add' appends to without a server: the log
// directory dir, or the object storage of the --s3 config file s3 (after
// probing it for conditional writes), authenticated with key. The caller
// calls done.
func addStore(ctx context.Context, dir, s3 string, key *signednote.Verifier) (store tlog.Storage, done func(), err error) {
	if s3 == "" {
		return posix.New(dir), func() {}, nil
	}
	st, _, err := openS3Log(ctx, s3, key)
	if err != nil {
		return nil, nil, err
	}
	if err := probeS3(ctx, st); err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, func() { st.Close() }, nil
}

// addTarget is the usage error of 'log add' unless it is given exactly
// one of a log directory, an --s3 config and a server.
func addTarget(dir, s3, server string) error {
	n := 0
	for _, v := range []string{dir, s3, server} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		return cli.Usagef("give one of --dir (a local log), --s3 (a log on object storage) and --server (a 'log serve')")
	}
	if s3 != "" {
		return s3Missing()
	}
	return nil
}

// An s3Log is a log on object storage and a database (package tlog/aws,
// linked only into an mcpres built with -tags mcpres_s3: logs3_aws.go).
type s3Log interface {
	tlog.Storage
	Close() error
	// ProbeConditionalWrites fails unless the store enforces conditional
	// creates, which Tessera relies on.
	ProbeConditionalWrites(ctx context.Context) error
}

// probeS3 refuses an object store that does not enforce conditional
// writes, before anything is written to it (tlog/aws).
func probeS3(ctx context.Context, st s3Log) error {
	if err := st.ProbeConditionalWrites(ctx); err != nil {
		return cli.Failf("%v", err)
	}
	return nil
}

func (a *app) logMigrateCommand() *cobra.Command {
	var from, to, logKey string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "migrate --from-mysql DSN --to-s3 CONFIG [--log-key LOG.vkey] [--dry-run]",
		Short: "Move a log kept by the deprecated MySQL driver to object storage",
		Long: `Move a log kept in MariaDB/MySQL by Tessera's MySQL driver (--mysql, removed
upstream after v1.0.2) to S3-compatible object storage and a new
MySQL-compatible database (--s3 CONFIG), without changing its origin, size
or root hash: every entry bundle is copied, the tiles are rebuilt from them
and the root hash checked, every bundle in the bucket is compared with the
source's, the last entry is proved from the bucket's tiles, and the
source's signed checkpoint (with its cosignatures) is published as is:
nothing is signed again, so no key is needed. The log's verifier key is
recorded in the new database.

Stop the servers of the source first: what is migrated is the source's
checkpoint at the start. The destination must be an empty bucket and a new
database (one that holds another log, or another migration, is refused).
The migration is recorded in the destination database when it starts:
until it has finished, 'log init' and 'log serve' refuse the destination,
and running 'log migrate' again with the same source resumes it. Once it
has finished, serve the log with 'log serve --s3 CONFIG'.

--dry-run reads both sides, writes nothing, and says what would be done.
The source is authenticated with --log-key, or the key 'log init'
recorded in it. Exit 0 migrated (or already migrated), 1 refused or
failed, 2 unreadable input or usage.`,
		Example: `  MCPRES_LOG_DSN='mcpres:pw@tcp(db:3306)/log' mcpres log migrate --from-mysql env:MCPRES_LOG_DSN --to-s3 s3.json --dry-run`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" || to == "" {
				return cli.Usagef("--from-mysql and --to-s3 are required")
			}
			return a.migrateToS3(from, to, logKey, dryRun)
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from-mysql", "", "the log kept by the MySQL driver: a DSN, or env:NAME")
	f.StringVar(&to, "to-s3", "", "the destination: "+s3FlagUsage)
	f.StringVar(&logKey, "log-key", "", "the log's verifier key (default: the key 'log init' recorded in the source)")
	f.BoolVar(&dryRun, "dry-run", false, "read both sides and say what would be done; write nothing")
	return cmd
}
