package bundletest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

func parsePretty(t *testing.T, v *canonjson.Value) error {
	t.Helper()
	b, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	_, err = canonjson.Parse(b)
	return err
}

// MaxLargeOps is exactly the reader's node limit: one more operation and the
// written bundle is rejected for its node count.
func TestMaxLargeOps(t *testing.T) {
	if err := parsePretty(t, bundletest.Large(t, bundletest.MaxLargeOps)); err != nil {
		t.Fatalf("Large(MaxLargeOps = %d) is rejected: %v", bundletest.MaxLargeOps, err)
	}
	err := parsePretty(t, bundletest.Large(t, bundletest.MaxLargeOps+1))
	var se *canonjson.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Reason, fmt.Sprint(canonjson.MaxNodes)) {
		t.Fatalf("Large(MaxLargeOps+1) parse error = %v, want the %d-node limit", err, canonjson.MaxNodes)
	}
}

func TestLarge(t *testing.T) {
	const n = 5000
	v := bundletest.Large(t, n)
	ev := v.Get("evidence")
	run := ev.Get("run")
	ops := ev.Get("operations").Items
	if len(ops) != n {
		t.Fatalf("%d operations, want %d", len(ops), n)
	}
	ids := map[string]bool{}
	for i, op := range ops {
		id := op.Get("operationId").Str
		if ids[id] {
			t.Fatalf("operation %d: duplicate id %s", i, id)
		}
		ids[id] = true
		parent := op.Get("parentOperationId")
		if i == 0 && !parent.Is(canonjson.Null) || i > 0 && parent.Str != ops[i-1].Get("operationId").Str {
			t.Fatalf("operation %d: parent %v breaks the chain", i, parent)
		}
		if end := op.Get("startedOffsetMs").Int + op.Get("durationMs").Int; end > run.Get("monotonicDurationMs").Int {
			t.Fatalf("operation %d ends at %d ms, after the run's %d ms", i, end, run.Get("monotonicDurationMs").Int)
		}
	}
	start, _ := time.Parse(time.RFC3339Nano, run.Get("startedAt").Str)
	finish, _ := time.Parse(time.RFC3339Nano, run.Get("finishedAt").Str)
	if mono := time.Duration(run.Get("monotonicDurationMs").Int) * time.Millisecond; finish.Sub(start) < mono {
		t.Errorf("wall-clock interval %v is shorter than the monotonic duration %v", finish.Sub(start), mono)
	}
	// Sealed: re-sealing changes nothing.
	before, _ := canonjson.Canonical(v)
	if err := bundle.Seal(v); err != nil {
		t.Fatal(err)
	}
	after, _ := canonjson.Canonical(v)
	if string(before) != string(after) {
		t.Error("Large is not sealed")
	}
}
