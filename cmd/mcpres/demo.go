package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/example"
	"github.com/spf13/cobra"
)

const demoLong = `Walk through the whole workflow in a fresh temporary folder, running the
real commands and printing each one with its output:

  1. seal the embedded example draft into a conformance bundle, and validate it
  2. generate a producer key and a witness key
  3. write a trust policy that trusts both, the producer as signer and the
     witness as co-signer (policy init, add-signer, add-witness)
  4. sign as the producer and verify: SIGNED_WITH_IDENTITY
  5. co-sign as the witness and verify: WITNESSED
  6. change one byte of the evidence and verify again: the attestation fails
  7. create a transparency log, log the bundle, have a log witness cosign
     the checkpoint and write a fresh reference that carries its cosignature
  8. write a second policy that trusts the producer and the log (policy
     init, add-signer, set-transparency), sign with the reference and
     verify offline:
     TRANSPARENCY_RECORDED
  9. render the result as an HTML report (mcpres report)

then prints what to do next. The folder is removed afterwards unless --keep
is given; --report FILE also writes the HTML report to FILE.`

func (a *app) demoCommand() *cobra.Command {
	var keep bool
	var reportOut string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Seal, sign, co-sign, verify and tamper with an example bundle, step by step",
		Long:  demoLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if reportOut != "" {
				// Standard output holds the transcript.
				if err := fileOnly("--report", reportOut); err != nil {
					return err
				}
				if err := checkOutputs([]string{reportOut}, nil, false); err != nil {
					return err
				}
			}
			dir, err := os.MkdirTemp("", "mcpres-demo-")
			if err != nil {
				return cli.Failf("%v", err)
			}
			if keep {
				fmt.Fprintf(a.stdout, "# working in %s (kept)\n", dir)
			} else {
				defer os.RemoveAll(dir)
				fmt.Fprintf(a.stdout, "# working in a temporary folder, %s\n", dir)
			}
			if err := a.demo(dir); err != nil {
				return err
			}
			html := filepath.Join(dir, "report.html")
			switch {
			case reportOut != "":
				data, err := os.ReadFile(html)
				if err != nil {
					return cli.Failf("%v", err)
				}
				if err := a.writeOutput(reportOut, nil, data, false); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "\nThe HTML report is in %s.\n", reportOut)
			case keep:
				fmt.Fprintf(a.stdout, "\nThe HTML report is in %s.\n", html)
			default:
				fmt.Fprintf(a.stdout, "\nThe HTML report was written to the temporary folder, which is now removed: run `mcpres demo --report report.html` to keep it (or --keep for the whole folder).\n")
			}
			fmt.Fprint(a.stdout, demoNext)
			return nil
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary folder and print its path")
	cmd.Flags().StringVar(&reportOut, "report", "", "also write the HTML report to `FILE` (never replaced)")
	return cmd
}

