package aws_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/aws"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// A migration goes into an empty bucket and database: a destination where
// 'log init' made a log, of another key or of the source's own key, is
// refused by the plan, naming what it holds; the control is an empty
// destination, which plans the migration.
func TestMigrateRefusesOccupiedDestination(t *testing.T) {
	ctx := context.Background()
	s := signer(t, "example.org/mcpres-migrate-refuse")
	src, err := mysql.Open(ctx, mysqltest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := tlog.Open(src, s.Verifier()).Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	initialized := func(with *signednote.LogSigner) *aws.Config {
		t.Helper()
		cfg, _ := newConfig(t)
		st, err := aws.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := tlog.Open(st, with.Verifier()).Init(ctx, with); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	empty, _ := newConfig(t)
	if plan, err := aws.PlanMigration(ctx, src, s.Verifier(), empty); err != nil || plan.Done || plan.Integrated != 0 {
		t.Fatalf("control, an empty destination: %+v, %v", plan, err)
	}
	for _, tc := range []struct {
		name string
		cfg  *aws.Config
		says string
	}{
		{"another log", initialized(signer(t, "example.org/another-log")), "already holds another log (its checkpoint: "},
		{"the same log, initialised", initialized(s), "already holds log example.org/mcpres-migrate-refuse at size 0: refused (a migration goes into an empty bucket and database)"},
	} {
		if _, err := aws.PlanMigration(ctx, src, s.Verifier(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.says)
		}
	}
}

// Open refuses a bucket whose checkpoint object is not a checkpoint, and
// one whose checkpoint object is larger than any object of a log, before
// reading more of it; the control opens the bucket with an honest
// checkpoint (Open writes the empty log's first).
func TestOpenRefusesBadCheckpointObject(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		body []byte
		says string
	}{
		{"not a checkpoint", []byte("not a checkpoint\n"), "its checkpoint is not a checkpoint"},
		{"too large", bytes.Repeat([]byte("x"), 256*(tlog.MaxEntrySize+2)+1), "checkpoint is larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, srv := newConfig(t)
			st, err := aws.Open(ctx, cfg)
			if err != nil {
				t.Fatalf("control: %v", err)
			}
			st.Close()
			if _, err := srv.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: sdkaws.String(cfg.Bucket), Key: sdkaws.String("checkpoint"), Body: bytes.NewReader(tc.body)}); err != nil {
				t.Fatal(err)
			}
			if st, err := aws.Open(ctx, cfg); err == nil || !strings.Contains(err.Error(), tc.says) {
				if err == nil {
					st.Close()
				}
				t.Fatalf("Open: %v, want %q", err, tc.says)
			}
		})
	}
}
