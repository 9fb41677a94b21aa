package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
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
	// witnessRoundMargin is what a round takes beyond its witnesses'
	// deadline (the consistency proofs, attaching the cosignatures): on
	// storage shared by several processes, a process waits that long for
	// another's round.
	witnessRoundMargin = 5 * time.Second
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
			return adm.Entry, nil
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
	// Witnesses, when set, are asked to cosign each new checkpoint, and
	// the submissions it covers are answered once they have (or their
	// deadlines passed), with the cosignatures obtained attached. A
	// submission whose entry is already in the log, answered against a
	// checkpoint that lacks the cosignature of some of them (they were
	// down), has them asked again first (only those missing; concurrent
	// such submissions share one round): re-submitting a bundle once the
	// witnesses are back gives a fresh, re-witnessed proof.
	Witnesses *witnessclient.Client
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

// ErrNoWitnessing is returned by Run when Witnesses are set but the storage
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
	if s.Witnesses != nil {
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
	var ap *tlog.Appender
	ready := make(chan struct{})
	if s.Witnesses != nil {
		if cp, err := lg.Checkpoint(octx); err == nil {
			s.Witnesses.Hint(cp.Size) // the size the witnesses most likely last cosigned
		}
		opts.AwaitHook = true
		opts.OnCheckpoint = func(ctx context.Context, cp *signednote.Checkpoint) {
			select {
			case <-ready: // ap is set
			case <-ctx.Done():
				return
			}
			round := func(ctx context.Context) (uint64, error) {
				wcp, res, err := s.Witnesses.WitnessLog(ctx, ap, key, s.Storage.ReadTile)
				if err != nil {
					// A newer checkpoint was published meanwhile: its
					// own turn comes next.
					return cp.Size, err
				}
				for _, f := range res.Failures {
					s.logf("warning: %v", f)
				}
				s.logf("%s", res.Summary(wcp))
				return wcp.Size, nil
			}
			var err error
			if wr, ok := s.Storage.(tlog.WitnessRounds); ok {
				// Other processes serve this log too: one round per
				// checkpoint, in whichever gets there first.
				var ran bool
				ran, err = wr.WitnessRound(ctx, cp.Size, MaxWitnessTimeout+witnessRoundMargin, round)
				if !ran && err == nil {
					s.logf("checkpoint at size %d: witnessed by another process serving the log", cp.Size)
				}
			} else {
				_, err = round(ctx)
			}
			if err != nil {
				s.logf("warning: checkpoint at size %d: %v", cp.Size, err)
			}
		}
	}
	health := NewKeyHealth(s.Signer, lg.Origin())
	ap, err := lg.NewAppender(octx, health, opts)
	if err != nil {
		return fmt.Errorf("opening the log: %w", err)
	}
	close(ready)
	var refresh func(context.Context, *tlog.Proof) (*tlog.Proof, error)
	if s.Witnesses != nil {
		var once sharedRound
		refresh = func(ctx context.Context, p *tlog.Proof) (*tlog.Proof, error) {
			if len(s.Witnesses.Missing(p.Checkpoint, key)) == 0 {
				return p, nil
			}
			once.run(ctx, func(ctx context.Context) {
				wcp, res, err := s.Witnesses.WitnessLog(ctx, ap, key, s.Storage.ReadTile)
				if err != nil {
					s.logf("warning: asking the missing witnesses again: %v", err)
					return
				}
				for _, f := range res.Failures {
					s.logf("warning: %v", f)
				}
				s.logf("again, for an entry already logged: %s", res.Summary(wcp))
			})
			np, err := ap.Proof(ctx, p.Index)
			if err != nil {
				return nil, err
			}
			np.Existing = true
			return np, nil
		}
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

// A sharedRound runs one round at a time: a caller that finds a round
// running waits for it (or for its own context) instead of starting
// another, so that many re-submissions while a witness is down cost one
// round, not one each.
type sharedRound struct {
	mu  sync.Mutex
	cur chan struct{} // closed when the running round ends; nil when none runs
}

func (r *sharedRound) run(ctx context.Context, round func(context.Context)) {
	r.mu.Lock()
	if c := r.cur; c != nil {
		r.mu.Unlock()
		select {
		case <-c:
		case <-ctx.Done():
		}
		return
	}
	c := make(chan struct{})
	r.cur = c
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.cur = nil
		r.mu.Unlock()
		close(c)
	}()
	round(ctx)
}
