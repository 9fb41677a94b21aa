package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
)

// withoutWrote drops the "mcpres: wrote …" lines of a writing command's
// stderr (TestCLIWroteLines checks them), keeping everything else.
func withoutWrote(stderr string) string {
	var keep []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(l, "mcpres: wrote ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// Writing commands say on stderr what they wrote, nothing when the
// document went to standard output, and nothing with --quiet.
func TestCLIWroteLines(t *testing.T) {
	dir := t.TempDir()
	in := exampleBundleFile(t, dir)
	one := writeTestKey(t, dir, "one.key", attesttest.TestOnlyKeyOne())
	two := writeTestKey(t, dir, "two.key", attesttest.TestOnlyKeyTwo())
	signed, cosigned := filepath.Join(dir, "signed.json"), filepath.Join(dir, "cosigned.json")

	check := func(name, stderr, want string) {
		t.Helper()
		if stderr != want {
			t.Errorf("%s: stderr %q, want %q", name, stderr, want)
		}
	}
	_, stderr, _ := runCLI(t, signArgs(in, one, attesttest.IdentityOne, signed, "--claim", "SIGNED_WITH_IDENTITY")...)
	check("attest sign", stderr, "mcpres: wrote "+signed+": 1 envelope, claim SIGNED_WITH_IDENTITY\n")
	_, stderr, _ = runCLI(t, signArgs(signed, two, attesttest.IdentityTwo, cosigned, "--claim", "WITNESSED")...)
	check("attest sign (co-sign)", stderr, "mcpres: wrote "+cosigned+": 2 envelopes, claim WITNESSED\n")
	_, stderr, _ = runCLI(t, signArgs(in, one, attesttest.IdentityOne, "-")...)
	check("attest sign -o -", stderr, "")

	sig := filepath.Join(dir, "sig.json")
	_, stderr, _ = runCLI(t, "attest", "export", "--sigstore-bundle", "1", "-o", sig, cosigned)
	check("attest export", stderr, "mcpres: wrote "+sig+": Sigstore bundle (application/vnd.dev.sigstore.bundle.v0.3+json) of envelope 1 of "+cosigned+"\n")

	key := filepath.Join(dir, "k")
	stdout, stderr, _ := runCLI(t, "key", "generate", "--out-base", key)
	fp := strings.TrimSpace(stdout)
	check("key generate", stderr, "mcpres: wrote "+key+".key: Ed25519 private key (mode 0600; keep it secret)\nmcpres: wrote "+key+".pub: public key, fingerprint "+fp+"\n")

	html := filepath.Join(dir, "r.html")
	_, stderr, _ = runCLI(t, "report", "--quiet", in, "-o", html)
	check("report --quiet", stderr, "")
}
