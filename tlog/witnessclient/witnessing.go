package witnessclient

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/trustpolicy"
)

// roundMargin is what a round takes beyond its witnesses' deadline (the
// consistency proofs, attaching the cosignatures): on storage several
// processes serve, a process waits that long for another's round.
const roundMargin = 5 * time.Second

// WitnessingConfig configures a [Witnessing].
type WitnessingConfig struct {
	// Policy is the tlog policy whose witnesses are asked: those of its
	// "witness NAME VKEY URL" lines that have a URL. PolicyName names it
	// in messages (its file).
	Policy     *trustpolicy.TLogPolicy
	PolicyName string
	// Storage holds the log whose checkpoints are cosigned, LogKey its
	// key.
	Storage tlog.Storage
	LogKey  *signednote.Verifier
	// Options configure the client that asks the witnesses.
	Options Options
	// Logf, when set, receives what each round has to say: a warning
	// ("warning: …") for each witness that gave no cosignature that
	// counts ([Failure]), and the round's account ([Result.Summary]).
	Logf func(format string, args ...any)
}

// A Witnessing is the witnessing of one log: the witnesses of a tlog
// policy asked to cosign its published checkpoint, the cosignatures
// obtained attached to it, what each witness did said through Logf. It is
// the one witnessing round of mcpres: `log add --dir` and `log proof` run
// it once ([Witnessing.Round]); `log serve` has it run on each new
// checkpoint as an option of its appender ([Witnessing.AppenderOptions])
// and again for an entry already logged whose checkpoint lacks some
// cosignatures ([Witnessing.Again]). A witness that fails is a warning,
// never an error: the verifier's quorum decides.
type Witnessing struct {
	client *Client
	store  tlog.Storage
	key    *signednote.Verifier
	logf   func(format string, args ...any)
	again  sharedRound
}

// NewWitnessing returns the witnessing of cfg.Policy's witnesses with a
// URL. Its warnings say what a reader of the policy should know: that the
// policy does not list the log's key (a verifier using it will not trust
// the log), and each witness without a URL, which is not asked. It fails
// when no witness has a URL, or when the witnesses are not a valid set
// for [New].
func NewWitnessing(cfg WitnessingConfig) (*Witnessing, []string, error) {
	var warnings []string
	listed := false
	for _, l := range cfg.Policy.Logs {
		listed = listed || l.Key.String() == cfg.LogKey.String()
	}
	if !listed {
		warnings = append(warnings, fmt.Sprintf("witness policy %s does not list this log's key %s: a verifier using it will not trust this log", cfg.PolicyName, cfg.LogKey))
	}
	var ws []Witness
	for _, pw := range cfg.Policy.Witnesses {
		if pw.URL == "" {
			warnings = append(warnings, fmt.Sprintf("witness policy %s: witness %q has no URL: not asked", cfg.PolicyName, pw.Name))
			continue
		}
		// pw.Key is a type 0x04 key (ParseTLogPolicy checked it).
		ws = append(ws, Witness{Name: pw.Name, Key: pw.Key, URL: pw.URL})
	}
	if len(ws) == 0 {
		return nil, warnings, fmt.Errorf("witness policy %s has no witness with a URL to ask", cfg.PolicyName)
	}
	c, err := New(ws, cfg.Options)
	if err != nil {
		return nil, warnings, err
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Witnessing{client: c, store: cfg.Storage, key: cfg.LogKey, logf: logf}, warnings, nil
}

// Hint reads the checkpoint lg publishes now: its size is the one the
// witnesses most likely last cosigned ([Client.Hint]). Call it before the
// log grows: before the entry of a one-shot command is appended, or before
// a server's appender opens.
func (w *Witnessing) Hint(ctx context.Context, lg Log) error {
	cp, err := lg.Checkpoint(ctx)
	if err != nil {
		return err
	}
	w.client.Hint(cp.Size)
	return nil
}

// Round asks the witnesses whose cosignature the published checkpoint of
// lg lacks to cosign it and attaches what they give that counts now
// ([Client.WitnessLog]); it logs each witness that gave none as a warning
// and the round's account. It returns the checkpoint as published
// afterwards.
func (w *Witnessing) Round(ctx context.Context, lg Log) (*signednote.Checkpoint, error) {
	return w.round(ctx, lg, "")
}

// round is Round, its account prefixed with how.
func (w *Witnessing) round(ctx context.Context, lg Log, how string) (*signednote.Checkpoint, error) {
	cp, res, err := w.client.WitnessLog(ctx, lg, w.key, w.store.ReadTile)
	if err != nil {
		return nil, err
	}
	for _, f := range res.Failures {
		w.logf("warning: %v", f)
	}
	w.logf("%s%s", how, res.Summary(cp))
	return cp, nil
}

// AppenderOptions returns opts with the witnessing of each new checkpoint
// as the appender's hook (tlog.AppenderOptions.OnCheckpoint, with
// AwaitHook: a submission is answered once its checkpoint was witnessed,
// with the cosignatures obtained). On storage several processes serve
// (tlog.WitnessRounds) a checkpoint is witnessed once, by whichever
// process gets there first; the others wait for that round, at most
// maxTimeout (the longest deadline any of them gives a witness) and the
// time a round takes beyond it. A round that fails is logged as a
// warning.
func (w *Witnessing) AppenderOptions(opts tlog.AppenderOptions, maxTimeout time.Duration) tlog.AppenderOptions {
	opts.AwaitHook = true
	opts.OnCheckpoint = func(ctx context.Context, ap *tlog.Appender, cp *signednote.Checkpoint) {
		round := func(ctx context.Context) (uint64, error) {
			wcp, err := w.Round(ctx, ap)
			if err != nil {
				// A newer checkpoint was published meanwhile: its own
				// turn comes next.
				return cp.Size, err
			}
			return wcp.Size, nil
		}
		var err error
		if wr, ok := w.store.(tlog.WitnessRounds); ok {
			// Other processes serve this log too: one round per
			// checkpoint, in whichever gets there first.
			var ran bool
			ran, err = wr.WitnessRound(ctx, cp.Size, maxTimeout+roundMargin, round)
			if !ran && err == nil {
				w.logf("checkpoint at size %d: witnessed by another process serving the log", cp.Size)
			}
		} else {
			_, err = round(ctx)
		}
		if err != nil {
			w.logf("warning: checkpoint at size %d: %v", cp.Size, err)
		}
	}
	return opts
}

// Again returns p, the proof of an entry already in the log of ap, when
// its checkpoint carries every witness's cosignature; otherwise it first
// asks the witnesses missing from the published checkpoint (concurrent
// callers share one round), then returns a fresh proof against the
// checkpoint published afterwards, Existing set: re-submitting a bundle
// once witnesses that were down are back gives a re-witnessed proof. A
// round that fails is logged as a warning, and the fresh proof carries
// what the checkpoint has.
func (w *Witnessing) Again(ctx context.Context, ap *tlog.Appender, p *tlog.Proof) (*tlog.Proof, error) {
	if len(w.client.Missing(p.Checkpoint, w.key)) == 0 {
		return p, nil
	}
	w.again.run(ctx, func(ctx context.Context) {
		if _, err := w.round(ctx, ap, "again, for an entry already logged: "); err != nil {
			w.logf("warning: asking the missing witnesses again: %v", err)
		}
	})
	np, err := ap.Proof(ctx, p.Index)
	if err != nil {
		return nil, err
	}
	np.Existing = true
	return np, nil
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
