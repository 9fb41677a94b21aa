package main

import (
	"context"
	"fmt"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/signednote"
	tlogaws "github.com/mcpres/mcpres/tlog/aws"
)

// The log on object storage (--s3 CONFIG, tlog/aws) and the way off the
// deprecated --mysql.

// s3FlagUsage describes --s3 in every command that takes it.
const s3FlagUsage = "the log on S3-compatible object storage and a MySQL-compatible database: a JSON config file (endpoint, region, bucket, pathStyle, database; credentials from the environment or the AWS credential chain, never in the file)"

// mysqlDeprecation is printed whenever --mysql is used.
const mysqlDeprecation = "mcpres: warning: --mysql (Tessera's MySQL driver) is deprecated: Tessera removed that driver after v1.0.2; move the log to object storage with 'mcpres log migrate --from-mysql DSN --to-s3 CONFIG' and use --s3 (docs/transparency.md, \"Object storage\")"

// warnMySQL prints the deprecation warning when dsn is given.
func (a *app) warnMySQL(dsn string) {
	if dsn != "" {
		fmt.Fprintln(a.stderr, mysqlDeprecation)
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
	return nil
}

// openS3Log opens the log the --s3 config file path names, authenticated
// with key or, when key is nil, the key 'log init' recorded. An unreadable
// or invalid config is a usage error (exit 2).
func openS3Log(ctx context.Context, path string, key *signednote.Verifier) (*tlogaws.Storage, *signednote.Verifier, error) {
	cfg, err := tlogaws.ReadConfig(path)
	if err != nil {
		return nil, nil, cli.Usagef("--s3: %v", err)
	}
	st, v, err := tlogaws.OpenLog(ctx, cfg, key)
	if err != nil {
		return nil, nil, logKeyError(err)
	}
	return st, v, nil
}

// probeS3 refuses an object store that does not enforce conditional
// writes, before anything is written to it (tlog/aws).
func probeS3(ctx context.Context, st *tlogaws.Storage) error {
	if err := st.ProbeConditionalWrites(ctx); err != nil {
		return cli.Failf("%v", err)
	}
	return nil
}
