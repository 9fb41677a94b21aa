package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/rekor/rekorfake"
	flog "github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/formats/proof"
	mproof "github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
)

// Fixed key seeds for the log commands' tests: test keys only.
var (
	testOnlyLogKeySeed      = bytes.Repeat([]byte{0x71}, 32)
	testOnlyOtherLogKeySeed = bytes.Repeat([]byte{0x72}, 32)
	testOnlyWitnessOneSeed  = bytes.Repeat([]byte{0x73}, 32)
	testOnlyWitnessTwoSeed  = bytes.Repeat([]byte{0x74}, 32)
)

const testLogOrigin = "example.org/mcpres-cli-test-log"

// logCommandsRegistered reports whether main.go registers `log` and
// `witness`.
func logCommandsRegistered() bool {
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	n := 0
	for _, c := range a.rootCommand().Commands() {
		if c.Name() == "log" || c.Name() == "witness" {
			n++
		}
	}
	return n == 2
}

// TestLogCommandsRegistered fails with a clear message until main.go
// registers the log and witness commands. The other tests of this file run
// either way (runLogCLI).
func TestLogCommandsRegistered(t *testing.T) {
	if !logCommandsRegistered() {
		t.Fatal("`mcpres log` and `mcpres witness` are not registered: add a.logCommand() and a.witnessCommand() to root.AddCommand in rootCommand (main.go)")
	}
	if _, _, code := runCLI(t, "log", "--help"); code != 0 {
		t.Fatalf("`mcpres log --help`: exit %d", code)
	}
}

// runLogCLI is runCLI for the log and witness commands (registered:
// TestLogCommandsRegistered).
func runLogCLI(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLI(t, args...)
}

// logEnv is a temporary directory with test keys: the log key, another
// log key with the same origin, and two witness keys.
type logEnv struct {
	t   *testing.T
	dir string
}

func newLogEnv(t *testing.T) *logEnv {
	e := &logEnv{t: t, dir: t.TempDir()}
	e.writeKey("log", signednote.TypeEd25519, testLogOrigin, testOnlyLogKeySeed)
	e.writeKey("other-log", signednote.TypeEd25519, testLogOrigin, testOnlyOtherLogKeySeed)
	e.writeKey("w1", signednote.TypeCosignatureV1, "example.org/witness-1", testOnlyWitnessOneSeed)
	e.writeKey("w2", signednote.TypeCosignatureV1, "example.org/witness-2", testOnlyWitnessTwoSeed)
	return e
}

func (e *logEnv) p(name string) string { return filepath.Join(e.dir, name) }

func (e *logEnv) writeKey(name string, typ byte, keyName string, seed []byte) {
	skey, vkey, err := signednote.GenerateKey(bytes.NewReader(seed), typ, keyName)
	if err != nil {
		e.t.Fatal(err)
	}
	writeTestFile(e.t, e.dir, name+".key", []byte(skey+"\n"), 0o600)
	writeTestFile(e.t, e.dir, name+".vkey", []byte(vkey+"\n"), 0o644)
}

