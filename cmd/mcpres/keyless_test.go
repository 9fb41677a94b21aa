package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// attest sign --keyless runs mcpres-sigstore with the flags given: a
// stand-in records its arguments.
func TestAttestSignKeylessDelegates(t *testing.T) {
	dir := t.TempDir()
	b := exampleBundleFile(t, dir)
	args := filepath.Join(dir, "args.txt")
	stub := writeTestFile(t, dir, "mcpres-sigstore", []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+args+"\nexit 0\n"), 0o755)
	t.Setenv(sigstoreBinaryEnv, stub)
	out := filepath.Join(dir, "out.json")
	if _, stderr, code := runCLI(t, "attest", "sign", b, "--keyless", "--fulcio", "http://127.0.0.1:9", "--identity-token", "env:TOK", "--policy-id", "p", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{"attest", "sign", "--fulcio=http://127.0.0.1:9", "--identity-token=env:TOK", "--keyless=true", "--output=" + out, "--policy-id=p", "--", b}, "\n") + "\n"
	if string(got) != want {
		t.Errorf("mcpres-sigstore arguments:\n%s\nwant\n%s", got, want)
	}
	// Its failure is ours.
	writeTestFile(t, dir, "mcpres-sigstore", []byte("#!/bin/sh\necho 'mcpres-sigstore: error: refused' >&2\nexit 1\n"), 0o755)
	if _, stderr, code := runCLI(t, "attest", "sign", b, "--keyless", "--policy-id", "p", "-o", out); code != 1 || !strings.Contains(stderr, "refused") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestAttestSignKeylessFlags(t *testing.T) {
	dir := t.TempDir()
	b := exampleBundleFile(t, dir)
	t.Setenv(sigstoreBinaryEnv, filepath.Join(dir, "never-run"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--keyless", "--key", "k.key"}, "--keyless and --key exclude each other"},
		{[]string{"--keyless", "--signing-time", "2026-01-01T00:00:00Z"}, "--keyless and --signing-time exclude each other"},
		{[]string{"--key", "k.key", "--identity", "i", "--fulcio", "https://f"}, "--fulcio goes with --keyless"},
	} {
		args := append([]string{"attest", "sign", b, "--policy-id", "p", "-o", filepath.Join(dir, "o.json")}, tc.args...)
		_, stderr, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, stderr)
		}
	}
}

// attest verify with a keyless flag runs mcpres-sigstore's attest verify
// with the same flags and FILE arguments; without one it does not (the
// control), and the keyless usage rules are applied before anything runs.
func TestAttestVerifyKeylessDelegates(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args.txt")
	stub := writeTestFile(t, dir, "mcpres-sigstore", []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+args+"\nexit 0\n"), 0o755)
	t.Setenv(sigstoreBinaryEnv, stub)
	if _, stderr, code := runCLI(t, "attest", "verify", "a.json", "--trusted-root", "tr.json", "--certificate-identity", "release@example.org",
		"--certificate-oidc-issuer", "https://issuer.example", "--subject-name", "n"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{"attest", "verify", "--certificate-identity=release@example.org", "--certificate-oidc-issuer=https://issuer.example",
		"--subject-name=n", "--trusted-root=tr.json", "--", "a.json"}, "\n") + "\n"
	if string(got) != want {
		t.Errorf("mcpres-sigstore arguments:\n%s\nwant\n%s", got, want)
	}
	os.Remove(args)
	// --oci with a keyless flag goes to mcpres-sigstore too (it has the
	// registry client and sigstore-go), not to mcpres-oci.
	t.Setenv(ociBinaryEnv, filepath.Join(dir, "never-run"))
	if _, stderr, code := runCLI(t, "attest", "verify", "--oci", "127.0.0.1:5000/mcp/x:1", "--policy", "p.json", "--trusted-root", "tr.json", "--subject-name", "n"); code != 0 {
		t.Fatalf("--oci: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(args); !strings.Contains(string(got), "--oci=127.0.0.1:5000/mcp/x:1\n") || !strings.HasPrefix(string(got), "attest\nverify\n") {
		t.Errorf("--oci forwarded as:\n%s", got)
	}
	os.Remove(args)
	// Control: no keyless flag, nothing forwarded.
	runCLI(t, "attest", "verify", filepath.Join(dir, "missing.json"), "--key", filepath.Join(dir, "missing.pub"), "--identity", "i")
	if _, err := os.Stat(args); err == nil {
		t.Error("attest verify without a keyless flag ran mcpres-sigstore")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--certificate-identity", "i", "--certificate-oidc-issuer", "https://x"}, "go with --trusted-root"},
		{[]string{"--trusted-root", "tr.json"}, "--trusted-root goes with --policy"},
		{[]string{"--trusted-root", "tr.json", "--certificate-identity", "i"}, "--certificate-oidc-issuer is required"},
		{[]string{"--trusted-root", "tr.json", "--certificate-identity", "i", "--certificate-identity-regexp", "^i$", "--certificate-oidc-issuer", "https://x"}, "give one of"},
		{[]string{"--trusted-root", "tr.json", "--policy", "p.json", "--certificate-identity", "i", "--certificate-oidc-issuer", "https://x"}, "can't be used with --policy"},
		{[]string{"--trusted-root", "tr.json", "--policy", "p.json", "--sigstore-bundle", "s.json", "b.json"}, "--sigstore-bundle goes with one FILE"},
	} {
		_, stderr, code := runCLI(t, append([]string{"attest", "verify", "a.json"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, stderr)
		}
		if _, err := os.Stat(args); err == nil {
			t.Errorf("%v: mcpres-sigstore ran", tc.args)
		}
	}
}
