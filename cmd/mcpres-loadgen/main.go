// Command mcpres-loadgen measures a log server (mcpres log serve): N
// concurrent clients submit distinct, valid conformance bundles (variants
// of --bundle, each re-sealed with its own run environment) for a bounded
// time and count, and it reports submissions per second and the time from
// sending a bundle to holding its reference (p50, p99, max). It only drives
// servers on the loopback interface.
//
//	mcpres log serve --dir /tmp/loadlog --key log.key --listen 127.0.0.1:8080 &
//	mcpres-loadgen --url http://127.0.0.1:8080 --bundle testdata/bundles/example.json \
//	    --clients 256 --duration 30s
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/tlog/loadgen"
	"github.com/mcpres/mcpres/validator"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "mcpres-loadgen: %v\n", err)
		os.Exit(2)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mcpres-loadgen", flag.ContinueOnError)
	url := fs.String("url", "", "the log server's base URL (loopback only)")
	bundlePath := fs.String("bundle", "", "a valid conformance bundle whose variants are submitted")
	clients := fs.Int("clients", 64, "concurrent clients")
	duration := fs.Duration("duration", 30*time.Second, "how long to run (at most 5m)")
	requests := fs.Int("requests", 0, "stop after this many submissions (0: the duration decides; at most 1,000,000)")
	tokenFile := fs.String("token-file", "", "a file holding the server's bearer token")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" || *bundlePath == "" {
		return errors.New("--url and --bundle are required")
	}
	if err := loadgen.CheckLoopback(*url); err != nil {
		return err
	}
	var token string
	if *tokenFile != "" {
		data, err := regularfile.ReadFile(*tokenFile, 4096)
		if err != nil {
			return err
		}
		token = strings.TrimSpace(string(data))
	}
	_, base, err := canonjson.ReadFile(*bundlePath)
	if err != nil {
		return err
	}
	if r, err := validator.New().Bundle(base); err != nil || !r.Valid {
		return fmt.Errorf("%s is not a valid conformance bundle", *bundlePath)
	}
	if env := base.Path("evidence", "run", "environment"); env == nil || !env.Get("os").Is(canonjson.String) {
		return fmt.Errorf("%s has no evidence.run.environment.os to vary", *bundlePath)
	}
	var rb [4]byte
	rand.Read(rb[:])
	runID := hex.EncodeToString(rb[:]) // distinct entries on every run
	body := func(i int) ([]byte, error) {
		v := base.Clone()
		v.Path("evidence", "run", "environment").Get("os").Str = fmt.Sprintf("loadgen-%s-%d", runID, i)
		if err := bundle.SealFrom(v, bundle.StageEvidence); err != nil {
			return nil, err
		}
		return canonjson.Compact(v)
	}
	fmt.Fprintf(os.Stderr, "mcpres-loadgen: %d clients against %s for %v\n", *clients, *url, *duration)
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		URL: strings.TrimSuffix(*url, "/"), Token: token, Clients: *clients, Duration: *duration, Requests: *requests, Body: body,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, res)
	return nil
}
