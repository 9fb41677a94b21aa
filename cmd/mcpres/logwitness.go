package main

import (
	"log"
	"time"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/witnessclient"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
)

// witnessPolicyFlags are the flags of the commands that collect
// cosignatures themselves.
type witnessPolicyFlags struct {
	policy  string
	timeout time.Duration
}

func (w *witnessPolicyFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&w.policy, "witness-policy", "", "a tlog policy whose \"witness NAME VKEY URL\" lines name the witnesses to ask for cosignatures (C2SP tlog-witness)")
	cmd.Flags().DurationVar(&w.timeout, "witness-timeout", witnessclient.DefaultTimeout, "the deadline of each witness")
}

// witnessing reads the witness policy (mcpres's own strict parser, which
// counts each witness once) and returns the witnessing of the log in store
// (key logKey) by its witnesses with a URL (witnessclient.Witnessing), its
// rounds said on stderr through logger; nil without --witness-policy.
func (w *witnessPolicyFlags) witnessing(a *app, store tlog.Storage, logKey *signednote.Verifier, logger *log.Logger) (*witnessclient.Witnessing, error) {
	if w.policy == "" {
		return nil, nil
	}
	pol, err := w.read(a)
	if err != nil {
		return nil, err
	}
	return w.open(a, pol, store, logKey, logger)
}

// read checks --witness-timeout and reads the witness policy; nil without
// --witness-policy.
func (w *witnessPolicyFlags) read(a *app) (*trustpolicy.TLogPolicy, error) {
	if w.policy == "" {
		return nil, nil
	}
	if w.timeout <= 0 {
		return nil, cli.Usagef("--witness-timeout must be positive")
	}
	data, err := readTLogPolicyFile(w.policy)
	if err != nil {
		return nil, cli.Failf("witness policy: %v", err)
	}
	pol, errs := trustpolicy.ParseTLogPolicy(string(data))
	if len(errs) > 0 {
		for _, e := range errs {
			a.msgs().Notef("%s: %v", w.policy, e)
		}
		return nil, cli.Failf("witness policy %s is not a valid tlog policy", w.policy)
	}
	return pol, nil
}

// open returns the witnessing of pol, read by read, and says its warnings.
func (w *witnessPolicyFlags) open(a *app, pol *trustpolicy.TLogPolicy, store tlog.Storage, logKey *signednote.Verifier, logger *log.Logger) (*witnessclient.Witnessing, error) {
	wg, warnings, err := witnessclient.NewWitnessing(witnessclient.WitnessingConfig{
		Policy: pol, PolicyName: w.policy, Storage: store, LogKey: logKey,
		Options: witnessclient.Options{Timeout: w.timeout, Now: time.Now},
		Logf:    logger.Printf,
	})
	for _, m := range warnings {
		a.warnf("%s", m)
	}
	if err != nil {
		return nil, cli.Failf("%v", err)
	}
	return wg, nil
}

// roundLogger is where a one-shot command's witnessing round speaks:
// "mcpres: warning: …" for each witness that gave no cosignature,
// "mcpres: …" for the round's account.
func (a *app) roundLogger() *log.Logger { return log.New(a.stderr, "mcpres: ", 0) }

// requireQuorumUsage is the help of --require-quorum on the log commands.
const requireQuorumUsage = "a tlog policy (the consumers'): exit 1 and write no reference unless the checkpoint's cosignatures satisfy its quorum"

// loadQuorumTrust reads the tlog policy of --require-quorum (mcpres's
// strict parser) as the trust a reference's witnessing is judged by.
func (a *app) loadQuorumTrust(path string) (*offline.Trust, error) {
	if path == "" {
		return nil, nil
	}
	data, err := readTLogPolicyFile(path)
	if err != nil {
		return nil, cli.Failf("--require-quorum: %v", err)
	}
	pol, errs := trustpolicy.ParseTLogPolicy(string(data))
	if len(errs) > 0 {
		for _, e := range errs {
			a.msgs().Notef("%s: %v", path, e)
		}
		return nil, cli.Failf("--require-quorum: %s is not a valid tlog policy", path)
	}
	tr := pol.Trust()
	return &tr, nil
}

// reportWitnessing says on stderr how many cosignatures the reference for
// path (proof bytes binding entry) carries and from whom. With trust (the
// --require-quorum tlog policy) the cosignatures are verified and counted
// against its witnesses at the current time (one dated later does not
// count: offline.Witnessed), and an unmet quorum, or a log the policy does not
// trust, is exit 1: the caller writes nothing. Without it the
// cosignature lines are named, unverified. again says how to get a
// re-witnessed reference.
func (a *app) reportWitnessing(path string, proof []byte, entry offline.Entry, trust *offline.Trust, policyPath, again string) error {
	if trust == nil {
		lines, err := offline.CosignatureLines(proof)
		switch {
		case err != nil:
			return cli.Failf("%s: the reference's proof: %v", path, err)
		case len(lines) == 0:
			a.msgs().Notef("%s: the reference's checkpoint carries no witness cosignature: it satisfies no witness quorum (--require-quorum TLOG-POLICY checks one)", path)
		default:
			a.msgs().Notef("%s: the reference's checkpoint carries %d cosignature(s), not verified here: %s (--require-quorum TLOG-POLICY verifies them and requires its quorum)",
				path, len(lines), offline.FormatSigLines(lines))
		}
		return nil
	}
	judged := *trust
	judged.EvaluatedAt = time.Now() // the cosignatures count under the verifier's time rule, now
	w, err := offline.Witnessed(proof, entry, judged)
	if err != nil {
		a.msgs().Errorf("%s: the reference does not verify against the tlog policy %s (a consumer using it would reject it): %v; nothing written", path, policyPath, err)
		return cli.Exit(exitInvalid)
	}
	if !w.Satisfied() {
		a.msgs().Errorf("%s: %s (tlog policy %s); nothing written: the log's warnings say why each missing witness gave no cosignature and which URL it was asked at (a witness that is down, or a 404: a policy URL that is not the witness's base URL, or a witness not told about the log); once they answer, %s", path, w, policyPath, again)
		return cli.Exit(exitInvalid)
	}
	a.msgs().Notef("%s: %s (tlog policy %s)", path, w, policyPath)
	return nil
}
