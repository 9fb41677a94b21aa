package main

import (
	"bufio"
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/trustpolicy"
)

// TestPolicyCommandRegistered fails with a clear message until main.go
// registers the policy command (every other test here needs it).
func TestPolicyCommandRegistered(t *testing.T) {
	stdout, stderr, code := runCLI(t, "policy", "--help")
	if code != 0 || !strings.Contains(stdout, "add-signer") {
		t.Fatalf("`mcpres policy --help`: exit %d, stdout %q, stderr %q: register a.policyCommand() in rootCommand (main.go)", code, stdout, stderr)
	}
}

// policyEnv is a temporary directory with the test keys' public key files.
type policyEnv struct {
	t   *testing.T
	dir string
}

func newPolicyEnv(t *testing.T) *policyEnv {
	t.Helper()
	e := &policyEnv{t: t, dir: t.TempDir()}
	for name, priv := range map[string]ed25519.PrivateKey{"one": attesttest.TestOnlyKeyOne(), "two": attesttest.TestOnlyKeyTwo()} {
		pemKey, err := keyfile.MarshalPublicKeyPEM(priv.Public().(ed25519.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		e.write(name+".pub", string(pemKey))
	}
	return e
}

func (e *policyEnv) path(name string) string { return filepath.Join(e.dir, name) }

func (e *policyEnv) write(name, data string) {
	e.t.Helper()
	if err := os.WriteFile(e.path(name), []byte(data), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *policyEnv) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// run runs mcpres with args, where "@name" stands for a file in the
// directory, and checks the exit code.
func (e *policyEnv) run(wantCode int, args ...string) (stdout, stderr string) {
	e.t.Helper()
	full := make([]string, len(args))
	for i, a := range args {
		if rest, ok := strings.CutPrefix(a, "@"); ok {
			a = e.path(rest)
		}
		full[i] = a
	}
	stdout, stderr, code := runCLI(e.t, full...)
	if code != wantCode {
		e.t.Fatalf("mcpres %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, wantCode, stdout, stderr)
	}
	return stdout, stderr
}

// policy loads the policy file strictly.
func (e *policyEnv) policy(name string) *trustpolicy.Document {
	e.t.Helper()
	_, v, err := canonjson.ReadFile(e.path(name))
	if err != nil {
		e.t.Fatal(err)
	}
	p, problems := trustpolicy.Load(v, nil)
	if problems != nil {
		e.t.Fatalf("%s does not load: %v", name, problems)
	}
	return p.Document()
}

// unchanged runs a failing command and checks that the file is byte for
// byte unchanged and no temporary file is left behind.
func (e *policyEnv) unchanged(name string, wantCode int, args ...string) (stdout, stderr string) {
	e.t.Helper()
	before := e.read(name)
	stdout, stderr = e.run(wantCode, args...)
	if after := e.read(name); after != before {
		e.t.Errorf("%s changed by a failing command:\n%s", name, after)
	}
	e.noTempFiles()
	return stdout, stderr
}

func (e *policyEnv) noTempFiles() {
	e.t.Helper()
	entries, _ := os.ReadDir(e.dir)
	for _, en := range entries {
		if strings.Contains(en.Name(), ".tmp-") {
			e.t.Errorf("temporary file %s left behind", en.Name())
		}
	}
}

const (
	policyTestFrom  = "2026-01-01T00:00:00.000Z"
	policyTestUntil = "2027-01-01T00:00:00.000Z"
)

func (e *policyEnv) init(name string) {
	e.t.Helper()
	e.run(0, "policy", "init", "@"+name, "--id", attesttest.TrustPolicyID, "--valid-from", policyTestFrom, "--valid-until", policyTestUntil)
}

func TestPolicyInit(t *testing.T) {
	e := newPolicyEnv(t)
	stdout, _ := e.run(0, "policy", "init", "@p.json", "--id", "example/release-policy", "--valid-from", policyTestFrom, "--valid-until", policyTestUntil)
	if want := e.path("p.json") + `: version 1: created policy "example/release-policy"` + "\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	want := `{
  "schemaVersion": "mcpres.trust-policy/v1",
  "id": "example/release-policy",
  "version": 1,
  "validFrom": "2026-01-01T00:00:00.000Z",
  "validUntil": "2027-01-01T00:00:00.000Z",
  "signers": [],
  "revocations": []
}`
	if got := e.read("p.json"); strings.TrimSpace(got) != want {
		t.Errorf("policy file:\n%s\nwant:\n%s", got, want)
	}
	// Never overwrites.
	_, stderr := e.unchanged("p.json", exitInput, "policy", "init", "@p.json", "--id", "other", "--valid-from", policyTestFrom, "--valid-until", policyTestUntil)
	if !strings.Contains(stderr, "refusing to overwrite") {
		t.Errorf("stderr %q", stderr)
	}
	// An inverted window writes nothing.
	_, stderr = e.run(exitInvalid, "policy", "init", "@q.json", "--id", "x", "--valid-from", policyTestUntil, "--valid-until", policyTestFrom)
	if !strings.Contains(stderr, "/validUntil: validFrom 2027-01-01T00:00:00.000Z is after validUntil 2026-01-01T00:00:00.000Z (window)") {
		t.Errorf("stderr %q", stderr)
	}
	if _, err := os.Stat(e.path("q.json")); err == nil {
		t.Error("q.json was written")
	}
	e.noTempFiles()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--valid-from", policyTestFrom, "--valid-until", policyTestUntil}, "--id is required"},
		{[]string{"--id", "x", "--valid-until", policyTestUntil}, "--valid-from is required"},
		{[]string{"--id", "x", "--valid-from", policyTestFrom, "--valid-until", "2026-12-31T23:59:60Z"}, `--valid-until "2026-12-31T23:59:60Z" is not an RFC 3339 date-time`},
	} {
		_, stderr := e.run(exitInput, append([]string{"policy", "init", "@r.json"}, tt.args...)...)
		if !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, usagePointer) {
			t.Errorf("%v: stderr %q, want usage naming %q", tt.args, stderr, tt.want)
		}
	}
}

func TestPolicyAddSigner(t *testing.T) {
	e := newPolicyEnv(t)
	e.init("p.json")
	stdout, _ := e.run(0, "policy", "add-signer", "@p.json", "--name", "signer-one", "--identity", attesttest.IdentityOne, "--key", "@one.pub")
	if want := e.path("p.json") + `: version 2: added signer "signer-one" (roles signer, key ` + attesttest.KeyID(attesttest.TestOnlyKeyOne()) + ")\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	e.run(0, "policy", "add-signer", "@p.json", "--name", "signer-two", "--identity", attesttest.IdentityTwo, "--key", "@two.pub",
		"--role", "signer", "--role", "witness", "--valid-from", "2026-02-01T00:00:00Z", "--valid-until", "2026-12-01T00:00:00Z")
	d := e.policy("p.json")
	if d.Version != 3 || len(d.Signers) != 2 {
		t.Fatalf("version %d, %d signers", d.Version, len(d.Signers))
	}
	s := d.Signers[1]
	if !slices.Equal(s.Roles, []string{"signer", "witness"}) || s.ValidFrom != "2026-02-01T00:00:00Z" || s.ValidUntil != "2026-12-01T00:00:00Z" ||
		s.PublicKey != base64.StdEncoding.EncodeToString(ed25519strict.MarshalSPKI(attesttest.TestOnlyKeyTwo().Public().(ed25519.PublicKey))) {
		t.Errorf("signer %+v", s)
	}

	// The same key under another name and identity: refused, file unchanged.
	_, stderr := e.unchanged("p.json", exitInvalid, "policy", "add-signer", "@p.json", "--name", "again", "--identity", "https://example.org/other", "--key", "@one.pub")
	want := "/signers/2/publicKey: key " + attesttest.KeyID(attesttest.TestOnlyKeyOne()) + ` is already listed as /signers/0 ("signer-one"); one key is one signer and counts once (uniqueKey)`
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "nothing written to") {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	// A duplicate name, an inverted key window: both reported at once.
	e.write("three.pub", string(policyPubPEM(t, policyTestKeyThree())))
	_, stderr = e.unchanged("p.json", exitInvalid, "policy", "add-signer", "@p.json", "--name", "signer-two", "--identity", "x", "--key", "@three.pub",
		"--valid-from", "2026-03-01T00:00:00Z", "--valid-until", "2026-02-01T00:00:00Z")
	for _, w := range []string{`/signers/2/name: name "signer-two" is already used by /signers/1 (uniqueName)`, "/signers/2/validUntil: validFrom 2026-03-01T00:00:00Z is after validUntil 2026-02-01T00:00:00Z (window)"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
	// Usage and input errors.
	e.write("priv.key", string(policyPrivPEM(t)))
	e.write("bad.pub", "not a key")
	for _, tt := range []struct {
		code int
		args []string
		want string
	}{
		{exitInput, []string{"--name", "n", "--identity", "i", "--key", "@three.pub", "--role", "admin"}, `--role must be signer or witness, not "admin"`},
		{exitInput, []string{"--identity", "i", "--key", "@three.pub"}, "--name is required"},
		{exitInput, []string{"--name", "n", "--key", "@three.pub"}, "--identity is required"},
		{exitInput, []string{"--name", "n", "--identity", "i"}, "--key is required"},
		{exitInput, []string{"--name", "n", "--identity", "i", "--key", "@missing.pub"}, "no such file"},
		{exitInput, []string{"--name", "n", "--identity", "i", "--key", "@priv.key"}, "this is a PEM private key (NAME.key of `mcpres key generate`), for signing attested bundles: `mcpres attest sign --key`, the role keys of `mcpres policy tuf`; --key takes a PEM public key (NAME.pub of `mcpres key generate`)"},
		{exitInput, []string{"--name", "n", "--identity", "i", "--key", "@bad.pub"}, "public key is neither a PEM block nor base64 SPKI"},
	} {
		_, stderr := e.unchanged("p.json", tt.code, append([]string{"policy", "add-signer", "@p.json"}, tt.args...)...)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: stderr %q, want %q", tt.args, stderr, tt.want)
		}
	}
	// A file that is not a v1 policy is not edited.
	e.write("up.json", policyPretty(t, attesttest.Policy(attesttest.PolicyOptions{})))
	_, stderr = e.unchanged("up.json", exitInvalid, "policy", "add-signer", "@up.json", "--name", "n", "--identity", "i", "--key", "@three.pub")
	if !strings.Contains(stderr, "is not an mcpres.trust-policy/v1 document") {
		t.Errorf("stderr %q", stderr)
	}
	e.write("broken.json", "{")
	_, stderr = e.unchanged("broken.json", exitInput, "policy", "add-signer", "@broken.json", "--name", "n", "--identity", "i", "--key", "@three.pub")
	if !strings.Contains(stderr, "broken.json") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestPolicyAddWitnessAndSetQuorum(t *testing.T) {
	e := newPolicyEnv(t)
	e.init("p.json")
	_, stderr := e.unchanged("p.json", exitInvalid, "policy", "set-quorum", "@p.json", "1")
	if !strings.Contains(stderr, "the policy has no witnesses rule; add a witness first") {
		t.Errorf("stderr %q", stderr)
	}
	e.run(0, "policy", "add-signer", "@p.json", "--name", "signer-one", "--identity", attesttest.IdentityOne, "--key", "@one.pub")
	stdout, _ := e.run(0, "policy", "add-witness", "@p.json", "--name", "signer-two", "--identity", attesttest.IdentityTwo, "--key", "@two.pub")
	if !strings.Contains(stdout, `version 3: added witness "signer-two" (key `+attesttest.KeyID(attesttest.TestOnlyKeyTwo())+"); quorum 1 of 1 members") {
		t.Errorf("stdout %q", stdout)
	}
	d := e.policy("p.json")
	if w := d.Witnesses; w == nil || w.Quorum != 1 || !w.DistinctIdentities || !slices.Equal(w.Members, []string{"signer-two"}) ||
		!slices.Equal(d.Signers[1].Roles, []string{"witness"}) {
		t.Fatalf("witnesses %+v, signer %+v", d.Witnesses, d.Signers[1])
	}
	e.write("three.pub", string(policyPubPEM(t, policyTestKeyThree())))
	e.run(0, "policy", "add-witness", "@p.json", "--name", "witness-b", "--identity", "https://witness-b.example", "--key", "@three.pub")
	stdout, _ = e.run(0, "policy", "set-quorum", "@p.json", "2", "--distinct-identities=false")
	if !strings.Contains(stdout, "version 5: witness quorum 2 of 2 members, distinct identities false") {
		t.Errorf("stdout %q", stdout)
	}
	if w := e.policy("p.json").Witnesses; w.Quorum != 2 || w.DistinctIdentities || len(w.Members) != 2 {
		t.Errorf("witnesses %+v", w)
	}
	e.run(0, "policy", "set-quorum", "@p.json", "1") // distinct identities unchanged
	if w := e.policy("p.json").Witnesses; w.Quorum != 1 || w.DistinctIdentities {
		t.Errorf("witnesses %+v", w)
	}
	_, stderr = e.unchanged("p.json", exitInvalid, "policy", "set-quorum", "@p.json", "3")
	if !strings.Contains(stderr, "/witnesses/quorum: quorum 3 is outside 1..2 (the number of distinct members) (quorum)") {
		t.Errorf("stderr %q", stderr)
	}
	_, stderr = e.unchanged("p.json", exitInput, "policy", "set-quorum", "@p.json", "two")
	if !strings.Contains(stderr, `quorum "two" is not an integer`) {
		t.Errorf("stderr %q", stderr)
	}
	// The same key as a second witness under another name: refused.
	_, stderr = e.unchanged("p.json", exitInvalid, "policy", "add-witness", "@p.json", "--name", "alias", "--identity", "https://alias.example", "--key", "@two.pub")
	if !strings.Contains(stderr, "(uniqueKey)") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestPolicyRevoke(t *testing.T) {
	e := newPolicyEnv(t)
	e.init("p.json")
	e.run(0, "policy", "add-signer", "@p.json", "--name", "signer-one", "--identity", attesttest.IdentityOne, "--key", "@one.pub")
	one, two := attesttest.KeyID(attesttest.TestOnlyKeyOne()), attesttest.KeyID(attesttest.TestOnlyKeyTwo())
	stdout, _ := e.run(0, "policy", "revoke", "@p.json", "--key", "@one.pub", "--reason", "key compromise", "--revoked-at", "2026-05-01T00:00:00.000Z")
	if want := "version 3: revoked key " + one + ` (key compromise); signer "signer-one" stays listed, its envelopes now fail`; !strings.Contains(stdout, want) {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	e.run(0, "policy", "revoke", "@p.json", "--fingerprint", two, "--reason", "lost")
	d := e.policy("p.json")
	want := []trustpolicy.Revocation{{Fingerprint: one, Reason: "key compromise", RevokedAt: "2026-05-01T00:00:00.000Z"}, {Fingerprint: two, Reason: "lost"}}
	if !slices.Equal(d.Revocations, want) {
		t.Errorf("revocations %+v", d.Revocations)
	}
	_, stderr := e.unchanged("p.json", exitInvalid, "policy", "revoke", "@p.json", "--fingerprint", two, "--reason", "again")
	if !strings.Contains(stderr, "/revocations/2/fingerprint: fingerprint "+two+" is already revoked by /revocations/1 (uniqueFingerprint)") {
		t.Errorf("stderr %q", stderr)
	}
	_, stderr = e.unchanged("p.json", exitInvalid, "policy", "revoke", "@p.json", "--fingerprint", strings.ToUpper(two), "--reason", "x")
	if !strings.Contains(stderr, "is not a key fingerprint (64 lowercase hex digits: the SHA-256 of the SPKI DER) (fingerprint)") {
		t.Errorf("stderr %q", stderr)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--fingerprint", two, "--key", "@two.pub", "--reason", "x"}, "--fingerprint and --key exclude each other"},
		{[]string{"--reason", "x"}, "one of --fingerprint or --key is required"},
		{[]string{"--fingerprint", two}, "--reason is required"},
		{[]string{"--fingerprint", two, "--reason", "x", "--revoked-at", "yesterday"}, `--revoked-at "yesterday" is not an RFC 3339 date-time`},
	} {
		_, stderr := e.unchanged("p.json", exitInput, append([]string{"policy", "revoke", "@p.json"}, tt.args...)...)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: stderr %q, want %q", tt.args, stderr, tt.want)
		}
	}
}

func TestPolicyCheck(t *testing.T) {
	e := newPolicyEnv(t)
	e.init("good.json")
	e.run(0, "policy", "add-signer", "@good.json", "--name", "signer-one", "--identity", attesttest.IdentityOne, "--key", "@one.pub")
	stdout, _ := e.run(0, "policy", "check", "@good.json")
	if want := e.path("good.json") + `: VALID mcpres.trust-policy/v1 "mcp-res/test-policy" version 2: 1 signer(s), 0 revocation(s), no witnesses rule` + "\n"; stdout != want {
		t.Errorf("stdout %q", stdout)
	}
	// A hand-edited policy with several problems: all of them, exit 1.
	bad := strings.Replace(e.read("good.json"), `"revocations": []`, `"revocations": [{"fingerprint": "zz", "reason": "r"}], "witnesses": {"quorum": 2, "members": ["signer-one", "nobody"], "distinctIdentities": true}, "extra": 1`, 1)
	e.write("bad.json", bad)
	stdout, _ = e.run(exitInvalid, "policy", "check", "@bad.json")
	want := []string{
		e.path("bad.json") + ": INVALID: 4 problem(s)",
		`  (root): must not have additional property "extra" (additionalProperties)`,
		`  /revocations/0/fingerprint: "zz" is not a key fingerprint (64 lowercase hex digits: the SHA-256 of the SPKI DER) (fingerprint)`,
		`  /witnesses/members/0: signer "signer-one" (/signers/0) does not have the witness role (member)`,
		`  /witnesses/members/1: "nobody" is not the name of a signer of this policy (member)`,
	}
	if got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, strings.Join(want, "\n"))
	}
	// JSON: one versioned object per file.
	stdout, _ = e.run(exitInvalid, "policy", "check", "--format", "json", "@good.json", "@bad.json")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout %q", stdout)
	}
	for i, wantValid := range []bool{true, false} {
		v, err := canonjson.Parse([]byte(lines[i]))
		if err != nil {
			t.Fatal(err)
		}
		if v.Get("schemaVersion").Str != "mcpres.trust-policy-check/v1" || v.Get("valid").Bool != wantValid || !v.Get("file").Is(canonjson.String) {
			t.Errorf("line %d: %s", i, lines[i])
		}
		if n := len(v.Get("problems").Items); (n == 0) != wantValid {
			t.Errorf("line %d: %d problems", i, n)
		}
	}
	if p := policyParse(t, lines[1]).Get("problems").Items[0]; p.Get("instancePath").Str != "" || p.Get("keyword").Str != "additionalProperties" {
		t.Errorf("first problem %s", lines[1])
	}
	// Unreadable input: exit 2, and the worst exit code wins.
	e.write("dup.json", `{"id": 1, "id": 2}`)
	stdout, _ = e.run(exitInput, "policy", "check", "@good.json", "@dup.json", "@bad.json")
	if !strings.Contains(stdout, e.path("dup.json")+": INPUT INVALID MCP_RES_INPUT_INVALID") || strings.Count(stdout, "\n") != 7 {
		t.Errorf("stdout %q", stdout)
	}
	e.run(exitInput, "policy", "check", "@missing.json")
	e.run(exitInput, "policy", "check", "--format", "yaml", "@good.json")
}

func TestPolicyExport(t *testing.T) {
	e := newPolicyEnv(t)
	e.init("p.json")
	e.run(0, "policy", "add-signer", "@p.json", "--name", "signer-one", "--identity", attesttest.IdentityOne, "--key", "@one.pub", "--role", "signer,witness")
	e.run(0, "policy", "add-witness", "@p.json", "--name", "signer-two", "--identity", attesttest.IdentityTwo, "--key", "@two.pub")
	// Witness-only key: refused, nothing written.
	_, stderr := e.run(exitInvalid, "policy", "export", "@p.json", "--format", "mcp-res-0.2.0", "-o", "@up.json")
	wantLoss := `  - /signers/1 ("signer-two"): roles [witness] are lost: upstream trusts every listed key as a primary signer`
	if !strings.Contains(stderr, "would weaken it; nothing written (use --accept-loss to write it anyway):") || !strings.Contains(stderr, wantLoss) ||
		!strings.Contains(stderr, `  - /signers/0 ("signer-one"): not a witness member, but upstream counts every trusted key as a witness`) {
		t.Errorf("stderr %q", stderr)
	}
	if _, err := os.Stat(e.path("up.json")); err == nil {
		t.Fatal("up.json written despite the loss")
	}
	// --accept-loss writes and repeats the list on stderr.
	stdout, stderr := e.run(0, "policy", "export", "@p.json", "--format", "mcp-res-0.2.0", "-o", "@up.json", "--accept-loss")
	if !strings.Contains(stderr, "mcpres: warning: "+e.path("up.json")+" is weaker than") || !strings.Contains(stderr, wantLoss) {
		t.Errorf("stderr %q", stderr)
	}
	if !strings.Contains(stdout, `mcp-res.trust-policy/0.2.0 "mcp-res/test-policy" version 3.0.0, 2 trusted signer(s), 0 revoked key(s)`) {
		t.Errorf("stdout %q", stdout)
	}
	// Make it exact: both keys sign and witness; quorum 1, identities may repeat.
	d := e.policy("p.json")
	d.Signers[1].Roles = []string{"signer", "witness"}
	d.Witnesses.Members = []string{"signer-one", "signer-two"}
	d.Witnesses.DistinctIdentities = false
	e.write("p.json", policyPretty(t, d.Value()))
	stdout, stderr = e.run(0, "policy", "export", "@p.json", "--format", "mcp-res-0.2.0", "-o", "@exact.json")
	if stderr != "" {
		t.Errorf("stderr %q", stderr)
	}
	// An exact export prints its summary only, and no loss.
	if want := e.path("exact.json") + `: mcp-res.trust-policy/0.2.0 "mcp-res/test-policy" version 3.0.0, 2 trusted signer(s), 0 revoked key(s)` + "\n"; stdout != want {
		t.Errorf("stdout %q\nwant %q", stdout, want)
	}
	_, up, err := canonjson.ReadFile(e.path("exact.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := attesttest.Policy(attesttest.PolicyOptions{})
	want.Set("version", canonjson.NewString("3.0.0"))
	if !canonjson.Equal(up, want) {
		t.Errorf("export:\n%s\nwant the corpus test policy", e.read("exact.json"))
	}
	// The export verifies the corpus exactly like the upstream test policy.
	stdout, _ = e.run(0, "attest", "verify", "--policy", "@exact.json", "--evaluated-at", attesttest.EvaluatedAt, filepath.Join("..", "..", "testdata", "attestation", "witnessed.json"))
	if !strings.Contains(stdout, `"authenticityClassification":"WITNESSED"`) {
		t.Errorf("stdout %s", stdout)
	}
	// Output conventions.
	_, stderr = e.unchanged("exact.json", exitInput, "policy", "export", "@p.json", "--format", "mcp-res-0.2.0", "-o", "@exact.json")
	if !strings.Contains(stderr, "use --force to replace it") {
		t.Errorf("stderr %q", stderr)
	}
	e.run(0, "policy", "export", "@p.json", "--format", "mcp-res-0.2.0", "-o", "@exact.json", "--force")
	_, stderr = e.unchanged("p.json", exitInput, "policy", "export", "@p.json", "--format", "mcp-res-0.2.0", "-o", "@p.json", "--force")
	if !strings.Contains(stderr, "it is an input of this command") {
		t.Errorf("stderr %q", stderr)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "@x.json"}, `--format must be mcp-res-0.2.0, not ""`},
		{[]string{"--format", "json", "-o", "@x.json"}, `--format must be mcp-res-0.2.0, not "json"`},
		{[]string{"--format", "mcp-res-0.2.0"}, "-o/--output is required"},
	} {
		_, stderr := e.run(exitInput, append([]string{"policy", "export", "@p.json"}, tt.args...)...)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: stderr %q, want %q", tt.args, stderr, tt.want)
		}
	}
	e.noTempFiles()
}

// TestPolicyVerifyV1: attest verify reads v1 policies (the loader is
// registered in attest.go).
func TestPolicyVerifyV1(t *testing.T) {
	e := newPolicyEnv(t)
	witnessed := filepath.Join("..", "..", "testdata", "attestation", "witnessed.json")
	// Two signers and no witnesses rule: WITNESSED is not derivable.
	e.init("p.json")
	e.run(0, "policy", "add-signer", "@p.json", "--name", "signer-one", "--identity", attesttest.IdentityOne, "--key", "@one.pub")
	e.run(0, "policy", "add-signer", "@p.json", "--name", "signer-two", "--identity", attesttest.IdentityTwo, "--key", "@two.pub")
	stdout, _ := e.run(exitInvalid, "attest", "verify", "--policy", "@p.json", "--evaluated-at", attesttest.EvaluatedAt, witnessed)
	if !strings.Contains(stdout, "MCP_RES_AUTHENTICITY_CLASSIFICATION_OVERCLAIM") || !strings.Contains(stdout, `"policyVersion":"3"`) ||
		!strings.Contains(stdout, "witnesses: the policy has no witnesses rule, so WITNESSED is not derivable") {
		t.Errorf("stdout %s", stdout)
	}
	// signer-two as a witness: WITNESSED.
	e.init("w.json")
	e.run(0, "policy", "add-signer", "@w.json", "--name", "signer-one", "--identity", attesttest.IdentityOne, "--key", "@one.pub")
	e.run(0, "policy", "add-witness", "@w.json", "--name", "signer-two", "--identity", attesttest.IdentityTwo, "--key", "@two.pub")
	stdout, _ = e.run(0, "attest", "verify", "--policy", "@w.json", "--evaluated-at", attesttest.EvaluatedAt, witnessed)
	if !strings.Contains(stdout, `"authenticityClassification":"WITNESSED"`) ||
		!strings.Contains(stdout, "witnesses: 1 of 1 required, counted by key fingerprint with distinct identities; counted: signer-two") {
		t.Errorf("stdout %s", stdout)
	}
	// A v1 policy that does not load fails at G6 with its problems as schema errors.
	e.write("bad.json", strings.Replace(e.read("w.json"), `"quorum": 1`, `"quorum": 5`, 1))
	stdout, _ = e.run(exitInvalid, "attest", "verify", "--policy", "@bad.json", "--evaluated-at", attesttest.EvaluatedAt, witnessed)
	if !strings.Contains(stdout, `"MCP_RES_ATTESTATION_SCHEMA_INVALID"`) || !strings.Contains(stdout, `"instancePath":"/witnesses/quorum","keyword":"quorum"`) {
		t.Errorf("stdout %s", stdout)
	}
}

// ---- helpers ----

// policyTestKeyThree is the RFC 8032 §7.1 TEST 3 key (test-only: its private
// key is published in the RFC).
func policyTestKeyThree() ed25519.PrivateKey {
	seed := []byte{0xc5, 0xaa, 0x8d, 0xf4, 0x3f, 0x9f, 0x83, 0x7b, 0xed, 0xb7, 0x44, 0x2f, 0x31, 0xdc, 0xb7, 0xb1,
		0x66, 0xd3, 0x85, 0x35, 0x07, 0x6f, 0x09, 0x4b, 0x85, 0xce, 0x3a, 0x2e, 0x0b, 0x44, 0x58, 0xf7}
	return ed25519.NewKeyFromSeed(seed)
}

func policyPubPEM(t *testing.T, priv ed25519.PrivateKey) []byte {
	t.Helper()
	b, err := keyfile.MarshalPublicKeyPEM(priv.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func policyPrivPEM(t *testing.T) []byte {
	t.Helper()
	b, err := keyfile.MarshalPrivateKeyPEM(policyTestKeyThree())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func policyPretty(t *testing.T, v *canonjson.Value) string {
	t.Helper()
	b, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func policyParse(t *testing.T, s string) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// ---- the walkthroughs of docs/trust-policy.md ----

var (
	docFingerprintRE = regexp.MustCompile(`[0-9a-f]{64}`)
	docExitRE        = regexp.MustCompile(`\s+#\s*exit\s+(\d+)\s*$`)
)

// A docStep is one "$ mcpres ..." command of a docWalkthrough, with the output
// lines the document shows for it.
type docStep struct {
	line   int
	args   []string
	code   int
	output []string
}

// docWalkthrough returns the commands of the section "## Walkthrough: title".
func docWalkthrough(t *testing.T, doc, title string) []docStep {
	t.Helper()
	start := strings.Index(doc, "\n## Walkthrough: "+title+"\n")
	if start < 0 {
		t.Fatalf("docs/trust-policy.md has no section %q", "Walkthrough: "+title)
	}
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	firstLine := strings.Count(doc[:start+1], "\n") + 1
	var steps []docStep
	inBlock := false
	lines := strings.Split(section, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```"):
			inBlock = !inBlock && strings.TrimPrefix(l, "```") == "sh"
		case !inBlock:
		case strings.HasPrefix(l, "$ "):
			cmd, at := strings.TrimPrefix(l, "$ "), i
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
			}
			step := docStep{line: firstLine + at}
			if m := docExitRE.FindStringSubmatch(cmd); m != nil {
				step.code, _ = strconv.Atoi(m[1])
				cmd = cmd[:len(cmd)-len(m[0])]
			}
			step.args = docShellWords(t, cmd)
			if len(step.args) == 0 || step.args[0] != "mcpres" {
				t.Fatalf("docs line %d: not an mcpres command: %q", step.line, cmd)
			}
			step.args = step.args[1:]
			steps = append(steps, step)
		case len(steps) > 0 && strings.TrimSpace(l) != "":
			steps[len(steps)-1].output = append(steps[len(steps)-1].output, l)
		}
	}
	return steps
}

// docShellWords splits a command line as sh would for the simple quoting the
// docs use (single and double quotes, no expansions).
func docShellWords(t *testing.T, s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("$`*?;&|<>(){}~", r):
			t.Fatalf("docs command uses shell syntax %q the test does not run: %s", r, s)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unterminated quote in %s", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func docNormalize(s string) string {
	return strings.TrimRight(docFingerprintRE.ReplaceAllString(s, "<fingerprint>"), " ")
}

// TestDocsWalkthroughs runs the command sequences of docs/trust-policy.md
// in a temporary directory holding bundle.json, checks each exit code
// ("# exit N" comments; 0 otherwise), and checks that every output line
// the document shows is printed (fingerprints, which change on every run,
// are compared as placeholders).
func TestDocsWalkthroughs(t *testing.T) {
	docBytes, err := os.ReadFile(filepath.Join("..", "..", "docs", "trust-policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := os.ReadFile(filepath.Join("..", "..", "testdata", "bundles", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"Rotate a signing key", "Revoke a compromised key"} {
		t.Run(title, func(t *testing.T) {
			steps := docWalkthrough(t, string(docBytes), title)
			if len(steps) < 8 {
				t.Fatalf("only %d commands found", len(steps))
			}
			t.Chdir(t.TempDir())
			if err := os.WriteFile("bundle.json", bundle, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, s := range steps {
				stdout, stderr, code := runCLI(t, s.args...)
				if code != s.code {
					t.Fatalf("docs line %d: mcpres %s: exit %d, want %d\nstdout: %s\nstderr: %s", s.line, strings.Join(s.args, " "), code, s.code, stdout, stderr)
				}
				var got []string
				sc := bufio.NewScanner(strings.NewReader(stdout + stderr))
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					got = append(got, docNormalize(sc.Text()))
				}
				for _, want := range s.output {
					if !slices.Contains(got, docNormalize(want)) {
						t.Errorf("docs line %d: mcpres %s: output lacks\n  %s\ngot:\n  %s", s.line, strings.Join(s.args, " "), want, strings.Join(got, "\n  "))
					}
				}
			}
		})
	}
}

// --subject scopes a signer or a witness; policy check lists the scopes;
// a pattern that could match more than meant is a usage error and the
// file is unchanged; export refuses to drop a scope.
func TestPolicySubjects(t *testing.T) {
	e := newPolicyEnv(t)
	e.init("p.json")
	stdout, _ := e.run(0, "policy", "add-signer", "@p.json", "--name", "release-a", "--identity", attesttest.IdentityOne, "--key", "@one.pub",
		"--subject", "io.github.acme/server-*", "--subject", "ledger-notes-server")
	if want := `added signer "release-a" (roles signer, key ` + attesttest.KeyID(attesttest.TestOnlyKeyOne()) + ", subjects io.github.acme/server-*, ledger-notes-server)"; !strings.Contains(stdout, want) {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	stdout, _ = e.run(0, "policy", "add-witness", "@p.json", "--name", "witness-a", "--identity", attesttest.IdentityTwo, "--key", "@two.pub", "--subject", "io.github.acme/*")
	if !strings.Contains(stdout, ", subjects io.github.acme/*); quorum 1 of 1 members") {
		t.Errorf("stdout %q", stdout)
	}
	d := e.policy("p.json")
	if !slices.Equal(d.Signers[0].Subjects, []string{"io.github.acme/server-*", "ledger-notes-server"}) || !slices.Equal(d.Signers[1].Subjects, []string{"io.github.acme/*"}) {
		t.Fatalf("signers %+v", d.Signers)
	}
	// An edit keeps the scopes.
	e.write("three.pub", string(policyPubPEM(t, policyTestKeyThree())))
	e.run(0, "policy", "add-signer", "@p.json", "--name", "other", "--identity", "https://example.org/other", "--key", "@three.pub")
	if d := e.policy("p.json"); len(d.Signers[0].Subjects) != 2 || d.Signers[2].Subjects != nil {
		t.Fatalf("after an edit: %+v", d.Signers)
	}
	stdout, _ = e.run(0, "policy", "check", "@p.json")
	for _, w := range []string{`signer "release-a" is trusted only for subjects io.github.acme/server-*, ledger-notes-server`, `signer "witness-a" is trusted only for subjects io.github.acme/*`} {
		if !strings.Contains(stdout, w) {
			t.Errorf("policy check: %q lacks %q", stdout, w)
		}
	}
	if strings.Contains(stdout, `signer "other"`) {
		t.Errorf("policy check lists an unscoped signer: %q", stdout)
	}
	for _, c := range []struct{ pattern, why string }{
		{"**", `"**" is not taken`}, {"*", "no character other than"}, {"a b", "white space"}, {"*/*", "no character other than"},
	} {
		_, stderr := e.unchanged("p.json", exitInput, "policy", "add-witness", "@p.json", "--name", "w", "--identity", "i", "--key", "@three.pub", "--subject", c.pattern)
		if !strings.Contains(stderr, "--subject: subject pattern") || !strings.Contains(stderr, c.why) || !strings.Contains(stderr, usagePointer) {
			t.Errorf("--subject %q: stderr %q, want %q", c.pattern, stderr, c.why)
		}
	}
	// Export refuses to widen the scopes, naming them.
	_, stderr := e.run(exitInvalid, "policy", "export", "@p.json", "--format", "mcp-res-0.2.0", "-o", "@up.json")
	if !strings.Contains(stderr, `/signers/0 ("release-a"): subjects [io.github.acme/server-*, ledger-notes-server] are lost`) ||
		!strings.Contains(stderr, `/signers/1 ("witness-a"): subjects [io.github.acme/*] are lost`) {
		t.Errorf("export: %q", stderr)
	}
	if _, err := os.Stat(e.path("up.json")); err == nil {
		t.Error("export wrote a policy that drops the scopes")
	}
}