func (e *logEnv) vkey(name string) string {
	data, err := os.ReadFile(e.p(name + ".vkey"))
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// run runs a command line that must succeed.
func (e *logEnv) run(args ...string) (string, string) {
	e.t.Helper()
	stdout, stderr, code := runLogCLI(e.t, args...)
	if code != 0 {
		e.t.Fatalf("mcpres %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout, stderr
}

// fail runs a command line that must fail with code and a message on
// stderr containing want; it returns stderr.
func (e *logEnv) fail(code int, want string, args ...string) string {
	e.t.Helper()
	stdout, stderr, got := runLogCLI(e.t, args...)
	if got != code || !strings.Contains(stderr, want) {
		e.t.Fatalf("mcpres %s: exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stderr to contain %q", strings.Join(args, " "), got, code, stdout, stderr, want)
	}
	return stderr
}

func (e *logEnv) initLog(name string) string {
	e.t.Helper()
	dir := e.p(name)
	stdout, stderr := e.run("log", "init", "--dir", dir, "--key", e.p("log.key"), "--origin", testLogOrigin)
	if strings.TrimSpace(stdout) != e.vkey("log") || withoutWrote(stderr) != "" {
		e.t.Fatalf("log init: stdout %q (want the vkey), stderr %q (want nothing: Tessera is quiet)", stdout, stderr)
	}
	return dir
}

// variantBundleFile writes the example bundle re-sealed with another run
// environment.
func variantBundleFile(t testing.TB, dir string) string {
	return osVariantBundleFile(t, dir, "freebsd")
}

// osVariantBundleFile writes the example bundle run on another os: a
// different, valid bundle for each os.
func osVariantBundleFile(t testing.TB, dir, os string) string {
	t.Helper()
	v := bundletest.Example(t)
	v.Path("evidence", "run", "environment").Get("os").Str = os
	if err := bundle.SealFrom(v, bundle.StageEvidence); err != nil {
		t.Fatal(err)
	}
	name := "variant.json"
	if os != "freebsd" {
		name = "variant-" + os + ".json"
	}
	return writePretty(t, dir, name, v)
}

// checkReference verifies a reference file independently of tlog: its
// digest, then its proof with formats and merkle, and that the entry binds
// the bundle. It returns the checkpoint note opened with the log key and
// the witness keys given.
func checkReference(t testing.TB, refPath, bundlePath, logVKey string, index, size uint64, witnessVKeys ...string) *note.Note {
	t.Helper()
	ref := readJSON(t, refPath)
	var tr attest.TransparencyReference
	if err := canonjson.Unmarshal(ref, &tr); err != nil {
		t.Fatalf("reference: %v", err)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(tr.InclusionProofBase64)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	if tr.InclusionProofSha256 != hex.EncodeToString(sum[:]) || tr.LogID != testLogOrigin || tr.EntryUUID != fmt.Sprint(index) {
		t.Fatalf("reference %+v", tr)
	}
	var p proof.TLogProof
	if err := p.Unmarshal(raw); err != nil || !bytes.Equal(p.Marshal(), raw) {
		t.Fatalf("tlog-proof: %v", err)
	}
	_, b, err := canonjson.ReadFile(bundlePath)
	if err != nil {
		t.Fatal(err)
	}
	var want offline.Entry
	if b.Get("schemaVersion").Str != bundle.SchemaVersionAttestedBundle {
		want = offline.EntryFor(b)
	} else {
		// The v2 entry names the signer of each envelope.
		want = offline.EntryFor(b.Get("bundle"))
		want.SchemaVersion = offline.SchemaVersionEntrySigned
		for _, env := range b.Path("authenticity", "envelopes").Items {
			r, err := attest.Verify(attest.Wrap(b.Get("bundle"), attest.Signed, env), attest.Options{EvaluatedAt: attesttest.EvaluatedAt})
			if err != nil || len(r.Evaluation.Envelopes) != 1 {
				t.Fatalf("envelope: %v", err)
			}
			ev := r.Evaluation.Envelopes[0]
			want.Signers = append(want.Signers, offline.EntrySigner{KeyFingerprint: ev.KeyFingerprint, SignerIdentity: ev.SignerIdentity, SigningTime: ev.SigningTime})
		}
	}
	entry, _ := want.Marshal()
	if p.Index != index || !bytes.Equal(p.ExtraData, entry) {
		t.Fatalf("proof index %d, entry %s; want %d, %s", p.Index, p.ExtraData, index, entry)
	}
	lv, _ := note.NewVerifier(logVKey)
	vs := []note.Verifier{lv}
	for _, w := range witnessVKeys {
		wv, err := fnote.NewVerifierForCosignatureV1(w)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, wv)
	}
	cp, _, n, err := flog.ParseCheckpoint(p.Checkpoint, testLogOrigin, lv, vs[1:]...)
	if err != nil || cp.Size != size {
		t.Fatalf("checkpoint: %v, size %v, want %d", err, cp, size)
	}
	hashes := make([][]byte, len(p.Hashes))
	for i := range p.Hashes {
		hashes[i] = p.Hashes[i][:]
	}
	if err := mproof.VerifyInclusion(rfc6962.DefaultHasher, p.Index, cp.Size, rfc6962.DefaultHasher.HashLeaf(p.ExtraData), hashes, cp.Hash); err != nil {
		t.Fatalf("inclusion proof: %v", err)
	}
	return n
}

func checkpointSize(t testing.TB, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitN(string(data), "\n", 3)[1]
}

// TestCLILogEndToEnd: keys, a log, two bundles logged, references that
// verify and that `attest sign` accepts, two witnesses (one over HTTP)
// cosign, the cosignatures are attached, and a fresh reference carries
// both.
func TestCLILogEndToEnd(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	if data, err := os.ReadFile(filepath.Join(dir, posix.KeyFile)); err != nil || strings.TrimSpace(string(data)) != e.vkey("log") {
		t.Fatalf("recorded log key: %q, %v", data, err)
	}
	b1 := exampleBundleFile(t, e.dir)
	b2 := variantBundleFile(t, e.dir)

	_, stderr := e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("b1.ref.json"), "--proof", e.p("b1.proof"))
	if !strings.Contains(stderr, "logged as entry 0 of "+testLogOrigin+" (tree size 1)") {
		t.Errorf("log add stderr: %q", stderr)
	}
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b2, "-o", e.p("b2.ref.json"))
	checkReference(t, e.p("b1.ref.json"), b1, e.vkey("log"), 0, 1)
	checkReference(t, e.p("b2.ref.json"), b2, e.vkey("log"), 1, 2)
	ref := readJSON(t, e.p("b1.ref.json"))
	raw, _ := os.ReadFile(e.p("b1.proof"))
	if ref.Get("inclusionProofBase64").Str != base64.StdEncoding.EncodeToString(raw) {
		t.Error("--proof does not hold the reference's proof bytes")
	}

	// attest sign accepts the reference (its digest checks out).
	key := writeTestKey(t, e.dir, "one.pem", attesttest.TestOnlyKeyOne())
	e.run(signArgs(b1, key, attesttest.IdentityOne, e.p("b1.attested.json"), "--transparency", e.p("b1.ref.json"), "--claim", "TRANSPARENCY_RECORDED")...)
	// An attested bundle is logged as its bundle and the signers of its
	// envelopes (an mcpres.transparency-entry/v2): a new entry.
	_, stderr = e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), e.p("b1.attested.json"), "-o", e.p("b1a.ref.json"))
	if !strings.Contains(stderr, "logged as entry 2 of "+testLogOrigin+" (tree size 3)") {
		t.Errorf("log add stderr: %q", stderr)
	}
	checkReference(t, e.p("b1a.ref.json"), e.p("b1.attested.json"), e.vkey("log"), 2, 3)

	// Witness 1 reads the directory, witness 2 the log served over HTTP.
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	cosign := func(w, log string, extra ...string) string {
		t.Helper()
		_, stderr := e.run(append([]string{"witness", "cosign", "--log", log, "--log-key", e.p("log.vkey"), "--key", e.p(w + ".key"),
			"--state", e.p(w + ".state.json"), "-o", e.p(w + ".cosig"), "--force"}, extra...)...)
		return stderr
	}
	if s := cosign("w1", dir, "--init"); !strings.Contains(s, "at size 3 (first use)") {
		t.Errorf("cosign stderr: %q", s)
	}
	cosign("w2", srv.URL, "--init")
	for _, w := range []string{"w1", "w2"} {
		st := readJSON(t, e.p(w+".state.json"))
		if st.Get("schemaVersion").Str != "mcpres.witness-state/v1" || st.Get("logs").Items[0].Get("size").Int != 3 {
			t.Errorf("%s state: %s", w, mustCompact(st))
		}
	}
	_, stderr = e.run("log", "add-cosignature", "--dir", dir, "--witness-key", e.p("w1.vkey"), "--witness-key", e.p("w2.vkey"),
		e.p("w1.cosig"), e.p("w2.cosig"), e.p("w1.cosig"))
	if !strings.Contains(stderr, "2 cosignature(s) added, 2 witness key(s) now") || !strings.Contains(stderr, "warning: "+e.p("w1.cosig")+": dropped") {
		t.Errorf("add-cosignature stderr: %q", stderr)
	}
	stdout, _ := e.run("log", "proof", "--dir", dir, "--index", "1")
	writeTestFile(t, e.dir, "b2.fresh.ref.json", []byte(stdout), 0o644)
	n := checkReference(t, e.p("b2.fresh.ref.json"), b2, e.vkey("log"), 1, 3, e.vkey("w1"), e.vkey("w2"))
	if len(n.Sigs) != 3 {
		t.Fatalf("fresh proof's checkpoint: %d verified signatures, want the log's and two cosignatures", len(n.Sigs))
	}

	// The log grows; a witness follows with a consistency proof; a stale
	// cosignature no longer attaches (exit 1).
	b4 := osVariantBundleFile(t, e.dir, "openbsd")
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b4, "-o", e.p("b4.ref.json"))
	e.fail(exitInvalid, "does not verify against the checkpoint of", "log", "add-cosignature", "--dir", dir, "--witness-key", e.p("w1.vkey"), e.p("w1.cosig"))
	if s := cosign("w1", srv.URL); !strings.Contains(s, "at size 4 (consistent with size 3)") {
		t.Errorf("cosign stderr: %q", s)
	}
	e.run("log", "add-cosignature", "--dir", dir, "--witness-key", e.p("w1.vkey"), e.p("w1.cosig"))
	stdout, _ = e.run("log", "proof", "--dir", dir, "--index", "3", "--log-key", e.p("log.vkey"))
	writeTestFile(t, e.dir, "b4.fresh.ref.json", []byte(stdout), 0o644)
	if n := checkReference(t, e.p("b4.fresh.ref.json"), b4, e.vkey("log"), 3, 4, e.vkey("w1"), e.vkey("w2")); len(n.Sigs) != 2 {
		t.Fatalf("%d verified signatures, want 2", len(n.Sigs))
	}
}

