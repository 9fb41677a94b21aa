//go:build mcpres_s3

package main

// The object-storage log (--s3, package tlog/aws): linked only into an
// mcpres built with -tags mcpres_s3. The AWS SDK's package initialisation
// adds about 4 MB to the resident memory of every mcpres run, which broke
// validate's memory bound on the limit bundle (TestLimitBundleMemory), so
// the default build leaves it out (logs3_none.go) and says how to get it.

import (
	"context"
	"os/signal"
	"syscall"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
	tlogaws "github.com/mcpres/mcpres/tlog/aws"
	"github.com/mcpres/mcpres/tlog/mysql"
)

// s3Built says whether this build has the object-storage log.
const s3Built = true

// s3Missing says why --s3 cannot be used: never, in this build.
func s3Missing() error { return nil }

// openS3Log opens the log the --s3 config file path names, authenticated
// with key or, when key is nil, the key 'log init' recorded. An unreadable
// or invalid config is a usage error (exit 2).
func openS3Log(ctx context.Context, path string, key *signednote.Verifier) (s3Log, *signednote.Verifier, error) {
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

// migrateToS3 is log migrate: the log kept by the MySQL driver at from
// moved to the object storage of the config file to.
func (a *app) migrateToS3(from, to, logKey string, dryRun bool) error {
	cfg, err := tlogaws.ReadConfig(to)
	if err != nil {
		return cli.Usagef("--to-s3: %v", err)
	}
	var key *signednote.Verifier
	if logKey != "" {
		if key, err = loadVerifierKey("log key", logKey, keyfile.LogVerifierKey); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	octx, cancel := logContext()
	src, v, err := mysql.OpenLog(octx, from, key)
	cancel()
	if err != nil {
		return logKeyError(err)
	}
	defer src.Close()
	var plan *tlogaws.MigrationPlan
	if dryRun {
		plan, err = tlogaws.PlanMigration(ctx, src, v, cfg)
	} else {
		plan, err = tlogaws.Migrate(ctx, src, v, cfg)
	}
	if err != nil {
		return cli.Failf("migrating the log to bucket %s: %v", cfg.Bucket, err)
	}
	switch {
	case dryRun && plan.Done:
		a.msgs().Notef("dry run: log %s (size %d, root %x) is already migrated to bucket %s", plan.Origin, plan.Size, plan.Root, cfg.Bucket)
	case dryRun:
		a.msgs().Notef("dry run: would migrate log %s (size %d, root %x, %d entry bundles) to bucket %s; the destination's tree has %d entries", plan.Origin, plan.Size, plan.Root, plan.Bundles, cfg.Bucket, plan.Integrated)
	default:
		a.msgs().Notef("migrated log %s (size %d, root %x) to bucket %s: verified; serve it with 'log serve --s3'", plan.Origin, plan.Size, plan.Root, cfg.Bucket)
	}
	return nil
}
