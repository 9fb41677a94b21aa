package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/internal/example"
	"github.com/spf13/cobra"
)

const demoLong = `Walk through the whole workflow in a fresh temporary folder, running the
real commands and printing each one with its output:

  1. seal the embedded example draft into a conformance bundle, and validate it
  2. generate a producer key and a witness key
  3. write a trust policy that trusts both (producer and witness identities)
  4. sign as the producer and verify: SIGNED_WITH_IDENTITY
  5. co-sign as the witness and verify: WITNESSED
  6. change one byte of the evidence and verify again: the attestation fails

The folder is removed afterwards unless --keep is given.`

func (a *app) demoCommand() *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Seal, sign, co-sign, verify and tamper with an example bundle, step by step",
		Long:  demoLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := os.MkdirTemp("", "mcpres-demo-")
			if err != nil {
				return failf("%v", err)
			}
			if keep {
				fmt.Fprintf(a.stdout, "# working in %s (kept)\n", dir)
			} else {
				defer os.RemoveAll(dir)
				fmt.Fprintf(a.stdout, "# working in a temporary folder, %s\n", dir)
			}
			return a.demo(dir)
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary folder and print its path")
	return cmd
}

func (a *app) demo(dir string) error {
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(p("example.draft.json"), example.Draft(), 0o644); err != nil {
		return failf("%v", err)
	}
	// step runs one mcpres command line in-process and checks its exit code.
	step := func(title string, want int, args ...string) error {
		fmt.Fprintf(a.stdout, "\n## %s\n$ mcpres %s\n", title, strings.Join(relArgs(dir, args), " "))
		var out bytes.Buffer
		code := run(args, a.stdin, &out, a.stderr)
		a.stdout.Write(bytes.ReplaceAll(out.Bytes(), []byte(dir+string(filepath.Separator)), nil))
		if code != want {
			return failf("demo step %q exited %d, expected %d", title, code, want)
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
	policy, err := a.demoPolicy(p, now)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p("policy.json"), policy, 0o644); err != nil {
		return failf("%v", err)
	}
	fmt.Fprintf(a.stdout, "\n## Write a trust policy trusting both keys with their identities\n%s", policy)
	if err := step("Sign as the producer", 0, "attest", "sign", p("example.json"),
		"--key", p("producer.key"), "--identity", demoProducer, "--policy-id", demoPolicyID,
		"--claim", "SIGNED_WITH_IDENTITY", "--signing-time", evaluatedAt, "-o", p("example.signed.json")); err != nil {
		return err
	}
	if err := step("Verify: the producer is trusted", 0, "attest", "verify", "--format", "text",
		"--policy", p("policy.json"), "--evaluated-at", evaluatedAt, p("example.signed.json")); err != nil {
		return err
	}
	if err := step("Co-sign as the witness", 0, "attest", "sign", p("example.signed.json"),
		"--key", p("witness.key"), "--identity", demoWitness, "--policy-id", demoPolicyID,
		"--claim", "WITNESSED", "--signing-time", evaluatedAt, "-o", p("example.witnessed.json")); err != nil {
		return err
	}
	if err := step("Verify: two distinct trusted keys", 0, "attest", "verify", "--format", "text",
		"--policy", p("policy.json"), "--evaluated-at", evaluatedAt, p("example.witnessed.json")); err != nil {
		return err
	}
	if err := tamperOneByte(p("example.witnessed.json"), p("example.tampered.json")); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\n## Change one byte of the first observation's reasonCode (example.tampered.json)\n")
	return step("Verify the tampered bundle: it fails", 1, "attest", "verify", "--format", "text",
		"--policy", p("policy.json"), "--evaluated-at", evaluatedAt, p("example.tampered.json"))
}

const (
	demoPolicyID = "mcpres/demo-policy"
	demoProducer = "demo://mcpres/producer"
	demoWitness  = "demo://mcpres/witness"
)

func (a *app) demoPolicy(p func(string) string, now time.Time) ([]byte, error) {
	s := canonjson.NewString
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	var signers []*canonjson.Value
	for _, k := range []struct{ file, identity string }{{"producer.pub", demoProducer}, {"witness.pub", demoWitness}} {
		pub, err := a.loadAnyPublicKey(p(k.file))
		if err != nil {
			return nil, err
		}
		signers = append(signers, canonjson.NewObject(m("keyFingerprint", s(fingerprint(pub))), m("signerIdentity", s(k.identity))))
	}
	format := "2006-01-02T15:04:05.000Z"
	policy := canonjson.NewObject(
		m("schemaVersion", s(bundle.SchemaVersionTrustPolicy)),
		m("id", s(demoPolicyID)),
		m("version", s("1.0.0")),
		m("validFrom", s(now.Add(-24*time.Hour).Format(format))),
		m("validUntil", s(now.Add(24*time.Hour).Format(format))),
		m("requiredAlgorithm", s("Ed25519")),
		m("trustedSigners", canonjson.NewArray(signers...)),
		m("revokedKeyFingerprints", canonjson.NewArray()),
	)
	return canonjson.Pretty(policy)
}

// tamperOneByte copies src to dst with one byte of the first observation's
// reasonCode changed (to another capital letter, so the document stays
// schema-valid and only the evidence digests break).
func tamperOneByte(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return failf("%v", err)
	}
	marker := []byte(`"reasonCode": "`)
	i := bytes.Index(data, marker)
	if i < 0 {
		return failf("demo: no reasonCode to tamper with")
	}
	i += len(marker)
	if data[i] == 'A' {
		data[i] = 'B'
	} else {
		data[i] = 'A'
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return failf("%v", err)
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