// TestCLIWitnessRefusals: a witness refuses a log that went backwards, a
// forked log (another directory with the same key and origin) and a
// checkpoint of another key, with exit 1, and leaves its state and output
// alone.
func TestCLIWitnessRefusals(t *testing.T) {
	e := newLogEnv(t)
	good := e.initLog("good")
	b1 := exampleBundleFile(t, e.dir)
	b2 := variantBundleFile(t, e.dir)
	add := func(dir, b, key string) {
		e.run("log", "add", "--dir", dir, "--key", e.p(key), b, "-o", e.p("ref.json"), "--force")
	}
	add(good, b1, "log.key")
	add(good, b2, "log.key")
	cosign := []string{"witness", "cosign", "--log-key", e.p("log.vkey"), "--key", e.p("w1.key"), "--state", e.p("w1.state.json"), "-o", e.p("w1.cosig")}
	e.fail(exitInput, "does not exist: pass --init", append(cosign, "--log", good)...)
	e.run(append(cosign, "--log", good, "--init")...)
	os.Remove(e.p("w1.cosig"))

	behind := e.initLog("behind") // same key and origin, one entry
	add(behind, b1, "log.key")
	fork := e.initLog("fork") // same key and origin, other entries
	add(fork, b2, "log.key")
	add(fork, b1, "log.key")
	add(fork, osVariantBundleFile(t, e.dir, "netbsd"), "log.key")
	foreign := e.p("foreign")
	e.run("log", "init", "--dir", foreign, "--key", e.p("other-log.key"))

	before := snapshot(t, e.dir)
	for _, tt := range []struct{ name, dir, want string }{
		{"backwards", behind, "refused: the log went backwards: checkpoint size 1 is smaller than the size 2"},
		{"fork", fork, "refused: the log forked: \"" + testLogOrigin + "\" at size 3"},
		{"another log key", foreign, "refused: the checkpoint does not verify with the log key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			stderr := e.fail(exitInvalid, tt.want, append(cosign, "--log", tt.dir)...)
			if !strings.HasPrefix(stderr, "mcpres: error: witness: refused") {
				t.Errorf("stderr %q", stderr)
			}
			assertUnchanged(t, e.dir, before)
		})
	}
}

