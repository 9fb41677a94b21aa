package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/admit"
	"github.com/mcpres/mcpres/tlog/witnessclient"
)

// Tuning of a Service's appender: batches of up to BatchSize entries or
// BatchMaxAge (or the storage's minimum, tlog.AppenderOptions), garbage
// collected every GCInterval.
const (
	BatchSize   = 512
	BatchMaxAge = 50 * time.Millisecond
	GCInterval  = time.Second
	// DefaultGrace bounds a Service's shutdown: the submissions in flight
	// are answered (their checkpoint published) before Run returns.
	DefaultGrace = time.Minute
	// OpenTimeout bounds opening the log before it is served (the
	// deduplication index catching up with a large log included).
	OpenTimeout = 2 * time.Minute
	// MaxWitnessTimeout bounds the deadline of each witness of a Service:
	// a submission may wait for the witnessing of the checkpoint before its
	// own, then of its own, within DefaultAddTimeout.
	MaxWitnessTimeout = DefaultAddTimeout / 3
)

// AppenderOptions is a Service's appender tuning (the constants above),
// before the witnessing hook is added: what anything that measures or
// mimics the log service opens its appender with.
func AppenderOptions() tlog.AppenderOptions {
	return tlog.AppenderOptions{BatchSize: BatchSize, BatchMaxAge: BatchMaxAge, GCInterval: GCInterval}
}

// AdmitEvidence is the admission of POST /add in the log service: the rule
// of tlog/admit, which `mcpres log add` applies to a file, with one
// Admitter (its compiled schemas) for every submission. An attested
// bundle is evaluated at now (nil: time.Now). A body that is no document
// or cannot be evaluated is answered 400, invalid evidence 422, each with
// the diagnostic JSON object of `mcpres validate --format json`
// (admit.DiagnosticJSON).
func AdmitEvidence(now func() time.Time) func(body []byte) ([]byte, *Rejection) {
	if now == nil {
		now = time.Now
	}
	ad := admit.New()
	return func(body []byte) ([]byte, *Rejection) {
		adm, err := ad.AdmitBody(body, datetime.Millis(now()))
		if err == nil {
			return adm.LogEntry(), nil
		}
		status := http.StatusBadRequest
		var r *admit.Refusal
		if errors.As(err, &r) {
			status = http.StatusUnprocessableEntity
		}
		return nil, &Rejection{Status: status, JSON: admit.DiagnosticJSON(err)}
	}
}

// A Service is a log served over HTTP, assembled from values: what
// `mcpres log serve` runs. Its log is Storage, appended to with Signer's
// key through one tlog.Appender, its submissions admitted by
// [AdmitEvidence] and answered with their transparency references.
type Service struct {
	Storage tlog.Storage
	Signer  *signednote.LogSigner
	// Witnessing, when set, is the witnessing of the log (its rounds say
	// what they did through their own Logf): each new checkpoint is
	// witnessed as an option of the appender, and the submissions it
	// covers are answered once its witnesses have cosigned (or their
	// deadlines, at most MaxWitnessTimeout, passed), with the
	// cosignatures obtained attached. A submission whose entry is already
	// in the log, answered against a checkpoint that lacks the
	// cosignature of some of them (they were down), has them asked again
	// first (witnessclient.Witnessing.Again): re-submitting a bundle once
	// the witnesses are back gives a fresh, re-witnessed proof.
	Witnessing *witnessclient.Witnessing
	// Token, MaxConcurrent and MaxMemory are the Config fields.
	Token         string
	MaxConcurrent int
	MaxMemory     int64
	// Now is the clock of admissions; nil means time.Now.
	Now func() time.Time
	// Grace bounds the shutdown (default DefaultGrace).
	Grace time.Duration
	// Logger, if set, receives what the service has to say: failed
	// requests, each witnessing round, warnings.
	Logger *log.Logger
}

func (s *Service) logf(format string, args ...any) {
	if s.Logger != nil {
		s.Logger.Printf(format, args...)
	}
}

// ErrNoWitnessing is returned by Run when Witnessing is set but the storage
// cannot attach cosignatures while this process appends (a POSIX log
// directory on a system without open-file-description locks).
var ErrNoWitnessing = errors.New("on this system a log directory's checkpoint cannot be replaced while this process appends (no open-file-description locks)")