func (a *app) demo(dir string) error {
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := atomicfile.WriteFile(p("example.draft.json"), example.Draft(), 0o644, false); err != nil {
		return writeFileError(p("example.draft.json"), err)
	}
	// step runs one mcpres command line in-process and checks its exit code.
	step := func(title string, want int, args ...string) error {
		fmt.Fprintf(a.stdout, "\n## %s\n$ mcpres %s\n", title, strings.Join(relArgs(dir, args), " "))
		// stderr too: what each command says it wrote is part of the show.
		var out bytes.Buffer
		code := run(args, a.stdin, &out, &out)
		a.stdout.Write(bytes.ReplaceAll(out.Bytes(), []byte(dir+string(filepath.Separator)), nil))
		if code != want {
			return cli.Failf("demo step %q exited %d, expected %d", title, code, want)
		}
		return nil
	}
	now := time.Now().UTC()
	evaluatedAt := now.Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	if err := step("Seal the example draft into an integrity-bound bundle", 0,
		"seal", p("example.draft.json"), "-o", p("example.json")); err != nil {
		return err
	}
	if err := step("Validate it", 0, "validate", "--format", "text", p("example.json")); err != nil {
		return err
	}
	for _, k := range []string{"producer", "witness"} {
		if err := step("Generate the "+k+" key (prints its fingerprint)", 0, "key", "generate", "--out-base", p(k)); err != nil {
			return err
		}
	}
	// The trust policy, written with the commands a reader reuses.
	format := "2006-01-02T15:04:05.000Z"
	for _, s := range [][]string{
		{"Write a trust policy: its id (signers name it) and validity window", "policy", "init", p("policy.json"), "--id", demoPolicyID,
			"--valid-from", now.Add(-24 * time.Hour).Format(format), "--valid-until", now.Add(24 * time.Hour).Format(format)},
		{"Trust the producer key with its identity", "policy", "add-signer", p("policy.json"), "--name", "producer",
			"--identity", demoProducer, "--key", p("producer.pub")},
		{"Trust the witness key with its identity, as a co-signer: one witness makes WITNESSED", "policy", "add-witness", p("policy.json"),
			"--name", "witness", "--identity", demoWitness, "--key", p("witness.pub")},
	} {
		if err := step(s[0], 0, s[1:]...); err != nil {
			return err
		}
	}
	if err := step("Sign as the producer", 0, "attest", "sign", p("example.json"),
		"--key", p("producer.key"), "--identity", demoProducer, "--policy-id", demoPolicyID,
		"--claim", "SIGNED_WITH_IDENTITY", "--signing-time", evaluatedAt, "-o", p("example.signed.json")); err != nil {
		return err
	}
	if err := step("Verify: the producer is trusted, and the bundle is about the server that ships", 0, "attest", "verify", "--format", "text",
		"--policy", p("policy.json"), "--evaluated-at", evaluatedAt, "--subject-name", demoSubjectName, "--subject-version", demoSubjectVersion, p("example.signed.json")); err != nil {
		return err
	}
	if err := step("Co-sign as the witness", 0, "attest", "sign", p("example.signed.json"),
		"--key", p("witness.key"), "--identity", demoWitness, "--policy-id", demoPolicyID,
		"--claim", "WITNESSED", "--signing-time", evaluatedAt, "-o", p("example.witnessed.json")); err != nil {
		return err
	}
	if err := step("Verify: the producer and its witness, both trusted", 0, "attest", "verify", "--format", "text",
		"--policy", p("policy.json"), "--evaluated-at", evaluatedAt, "--subject-name", demoSubjectName, "--subject-version", demoSubjectVersion,
		"--require-level", "WITNESSED", p("example.witnessed.json")); err != nil {
		return err
	}
	if err := tamperOneByte(p("example.witnessed.json"), p("example.tampered.json")); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\n## Change one byte of the first observation's reasonCode (example.tampered.json)\n")
	if err := step("Verify the tampered bundle: it fails", 1, "attest", "verify", "--format", "text",
		"--policy", p("policy.json"), "--evaluated-at", evaluatedAt, "--subject-name", demoSubjectName, p("example.tampered.json")); err != nil {
		return err
	}
	return a.demoTransparency(dir, p, step, now)
}

// The subject of the example bundle, which the demo's gates are bound to.
const (
	demoSubjectName    = "ledger-notes-server"
	demoSubjectVersion = "3.4.1"
)

// demoTransparency is the second half of the demo: a transparency log, a
// witness cosignature on its checkpoint, a v1 policy that verifies both
// offline, TRANSPARENCY_RECORDED, and the HTML report.
func (a *app) demoTransparency(dir string, p func(string) string, step func(string, int, ...string) error, start time.Time) error {
	steps := [][]string{
		{"Create the transparency log's signing key (a signed-note key; prints the verifier key)",
			"log", "keygen", "--origin", demoLogOrigin, "--out-base", p("log")},
		{"Create the log (a C2SP tlog-tiles folder)", "log", "init", "--dir", p("log"), "--key", p("log.key")},
		{"Log the sealed bundle: the reference holds an inclusion proof and the signed checkpoint",
			"log", "add", "--dir", p("log"), "--key", p("log.key"), p("example.json"), "-o", p("example.ref.json")},
		{"Create a log witness's key (a cosignature/v1 note key)", "witness", "keygen", "--name", demoLogWitness, "--out-base", p("log-witness")},
		{"The witness checks the log's checkpoint (consistent with what it saw before) and cosigns it",
			"witness", "cosign", "--log", p("log"), "--log-key", p("log.vkey"), "--key", p("log-witness.key"),
			"--state", p("log-witness.state"), "--init", "-o", p("log-witness.cosig")},
		{"Attach the cosignature to the log's checkpoint", "log", "add-cosignature", "--dir", p("log"),
			"--witness-key", p("log-witness.vkey"), p("log-witness.cosig")},
		{"Write a fresh reference: its checkpoint now carries the witness cosignature",
			"log", "proof", "--dir", p("log"), "--index", "0", "-o", p("example.witnessed-ref.json")},
	}
	for _, s := range steps {
		if err := step(s[0], 0, s[1:]...); err != nil {
			return err
		}
	}
	tlogPolicy, err := demoTLogPolicy(p)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(p("tlog-policy.txt"), tlogPolicy, 0o644, false); err != nil {
		return writeFileError(p("tlog-policy.txt"), err)
	}
	fmt.Fprintf(a.stdout, "\n## Write the transparency rules: this log, this witness, a quorum of it (tlog-policy.txt)\n%s", tlogPolicy)
	// The cosignature carries the witness's clock: evaluate after it.
	at := time.Now().UTC().Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	format := "2006-01-02T15:04:05.000Z"
	steps = [][]string{
		{"Start a second policy, for the producer and the log", "policy", "init", p("policy-v1.json"), "--id", demoPolicyID,
			"--valid-from", start.Add(-24 * time.Hour).Format(format), "--valid-until", start.Add(24 * time.Hour).Format(format)},
		{"Trust the producer key with its identity", "policy", "add-signer", p("policy-v1.json"), "--name", "producer",
			"--identity", demoProducer, "--key", p("producer.pub")},
		{"Add the transparency rules to the policy", "policy", "set-transparency", p("policy-v1.json"), p("tlog-policy.txt")},
		{"Sign as the producer with the witnessed reference", "attest", "sign", p("example.json"),
			"--key", p("producer.key"), "--identity", demoProducer, "--policy-id", demoPolicyID,
			"--claim", "TRANSPARENCY_RECORDED", "--transparency", p("example.witnessed-ref.json"),
			"--signing-time", at, "-o", p("example.recorded.json")},
		{"Verify offline: inclusion proof, log signature and witness quorum, TRANSPARENCY_RECORDED",
			"attest", "verify", "--format", "text", "--policy", p("policy-v1.json"), "--evaluated-at", at,
			"--subject-name", demoSubjectName, "--require-level", "TRANSPARENCY_RECORDED", p("example.recorded.json")},
		{"Render the verdict and the evidence as one self-contained HTML page", "report", p("example.recorded.json"),
			"--policy", p("policy-v1.json"), "--evaluated-at", at, "--subject-name", demoSubjectName, "-o", p("report.html")},
	}
	for _, s := range steps {
		if err := step(s[0], 0, s[1:]...); err != nil {
			return err
		}
	}
	// A claim is the producer's and a gate the consumer's: a consumer
	// whose policy names no log fails the TRANSPARENCY_RECORDED claim
	// whatever its gate asks, and the failure says what each side can do.
	return step("A consumer whose policy names no log: the claim TRANSPARENCY_RECORDED fails, even for a gate that asks only SIGNED_WITH_IDENTITY", 1,
		"attest", "verify", "--format", "text", "--policy", p("policy.json"), "--evaluated-at", at,
		"--subject-name", demoSubjectName, "--require-level", "SIGNED_WITH_IDENTITY", p("example.recorded.json"))
}

