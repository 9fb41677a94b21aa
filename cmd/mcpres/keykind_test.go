package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/keyfile"
)

// Every key reader given another kind of key file — "witness" names a
// PEM co-signer key of attested bundles and a cosignature/v1 key of a
// log's checkpoints — says what the file is and which command takes it,
// naming the flag, instead of failing on its encoding ("invalid strict
// base64: length 69"). The control rows give each reader its own kind.
func TestCLIKeyReadersNameTheKind(t *testing.T) {
	e := newLogEnv(t)
	d := e.dir
	bundle := exampleBundleFile(t, d)
	keyOne := writeTestKey(t, d, "one.key", attesttest.TestOnlyKeyOne())
	pubOne := writeTestFile(t, d, "one.pub", policyPubPEM(t, attesttest.TestOnlyKeyOne()), 0o644)
	attested := filepath.Join(d, "attested.json")
	runExpect(t, exitValid, signArgs(bundle, keyOne, attesttest.IdentityOne, attested)...)
	policy := filepath.Join(d, "policy.json")
	runExpect(t, exitValid, "policy", "init", policy, "--id", attesttest.TrustPolicyID,
		"--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2099-01-01T00:00:00.000Z")
	tlogPolicy := filepath.Join(d, "tlog-policy.txt")
	logDir := e.initLog("logdir")
	files := map[keyfile.Kind]string{
		keyfile.PEMPrivateKey:      keyOne,
		keyfile.PEMPublicKey:       pubOne,
		keyfile.LogSignerKey:       e.p("log.key"),
		keyfile.WitnessSignerKey:   e.p("w1.key"),
		keyfile.LogVerifierKey:     e.p("log.vkey"),
		keyfile.WitnessVerifierKey: e.p("w1.vkey"),
	}
	for _, r := range []struct {
		name string
		want keyfile.Kind
		flag string // "" when the message says "not …"
		args []string
	}{
		{"attest sign --key", keyfile.PEMPrivateKey, "--key", signArgs(bundle, "@KEY@", attesttest.IdentityOne, filepath.Join(d, "out.json"))},
		{"attest verify --key", keyfile.PEMPublicKey, "--key", []string{"attest", "verify", attested, "--key", "@KEY@", "--identity", attesttest.IdentityOne}},
		{"key fingerprint", keyfile.PEMPublicKey, "key fingerprint", []string{"key", "fingerprint", "@KEY@"}},
		{"policy add-signer --key", keyfile.PEMPublicKey, "--key", []string{"policy", "add-signer", policy, "--name", "n", "--identity", "i", "--key", "@KEY@"}},
		{"policy add-witness --key", keyfile.PEMPublicKey, "--key", []string{"policy", "add-witness", policy, "--name", "n", "--identity", "i", "--key", "@KEY@"}},
		{"policy tlog add-log --key", keyfile.LogVerifierKey, "--key", []string{"policy", "tlog", "add-log", tlogPolicy, "--key", "@KEY@"}},
		{"policy tlog add-witness --key", keyfile.WitnessVerifierKey, "--key", []string{"policy", "tlog", "add-witness", tlogPolicy, "--name", "w", "--key", "@KEY@"}},
		{"log init --key", keyfile.LogSignerKey, "--key", []string{"log", "init", "--dir", filepath.Join(d, "new-log"), "--key", "@KEY@", "--origin", testLogOrigin}},
		{"log proof --log-key", keyfile.LogVerifierKey, "", []string{"log", "proof", "--dir", logDir, "--index", "0", "--log-key", "@KEY@"}},
		{"log add-cosignature --witness-key", keyfile.WitnessVerifierKey, "", []string{"log", "add-cosignature", "--dir", logDir, "--witness-key", "@KEY@", e.p("w1.vkey")}},
	} {
		for got, file := range files {
			if got == r.want || (r.want == keyfile.PEMPublicKey && got == keyfile.PEMPrivateKey && r.name == "key fingerprint") {
				continue // the control below
			}
			args := make([]string, len(r.args))
			for i, a := range r.args {
				args[i] = strings.ReplaceAll(a, "@KEY@", file)
			}
			stdout, stderr, code := runLogCLI(t, args...)
			want := "this is " + got.String()
			tail := "not " + r.want.String()
			if r.flag != "" {
				tail = r.flag + " takes " + r.want.String()
			}
			if r.flag == "" && (got == keyfile.PEMPrivateKey || got == keyfile.PEMPublicKey) {
				// A file that is no note key at all, given where some
				// note key is taken.
				tail = "not " + keyfile.NoteKey.String()
			}
			if code != exitInput || !strings.Contains(stderr, want) || !strings.Contains(stderr, tail) || strings.Contains(stderr, "readable by other users") {
				t.Errorf("%s given %s: exit %d\nstdout %s\nstderr %s\nwant exit 2 with %q and %q", r.name, got, code, stdout, stderr, want, tail)
			}
		}
	}
	// Controls: each reader takes its own kind (these run last: some add to
	// the policies above).
	for _, args := range [][]string{
		{"key", "fingerprint", pubOne, keyOne},
		{"policy", "tlog", "add-log", tlogPolicy, "--key", e.p("log.vkey")},
		{"policy", "tlog", "add-witness", tlogPolicy, "--name", "w", "--key", e.p("w1.vkey")},
		{"policy", "add-witness", policy, "--name", "n", "--identity", "i", "--key", pubOne},
		{"attest", "verify", attested, "--key", pubOne, "--identity", attesttest.IdentityOne},
	} {
		runExpect(t, exitValid, args...)
	}
}

