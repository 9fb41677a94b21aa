package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/witnessclient"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
	"github.com/transparency-dev/tessera/client"
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

// client parses the witness policy (mcpres's own strict parser, which
// counts each witness once) and returns a client for the witnesses that
// have a URL; nil without --witness-policy.
func (w *witnessPolicyFlags) client(a *app, logKey *signednote.Verifier) (*witnessclient.Client, error) {
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
			fmt.Fprintf(a.stderr, "mcpres: %s: %v\n", w.policy, e)
		}
		return nil, cli.Failf("witness policy %s is not a valid tlog policy", w.policy)
	}
	listed := false
	for _, l := range pol.Logs {
		listed = listed || l.Key.String() == logKey.String()
	}
	if !listed {
		a.warnf("witness policy %s does not list this log's key %s: a verifier using it will not trust this log", w.policy, logKey)
	}
	var ws []witnessclient.Witness
	for _, pw := range pol.Witnesses {
		if pw.URL == "" {
			a.warnf("witness policy %s: witness %q has no URL: not asked", w.policy, pw.Name)
			continue
		}
		// pw.Key is a type 0x04 key (ParseTLogPolicy checked it).
		ws = append(ws, witnessclient.Witness{Name: pw.Name, Key: pw.Key, URL: pw.URL})
	}
	if len(ws) == 0 {
		return nil, cli.Failf("witness policy %s has no witness with a URL to ask", w.policy)
	}
	return witnessclient.New(ws, witnessclient.Options{Timeout: w.timeout, Now: time.Now})
}

// collectCosignatures asks the witnesses to cosign the published checkpoint
// of lg (readTile reads its tiles) and attaches what they give that counts
// now (a cosignature dated later is not attached: witnessclient); a
// witness that fails is a warning, never an error: the verifier's quorum
// decides.
func (a *app) collectCosignatures(ctx context.Context, c *witnessclient.Client, readTile client.TileFetcherFunc, lg witnessclient.Log, logKey *signednote.Verifier) (*signednote.Checkpoint, error) {
	cp, res, err := c.WitnessLog(ctx, lg, logKey, readTile)
	if err != nil {
		return nil, cli.Failf("collecting cosignatures: %v", err)
	}
	for _, f := range res.Failures {
		a.warnf("%v", f)
	}
	fmt.Fprintf(a.stderr, "mcpres: %s\n", res.Summary(cp))
	return cp, nil
}

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
			fmt.Fprintf(a.stderr, "mcpres: %s: %v\n", path, e)
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
			fmt.Fprintf(a.stderr, "mcpres: %s: the reference's checkpoint carries no witness cosignature: it satisfies no witness quorum (--require-quorum TLOG-POLICY checks one)\n", path)
		default:
			fmt.Fprintf(a.stderr, "mcpres: %s: the reference's checkpoint carries %d cosignature(s), not verified here: %s (--require-quorum TLOG-POLICY verifies them and requires its quorum)\n",
				path, len(lines), offline.FormatSigLines(lines))
		}
		return nil
	}
	judged := *trust
	judged.EvaluatedAt = time.Now() // the cosignatures count under the verifier's time rule, now
	w, err := offline.Witnessed(proof, entry, judged)
	if err != nil {
		fmt.Fprintf(a.stderr, "mcpres: error: %s: the reference does not verify against the tlog policy %s (a consumer using it would reject it): %v; nothing written\n", path, policyPath, err)
		return cli.Exit(exitInvalid)
	}
	if !w.Satisfied() {
		fmt.Fprintf(a.stderr, "mcpres: error: %s: %s (tlog policy %s); nothing written: the log's warnings say why each missing witness gave no cosignature and which URL it was asked at (a witness that is down, or a 404: a policy URL that is not the witness's base URL, or a witness not told about the log); once they answer, %s\n", path, w, policyPath, again)
		return cli.Exit(exitInvalid)
	}
	fmt.Fprintf(a.stderr, "mcpres: %s: %s (tlog policy %s)\n", path, w, policyPath)
	return nil
}
