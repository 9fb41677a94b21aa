package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/tlog/monitor"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
)

const logMonitorLong = `Watch a transparency log: verify every new checkpoint, read and judge every
new entry, and report what needs a person as alerts (docs/monitor.md).

--log is a 'log serve' URL, any tlog-tiles URL (a static server, a bucket)
or a log directory; give it twice or more for several sources of the same
log (frontends, mirrors): checkpoints that are not consistent with each
other are a split-view alert. --checkpoint FILE|URL (repeatable) is a
checkpoint held elsewhere, with no tiles: what a witness cosigned, a
distributor's copy, the one a consumer saw (a transparency reference or a
tlog-proof carrying it is read too). It must be signed by the log key
and be consistent with the largest checkpoint the --log sources serve (a
consistency proof from their tiles), else a split-view alert naming both;
with --tlog-policy the alert names the witnesses whose cosignatures on it
verify and says whether they meet the quorum. One larger than every --log
source's cannot be proven until the log serves that tree: a note on stderr,
not an alert, checked again on the next run. It is never read for entries
nor written into the state. --log-key is the log's verifier key file.
The state (the last verified checkpoint and the next entry to read) is kept
per log in --state DIR, locked against another monitor and replaced
atomically; it never moves backwards.

Each new checkpoint must be signed by the log key, consistent with the last
verified one (a consistency proof from the log's tiles), and, with
--tlog-policy, meet the policy's witness quorum at the current time. The
new entries are read from the entry bundles, each leaf hashed and the tree
rebuilt to the checkpoint's root, and decoded as
mcpres.transparency-entry/v1 or /v2 (else entry-undecodable). An entry whose
subject name matches a --watch pattern (the subject patterns of trust
policies: "io.github.acme/*") or whose subject digest is a --watch-digest is
watched. Without --policy every watched entry is reported (watched-entry).
With --policy TRUST-POLICY the signers a watched entry names (a v2 entry:
the log logged an attested bundle and verified its envelopes) are judged
against the policy: a key that is not one of its signers, another
identity, a revoked key, a signer not trusted for the subject, a signing
time outside the signer's or the policy's window is an unauthorised-entry
alert, one per entry; an authorised entry is counted, not printed. An
entry that names no signer (v1: a bundle logged before it was signed) may
be carried by any signer's envelope and cannot be judged: it is counted
with a warning, or with --require-signers an unattributed-entry alert.

Alerts (schema mcpres.log-monitor-alert/v1) are written to stdout as JSON
lines (--format json) or one line each (--format text), and to --exec
PROGRAM (the JSON on its stdin) and --webhook URL (POSTed; https, or http
to a loopback address), each within --hook-timeout.

With --once it checks once and exits 0 when nothing alerted, 1 when
something did, 2 when it could not work (usage, an unreadable key, policy
or state, a hook that failed). Without it, it checks every --interval until
interrupted.`

