package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
)

// TestCLILogMonitorCheckpoint: `log monitor --checkpoint FILE` compares
// what a witness cosigned with what the log serves. The witness's copy of
// the log's own checkpoint raises nothing (exit 0); a checkpoint the log
// key signed for a forked tree, cosigned by the policy's witness, is one
// split-view alert naming the file and the witness's key, and the state
// does not move (exit 1); a checkpoint of another log key is a
// checkpoint-signature alert; one ahead of the log is a note, not an
// alert (exit 0). A transparency reference holds a checkpoint too.
func TestCLILogMonitorCheckpoint(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	fork := e.initLog("fork")
	tlogPolicy := writeTestFile(t, e.dir, "witnesses.txt", []byte("log "+e.vkey("log")+"\nwitness W1 "+e.vkey("w1")+"\nquorum W1\n"), 0o644)
	// cosign has w1 cosign the log in logDir (its own state per log: a
	// witness shown the fork first) and returns a copy of the cosigned
	// checkpoint, as the witness would keep it.
	cosign := func(logDir, state, copyName string, init bool) string {
		t.Helper()
		args := []string{"witness", "cosign", "--log", logDir, "--log-key", e.p("log.vkey"), "--key", e.p("w1.key"),
			"--state", e.p(state), "-o", e.p("w1.cosig"), "--force"}
		if init {
			args = append(args, "--init")
		}
		e.run(args...)
		e.run("log", "add-cosignature", "--dir", logDir, "--witness-key", e.p("w1.vkey"), e.p("w1.cosig"))
		b, err := os.ReadFile(logDir + "/checkpoint")
		if err != nil {
			t.Fatal(err)
		}
		return writeTestFile(t, e.dir, copyName, b, 0o644)
	}
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), exampleBundleFile(t, e.dir), "-o", e.p("b1.ref.json"))
	honest := cosign(dir, "w1.state.json", "honest.checkpoint", true)
	e.run("log", "add", "--dir", fork, "--key", e.p("log.key"), variantBundleFile(t, e.dir), "-o", e.p("b2.ref.json"))
	forked := cosign(fork, "w1-fork.state.json", "forked.checkpoint", true)
	monitor := func(extra ...string) (string, string, int) {
		t.Helper()
		return runLogCLI(t, e.monitorArgs(dir, append([]string{"--tlog-policy", tlogPolicy}, extra...)...)...)
	}

	stdout, stderr, code := monitor("--checkpoint", honest)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "verified tree size 1, next entry 1; read 1 entries (0 watched); 0 alert(s)") {
		t.Fatalf("honest: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	before := e.stateBytes()

	stdout, stderr, code = monitor("--checkpoint", honest, "--checkpoint", forked)
	if code != 1 || strings.Join(alertKinds(t, stdout), ",") != "split-view" {
		t.Fatalf("forked: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	var a struct {
		Source, Message string
		Other           struct {
			Source     string
			Checkpoint struct{ Size uint64 }
			Cosigners  []string
			QuorumMet  bool
		}
	}
	if err := json.Unmarshal([]byte(stdout), &a); err != nil {
		t.Fatal(err)
	}
	w1, err := signednote.ParseVerifier(e.vkey("w1"))
	if err != nil {
		t.Fatal(err)
	}
	w1Key := fmt.Sprintf("example.org/witness-1+%08x", w1.KeyHash())
	if a.Source != dir || a.Other.Source != forked || a.Other.Checkpoint.Size != 1 || strings.Join(a.Other.Cosigners, ",") != w1Key ||
		!a.Other.QuorumMet || !strings.Contains(a.Message, "cosigned by "+w1Key) {
		t.Errorf("alert %s", stdout)
	}
	if !bytes.Equal(e.stateBytes(), before) {
		t.Error("the state moved on a split view")
	}

	// What a consumer holds: the transparency references `log add` wrote
	// for each tree (no cosignature: nothing to name).
	stdout, stderr, code = monitor("--checkpoint", e.p("b1.ref.json"))
	if code != 0 || stdout != "" {
		t.Fatalf("honest reference: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = monitor("--checkpoint", e.p("b2.ref.json"))
	if code != 1 || strings.Join(alertKinds(t, stdout), ",") != "split-view" || !strings.Contains(stdout, `"source":"`+e.p("b2.ref.json")+`"`) ||
		!strings.Contains(stdout, "cosigned by no witness of the tlog policy") {
		t.Fatalf("forked reference: exit %d stdout %q stderr %q", code, stdout, stderr)
	}

	// A checkpoint of another log key.
	other := e.p("other")
	e.run("log", "init", "--dir", other, "--key", e.p("other-log.key"), "--origin", testLogOrigin)
	e.run("log", "add", "--dir", other, "--key", e.p("other-log.key"), exampleBundleFile(t, e.dir), "-o", e.p("b3.ref.json"))
	stdout, stderr, code = monitor("--checkpoint", other+"/checkpoint")
	if code != 1 || strings.Join(alertKinds(t, stdout), ",") != "checkpoint-signature" || !strings.Contains(stdout, `"source":"`+other+`/checkpoint"`) {
		t.Fatalf("another key: exit %d stdout %q stderr %q", code, stdout, stderr)
	}

	// Ahead of the log: not provable yet, a note.
	e.run("log", "add", "--dir", fork, "--key", e.p("log.key"), osVariantBundleFile(t, e.dir, "netbsd"), "-o", e.p("b4.ref.json"))
	ahead := cosign(fork, "w1-fork.state.json", "ahead.checkpoint", false)
	stdout, stderr, code = monitor("--checkpoint", ahead)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "the checkpoint at "+ahead+" (size 2) is ahead of every --log source") {
		t.Fatalf("ahead: exit %d stdout %q stderr %q", code, stdout, stderr)
	}

	e.fail(2, "--checkpoint: checkpoint URL", e.monitorArgs(dir, "--checkpoint", "https://witness.example.org/checkpoint?log=x")...)
}
