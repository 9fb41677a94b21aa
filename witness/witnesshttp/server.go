// Package witnesshttp serves a witness over the C2SP tlog-witness HTTP
// API: POST /add-checkpoint, on top of package witness's rules
// (witness.AddCheckpoint), with the state kept in a directory.
//
// Package witness itself opens no connection; this package is its network
// face, kept apart so that the verification and authoring paths never link
// an HTTP server or client. It also reads the logs a witness fetches the
// checkpoints of ([LogClient], [OpenLog]: `mcpres witness cosign --log`).
//
// # Answers
//
//	200 text/plain          the cosignature line(s), "— NAME BASE64\n"
//	400                     a malformed request, an old size larger than the
//	                        checkpoint's, or a proof from size 0
//	403                     the checkpoint is not signed by the log's key
//	404                     a log (origin) this witness does not serve, or
//	                        another path
//	405                     not a POST
//	409 text/x.tlog.size    the old size is not the size last cosigned (the
//	                        body gives it), or the same size with another root
//	413                     a body larger than witness.MaxAddRequestBytes
//	422                     the consistency proof does not verify
//	500                     the state could not be read or written: nothing
//	                        was cosigned
//	503                     the log's state stayed locked by another process
//	                        for StateLockWait, or the witness key could not
//	                        sign (a token or an agent that is gone:
//	                        witness.ErrKeyUnavailable; the next request
//	                        tries it again): nothing was cosigned; retry
//
// # State
//
// Each log's state is a witness.State document (one log) in the state
// directory, named "log-" + hex SHA-256 of the origin + ".json", replaced
// atomically (write a temporary file, fsync, rename, fsync the directory)
// before the cosignature is returned. Requests for one log are serialised
// (check and update are one step, as the protocol requires); requests for
// different logs run in parallel. A log with no state file has never been
// cosigned: its first request must say "old 0" (trust on first use).
//
// # Locks
//
// A Server owns its state directory: [New] takes the exclusive lock of
// the file "serve.lock" in it (internal/filelock, flock(2)) and holds it
// until [Server.Close] or the process ends, so a second server on the same
// directory, in this process or another, refuses to start
// ([witness.ErrStateLocked]) instead of cosigning beside it. Each request
// also holds its log's state lock (witness.LockStateFile: the state file's
// name + ".lock") across read, decide and write, as every other witness
// process must (mcpres witness cosign pointed at a file of this directory
// waits for it, and is waited for, up to StateLockWait).
package witnesshttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/mcpres/mcpres/internal/filelock"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
)

// Time limits of the server (see [Server.HTTPServer]).
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 30 * time.Second
	WriteTimeout      = 30 * time.Second
	IdleTimeout       = 120 * time.Second
	MaxHeaderBytes    = 16 << 10
	// StateLockWait bounds how long a request waits for its log's state
	// lock held by another process (503 after it).
	StateLockWait = 10 * time.Second
)

// ServeLockName is the lock file a Server holds in its state directory.
const ServeLockName = "serve.lock"

// ContentTypeSize is the content type of a 409 answer's body.
const ContentTypeSize = "text/x.tlog.size"

// A Server answers add-checkpoint requests for a set of logs.
type Server struct {
	cosigner *signednote.WitnessSigner
	logs     map[string]*signednote.Verifier // origin → log key
	dir      string
	now      func() time.Time
	log      *slog.Logger

	locks   map[string]*sync.Mutex // origin → the in-process lock of its state
	dirLock *filelock.Lock         // the state directory's, held until Close
}

// New returns a server that cosigns with cosigner the checkpoints of logs
// (Ed25519 log keys; a key's name is the log's origin, one key per origin),
// keeping state in dir (which must exist). now is the clock of the
// cosignature timestamps; logger receives one line per decision (nil: none).
// It takes the lock of dir (see Locks in the package documentation), which
// [Server.Close] releases; if another server holds it, the error matches
// [witness.ErrStateLocked].
func New(cosigner *signednote.WitnessSigner, logs []*signednote.Verifier, dir string, now func() time.Time, logger *slog.Logger) (*Server, error) {
	if len(logs) == 0 {
		return nil, errors.New("witnesshttp: no log to witness")
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("witnesshttp: state directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("witnesshttp: state directory %s is not a directory", dir)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cosigner: cosigner, logs: map[string]*signednote.Verifier{}, dir: dir, now: now, log: logger, locks: map[string]*sync.Mutex{}}
	for _, l := range logs {
		if err := l.CheckType(signednote.TypeEd25519); err != nil {
			return nil, fmt.Errorf("witnesshttp: log key %s: %w", l, err)
		}
		if prev, dup := s.logs[l.Name()]; dup {
			return nil, fmt.Errorf("witnesshttp: two keys for log %q: %s and %s", l.Name(), prev, l)
		}
		s.logs[l.Name()] = l
		s.locks[l.Name()] = &sync.Mutex{}
	}
	lockPath := filepath.Join(dir, ServeLockName)
	s.dirLock, err = filelock.Acquire(lockPath, 0)
	if errors.Is(err, filelock.ErrLocked) {
		return nil, fmt.Errorf("%w: state directory %s is in use by another witness server (%s is locked): two witnesses on one state could cosign two different trees of one size; stop the other one first",
			witness.ErrStateLocked, dir, lockPath)
	}
	if err != nil {
		return nil, fmt.Errorf("witnesshttp: locking the state directory: %w", err)
	}
	return s, nil
}

// Close releases the state directory's lock. The server must not answer
// requests after it (they would run without the directory's lock).
func (s *Server) Close() error {
	return s.dirLock.Release()
}

// HTTPServer returns an http.Server for s on addr with the package's time
// and header limits.
func (s *Server) HTTPServer(addr string) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/add-checkpoint", s)
	return &http.Server{
		Addr:              addr,
		Handler:           mux,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
}

// ShutdownGrace bounds how long Serve waits, once its context is done, for
// the requests in flight.
const ShutdownGrace = 5 * time.Second

// Serve answers on ln until ctx is done, then shuts down: no new
// connections, the requests in flight finished within ShutdownGrace. It
// returns nil after a shutdown, else why serving stopped.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer(ln.Addr().String())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// StatePath is the state file of the log with this origin in dir.
func StatePath(dir, origin string) string {
	sum := sha256.Sum256([]byte(origin))
	return filepath.Join(dir, "log-"+hex.EncodeToString(sum[:])+".json")
}

// ServeHTTP answers POST add-checkpoint (see the package documentation).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "add-checkpoint is a POST", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(witness.MaxAddRequestBytes)))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("request body larger than %d bytes", witness.MaxAddRequestBytes), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading the request body failed", http.StatusBadRequest)
		return
	}
	status, contentType, answer := s.add(body)
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(answer)
}

