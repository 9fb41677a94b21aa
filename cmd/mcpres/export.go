package main

import (
	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/spf13/cobra"
)

const exportLong = `Export one DSSE envelope of an attested conformance bundle as a Sigstore
bundle v0.3 (application/vnd.dev.sigstore.bundle.v0.3+json), for Sigstore
tools (sigstore-go, cosign, sigstore-python, sigstore-js).

ENVELOPE_INDEX counts from 0 in authenticity.envelopes, as the envelope
indexes of "mcpres attest verify" do. A Sigstore bundle holds exactly one
signature, so a witnessed bundle gives one Sigstore bundle per signer.

The bundle holds the envelope's payloadType, payload and signature (the
signed bytes are unchanged; the MCP-RES members schemaVersion, algorithm,
publicKeySpkiBase64 and signerIdentity are dropped, the DSSE keyid is left
empty), a publicKey verification material whose hint is the signer's key
fingerprint, and no transparency-log entries or timestamps. Verify it with
the signer's public key, key-based and without observer timestamps.

A keyless envelope (attest sign --keyless) has its Sigstore bundle kept
beside ATTESTED (ATTESTED.sigstore.json, ATTESTED.sigstore.2.json, …): the
one that holds this envelope's payload and signature is written unchanged
instead, with its certificate and RFC 3161 timestamp, for verification
with the signer's identity and issuer (cosign verify-blob-attestation
--certificate-identity … --certificate-oidc-issuer …).

The envelope's shape and signature are checked; the evidence, the binding
to the bundle and trust are not: that is "mcpres attest verify". OUTPUT is
written atomically and never replaces the input; an existing OUTPUT is
replaced only with --force.`

func (a *app) attestExportCommand() *cobra.Command {
	var index int
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "export --sigstore-bundle ENVELOPE_INDEX -o OUTPUT ATTESTED",
		Short: "Export an envelope of an attested bundle as a Sigstore bundle",
		Long:  exportLong,
		Example: `  mcpres attest export --sigstore-bundle 0 -o bundle.sigstore.json bundle.attested.json
  mcpres attest export --sigstore-bundle 1 -o witness.sigstore.json bundle.witnessed.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case !cmd.Flags().Changed("sigstore-bundle"):
				return cli.Usagef("--sigstore-bundle ENVELOPE_INDEX is required")
			case index < 0:
				return cli.Usagef("--sigstore-bundle: envelope index %d is negative (indexes count from 0)", index)
			case out == "":
				return cli.Usagef("-o/--output is required")
			}
			path := args[0]
			_, doc, err := canonjson.ReadFile(path)
			if err != nil {
				a.printInputInvalid(path, err, "text", false)
				return cli.Exit(exitInput)
			}
			env, err := selectEnvelope(path, doc, index)
			if err != nil {
				return err
			}
			if kept, from, err := keylessMaterial(path, env); err != nil {
				return err
			} else if kept != nil {
				if err := a.writeOutput(out, []string{path, from}, kept, force); err != nil {
					return err
				}
				a.wrote(out, "keyless Sigstore bundle (certificate, timestamp) of envelope %d of %s, copied from %s", index, path, from)
				return nil
			}
			b, err := sigstore.ExportBundle(env)
			if err != nil {
				return cli.Failf("%s: envelope %d: %v", path, index, err)
			}
			data, err := canonjson.Pretty(b)
			if err != nil {
				return cli.Failf("encoding the Sigstore bundle: %v", err)
			}
			if err := a.writeOutput(out, []string{path}, data, force); err != nil {
				return err
			}
			a.wrote(out, "Sigstore bundle (%s) of envelope %d of %s", sigstore.MediaType, index, path)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&index, "sigstore-bundle", 0, "write a Sigstore bundle v0.3 of envelope number `ENVELOPE_INDEX`, counted from 0 (required)")
	f.StringVarP(&out, "output", "o", "", "where to write the Sigstore bundle (required; - for standard output)")
	f.BoolVar(&force, "force", false, "replace an existing output file")
	return cmd
}

// selectEnvelope returns envelope number index of the attested bundle doc.
func selectEnvelope(path string, doc *canonjson.Value, index int) (*canonjson.Value, error) {
	if document.Detect(doc) != document.AttestedBundle {
		return nil, cli.Failf("%s is not an attested conformance bundle (schemaVersion %s is required)", path, bundle.SchemaVersionAttestedBundle)
	}
	envs := doc.Path("authenticity", "envelopes")
	if !envs.Is(canonjson.Array) {
		return nil, cli.Failf("%s: authenticity.envelopes is missing or not an array", path)
	}
	switch n := len(envs.Items); {
	case n == 0:
		return nil, cli.Failf("%s holds no envelopes (it is unsigned): there is nothing to export", path)
	case index >= n:
		return nil, cli.Failf("envelope index %d is out of range: %s holds %d envelope(s), indexes 0 to %d", index, path, n, n-1)
	}
	return envs.Items[index], nil
}

// keylessMaterial returns the Sigstore bundle kept beside the attested
// bundle at path that carries env (sigstore.Carries) and its file name,
// or nil when none does.
func keylessMaterial(path string, env *canonjson.Value) ([]byte, string, error) {
	for _, p := range verifycmd.MaterialBeside(path) {
		data, err := regularfile.ReadFile(p, sigstore.MaxMaterialBytes)
		if err != nil {
			return nil, "", cli.Failf("Sigstore bundle %s: %v", p, err)
		}
		if sigstore.Carries(data, env) {
			return data, p, nil
		}
	}
	return nil, "", nil
}