// Run serves the log on ln until ctx is done, then stops gracefully: no
// new connections, the submissions in flight are finished and answered,
// and the appender is closed, within Grace. The log must exist
// (tlog.Log.Init) and be Signer's (tlog.CheckKey). Run closes ln.
//
// A storage that one process at a time may serve (tlog.ServeLocker) is
// locked first. When another process holds it and is stopping (its
// context is done: it is finishing its submissions), Run waits for it, at
// most RestartWait, saying so; when the other process is serving, Run
// fails at once with an error matching tlog.ErrServed. Once ctx is done,
// Run tells other processes it is stopping.
func (s *Service) Run(ctx context.Context, ln net.Listener) error {
	return s.run(ctx, func() (net.Listener, error) { return ln, nil })
}

// ListenAndRun is Run on a TCP listener on addr, opened once the storage
// is locked: a server started while the previous one on the same address
// and storage is stopping waits for it, then binds the address it
// released, instead of failing to bind or to lock.
func (s *Service) ListenAndRun(ctx context.Context, addr string) error {
	return s.run(ctx, func() (net.Listener, error) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", addr, err)
		}
		return ln, nil
	})
}

// RestartWait bounds how long a Service waits for another process that
// serves the same storage to stop: that process finishes its submissions
// and closes its appender, each within its grace (DefaultGrace).
const RestartWait = 2*DefaultGrace + 10*time.Second

// lockServing takes the storage's serving exclusion, waiting up to
// RestartWait for a process that holds it and is stopping.
func (s *Service) lockServing(ctx context.Context, sl tlog.ServeLocker) (tlog.ServeLock, error) {
	deadline := time.Now().Add(RestartWait)
	for waited := false; ; waited = true {
		lk, err := sl.LockServing()
		if err == nil || !errors.Is(err, tlog.ErrServerStopping) {
			return lk, err
		}
		if !waited {
			s.logf("%v: waiting for it to stop (at most %v)", err, RestartWait)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w; it did not stop within %v", err, RestartWait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *Service) run(ctx context.Context, listen func() (net.Listener, error)) error {
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	if s.Witnessing != nil {
		if ex, ok := s.Storage.(tlog.PublisherExclusion); ok && !ex.ExcludesOwnPublisher() {
			return ErrNoWitnessing
		}
	}
	var lk tlog.ServeLock
	if sl, ok := s.Storage.(tlog.ServeLocker); ok {
		var err error
		if lk, err = s.lockServing(ctx, sl); err != nil {
			return err
		}
		defer lk.Release()
	}
	defer context.AfterFunc(ctx, func() {
		if lk != nil {
			lk.Stopping() // a server started meanwhile waits for this one
		}
		s.logf("stopping: no new connections; the submissions in flight are answered first")
	})()
	ln, lerr := listen()
	if lerr != nil {
		return lerr
	}
	serving := false
	defer func() {
		if !serving {
			ln.Close()
		}
	}()
	key := s.Signer.Verifier()
	lg := tlog.Open(s.Storage, key)
	octx, cancel := context.WithTimeout(ctx, OpenTimeout)
	defer cancel()
	if err := tlog.CheckKey(octx, s.Storage, key); err != nil {
		return err
	}
	opts := AppenderOptions()
	if s.Witnessing != nil {
		_ = s.Witnessing.Hint(octx, lg) // CheckKey read the checkpoint
		opts = s.Witnessing.AppenderOptions(opts, MaxWitnessTimeout)
	}
	health := NewKeyHealth(s.Signer, lg.Origin())
	ap, err := lg.NewAppender(octx, health, opts)
	if err != nil {
		return fmt.Errorf("opening the log: %w", err)
	}
	var refresh func(context.Context, *tlog.Proof) (*tlog.Proof, error)
	if s.Witnessing != nil {
		refresh = func(ctx context.Context, p *tlog.Proof) (*tlog.Proof, error) { return s.Witnessing.Again(ctx, ap, p) }
	}
	h := New(Config{
		Log: lg, Storage: s.Storage, Appender: ap,
		Refresh: refresh,
		Admit:   AdmitEvidence(s.Now),
		Token:   s.Token, MaxConcurrent: s.MaxConcurrent,
		MaxMemory: s.MaxMemory, Cost: admit.Cost,
		Logf: s.logf, KeyReady: health.Ready,
	})
	s.logf("serving log %s on http://%s", lg.Origin(), ln.Addr())
	serving = true // Serve closes ln
	serr := Serve(ctx, ln, h, grace)
	cctx, ccancel := context.WithTimeout(context.Background(), grace)
	defer ccancel()
	cerr := ap.Close(cctx)
	if serr != nil {
		return serr
	}
	if cerr != nil {
		return fmt.Errorf("closing the log: %w", cerr)
	}
	s.logf("log %s: stopped", lg.Origin())
	return nil
}
