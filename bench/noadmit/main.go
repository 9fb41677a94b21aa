// Command noadmit is `mcpres log serve --dir` without its admission: the
// same storage (tlog/posix), appender and tuning (tlog, the log service's
// batching), HTTP handler and server (tlog/server), with each
// submission's entry made by hashing its body instead of reading and
// validating it as evidence (tlog/admit). Driven by mcpres-loadgen in the
// bench beside log serve and Tessera's POSIX driver alone, it separates
// what the HTTP path, the proofs and the load generator cost on the
// machine's cores from what admission costs. A bench tool only: it logs
// whatever it is sent, under a throwaway key.
//
//	noadmit --dir DIR --entry-size BYTES
//
// DIR must not exist. It listens on a port of its own on 127.0.0.1,
// prints "serving log ORIGIN on URL" on standard error, as log serve
// does, and stops gracefully on SIGTERM or SIGINT.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
	"k8s.io/klog/v2"

	"github.com/mcpres/mcpres/bench/internal/progexit"
)

func main() {
	klog.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := progexit.Code("noadmit", run(ctx, os.Args[1:], os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

// entry is the log entry of a body: its SHA-256 in hex, padded with zeros
// to size bytes, so that distinct bodies get distinct entries of the
// size log serve's admission would give them.
func entry(body []byte, size int) []byte {
	sum := sha256.Sum256(body)
	e := make([]byte, size)
	hex.Encode(e, sum[:])
	return e
}

// run parses args (flag's messages to stderr), creates the log and
// serves it until ctx is done, saying where on stderr.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("noadmit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dirFlag := fs.String("dir", "", "the log directory to create")
	sizeFlag := fs.Int("entry-size", 437, "bytes per entry (at least 64: the body's SHA-256 in hex, then zeros)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return progexit.UsageError{Msg: err.Error(), Said: true}
	}
	dir, size := *dirFlag, *sizeFlag
	if dir == "" || fs.NArg() > 0 || size < 64 || size > tlog.MaxEntrySize {
		return progexit.UsageError{Msg: "usage: noadmit --dir DIR --entry-size 64..MaxEntrySize"}
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists", dir)
	}
	skey, _, err := signednote.GenerateKey(rand.Reader, signednote.TypeEd25519, "bench.example/noadmit")
	if err != nil {
		return err
	}
	signer, err := signednote.ParseLogSigner(skey)
	if err != nil {
		return err
	}
	store := posix.New(dir)
	lg := tlog.Open(store, signer.Verifier())
	if _, err := lg.Init(ctx, signer); err != nil {
		return err
	}
	ap, err := lg.NewAppender(ctx, signer, server.AppenderOptions())
	if err != nil {
		return err
	}
	h := server.New(server.Config{Log: lg, Storage: store, Appender: ap,
		Admit: func(body []byte) ([]byte, *server.Rejection) { return entry(body, size), nil }})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "noadmit: serving log %s on http://%s\n", lg.Origin(), ln.Addr())
	serr := server.Serve(ctx, ln, h, server.DefaultGrace)
	cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ap.Close(cctx); err != nil && serr == nil {
		serr = fmt.Errorf("closing the log: %w", err)
	}
	return serr
}
