package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/offline/rekor/rekortest"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/transparency-dev/merkle/rfc6962"
)

type cli struct {
	dir                    string
	bundle                 *canonjson.Value
	bundlePath, policyPath string
	entry, otherEntry      []byte // LogEntryAnon JSON: this bundle's, another bundle's
	log                    *rekortest.Log
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func pretty(t *testing.T, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func setup(t *testing.T) *cli {
	t.Helper()
	c := &cli{dir: t.TempDir(), log: rekortest.NewLog(t)}
	raw, b, err := canonjson.ReadFile(filepath.Join("..", "..", "testdata", "bundles", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	c.bundle = b
	c.bundlePath = write(t, c.dir, "bundle.json", raw)
	entry := offline.EntryFor(b)
	other := entry
	other.EvidenceBundleDigest = strings.Repeat("01", 32)
	eb, _ := entry.Marshal()
	ob, _ := other.Marshal()
	c.log.Append(rekortest.HashedRekordBody(t, []byte("someone else's artifact")))
	i := c.log.Append(rekortest.HashedRekordBody(t, eb))
	j := c.log.Append(rekortest.HashedRekordBody(t, ob))
	c.entry = rekortest.Marshal(t, c.log.Entry(t, i))
	c.otherEntry = rekortest.Marshal(t, c.log.Entry(t, j))

	d := trustpolicy.New(attesttest.TrustPolicyID, "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
	d.AddSigner(trustpolicy.Signer{Name: "signer-one", Identity: attesttest.IdentityOne, Roles: []string{trustpolicy.RoleSigner},
		PublicKey: base64.StdEncoding.EncodeToString(ed25519strict.MarshalSPKI(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey)))})
	d.Transparency = &trustpolicy.Transparency{TLogPolicy: "log " + c.log.VKey + "\nquorum none\n"}
	c.policyPath = write(t, c.dir, "policy.json", pretty(t, d.Value()))
	return c
}

// attested writes the bundle signed by key one with a reference carrying
// entry, claiming TRANSPARENCY_RECORDED.
func (c *cli) attested(t *testing.T, name string, entry []byte) string {
	t.Helper()
	body := c.log.Bodies[1]
	uuid := hex.EncodeToString(rfc6962.DefaultHasher.HashLeaf(body))
	o := attesttest.Options(attesttest.IdentityOne)
	o.Transparency = attest.NewTransparencyReference(c.log.LogID, uuid, entry)
	env, err := attest.Sign(c.bundle, attesttest.TestOnlyKeyOne(), o)
	if err != nil {
		t.Fatal(err)
	}
	return write(t, c.dir, name, pretty(t, attest.Wrap(c.bundle, attest.TransparencyRecorded, env)))
}

func runCLI(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestAttestVerifyRekorReference(t *testing.T) {
	c := setup(t)
	good := c.attested(t, "good.json", c.entry)
	stdout, stderr, code := runCLI("attest", "verify", good, "--policy", c.policyPath, "--evaluated-at", attesttest.EvaluatedAt, "--subject-name", "ledger-notes-server")
	if code != exitValid || !strings.Contains(stdout, `"authenticityClassification":"TRANSPARENCY_RECORDED"`) || !strings.Contains(stdout, `"transparency":"VERIFIED_OFFLINE"`) ||
		!strings.HasPrefix(stdout, `{"valid":true,`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Rekor v1 log entry leaf 1 of \\\""+rekortest.Name+" - "+rekortest.TreeID) {
		t.Errorf("notes do not describe the verified entry: %s", stdout)
	}
	bad := c.attested(t, "bad.json", c.otherEntry)
	stdout, stderr, code = runCLI("attest", "verify", good, bad, "--policy", c.policyPath, "--evaluated-at", attesttest.EvaluatedAt, "--subject-name", "ledger-notes-server")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitInvalid || len(lines) != 2 || !strings.Contains(lines[1], attest.CodeTransparencyInvalid) ||
		stderr != "mcpres-sigstore: 2 files: 1 passed, 1 invalid; valid by level: TRANSPARENCY_RECORDED 1\n" {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Several inputs: each result names its file first (one input does
	// not: the reference implementation's exact output, checked above).
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"file":"`+good+`",`) || !strings.HasPrefix(lines[1], `{"file":"`+bad+`",`) {
		t.Errorf("several inputs without a first file member:\n%s", stdout)
	}
	// The explanation is in the text format, as with mcpres.
	stdout, stderr, code = runCLI("attest", "verify", "--format", "text", good, bad, "--policy", c.policyPath, "--evaluated-at", attesttest.EvaluatedAt, "--subject-name", "ledger-notes-server")
	if code != exitInvalid || stderr != "" ||
		!strings.Contains(stdout, "\n"+bad+": FAILED: the attested bundle is invalid ("+attest.CodeTransparencyInvalid+"): envelope 0: transparency reference not verified offline: log entry is for another bundle: ") ||
		!strings.HasPrefix(stdout, good+": PASSED: TRANSPARENCY_RECORDED (at least SIGNED_WITH_IDENTITY), result PASS, about sha256:") ||
		!strings.Contains(stdout, "\n  verified: VALID TRANSPARENCY_RECORDED, evidence class FIXTURE_BACKED_PROTOCOL, result PASS\n") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// attest verify is mcpres attest verify (package verifycmd): formats,
// gates, directories and exit codes, here with Rekor references.
func TestAttestVerifySharedCommand(t *testing.T) {
	c := setup(t)
	good := c.attested(t, "good.json", c.entry)
	at := []string{"--policy", c.policyPath, "--evaluated-at", attesttest.EvaluatedAt, "--subject-name", "ledger-notes-server"}
	verify := func(args ...string) (string, string, int) {
		return runCLI(append(append([]string{"attest", "verify"}, args...), at...)...)
	}
	// Gates: a level reached passes (control), one not reached fails with
	// exit 1 naming what is missing.
	stdout, stderr, code := verify("--require-level", "TRANSPARENCY_RECORDED", good)
	if code != exitValid || !strings.Contains(stdout, `"gate":{"passed":true,"requireLevel":"TRANSPARENCY_RECORDED",`) {
		t.Errorf("gate reached: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = verify("--require-evidence-class", "GENUINE_RUNTIME", "--format", "text", good)
	if code != exitInvalid || !strings.Contains(stdout, "  gate: FAILED: evidence class GENUINE_RUNTIME required, the bundle has FIXTURE_BACKED_PROTOCOL\n") {
		t.Errorf("gate not reached: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code = verify("--require-level", "NOPE", good); code != exitInput || !strings.Contains(stderr, "--require-level") {
		t.Errorf("bad gate: exit %d, stderr %s", code, stderr)
	}
	// A directory, with and without --recursive; markdown.
	dir := filepath.Join(c.dir, "evidence")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	write(t, dir, "a.json", data)
	write(t, filepath.Join(dir, "sub"), "b.json", data)
	stdout, _, code = verify("--format", "markdown", dir)
	if code != exitValid || strings.Count(stdout, "| PASSED |") != 1 || !strings.HasPrefix(stdout, "| file | result | authenticity | evidence class | diagnostics |\n") {
		t.Errorf("directory: exit %d\n%s", code, stdout)
	}
	stdout, _, code = verify("--format", "markdown", "--recursive", dir)
	if code != exitValid || strings.Count(stdout, "| PASSED |") != 2 || !strings.Contains(stdout, "**2 files: 2 passed; valid by level: TRANSPARENCY_RECORDED 2**") {
		t.Errorf("--recursive: exit %d\n%s", code, stdout)
	}
	// A policy that does not load is reported for every input (exit 2); the
	// format is checked before anything is read.
	broken := write(t, c.dir, "broken.json", []byte(`{"schemaVersion":`))
	stdout, _, code = runCLI("attest", "verify", good, good, "--policy", broken, "--evaluated-at", attesttest.EvaluatedAt)
	if code != exitInput || strings.Count(stdout, `"diagnostics":["MCP_RES_INPUT_INVALID"]`) != 2 {
		t.Errorf("broken policy: exit %d\n%s", code, stdout)
	}
	if _, stderr, code = verify("--format", "yaml", good); code != exitInput || !strings.Contains(stderr, "--format must be json, text or markdown") {
		t.Errorf("bad format: exit %d, stderr %s", code, stderr)
	}
	if _, stderr, code = runCLI("attest", "verify", good, "--evaluated-at", "2026-12-31T23:59:60Z"); code != exitInput || !strings.Contains(stderr, "leap seconds are rejected") {
		t.Errorf("bad time: exit %d, stderr %s", code, stderr)
	}
}

// An empty gate or trust value, and help asked for with a bundle, are
// usage errors that verify nothing (issue 21: each used to exit 0 for a
// bundle whose gate was not met); the same flags with values still gate.
func TestAttestVerifyGateNotBypassed(t *testing.T) {
	c := setup(t)
	good := c.attested(t, "good.json", c.entry)
	at := "--evaluated-at=" + attesttest.EvaluatedAt
	for _, args := range [][]string{
		{"--require-evidence-class", "", good},
		{"--require-evidence-class=", good},
		{"--require-level", " ", good},
		{"--require-evidence-class", "GENUINE_RUNTIME", "--policy", "", good},
		{"--require-evidence-class", "GENUINE_RUNTIME", "--key", "", "--identity", attesttest.IdentityOne, good},
		{"--require-evidence-class", "GENUINE_RUNTIME", "-h", good},
		{"--require-evidence-class", "GENUINE_RUNTIME", "--help", "--policy", c.policyPath, good},
	} {
		stdout, stderr, code := runCLI(append([]string{"attest", "verify", at}, args...)...)
		if code != exitInput || stdout != "" || !strings.HasSuffix(stderr, "\nRun 'mcpres-sigstore attest verify --help' for usage.\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a usage error", args, code, stdout, stderr)
		}
	}
	// Controls: the gate with a value fails the bundle (FIXTURE_BACKED_PROTOCOL);
	// help alone is help.
	if _, _, code := runCLI("attest", "verify", at, "--require-evidence-class", "GENUINE_RUNTIME", "--policy", c.policyPath, good); code != exitInvalid {
		t.Errorf("gate with a value: exit %d, want 1", code)
	}
	if stdout, _, code := runCLI("attest", "verify", "--help"); code != exitValid || !strings.Contains(stdout, "--require-level") {
		t.Errorf("--help: exit %d, %q", code, stdout)
	}
}

func TestVerifyRekorEntry(t *testing.T) {
	c := setup(t)
	entry := write(t, c.dir, "entry.json", c.entry)
	stdout, stderr, code := runCLI("verify-rekor-entry", entry, "--bundle", c.bundlePath, "--policy", c.policyPath)
	if code != exitValid || !strings.Contains(stdout, `"valid":true`) || !strings.Contains(stdout, `"logId":"`+c.log.LogID+`"`) || !strings.Contains(stdout, `"treeSize":3`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	other := write(t, c.dir, "other.json", c.otherEntry)
	stdout, _, code = runCLI("verify-rekor-entry", other, "--bundle", c.bundlePath, "--policy", c.policyPath)
	if code != exitInvalid || !strings.Contains(stdout, `"valid":false`) || !strings.Contains(stdout, "log entry is for another bundle") {
		t.Errorf("another bundle's entry: exit %d %s", code, stdout)
	}
	tampered := bytes.Replace(c.entry, []byte(`"integratedTime":1767225600`), []byte(`"integratedTime":1767225601`), 1)
	stdout, _, code = runCLI("verify-rekor-entry", write(t, c.dir, "tampered.json", tampered), "--bundle", c.bundlePath, "--policy", c.policyPath)
	if code != exitInvalid || !strings.Contains(stdout, "signed entry timestamp") {
		t.Errorf("tampered SET: exit %d %s", code, stdout)
	}
	stdout, stderr, code = runCLI("verify-rekor-entry", entry)
	if code != exitInput || stdout != "" || !strings.Contains(stderr, "--bundle and --policy are required") {
		t.Errorf("usage: exit %d %q %q", code, stdout, stderr)
	}
	_, stderr, code = runCLI("verify-rekor-entry", filepath.Join(c.dir, "missing.json"), "--bundle", c.bundlePath, "--policy", c.policyPath)
	if code != exitInput || !strings.Contains(stderr, "missing.json") {
		t.Errorf("missing entry: exit %d %q", code, stderr)
	}
}

// verify-rekor-entry applies the cosignature time rules of attest verify:
// the policy's trust at --evaluated-at (a cosignature dated later does not
// count) with its maxCosignatureAgeSeconds; controls: a later evaluation
// time, and no maximum age.
func TestVerifyRekorEntryCosignatureTimes(t *testing.T) {
	c := setup(t)
	w := offlinetest.NewWitness("W", "witness.example.org/w", "test-only witness W", 4102444800) // 2100-01-01
	policy := func(name string, maxAge int64) string {
		d := trustpolicy.New(attesttest.TrustPolicyID, "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
		d.Transparency = &trustpolicy.Transparency{TLogPolicy: "log " + c.log.VKey + "\nwitness W " + w.VKey + "\nquorum W\n", MaxCosignatureAgeSeconds: maxAge}
		return write(t, c.dir, name, pretty(t, d.Value()))
	}
	later := write(t, c.dir, "later.json", rekortest.Marshal(t, c.log.Entry(t, 1, w)))
	pol := policy("w.json", 0)
	stdout, _, code := runCLI("verify-rekor-entry", later, "--bundle", c.bundlePath, "--policy", pol, "--evaluated-at", attesttest.EvaluatedAt)
	if code != exitInvalid || !strings.Contains(stdout, "dated after the evaluation time") {
		t.Errorf("cosignature after the evaluation time: exit %d %s", code, stdout)
	}
	stdout, _, code = runCLI("verify-rekor-entry", later, "--bundle", c.bundlePath, "--policy", pol, "--evaluated-at", "2100-01-02T00:00:00Z")
	if code != exitValid || !strings.Contains(stdout, `"witnesses":[{"name":"W"`) {
		t.Errorf("control, evaluated later: exit %d %s", code, stdout)
	}
	early := write(t, c.dir, "early.json", rekortest.Marshal(t, c.log.Entry(t, 1, w.At(1767225601)))) // 2026-01-01T00:00:01Z
	stdout, _, code = runCLI("verify-rekor-entry", early, "--bundle", c.bundlePath, "--policy", policy("age.json", 1), "--evaluated-at", attesttest.EvaluatedAt)
	if code != exitInvalid || !strings.Contains(stdout, "older than the maximum cosignature age of 1s") {
		t.Errorf("maximum age: exit %d %s", code, stdout)
	}
	stdout, _, code = runCLI("verify-rekor-entry", early, "--bundle", c.bundlePath, "--policy", pol, "--evaluated-at", attesttest.EvaluatedAt)
	if code != exitValid {
		t.Errorf("control, no maximum age: exit %d %s", code, stdout)
	}
	if _, stderr, code := runCLI("verify-rekor-entry", early, "--bundle", c.bundlePath, "--policy", pol, "--evaluated-at", "tomorrow"); code != exitInput || !strings.Contains(stderr, `--evaluated-at "tomorrow"`) {
		t.Errorf("bad time: exit %d %s", code, stderr)
	}
}

// attest verify --key/--identity (the ad-hoc trust policy of package
// verifycmd) works here too; without a trust source the warning names this
// binary's flags (no --policy-tuf here), and a gate above SIGNED is a usage
// error.
func TestAttestVerifyAdHocKey(t *testing.T) {
	c := setup(t)
	env, err := attest.Sign(c.bundle, attesttest.TestOnlyKeyOne(), attesttest.Options(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	signed := write(t, c.dir, "signed.json", pretty(t, attest.Wrap(c.bundle, attest.SignedWithIdentity, env)))
	pemBytes, err := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	pub := write(t, c.dir, "one.pub", pemBytes)
	at := []string{"--evaluated-at", attesttest.EvaluatedAt}

	stdout, stderr, code := runCLI(append([]string{"attest", "verify", signed, "--key", pub, "--identity", attesttest.IdentityOne, "--subject-name", "ledger-notes-server"}, at...)...)
	if code != exitValid || stderr != "" || !strings.Contains(stdout, `"authenticityClassification":"SIGNED_WITH_IDENTITY"`) ||
		!strings.Contains(stdout, "ad-hoc trust policy (mcpres.ad-hoc)") {
		t.Errorf("--key: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	// Control: the same bundle without a trust source has an untrusted
	// signer, and the warning says so.
	stdout, stderr, code = runCLI(append([]string{"attest", "verify", signed}, at...)...)
	if code != exitInvalid || !strings.Contains(stdout, attest.CodeUntrustedSigner) ||
		stderr != "mcpres-sigstore: warning: no trust policy (--policy or --key): no signer was trusted, so at most SIGNED is derived; this verifies signatures and is not a gate\n" {
		t.Errorf("no trust source: exit %d\nstdout %s\nstderr %q", code, stdout, stderr)
	}
	if _, stderr, code = runCLI("attest", "verify", "--require-level", "WITNESSED", signed); code != exitInput || !strings.Contains(stderr, "--require-level: a gate needs a trust source (--policy or --key)") {
		t.Errorf("gate without a trust source: exit %d, stderr %q", code, stderr)
	}
}