func TestCLILogAddRefusals(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	b1 := exampleBundleFile(t, e.dir)
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("ref.json"))

	invalid := bundletest.Example(t)
	invalid.Path("integrity").Get("bundleDigest").Str = strings.Repeat("0", 64)
	bad := writePretty(t, e.dir, "invalid.json", invalid)
	writeTestFile(t, e.dir, "broken.json", []byte("{"), 0o644)

	e.t = t
	before := snapshot(t, e.dir)
	tests := []struct {
		name string
		code int
		want string
		args []string
	}{
		{"invalid evidence", exitInvalid, "refusing to log invalid evidence", []string{"log", "add", "--dir", dir, "--key", e.p("log.key"), bad, "-o", e.p("new.json")}},
		{"unreadable bundle", exitInput, "", []string{"log", "add", "--dir", dir, "--key", e.p("log.key"), e.p("broken.json"), "-o", e.p("new.json")}},
		{"existing output", exitInput, "refusing to overwrite " + e.p("ref.json"), []string{"log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("ref.json")}},
		{"output is the input", exitInput, "it is an input of this command", []string{"log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", b1, "--force"}},
		{"another key", exitInput, "is not the key of the log in", []string{"log", "add", "--dir", dir, "--key", e.p("other-log.key"), b1, "-o", e.p("new.json")}},
		{"witness key as log key", exitInput, "this is a signed-note witness private key (NAME.key of `mcpres witness keygen`), for cosigning checkpoints: `mcpres witness cosign`/`serve --key`; --key takes a signed-note log private key", []string{"log", "add", "--dir", dir, "--key", e.p("w1.key"), b1, "-o", e.p("new.json")}},
		{"no log", exitInput, "no log there", []string{"log", "add", "--dir", e.p("nolog"), "--key", e.p("log.key"), b1, "-o", e.p("new.json")}},
		{"rekor url without key", exitInput, "--rekor-url and --rekor-key go together", []string{"log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("new.json"), "--rekor-url", "http://127.0.0.1:1"}},
		{"missing output", exitInput, "-o/--output is required", []string{"log", "add", "--dir", dir, "--key", e.p("log.key"), b1}},
		{"init in a non-empty directory", exitInput, "the directory is not empty", []string{"log", "init", "--dir", dir, "--key", e.p("log.key")}},
		{"init with another origin", exitInput, `--origin "example.org/x" is not the log key's name`, []string{"log", "init", "--dir", e.p("new"), "--key", e.p("log.key"), "--origin", "example.org/x"}},
		{"proof beyond the log", exitInput, "index not covered by the latest checkpoint: index 1, checkpoint size 1", []string{"log", "proof", "--dir", dir, "--index", "1"}},
		{"proof index not a number", exitInput, `--index "01" is not a leaf index`, []string{"log", "proof", "--dir", dir, "--index", "01"}},
		{"proof without a recorded key", exitInput, "has no recorded log key", []string{"log", "proof", "--dir", e.p("nolog"), "--index", "0"}},
		{"cosignature without witness keys", exitInput, "--witness-key is required", []string{"log", "add-cosignature", "--dir", dir, e.p("ref.json")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runLogCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d with %q", code, stderr, tt.code, tt.want)
			}
			assertUnchanged(t, e.dir, before)
		})
	}
	if got := checkpointSize(t, dir); got != "1" {
		t.Errorf("checkpoint size %s after refusals, want 1", got)
	}
}

func TestCLILogKeygen(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := runLogCLI(t, "log", "keygen", "--origin", "example.org/log", "--out-base", filepath.Join(dir, "log"))
	if code != 0 || withoutWrote(stderr) != "" {
		t.Fatalf("log keygen: exit %d, stderr %q", code, stderr)
	}
	v, err := signednote.ParseLogVerifier(strings.TrimSuffix(stdout, "\n"))
	if err != nil || v.Name() != "example.org/log" {
		t.Fatalf("printed vkey %q: %v", stdout, err)
	}
	st, err := os.Stat(filepath.Join(dir, "log.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("log.key: %v, %v", st, err)
	}
	skey, _ := os.ReadFile(filepath.Join(dir, "log.key"))
	if strings.Contains(stdout, strings.SplitN(string(skey), "+", 5)[4][:10]) {
		t.Fatal("the private key is printed")
	}
	if _, err := note.NewSigner(strings.TrimSpace(string(skey))); err != nil {
		t.Fatalf("sumdb/note rejects the log key: %v", err)
	}
	if _, _, code := runLogCLI(t, "log", "keygen", "--origin", "example.org/log", "--out-base", filepath.Join(dir, "log")); code != exitInput {
		t.Errorf("keygen over existing files: exit %d", code)
	}
	if _, stderr, code := runLogCLI(t, "log", "keygen", "--origin", "a b", "--out-base", filepath.Join(dir, "x")); code != exitInput || !strings.Contains(stderr, "is empty or contains spaces") {
		t.Errorf("keygen with a bad origin: exit %d, %q", code, stderr)
	}
	stdout, _, code = runLogCLI(t, "witness", "keygen", "--name", "example.org/w", "--out-base", filepath.Join(dir, "w"))
	if w, err := signednote.ParseWitnessVerifier(strings.TrimSuffix(stdout, "\n")); code != 0 || err != nil || w.Name() != "example.org/w" {
		t.Fatalf("witness keygen: exit %d, %q, %v", code, stdout, err)
	}
	wskey, _ := os.ReadFile(filepath.Join(dir, "w.key"))
	if _, err := fnote.NewSignerForCosignatureV1(strings.TrimSpace(string(wskey))); err != nil {
		t.Fatalf("formats rejects the witness key: %v", err)
	}
}

// Rekor uploads are delegated to mcpres-sigstore: a stand-in records its
// arguments.
func TestCLILogAddRekorDelegates(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	b1 := exampleBundleFile(t, e.dir)
	args := e.p("args.txt")
	stub := writeTestFile(t, e.dir, "mcpres-sigstore", []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+args+"\nexit 0\n"), 0o755)
	t.Setenv(sigstoreBinaryEnv, stub)
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("ref.json"), "--rekor-url", "http://127.0.0.1:9/", "--rekor-key", e.p("signer.pem"))
	got, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := canonjson.ReadFile(b1)
	entry, _ := offline.EntryFor(b).Marshal()
	sum := sha256.Sum256(entry)
	want := strings.Join([]string{"rekor", "upload", "--rekor-url=http://127.0.0.1:9/", "--key=" + e.p("signer.pem"),
		"--expect-entry-sha256=" + hex.EncodeToString(sum[:]), "--output=" + e.p("ref.json") + ".rekor.json", "--force=false", "--", b1}, "\n") + "\n"
	if string(got) != want {
		t.Errorf("mcpres-sigstore arguments:\n%s\nwant\n%s", got, want)
	}
	// Its failure is ours, after the local reference is written.
	writeTestFile(t, e.dir, "mcpres-sigstore", []byte("#!/bin/sh\necho 'mcpres-sigstore: error: rekor down' >&2\nexit 2\n"), 0o755)
	stderr := e.fail(exitInput, "rekor down", "log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("ref2.json"), "--rekor-url", "http://127.0.0.1:9/", "--rekor-key", e.p("signer.pem"))
	if !strings.Contains(stderr, "already logged as entry 0") || !fileExists(e.p("ref2.json")) {
		t.Errorf("the local reference is not written before the upload: %q", stderr)
	}
	t.Setenv(sigstoreBinaryEnv, "")
	t.Setenv("PATH", e.dir+"/nothing-here")
	e.fail(exitInput, "refusing to overwrite", "log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("ref2.json"), "--rekor-url", "x", "--rekor-key", "y")
}

// TestCLILogAddRekorEndToEnd runs `mcpres log add --rekor-url` with the real
// mcpres-sigstore against a fake Rekor on loopback.
func TestCLILogAddRekorEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpres-sigstore; skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not available to build mcpres-sigstore")
	}
	bin := filepath.Join(t.TempDir(), "mcpres-sigstore")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/mcpres/mcpres/cmd/mcpres-sigstore").CombinedOutput(); err != nil {
		t.Fatalf("building mcpres-sigstore: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "rekor", "upload", "--help").CombinedOutput(); err != nil {
		t.Skipf("mcpres-sigstore does not register the rekor command yet (see TestRekorCommandRegistered there): %v\n%s", err, out)
	}
	t.Setenv(sigstoreBinaryEnv, bin)
	srv := rekorfake.New(t)
	e := newLogEnv(t)
	dir := e.initLog("log")
	b1 := exampleBundleFile(t, e.dir)
	key := writeTestKey(t, e.dir, "one.pem", attesttest.TestOnlyKeyOne())
	_, stderr := e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("ref.json"), "--rekor-url", srv.URL, "--rekor-key", key)
	if !strings.Contains(stderr, "logged as entry 0") || !strings.Contains(stderr, "logged in Rekor") {
		t.Errorf("stderr: %s", stderr)
	}
	checkReference(t, e.p("ref.json"), b1, e.vkey("log"), 0, 1)
	rref := readJSON(t, e.p("ref.json.rekor.json"))
	if rref.Get("logId").Str != srv.Log.LogID || len(srv.Log.Bodies) != 2 {
		t.Errorf("Rekor reference %s", mustCompact(rref))
	}
	// Both references are accepted by attest sign (digest-checked).
	for _, ref := range []string{e.p("ref.json"), e.p("ref.json.rekor.json")} {
		e.run(signArgs(b1, key, attesttest.IdentityOne, e.p("attested.json"), "--transparency", ref, "--force")...)
	}
}

