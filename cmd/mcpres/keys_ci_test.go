package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/keyfile"
)

// Keys for CI: --key env:NAME and file:PATH; the key never appears in
// output or errors, and nothing but the output file is written.
func TestCLISignKeyFromEnvAndFile(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join("..", "..", "testdata", "bundles", "example.json")
	plain, err := keyfile.MarshalPrivateKeyPEM(attesttest.TestOnlyKeyOne())
	if err != nil {
		t.Fatal(err)
	}
	enc, err := keyfile.MarshalEncryptedPrivateKeyPEM(attesttest.TestOnlyKeyOne(), []byte("ci-passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "one.key")
	os.WriteFile(keyFile, plain, 0o600)
	secretLines := strings.Split(strings.TrimSpace(string(plain)), "\n")[1:2]

	sign := func(key, out string) (string, string, int) {
		return runCLI(t, "attest", "sign", bundle, "--key", key, "--identity", attesttest.IdentityOne,
			"--policy-id", attesttest.TrustPolicyID, "--signing-time", attesttest.SigningTime, "-o", filepath.Join(dir, out))
	}
	t.Setenv("MCPRES_TEST_SIGNING_KEY", string(plain))
	t.Setenv("MCPRES_TEST_ENCRYPTED_KEY", string(enc))
	t.Setenv("MCPRES_TEST_EMPTY", "")

	for _, tt := range []struct{ name, key, out string }{
		{"env", "env:MCPRES_TEST_SIGNING_KEY", "env.json"},
		{"file prefix", "file:" + keyFile, "file.json"},
		{"plain path", keyFile, "path.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := sign(tt.key, tt.out)
			if code != 0 {
				t.Fatalf("exit %d: %s %s", code, stdout, stderr)
			}
			if strings.Contains(stdout+stderr, secretLines[0]) {
				t.Error("the private key appears in the output")
			}
			vout, _, vcode := runCLI(t, "attest", "verify", filepath.Join(dir, tt.out))
			if vcode != 0 || !strings.Contains(vout, `"authenticityClassification":"SIGNED"`) {
				t.Errorf("signed output does not verify: %s", vout)
			}
		})
	}
	t.Run("encrypted env key with MCPRES_PASSWORD", func(t *testing.T) {
		t.Setenv("MCPRES_PASSWORD", "ci-passphrase")
		if stdout, stderr, code := sign("env:MCPRES_TEST_ENCRYPTED_KEY", "enc.json"); code != 0 {
			t.Fatalf("exit %d: %s %s", code, stdout, stderr)
		}
		t.Setenv("MCPRES_PASSWORD", "wrong")
		stdout, stderr, code := sign("env:MCPRES_TEST_ENCRYPTED_KEY", "enc-wrong.json")
		if code == 0 || !strings.Contains(stderr, "$MCPRES_TEST_ENCRYPTED_KEY") || strings.Contains(stdout+stderr, "wrong") && strings.Contains(stdout+stderr, "ci-passphrase") {
			t.Errorf("wrong passphrase: exit %d, %q", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "enc-wrong.json")); err == nil {
			t.Error("output written despite the failure")
		}
	})
	for _, tt := range []struct{ name, key, want string }{
		{"unset variable", "env:MCPRES_TEST_NOT_SET", "environment variable MCPRES_TEST_NOT_SET is not set or empty"},
		{"empty variable", "env:MCPRES_TEST_EMPTY", "environment variable MCPRES_TEST_EMPTY is not set or empty"},
		{"no name", "env:", "needs a variable name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := sign(tt.key, "never.json")
			if code != exitInput || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, stderr, tt.want)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") && e.Name() != "one.key" {
			t.Errorf("unexpected file %s left behind", e.Name())
		}
	}
}