func (a *app) logMonitorCommand() *cobra.Command {
	var (
		logs, checkpoints, watches, digests []string
		logKeyPath, stateDir, tlogPath      string
		policyPath                          string
		format, execProg, webhook           string
		once, requireSigners                bool
		interval, timeout, hookTimeout, age time.Duration
	)
	cmd := &cobra.Command{
		Use:   "monitor --log URL|DIR... [--checkpoint FILE|URL]... --log-key LOG.vkey --state DIR [--tlog-policy FILE] [--policy TRUST-POLICY [--require-signers]] [--watch PATTERN]... [--watch-digest sha256:HEX]... [--once | --interval D]",
		Short: "Watch a log: consistent, quorum-checked checkpoints and alerts on watched entries",
		Long:  logMonitorLong,
		Example: `  mcpres log monitor --log https://log.example.org --log-key log.vkey --state state \
      --tlog-policy witnesses.txt --policy trust-policy.json --watch 'io.github.acme/*' --once`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(logs) == 0:
				return cli.Usagef("--log is required")
			case logKeyPath == "":
				return cli.Usagef("--log-key is required: checkpoints are verified with it")
			case stateDir == "":
				return cli.Usagef("--state is required")
			case format != "json" && format != "text":
				return cli.Usagef("--format must be json or text")
			case !once && interval <= 0:
				return cli.Usagef("--interval must be positive")
			}
			cfg := monitor.Config{StateDir: stateDir, MaxCosignatureAge: age, LockWait: 10 * time.Second}
			for _, w := range watches {
				s, err := trustpolicy.ParseScope(w)
				if err != nil {
					return cli.Usagef("--watch: %v", err)
				}
				cfg.Watch.Subjects = append(cfg.Watch.Subjects, s)
			}
			for _, d := range digests {
				h, err := monitor.ParseDigest(d)
				if err != nil {
					return cli.Usagef("--watch-digest: %v", err)
				}
				cfg.Watch.Digests = append(cfg.Watch.Digests, h)
			}
			var sources []monitor.Source
			for _, l := range logs {
				s, err := monitor.OpenSource(l, timeout)
				if err != nil {
					return cli.Failf("--log: %v", err)
				}
				sources = append(sources, s)
			}
			for _, c := range checkpoints {
				s, err := monitor.OpenCheckpoint(c, timeout)
				if err != nil {
					return cli.Failf("--checkpoint: %v", err)
				}
				cfg.Checkpoints = append(cfg.Checkpoints, s)
			}
			key, err := loadVerifierKey("--log-key", logKeyPath, keyfile.LogVerifierKey)
			if err != nil {
				return err
			}
			cfg.LogKey = key
			if tlogPath != "" {
				data, err := readTLogPolicyFile(tlogPath)
				if err != nil {
					return cli.Failf("--tlog-policy: %v", err)
				}
				pol, errs := trustpolicy.ParseTLogPolicy(string(data))
				if len(errs) > 0 {
					for _, e := range errs {
						a.msgs().Notef("%s: %v", tlogPath, e)
					}
					return cli.Failf("--tlog-policy %s is not a valid tlog policy", tlogPath)
				}
				cfg.TLogPolicy = pol
			}
			if policyPath != "" {
				pol := readPolicyOnce(policyPath, trustpolicy.OpenOptions{})
				a.hints(pol.Hints)
				if pol.Err != nil {
					return cli.Failf("--policy: %v", pol.Err)
				}
				tp, errs, err := pol.Loaded.Policy()
				if err == nil && len(errs) > 0 {
					err = fmt.Errorf("%s is not a valid trust policy: %s", policyPath, errs[0].Message)
				}
				if err != nil {
					return cli.Failf("--policy: %v", err)
				}
				if len(cfg.Watch.Subjects) == 0 && len(cfg.Watch.Digests) == 0 {
					a.warnf("--policy judges the signers of watched entries only, and nothing is watched: give --watch or --watch-digest")
				}
				cfg.Authoriser = monitor.PolicyAuthoriser{Policy: tp}
				cfg.RequireSigners = requireSigners
			} else if requireSigners {
				return cli.Usagef("--require-signers needs --policy: signers are judged against it")
			}
			var hooks []func(context.Context, *monitor.Alert) error
			if execProg != "" {
				h := &monitor.ExecHook{Program: execProg, Timeout: hookTimeout, Output: a.stderr}
				hooks = append(hooks, h.Deliver)
			}
			if webhook != "" {
				h, err := monitor.NewWebhookHook(webhook, hookTimeout)
				if err != nil {
					return cli.Usagef("%v", err)
				}
				hooks = append(hooks, h.Deliver)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			defer monitorGC()()
			emit := func(al *monitor.Alert) error {
				if format == "json" {
					fmt.Fprintf(a.stdout, "%s\n", al.JSON())
				} else {
					fmt.Fprintln(a.stdout, al.Text())
				}
				for _, h := range hooks {
					if err := h(ctx, al); err != nil {
						return err
					}
				}
				return nil
			}
			summary := func(res *monitor.Result) {
				a.msgs().Notef("log monitor: %s: verified tree size %d, next entry %d; read %d entries (%d watched); %d alert(s)",
					key.Name(), res.Tree.Size, res.Next, res.Entries, res.Watched, res.Alerts)
				for _, u := range res.Unproven {
					a.msgs().Notef("log monitor: %s: the checkpoint at %s (size %d) is ahead of every --log source: its consistency cannot be proven until the log serves that tree; checked again on the next run",
						key.Name(), u.Source, u.Checkpoint.Size)
				}
				if res.Unattributed > 0 {
					a.warnf("log monitor: %s: %d watched entr(ies) name no signer (%s: a bundle logged before it was signed), so who signs with their references is not on the log; --require-signers makes each an alert",
						key.Name(), res.Unattributed, offline.SchemaVersionEntry)
				}
			}
			if once {
				res, err := monitor.Run(ctx, cfg, sources, emit)
				if err != nil {
					return cli.Failf("log monitor: %v", err)
				}
				summary(res)
				if res.Alerts > 0 {
					return cli.Exit(cli.ExitInvalid)
				}
				return nil
			}
			err = monitor.Follow(ctx, cfg, sources, emit, interval, func(res *monitor.Result) bool {
				summary(res)
				return true
			})
			if err != nil {
				return cli.Failf("log monitor: %v", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&logs, "log", nil, "a log source: a 'log serve' or tlog-tiles URL, or a log directory (repeat for several sources of the same log)")
	f.StringArrayVar(&checkpoints, "checkpoint", nil, "a checkpoint held elsewhere with no tiles (a witness's, a distributor's, a transparency reference's): a file or its URL, compared with the log's (repeatable)")
	f.StringVar(&logKeyPath, "log-key", "", "the log's verifier key file")
	f.StringVar(&stateDir, "state", "", "the directory of the monitor's state (one file per log)")
	f.StringVar(&tlogPath, "tlog-policy", "", "a tlog policy whose witness quorum every checkpoint must meet")
	f.DurationVar(&age, "max-cosignature-age", 0, "with --tlog-policy: the oldest a counted cosignature may be (0: any age)")
	f.StringVar(&policyPath, "policy", "", "a trust policy: the signers of a watched entry must be its signers for that subject (else unauthorised-entry)")
	f.BoolVar(&requireSigners, "require-signers", false, "with --policy: a watched entry that names no signer (a bundle logged unsigned) is an alert (unattributed-entry), not a warning")
	f.StringArrayVar(&watches, "watch", nil, "a subject name pattern to watch (trust-policy subject patterns; repeatable)")
	f.StringArrayVar(&digests, "watch-digest", nil, "a subject artifact digest sha256:HEX to watch (repeatable)")
	f.BoolVar(&once, "once", false, "check once and exit: 0 nothing alerted, 1 alerts, 2 could not check")
	f.DurationVar(&interval, "interval", 5*time.Minute, "without --once, the time between checks")
	f.DurationVar(&timeout, "timeout", 30*time.Second, "the time limit of each request to a log")
	f.StringVar(&format, "format", "json", "alerts on stdout as json (one line each) or text")
	f.StringVar(&execProg, "exec", "", "a program run for each alert, with the alert's JSON on its stdin")
	f.StringVar(&webhook, "webhook", "", "a URL each alert's JSON is POSTed to (https, or http to a loopback address)")
	f.DurationVar(&hookTimeout, "hook-timeout", monitor.DefaultHookTimeout, "the time limit of each --exec and --webhook delivery")
	return cmd
}