// demoTLogPolicy is the tlog-policy text of the demo's log and witness.
func demoTLogPolicy(p func(string) string) ([]byte, error) {
	var vkeys []string
	for _, f := range []string{"log.vkey", "log-witness.vkey"} {
		b, err := os.ReadFile(p(f))
		if err != nil {
			return nil, cli.Failf("%v", err)
		}
		vkeys = append(vkeys, strings.TrimSpace(string(b)))
	}
	return []byte(fmt.Sprintf("log %s\nwitness %s %s\nquorum %s\n", vkeys[0], demoLogWitness, vkeys[1], demoLogWitness)), nil
}

const demoNext = `
## What next
  install:   in a clone, go install ./cmd/... and put $(go env GOPATH)/bin on your PATH
             (README, "Install")
  in CI:     the GitHub Action (action.yml) gates on attest verify; examples/github-actions/ and
             docs/release-pipeline.md show a release pipeline that seals, signs, logs and co-signs
  trust:     docs/trust-policy.md (policies, witnesses, transparency); docs/transparency.md (log serve)
  interop:   docs/interop.md (cosign, sigstore-go); docs/report.md (the HTML report)
`

const (
	demoPolicyID = "mcpres/demo-policy"
	demoProducer = "demo://mcpres/producer"
	demoWitness  = "demo://mcpres/witness"
	// The transparency log and its witness (note key names).
	demoLogOrigin  = "demo.mcpres.example/log"
	demoLogWitness = "demo.mcpres.example/witness"
)

// tamperOneByte copies src to dst with one byte of the first observation's
// reasonCode changed (to another capital letter, so the document stays
// schema-valid and only the evidence digests break).
func tamperOneByte(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return cli.Failf("%v", err)
	}
	marker := []byte(`"reasonCode": "`)
	i := bytes.Index(data, marker)
	if i < 0 {
		return cli.Failf("demo: no reasonCode to tamper with")
	}
	i += len(marker)
	if data[i] == 'A' {
		data[i] = 'B'
	} else {
		data[i] = 'A'
	}
	if err := atomicfile.WriteFile(dst, data, 0o644, false); err != nil {
		return writeFileError(dst, err)
	}
	return nil
}

// relArgs shows paths inside the demo folder relative to it.
func relArgs(dir string, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.TrimPrefix(a, dir+string(filepath.Separator))
		if strings.ContainsAny(out[i], " \"") {
			out[i] = fmt.Sprintf("%q", out[i])
		}
	}
	return out
}
