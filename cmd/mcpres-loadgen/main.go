// Command mcpres-loadgen measures a log server (mcpres log serve): N
// concurrent clients submit distinct, valid conformance bundles (variants
// of --bundle, each re-sealed with its own run environment:
// tlog/loadgen.Variants) for a bounded time and count, and it reports
// submissions per second and the time from sending a bundle to holding its
// reference (p50, p99, max). It only drives servers on the loopback
// interface.
//
//	mcpres log serve --dir /tmp/loadlog --key log.key --listen 127.0.0.1:8080 &
//	mcpres-loadgen --url http://127.0.0.1:8080 --bundle testdata/bundles/example.json \
//	    --clients 256 --duration 30s
//
// With --rekor-v2 it drives a Rekor v2 server (rekor-tiles) the same way,
// the peer the bench measures the log service against: each submission
// is a hashedrekord v0.0.2 entry (POST /api/v2/log/entries) of a distinct
// artifact digest, signed with one of the ECDSA P-256 keys it makes at
// start, and it counts as logged when the answer is the entry with its
// inclusion proof (verified).
//
// Exit status: 0 measured, 2 a usage error, unreadable input or a run that
// could not start.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/internal/version"
	"github.com/mcpres/mcpres/tlog/loadgen"
	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// maxTokenBytes bounds --token-file: one line.
const maxTokenBytes = 4096

// run executes one command line and returns its exit code (cli.Run).
func run(args []string, stdout, stderr io.Writer) int {
	stdout, stderr = termsafe.NewWriter(stdout), termsafe.NewWriter(stderr) // what the server answers is quoted
	var url, bundlePath, tokenFile string
	var clients, requests, prepare int
	var duration time.Duration
	var rekorV2 bool
	root := &cobra.Command{
		Use:   "mcpres-loadgen --url URL (--bundle BUNDLE [--token-file FILE] | --rekor-v2) [--clients N] [--duration D] [--requests N] [--prepare N]",
		Short: "Measure a log server (submissions per second, latency percentiles)",
		Long: `Measure a log server ('mcpres log serve'): --clients concurrent clients
submit distinct, valid conformance bundles (variants of --bundle, each
sealed again with its own run environment) for --duration or --requests,
whichever comes first, and the submissions per second and the time from
sending a bundle to holding its reference (p50, p99, max) are printed.
Only servers on the loopback interface are driven; a run lasts at most 5m
and 1,000,000 submissions.

Making a variant costs about half what the server spends on it; when the
load generator shares the server's cores, --prepare N makes the first N
before the run starts (on all cores; they are held in memory, N times the
bundle's size), so that the run measures the server.

--rekor-v2 drives a Rekor v2 server (rekor-tiles) instead, with the same
clients, bounds and result line: each submission is a hashedrekord
v0.0.2 entry (POST /api/v2/log/entries) of a distinct artifact digest,
signed with one of the ECDSA P-256 keys made at start, and it counts
when the server answers 201 with the entry and its inclusion proof
(checked against the entry).`,
		Args:              cobra.NoArgs,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if rekorV2 && (bundlePath != "" || tokenFile != "") {
				return cli.Usagef("--rekor-v2 submits hashedrekord entries: no --bundle or --token-file")
			}
			if url == "" || (bundlePath == "" && !rekorV2) {
				return cli.Usagef("--url and --bundle are required")
			}
			if prepare < 0 || prepare > loadgen.MaxPrepare {
				return cli.Usagef("--prepare %d: between 0 and %d", prepare, loadgen.MaxPrepare)
			}
			if err := loadgen.CheckLoopback(url); err != nil {
				return cli.Usage(err)
			}
			if rekorV2 {
				return runRekorV2Cmd(url, clients, duration, requests, prepare, stdout, stderr)
			}
			var token string
			if tokenFile != "" {
				data, err := regularfile.ReadFile(tokenFile, maxTokenBytes)
				if err != nil {
					return cli.Failf("--token-file: %v", err)
				}
				token = strings.TrimSpace(string(data))
			}
			_, base, err := canonjson.ReadFile(bundlePath)
			if err != nil {
				return cli.Failf("--bundle: %v", err)
			}
			body, err := loadgen.Variants(base, datetime.Millis(time.Now()))
			if err != nil {
				return cli.Failf("%s: %v", bundlePath, err)
			}
			(&cli.Printer{Prog: "mcpres-loadgen", Stderr: stderr}).Notef("%d clients against %s for %v", clients, url, duration)
			res, err := loadgen.Run(context.Background(), loadgen.Config{
				URL: url, Token: token, Clients: clients, Duration: duration, Requests: requests, Body: body, Prepare: prepare,
			})
			if err != nil {
				return cli.Failf("%v", err)
			}
			fmt.Fprintln(stdout, res)
			return nil
		},
	}
	f := root.Flags()
	f.StringVar(&url, "url", "", "the log server's base URL (loopback only)")
	f.StringVar(&bundlePath, "bundle", "", "a valid conformance bundle whose variants are submitted")
	f.IntVar(&clients, "clients", 64, "concurrent clients")
	f.DurationVar(&duration, "duration", 30*time.Second, "how long to run (at most 5m)")
	f.IntVar(&requests, "requests", 0, "stop after this many submissions (0: the duration decides; at most 1,000,000)")
	f.IntVar(&prepare, "prepare", 0, fmt.Sprintf("make the first N submissions before the run starts (at most %d)", loadgen.MaxPrepare))
	f.StringVar(&tokenFile, "token-file", "", "a file holding the server's bearer token")
	f.BoolVar(&rekorV2, "rekor-v2", false, "drive a Rekor v2 server with hashedrekord v0.0.2 entries instead of a log server with bundles")
	root.Version = version.Version
	root.SetVersionTemplate(version.ReadBuild().Describe("mcpres-loadgen"))
	return cli.Run(root, "mcpres-loadgen", args, nil, stdout, stderr)
}

// rekorV2MaxSigners bounds the keys of a --rekor-v2 run (one per client).
const rekorV2MaxSigners = 64

// runRekorV2Cmd is the --rekor-v2 run: keys made now, one per client (at
// most rekorV2MaxSigners), then the run (loadgen.RunRekorV2), and its
// result line.
func runRekorV2Cmd(url string, clients int, duration time.Duration, requests, prepare int, stdout, stderr io.Writer) error {
	signers, err := loadgen.NewRekorV2Signers(min(max(clients, 1), rekorV2MaxSigners))
	if err != nil {
		return cli.Failf("making the signing keys: %v", err)
	}
	p := &cli.Printer{Prog: "mcpres-loadgen", Stderr: stderr}
	p.Notef("%d clients against Rekor v2 at %s for %v (hashedrekord v0.0.2, %d ECDSA P-256 keys)", clients, url, duration, len(signers))
	res, err := loadgen.RunRekorV2(context.Background(), loadgen.RekorV2Config{URL: url, Clients: clients, Duration: duration, Requests: requests,
		Prepare: prepare, Submit: loadgen.RekorV2Submissions(signers)})
	if err != nil {
		return cli.Failf("%v", err)
	}
	if res.Unproven > 0 {
		p.Notef("%d answers 201 were not the submitted entry with its inclusion proof (counted failed): %s", res.Unproven, res.FirstReject)
	} else if res.FirstReject != "" {
		p.Notef("first refusal: %s", res.FirstReject)
	}
	fmt.Fprintln(stdout, res.Result)
	return nil
}