// Keys from the environment, for CI: env:NAME, and $MCPRES_LOG_KEY /
// $MCPRES_WITNESS_KEY when --key is not given. Messages never show them.
func TestCLILogKeysFromEnvironment(t *testing.T) {
	e := newLogEnv(t)
	logKey, _ := os.ReadFile(e.p("log.key"))
	wKey, _ := os.ReadFile(e.p("w1.key"))
	b1 := exampleBundleFile(t, e.dir)
	t.Setenv(logKeyEnv, "")
	os.Unsetenv(logKeyEnv)
	e.fail(exitInput, "--key is required (or set $MCPRES_LOG_KEY to the private key)", "log", "init", "--dir", e.p("log"))
	t.Setenv("CI_LOG_KEY", string(logKey))
	e.run("log", "init", "--dir", e.p("log"), "--key", "env:CI_LOG_KEY")
	t.Setenv(logKeyEnv, string(logKey))
	e.run("log", "add", "--dir", e.p("log"), b1, "-o", e.p("ref.json"))
	checkReference(t, e.p("ref.json"), b1, e.vkey("log"), 0, 1)
	t.Setenv(witnessKeyEnv, string(wKey))
	e.run("witness", "cosign", "--log", e.p("log"), "--log-key", e.p("log.vkey"), "--state", e.p("w.state"), "--init", "-o", e.p("w.cosig"))

	secret := strings.SplitN(strings.TrimSpace(string(logKey)), "+", 5)[4]
	t.Setenv("CI_LOG_KEY", "PRIVATE+KEY+"+testLogOrigin+"+00000000+"+secret)
	stderr := e.fail(exitInput, "log key $CI_LOG_KEY: private key", "log", "add", "--dir", e.p("log"), "--key", "env:CI_LOG_KEY", b1, "-o", e.p("ref2.json"))
	if strings.Contains(stderr, secret[:12]) {
		t.Errorf("the message shows the key: %s", stderr)
	}
	e.fail(exitInput, "environment variable NOPE_NOT_SET is not set or empty", "log", "add", "--dir", e.p("log"), "--key", "env:NOPE_NOT_SET", b1, "-o", e.p("ref2.json"))
	e.fail(exitInput, "env: needs a variable name", "log", "add", "--dir", e.p("log"), "--key", "env:", b1, "-o", e.p("ref2.json"))
}

// Tessera's klog output: nothing without --verbose (checked by every
// initLog), some with it.
func TestCLILogVerbose(t *testing.T) {
	e := newLogEnv(t)
	_, stderr := e.run("log", "init", "--verbose", "--dir", e.p("log"), "--key", e.p("log.key"))
	if !strings.Contains(stderr, "mcpres: tessera: ") {
		t.Errorf("--verbose shows no Tessera messages: %q", stderr)
	}
	// Back to quiet for the rest of the process.
	if _, stderr := e.run("log", "add", "--dir", e.p("log"), "--key", e.p("log.key"), exampleBundleFile(t, e.dir), "-o", e.p("ref.json")); strings.Contains(stderr, "tessera") {
		t.Errorf("Tessera messages without --verbose: %q", stderr)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