// add decides one request: the HTTP status, content type and body.
func (s *Server) add(body []byte) (int, string, []byte) {
	text := func(status int, format string, args ...any) (int, string, []byte) {
		return status, "text/plain; charset=utf-8", fmt.Appendf(nil, format+"\n", args...)
	}
	req, err := witness.ParseAddRequest(body)
	if err != nil {
		return text(http.StatusBadRequest, "%v", err)
	}
	origin, _, _ := bytes.Cut(req.Checkpoint, []byte("\n"))
	logKey, ok := s.logs[string(origin)]
	if !ok {
		return text(http.StatusNotFound, "this witness does not witness log %q", truncate(origin, 128))
	}
	lock := s.locks[logKey.Name()]
	lock.Lock()
	defer lock.Unlock()
	path := StatePath(s.dir, logKey.Name())
	sf, err := witness.LockStateFile(path, StateLockWait)
	if errors.Is(err, witness.ErrStateLocked) {
		s.log.Error("witness state locked", "origin", logKey.Name(), "error", err)
		return text(http.StatusServiceUnavailable, "the witness state of this log is locked by another process: nothing was cosigned; retry later")
	}
	if err != nil {
		s.log.Error("witness state", "origin", logKey.Name(), "error", err)
		return text(http.StatusInternalServerError, "the witness state could not be locked: nothing was cosigned")
	}
	defer sf.Unlock()
	prev, err := readState(sf, logKey.Name())
	if err != nil {
		s.log.Error("witness state", "origin", logKey.Name(), "error", err)
		return text(http.StatusInternalServerError, "the witness state could not be read")
	}
	c, err := witness.AddCheckpoint(req, logKey, s.cosigner, prev, s.now())
	var conflict *witness.ConflictError
	switch {
	case errors.As(err, &conflict):
		s.log.Info("conflict", "origin", logKey.Name(), "oldSize", req.OldSize, "witnessSize", conflict.Size, "fork", conflict.Fork)
		return http.StatusConflict, ContentTypeSize, []byte(strconv.FormatUint(conflict.Size, 10) + "\n")
	case errors.Is(err, witness.ErrMalformedRequest):
		return text(http.StatusBadRequest, "%v", err)
	case errors.Is(err, witness.ErrBadCheckpoint):
		return text(http.StatusForbidden, "%v", err)
	case errors.Is(err, witness.ErrBadProof):
		s.log.Warn("consistency proof does not verify", "origin", logKey.Name(), "error", err)
		return text(http.StatusUnprocessableEntity, "%v", err)
	case errors.Is(err, witness.ErrKeyUnavailable):
		s.log.Error("the witness key could not sign", "origin", logKey.Name(), "error", err)
		return text(http.StatusServiceUnavailable, "the witness key is unavailable: nothing was cosigned; retry later")
	case err != nil:
		s.log.Error("add-checkpoint", "origin", logKey.Name(), "error", err)
		return text(http.StatusInternalServerError, "%v", err)
	}
	// Record first: a cosignature is never returned for a tree the state
	// does not hold.
	state := &witness.State{}
	state.Put(c.State)
	if err := sf.Write(state); err != nil {
		s.log.Error("writing the witness state", "origin", logKey.Name(), "error", err)
		return text(http.StatusInternalServerError, "the witness state could not be written: nothing was cosigned")
	}
	s.log.Info("cosigned", "origin", logKey.Name(), "size", c.State.Size, "from", req.OldSize)
	return http.StatusOK, "text/plain; charset=utf-8", c.Line
}

// readState reads the recorded state of one log: nil when there is no
// state file (never cosigned).
func readState(sf *witness.StateFile, origin string) (*witness.LogState, error) {
	st, err := sf.Read()
	if err != nil || st == nil {
		return nil, err
	}
	l := st.Get(origin)
	if l == nil || len(st.Logs) != 1 {
		return nil, fmt.Errorf("%s: not the state of log %q alone", sf.Path(), origin)
	}
	return l, nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