// attest sign --key with a public key refuses it without first warning
// about its permissions (a public key is meant to be readable); a private
// key readable by others still gets the warning (the control).
func TestCLIAttestSignPublicKeyNoPermissionWarning(t *testing.T) {
	d := t.TempDir()
	bundle := exampleBundleFile(t, d)
	pub := writeTestFile(t, d, "release.pub", policyPubPEM(t, attesttest.TestOnlyKeyOne()), 0o644)
	_, stderr, code := runCLI(t, signArgs(bundle, pub, attesttest.IdentityOne, filepath.Join(d, "out.json"))...)
	if code != exitInput || strings.Contains(stderr, "readable by other users") || !strings.Contains(stderr, "this is a PEM public key") || !strings.Contains(stderr, "--key takes a PEM private key") {
		t.Errorf("public key: exit %d, stderr %q", code, stderr)
	}
	privPEM, err := keyfile.MarshalPrivateKeyPEM(attesttest.TestOnlyKeyOne())
	if err != nil {
		t.Fatal(err)
	}
	key := writeTestFile(t, d, "release.key", privPEM, 0o644)
	_, stderr, code = runCLI(t, signArgs(bundle, key, attesttest.IdentityOne, filepath.Join(d, "out.json"))...)
	if code != exitValid || !strings.Contains(stderr, "readable by other users") {
		t.Errorf("private key mode 0644: exit %d, stderr %q; want the warning", code, stderr)
	}
}

// key fingerprint takes several files: one line each, "FINGERPRINT  FILE",
// in order; a bad file is reported on stderr (as a public key, not as a
// private key) and the others are still printed, exit 2.
func TestCLIKeyFingerprintSeveral(t *testing.T) {
	d := t.TempDir()
	pub := writeTestFile(t, d, "a.pub", policyPubPEM(t, attesttest.TestOnlyKeyOne()), 0o644)
	key := writeTestKey(t, d, "b.key", attesttest.TestOnlyKeyTwo())
	fpOne, fpTwo := attesttest.KeyID(attesttest.TestOnlyKeyOne()), attesttest.KeyID(attesttest.TestOnlyKeyTwo())
	stdout, stderr, code := runCLI(t, "key", "fingerprint", pub, key)
	if code != exitValid || stderr != "" || stdout != fpOne+"  "+pub+"\n"+fpTwo+"  "+key+"\n" {
		t.Errorf("two keys: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// One file: the fingerprint alone, as before.
	if stdout := runExpect(t, exitValid, "key", "fingerprint", pub); stdout != fpOne+"\n" {
		t.Errorf("one key: %q", stdout)
	}
	bad := writeTestFile(t, d, "bad.pub", []byte("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n"), 0o644)
	stdout, stderr, code = runCLI(t, "key", "fingerprint", pub, bad, key)
	if code != exitInput || stdout != fpOne+"  "+pub+"\n"+fpTwo+"  "+key+"\n" || !strings.Contains(stderr, "public key "+bad+": ") || strings.Contains(stderr, "private key") {
		t.Errorf("a bad public key among good ones: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
