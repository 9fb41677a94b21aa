//go:build !mcpres_s3

package main

import (
	"context"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/signednote"
)

// s3Built says whether this build has the object-storage log: not this
// one (see logs3_aws.go for why it is a build tag).
const s3Built = false

// s3Missing is the usage error of --s3 and log migrate in a build without
// the object-storage log: what is missing and how to get it.
func s3Missing() error {
	return cli.Usagef("this mcpres is built without the object-storage log (--s3, log migrate): install it with 'go install -tags mcpres_s3 ./cmd/mcpres' (the AWS SDK it links adds about 4 MB to the memory of every run, so the default build leaves it out)")
}

func openS3Log(context.Context, string, *signednote.Verifier) (s3Log, *signednote.Verifier, error) {
	return nil, nil, s3Missing()
}

func (a *app) migrateToS3(from, to, logKey string, dryRun bool) error { return s3Missing() }
