package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
)

// TestTransparencyEndToEnd runs issue #5's acceptance on a real Tessera
// POSIX log: seal → log add → two witnesses cosign → attest sign with the
// reference → attest verify with a v1 policy gives TRANSPARENCY_RECORDED
// (VERIFIED_OFFLINE); then each tamper fails for its own reason.
func TestTransparencyEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a Tessera log; skipped in -short mode")
	}
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	// The witnesses below cosign at the real time, and a cosignature dated
	// after the evaluation time does not count: evaluate a minute from now.
	evalAt := time.Now().UTC().Add(time.Minute).Format("2006-01-02T15:04:05.000Z")
	writeBundle := func(name string, v *canonjson.Value) string {
		b, err := canonjson.Pretty(v)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p(name), b, 0o644)
		return p(name)
	}
	example := bundletest.Example(t)
	other := bundletest.Example(t)
	other.Path("evidence", "run", "environment").Set("os", canonjson.NewString("another-os"))
	if err := bundle.SealFrom(other, bundle.StageEvidence); err != nil {
		t.Fatal(err)
	}
	exampleFile, otherFile := writeBundle("example.json", example), writeBundle("other.json", other)

	// Two logs (the second only for the other-origin tamper), two witnesses.
	runExpect(t, 0, "log", "keygen", "--origin", "example.org/e2e-log", "--out-base", p("log"))
	runExpect(t, 0, "log", "keygen", "--origin", "example.org/other-log", "--out-base", p("log-b"))
	runExpect(t, 0, "log", "init", "--dir", p("log-dir"), "--key", p("log.key"))
	runExpect(t, 0, "log", "init", "--dir", p("log-b-dir"), "--key", p("log-b.key"))
	runExpect(t, 0, "log", "add", "--dir", p("log-dir"), "--key", p("log.key"), exampleFile, "-o", p("ref-example.json"))
	runExpect(t, 0, "log", "add", "--dir", p("log-dir"), "--key", p("log.key"), otherFile, "-o", p("ref-other.json"))
	runExpect(t, 0, "log", "add", "--dir", p("log-b-dir"), "--key", p("log-b.key"), exampleFile, "-o", p("ref-b.json"))
	for _, w := range []string{"witness-a", "witness-b"} {
		runExpect(t, 0, "witness", "keygen", "--name", w, "--out-base", p(w))
		runExpect(t, 0, "witness", "cosign", "--log", p("log-dir"), "--log-key", p("log.vkey"), "--key", p(w+".key"),
			"--state", p(w+".state"), "--init", "-o", p(w+".cosig"))
	}
	runExpect(t, 0, "log", "add-cosignature", "--dir", p("log-dir"), "--witness-key", p("witness-a.vkey"), p("witness-a.cosig"))
	runExpect(t, 0, "log", "proof", "--dir", p("log-dir"), "--index", "0", "-o", p("ref-one-witness.json"))
	runExpect(t, 0, "log", "add-cosignature", "--dir", p("log-dir"), "--witness-key", p("witness-b.vkey"), p("witness-b.cosig"))
	runExpect(t, 0, "log", "proof", "--dir", p("log-dir"), "--index", "0", "-o", p("ref.json"))

	// The v1 policy: key one signs; the logs and witnesses of the transparency section.
	vkey := func(name string) string {
		b, err := os.ReadFile(p(name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	pub, _ := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	os.WriteFile(p("one.pub"), pub, 0o644)
	writeTestKey(t, dir, "one.key", attesttest.TestOnlyKeyOne())
	tlogPolicy := func(name string, logs []string, quorum string) string {
		text := ""
		for _, l := range logs {
			text += "log " + vkey(l) + "\n"
		}
		text += "witness witness-a " + vkey("witness-a.vkey") + "\nwitness witness-b " + vkey("witness-b.vkey") + "\n"
		text += "group both 2 witness-a witness-b\nquorum " + quorum + "\n"
		os.WriteFile(p(name+".txt"), []byte(text), 0o644)
		pol := p(name + ".json")
		runExpect(t, 0, "policy", "init", pol, "--id", attesttest.TrustPolicyID, "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2100-01-01T00:00:00.000Z")
		runExpect(t, 0, "policy", "add-signer", pol, "--name", "one", "--identity", attesttest.IdentityOne, "--key", p("one.pub"))
		runExpect(t, 0, "policy", "set-transparency", pol, p(name+".txt"))
		return pol
	}
	policy := tlogPolicy("policy", []string{"log.vkey", "log-b.vkey"}, "both")
	policyNoLogA := tlogPolicy("policy-no-log-a", []string{"log-b.vkey"}, "both")

	verify := func(wrapper, pol string) *canonjson.Value {
		t.Helper()
		stdout, _, _ := runCLI(t, "attest", "verify", "--policy", pol, "--evaluated-at", evalAt, wrapper)
		v, err := canonjson.Parse([]byte(stdout))
		if err != nil {
			t.Fatalf("verify output: %v\n%s", err, stdout)
		}
		return v
	}

	// The happy path, through the CLI.
	runExpect(t, 0, "attest", "sign", exampleFile, "--key", p("one.key"), "--identity", attesttest.IdentityOne,
		"--policy-id", attesttest.TrustPolicyID, "--signing-time", attesttest.SigningTime,
		"--claim", "TRANSPARENCY_RECORDED", "--transparency", p("ref.json"), "-o", p("recorded.json"))
	res := verify(p("recorded.json"), policy)
	if !res.Get("valid").Bool || res.Get("authenticityClassification").Str != "TRANSPARENCY_RECORDED" ||
		res.Path("evaluation", "envelopes").Items[0].Get("transparency").Str != "VERIFIED_OFFLINE" {
		t.Fatalf("happy path: %s", mustCompact(res))
	}
	// The report shows the same transparency facts.
	runExpect(t, 0, "report", p("recorded.json"), "--policy", policy, "--evaluated-at", evalAt, "-o", p("recorded.html"))
	if page, _ := os.ReadFile(p("recorded.html")); !bytes.Contains(page, []byte(`<dd class="big">TRANSPARENCY_RECORDED</dd>`)) ||
		!bytes.Contains(page, []byte(`<span class="lbl">Result</span>VERIFIED_OFFLINE: `)) || !bytes.Contains(page, []byte("<th>Tree size</th>")) ||
		!bytes.Contains(page, []byte("<th>Quorum</th>")) || !bytes.Contains(page, []byte("<h3>Witness cosignatures</h3>")) {
		t.Errorf("report of the transparency-recorded bundle lacks its transparency facts")
	}

	// The same attestation under an upstream 0.2.0 policy: digest only.
	res = verify(p("recorded.json"), filepath.Join(attestFixtures, "signed-with-identity.trust-policy.json"))
	if res.Get("authenticityClassification").Str != "TRANSPARENCY_RECORDED" || res.Path("evaluation", "envelopes").Items[0].Get("transparency").Str != "DIGEST_ONLY" {
		t.Errorf("0.2.0 policy: %s", mustCompact(res))
	}

	// Tampers. Each attestation is signed properly (by the library, which,
	// unlike attest sign, does not check the reference first).
	readRef := func(name string) (*attest.TransparencyReference, *offline.Proof) {
		_, v, err := canonjson.ReadFile(p(name))
		if err != nil {
			t.Fatal(err)
		}
		var ref attest.TransparencyReference
		if err := canonjson.Unmarshal(v, &ref); err != nil {
			t.Fatal(err)
		}
		raw, _ := base64.StdEncoding.DecodeString(ref.InclusionProofBase64)
		pr, err := offline.ParseProof(raw)
		if err != nil {
			t.Fatal(err)
		}
		return &ref, pr
	}
	signWith := func(name string, ref *attest.TransparencyReference) string {
		o := attesttest.Options(attesttest.IdentityOne)
		o.Transparency = ref
		env, err := attest.Sign(example, attesttest.TestOnlyKeyOne(), o)
		if err != nil {
			t.Fatal(err)
		}
		return writeBundle(name, attest.Wrap(example, attest.TransparencyRecorded, env))
	}
	reref := func(ref *attest.TransparencyReference, pr *offline.Proof) *attest.TransparencyReference {
		return attest.NewTransparencyReference(ref.LogID, ref.EntryUUID, pr.Marshal())
	}
	tampers := []struct {
		name, policy, want string
		ref                func() *attest.TransparencyReference
	}{
		{"entry for another bundle", policy, "evidenceBundleDigest", func() *attest.TransparencyReference { r, _ := readRef("ref-other.json"); return r }},
		{"flipped proof hash", policy, "inclusion proof of leaf 0", func() *attest.TransparencyReference {
			r, pr := readRef("ref.json")
			pr.Hashes[0][0] ^= 1
			return reref(r, pr)
		}},
		{"wrong leaf index", policy, "inclusion proof of leaf 1", func() *attest.TransparencyReference {
			r, pr := readRef("ref.json")
			pr.Index = 1
			r.EntryUUID = "1"
			return reref(r, pr)
		}},
		{"entryUuid not the leaf index", policy, `entryUuid is "1", the proof is for leaf index 0`, func() *attest.TransparencyReference {
			r, pr := readRef("ref.json")
			r.EntryUUID = "1"
			return reref(r, pr)
		}},
		{"checkpoint from another origin", policy, `logId is "example.org/e2e-log", the checkpoint's origin is "example.org/other-log"`, func() *attest.TransparencyReference {
			r, pr := readRef("ref.json")
			_, b := readRef("ref-b.json")
			pr.Checkpoint = b.Checkpoint
			return reref(r, pr)
		}},
		{"log key not in policy", policyNoLogA, "example.org/e2e-log", func() *attest.TransparencyReference { r, _ := readRef("ref.json"); return r }},
		{"cosignature quorum not met", policy, "cosignatures: 1 of 2 required", func() *attest.TransparencyReference { r, _ := readRef("ref-one-witness.json"); return r }},
		{"same witness key twice", policy, "counted once", func() *attest.TransparencyReference {
			r, pr := readRef("ref-one-witness.json")
			lines := strings.SplitAfter(string(pr.Checkpoint), "\n")
			for _, l := range lines {
				if strings.HasPrefix(l, "— witness-a ") {
					pr.Checkpoint = append(pr.Checkpoint, l...)
					break
				}
			}
			return reref(r, pr)
		}},
	}
	details := map[string]string{}
	for _, tt := range tampers {
		t.Run(tt.name, func(t *testing.T) {
			res := verify(signWith(strings.ReplaceAll(tt.name, " ", "-")+".json", tt.ref()), tt.policy)
			diags := res.Get("diagnostics").Items
			if res.Get("valid").Bool || len(diags) != 1 || diags[0].Str != attest.CodeTransparencyInvalid {
				t.Fatalf("got %s", mustCompact(res))
			}
			stdout, _, _ := runCLI(t, "attest", "verify", "--format", "text", "--policy", tt.policy, "--evaluated-at", evalAt, p(strings.ReplaceAll(tt.name, " ", "-")+".json"))
			first := strings.SplitN(stdout, "\n", 2)[0]
			if !strings.Contains(first, tt.want) {
				t.Errorf("detail %q does not name %q", first, tt.want)
			}
			details[tt.name] = first[strings.Index(first, ":")+1:]
		})
	}
	seen := map[string]string{}
	for name, d := range details {
		if prev, ok := seen[d]; ok {
			t.Errorf("%s and %s fail with the same message %q", name, prev, d)
		}
		seen[d] = name
	}

	// A forked log (same key and origin, the entries in another order) is
	// detected by the witness.
	runExpect(t, 0, "log", "init", "--dir", p("fork-dir"), "--key", p("log.key"))
	runExpect(t, 0, "log", "add", "--dir", p("fork-dir"), "--key", p("log.key"), otherFile, "-o", p("fork-ref-1.json"))
	runExpect(t, 0, "log", "add", "--dir", p("fork-dir"), "--key", p("log.key"), exampleFile, "-o", p("fork-ref-2.json"))
	out := runExpect(t, 1, "witness", "cosign", "--log", p("fork-dir"), "--log-key", p("log.vkey"), "--key", p("witness-a.key"),
		"--state", p("witness-a.state"), "-o", p("fork.cosig"))
	if !strings.Contains(strings.ToLower(out), "fork") {
		t.Errorf("witness on a forked log: %s", out)
	}
	if _, err := os.Stat(p("fork.cosig")); err == nil {
		t.Error("the witness wrote a cosignature for a forked log")
	}
}
