// Package bundletest provides sealed MCP-RES v0.2.0 conformance bundles for
// tests and benchmarks: the mcpres example bundle and large variants of it.
//
// The example is mcpres's own fixture (not an upstream vector): an
// MCP_SERVER subject "ledger-notes-server" 3.4.1 run once under profile
// mcp-res/server-tool-call/v1 2.0.0, with a CLEAN_CONTROL operation and a
// NEGATIVE_CONTROL operation (fault, recovery policy, negativeObservation
// with a killed mutant and a VALIDATOR_CHECK oracle), passing
// PROCESS_EXECUTION, PROTOCOL_EXCHANGE, FIXTURE_EXECUTION, VALIDATOR_CHECK,
// PRIVACY_SCAN and CLEANUP_CHECK observations, all 14 coverage surfaces, a
// SINGLE_OBSERVATION trial summary and one supporting transcript artifact.
// Its derived evidence class is FIXTURE_BACKED_PROTOCOL and its result PASS.
// Fixed identities follow REFERENCE §2.3 (sha256 of "<text>\n"); the
// validator is {mcpres, 0.1.0, sha256("mcpres@0.1.0\n")}.
//
// The draft is embedded by package internal/example, a copy of the
// repository's testdata/drafts/example.draft.json; the bundle package's
// tests keep the two identical and check that sealing the draft gives
// testdata/bundles/example.json byte for byte.
//
// To build a fault case: take Example, mutate one member, then call
// bundle.SealFrom with the first stage after the mutated member so that
// every digest is consistent and only the intended fault remains.
package bundletest

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/example"
)

// Draft returns a fresh copy of the unsealed example draft: every digest,
// statement mirror and generated manifest entry is blank or absent.
func Draft(t testing.TB) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse(example.Draft())
	if err != nil {
		t.Fatalf("bundletest: parsing the embedded example draft: %v", err)
	}
	return v.Clone() // parsed scalars are shared and read-only; a Clone's are not
}

// Example returns a fresh, sealed copy of the example bundle. Callers own it
// and may mutate it freely.
func Example(t testing.TB) *canonjson.Value {
	t.Helper()
	v := Draft(t)
	if err := bundle.Seal(v); err != nil {
		t.Fatalf("bundletest: sealing the example draft: %v", err)
	}
	return v
}

// ExampleAbout returns the example bundle about another subject: its
// evidence.subject name, version and artifactSha256 (64 lowercase hex
// digits) replaced before it is sealed, so that tests have two valid
// bundles about two artifacts.
func ExampleAbout(t testing.TB, name, version, artifactSha256 string) *canonjson.Value {
	t.Helper()
	v := Draft(t)
	s := v.Path("evidence", "subject")
	s.Set("name", canonjson.NewString(name))
	s.Set("version", canonjson.NewString(version))
	s.Set("artifactSha256", canonjson.NewString(artifactSha256))
	if err := bundle.Seal(v); err != nil {
		t.Fatalf("bundletest: sealing the example draft about %s: %v", name, err)
	}
	return v
}

// ExampleWithResult returns the example bundle whose statement records
// result (PASS, FAIL or INCOMPLETE) instead of PASS, sealed: valid
// evidence of a run that did not pass, for the gates that must refuse it.
func ExampleWithResult(t testing.TB, result string) *canonjson.Value {
	t.Helper()
	v := Draft(t)
	v.Get("statement").Set("result", canonjson.NewString(result))
	if err := bundle.Seal(v); err != nil {
		t.Fatalf("bundletest: sealing the example draft with result %s: %v", result, err)
	}
	return v
}

// MaxLargeOps is the largest nOps for which the Pretty serialization of
// Large(t, nOps) still passes the strict reader (canonjson.MaxNodes values
// and keys); Large(t, MaxLargeOps+1) exceeds it. TestMaxLargeOps keeps it
// true.
const MaxLargeOps = 11_872

// Large returns the example bundle with nOps operations (2 ≤ nOps ≤
// 100,000, the schema bounds), sealed. The example's two operations come
// first; the others are CLEAN_CONTROL operations "op-chain-NNNNNN" with
// outcome PASS. All of them form one parent chain: operation i's
// parentOperationId is operation i−1's id and the first has none, so the
// chain is nOps long. Every operation lies within the run: the generated
// ones start at offset 1000+i and last 1 ms, run.monotonicDurationMs is
// raised to cover them and run.finishedAt to cover the monotonic duration.
func Large(t testing.TB, nOps int) *canonjson.Value {
	t.Helper()
	if nOps < 2 || nOps > 100_000 {
		t.Fatalf("bundletest: Large(%d): want 2 ≤ nOps ≤ 100000", nOps)
	}
	v := Draft(t)
	ev := v.Get("evidence")
	ops := ev.Get("operations")
	runID := ev.Path("run", "id").Str
	for i := len(ops.Items); i < nOps; i++ {
		ops.Items = append(ops.Items, chainOperation(runID, i))
	}
	for i, op := range ops.Items {
		parent := canonjson.NewNull()
		if i > 0 {
			parent = ops.Items[i-1].Get("operationId").Clone()
		}
		op.Set("parentOperationId", parent)
	}
	if err := stretchRun(ev.Get("run"), 1000+int64(nOps)); err != nil {
		t.Fatalf("bundletest: Large(%d): %v", nOps, err)
	}
	if err := bundle.Seal(v); err != nil {
		t.Fatalf("bundletest: Large(%d): sealing: %v", nOps, err)
	}
	return v
}

func chainOperation(runID string, i int) *canonjson.Value {
	return canonjson.NewObject(
		canonjson.Member{Key: "runId", Value: canonjson.NewString(runID)},
		canonjson.Member{Key: "operationId", Value: canonjson.NewString(fmt.Sprintf("op-chain-%06d", i))},
		canonjson.Member{Key: "parentOperationId", Value: canonjson.NewNull()},
		canonjson.Member{Key: "kind", Value: canonjson.NewString(bundle.KindCleanControl)},
		canonjson.Member{Key: "faultId", Value: canonjson.NewNull()},
		canonjson.Member{Key: "recoveryPolicyId", Value: canonjson.NewNull()},
		canonjson.Member{Key: "attempt", Value: canonjson.NewInt(0)},
		canonjson.Member{Key: "outcome", Value: canonjson.NewString("PASS")},
		canonjson.Member{Key: "startedOffsetMs", Value: canonjson.NewInt(1000 + int64(i))},
		canonjson.Member{Key: "durationMs", Value: canonjson.NewInt(1)},
	)
}

// stretchRun raises run.monotonicDurationMs to at least ms and moves
// run.finishedAt so the wall-clock interval covers the monotonic duration.
func stretchRun(run *canonjson.Value, ms int64) error {
	if cur := run.Get("monotonicDurationMs").Int; cur > ms {
		ms = cur
	}
	start, err := time.Parse(time.RFC3339Nano, run.Get("startedAt").Str)
	if err != nil {
		return fmt.Errorf("run.startedAt: %w", err)
	}
	finish, err := time.Parse(time.RFC3339Nano, run.Get("finishedAt").Str)
	if err != nil {
		return fmt.Errorf("run.finishedAt: %w", err)
	}
	if need := start.Add(time.Duration(ms) * time.Millisecond); finish.Before(need) {
		run.Set("finishedAt", canonjson.NewString(need.UTC().Format("2006-01-02T15:04:05.000Z")))
	}
	run.Set("monotonicDurationMs", canonjson.NewInt(ms))
	return nil
}
