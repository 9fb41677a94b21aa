package validator_test

import (
	"cmp"
	"slices"
	"strconv"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/validatortest"
)

// This file holds the helpers the fault tables use to edit the sealed
// example bundle (bundletest.Example) and to check results exactly.

// JSON Pointers into the example bundle. TestExampleLayout keeps them
// pointing at what their names say.
const (
	pEvidence   = "/evidence"
	pSubject    = "/evidence/subject"
	pScenario   = "/evidence/scenario"
	pDescriptor = "/evidence/scenario/descriptor"
	pRun        = "/evidence/run"
	pOps        = "/evidence/operations"
	pOpClean    = "/evidence/operations/0" // op-list-notes, CLEAN_CONTROL
	pOpNeg      = "/evidence/operations/1" // op-truncated-reply, NEGATIVE_CONTROL
	pNegObs     = pOpNeg + "/negativeObservation"
	pObs        = "/evidence/observations"
	pObsProc    = "/evidence/observations/0" // PROCESS_EXECUTION
	pObsWire    = "/evidence/observations/1" // PROTOCOL_EXCHANGE, 2 artifactRefs
	pObsFixture = "/evidence/observations/2" // FIXTURE_EXECUTION
	pObsOracle  = "/evidence/observations/3" // VALIDATOR_CHECK of op-truncated-reply
	pObsPrivacy = "/evidence/observations/4" // PRIVACY_SCAN
	pObsCleanup = "/evidence/observations/5" // CLEANUP_CHECK
	pSurfaces   = "/evidence/coverage/surfaces"
	pTrials     = "/evidence/trialSummary"
	pStatement  = "/statement"
	pArtifacts  = "/integrity/artifacts"
)

// Identifiers of the example bundle.
const (
	idOpClean      = "op-list-notes"
	idOpNeg        = "op-truncated-reply"
	idFault        = "fault/truncated-content-array"
	idPolicy       = "policy/no-retry-read"
	runID          = "run-mcpres-example-7f3a"
	pathOracle     = "observations/obs-oracle-truncation.json"
	pathProc       = "observations/obs-proc-spawn.json"
	pathWire       = "observations/obs-wire-exchange.json"
	pathTranscript = "transcripts/wire-exchange.jsonl"
	// otherSha is a well-formed digest that is nobody's.
	otherSha = validatortest.OtherSha
)

// noReseal marks a fault that must stay exactly as mutated: the mutation is
// applied to the sealed bundle and nothing is recomputed (faults in the
// digests themselves, or in what only StageIntegrity would rewrite).
const noReseal bundle.Stage = -1

// fullSeal re-runs every stage: right for members no stage writes
// (operations, run, coverage, trial summary, result...).
const fullSeal = bundle.StageSubject

// The shared fault-table helpers (validatortest), under the short names
// the tables use.
type mutator = validatortest.Mutator

var (
	lit      = validatortest.Lit
	at       = validatortest.At
	put      = validatortest.Put
	set      = validatortest.Set
	remove   = validatortest.Remove
	appendTo = validatortest.AppendTo
	copyTo   = validatortest.CopyTo
	all      = validatortest.All
)

// entry returns the pointer of the last manifest entry with path (the one
// validators and Seal look up).
func entry(t testing.TB, v *canonjson.Value, path string) string {
	t.Helper()
	items := at(t, v, pArtifacts).Items
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Get("path").Str == path {
			return pArtifacts + "/" + strconv.Itoa(i)
		}
	}
	t.Fatalf("no manifest entry %s", path)
	return ""
}

// setEntry returns a mutator writing member of the manifest entry for path.
func setEntry(path, member, text string) mutator {
	return func(t *testing.T, v *canonjson.Value) { put(t, v, entry(t, v, path)+"/"+member, lit(t, text)) }
}

// removeEntry returns a mutator deleting the manifest entry for path.
func removeEntry(path string) mutator {
	return func(t *testing.T, v *canonjson.Value) { remove(entry(t, v, path))(t, v) }
}

// duplicateEntry returns a mutator appending a copy of the manifest entry
// for path.
func duplicateEntry(path string) mutator {
	return func(t *testing.T, v *canonjson.Value) {
		arr := at(t, v, pArtifacts)
		arr.Items = append(arr.Items, at(t, v, entry(t, v, path)).Clone())
	}
}

// surface returns the pointer of the coverage entry for name.
func surface(t testing.TB, v *canonjson.Value, name string) string {
	t.Helper()
	for i, s := range at(t, v, pSurfaces).Items {
		if s.Get("surface").Str == name {
			return pSurfaces + "/" + strconv.Itoa(i)
		}
	}
	t.Fatalf("no coverage entry for %s", name)
	return ""
}

// setSurface returns a mutator writing member of the coverage entry name.
func setSurface(name, member, text string) mutator {
	return func(t *testing.T, v *canonjson.Value) { put(t, v, surface(t, v, name)+"/"+member, lit(t, text)) }
}

// rehashBundleDigest recomputes integrity.bundleDigest independently of the
// code under test (REFERENCE §2.1: canonical {"artifacts": all entries
// sorted by path}), for faults placed in the manifest after sealing.
func rehashBundleDigest(t *testing.T, v *canonjson.Value) {
	t.Helper()
	entries := slices.Clone(at(t, v, pArtifacts).Items)
	slices.SortStableFunc(entries, func(a, b *canonjson.Value) int {
		return cmp.Compare(a.Get("path").Str, b.Get("path").Str)
	})
	obj := canonjson.NewObject(canonjson.Member{Key: "artifacts", Value: canonjson.NewArray(entries...)})
	sum, _, err := canonjson.Digest(obj)
	if err != nil {
		t.Fatal(err)
	}
	put(t, v, "/integrity/bundleDigest", canonjson.NewString(sum))
}

// thenRehash returns m followed by rehashBundleDigest.
func thenRehash(m mutator) mutator {
	return all(m, rehashBundleDigest)
}

// chainOp is the JSON of an extra CLEAN_CONTROL operation id with parent
// (a JSON literal: a quoted id or null) lying within the example's run.
func chainOp(id, parent string, offset int) string {
	return `{"runId":"` + runID + `","operationId":"` + id + `","parentOperationId":` + parent +
		`,"kind":"CLEAN_CONTROL","faultId":null,"recoveryPolicyId":null,"attempt":0,"outcome":"PASS",` +
		`"startedOffsetMs":` + strconv.Itoa(offset) + `,"durationMs":1}`
}

// addChain returns a mutator appending n operations op-extra-0…n-1, each the
// child of the previous; the first one's parent is first (a JSON literal).
func addChain(n int, first string) mutator {
	return func(t *testing.T, v *canonjson.Value) {
		parent := first
		for i := range n {
			id := "op-extra-" + strconv.Itoa(i)
			appendTo(pOps, chainOp(id, parent, 700+i))(t, v)
			parent = strconv.Quote(id)
		}
	}
}

// fitRunInOneSecond moves the two observations that end after 1000 ms
// (privacy sweep, cleanup check) inside the first second, so the run can be
// shortened to 1000 ms without any other fault.
var fitRunInOneSecond = all(
	set(pObsPrivacy+"/startedOffsetMs", "700"), set(pObsPrivacy+"/durationMs", "100"),
	set(pObsCleanup+"/startedOffsetMs", "850"), set(pObsCleanup+"/durationMs", "100"),
)

// oneSecondRun sets a run of monotonic ms from …09:30:00.000Z to finishedAt
// (and the observation offsets that need it).
func oneSecondRun(startedAt, finishedAt string, ms int) mutator {
	return all(fitRunInOneSecond,
		set(pRun+"/startedAt", strconv.Quote(startedAt)),
		set(pRun+"/finishedAt", strconv.Quote(finishedAt)),
		set(pRun+"/monotonicDurationMs", strconv.Itoa(ms)),
	)
}

// build returns a fresh sealed example with m applied, then re-sealed from
// stage (unless stage is noReseal).
func build(t *testing.T, m mutator, stage bundle.Stage) *canonjson.Value {
	t.Helper()
	v := bundletest.Example(t)
	if m != nil {
		m(t, v)
	}
	if stage != noReseal {
		if err := bundle.SealFrom(v, stage); err != nil {
			t.Fatalf("re-sealing from %s: %v", stage, err)
		}
	}
	return v
}

var (
	checkResult     = validatortest.CheckResult
	checkInputError = validatortest.CheckInputError
)

// TestExampleLayout pins the example bundle positions the fault tables
// address, so a changed fixture fails here and not as a wrong diagnostic.
func TestExampleLayout(t *testing.T) {
	v := bundletest.Example(t)
	for ptr, want := range map[string]string{
		pOpClean + "/operationId":      idOpClean,
		pOpNeg + "/operationId":        idOpNeg,
		pOpNeg + "/kind":               bundle.KindNegativeControl,
		pOpNeg + "/faultId":            idFault,
		pOpNeg + "/recoveryPolicyId":   idPolicy,
		pRun + "/id":                   runID,
		pRun + "/startedAt":            "2026-03-14T09:30:00.000Z",
		pRun + "/finishedAt":           "2026-03-14T09:30:02.500Z",
		pNegObs + "/oracleEvidenceRef": pathOracle,
		pObsProc + "/type":             "PROCESS_EXECUTION",
		pObsWire + "/type":             "PROTOCOL_EXCHANGE",
		pObsWire + "/artifactRefs/1":   pathTranscript,
		pObsFixture + "/type":          "FIXTURE_EXECUTION",
		pObsOracle + "/type":           "VALIDATOR_CHECK",
		pObsOracle + "/operationRef":   idOpNeg,
		pObsOracle + "/artifactRefs/0": pathOracle,
		pObsPrivacy + "/type":          "PRIVACY_SCAN",
		pObsCleanup + "/type":          "CLEANUP_CHECK",
		pTrials + "/classification":    "SINGLE_OBSERVATION",
		pStatement + "/result":         "PASS",
		"/evidence/evidenceClassClaim": "FIXTURE_BACKED_PROTOCOL",
	} {
		if got := at(t, v, ptr); got.Str != want {
			t.Errorf("%s = %v, want %q", ptr, got, want)
		}
	}
	for ptr, want := range map[string]int64{
		pRun + "/monotonicDurationMs":                  2400,
		pDescriptor + "/recoveryPolicies/0/retryLimit": 0,
		pObsCleanup + "/startedOffsetMs":               1650,
		pObsCleanup + "/durationMs":                    600,
		pTrials + "/completedTrials":                   1,
	} {
		if got := at(t, v, ptr); !got.Is(canonjson.Int) || got.Int != want {
			t.Errorf("%s = %v, want %d", ptr, got, want)
		}
	}
	if n := len(at(t, v, pSurfaces).Items); n != 14 {
		t.Errorf("%d coverage entries, want 14", n)
	}
	if at(t, v, pEvidence).Has("sourceEvidenceRefs") {
		t.Error("the example has sourceEvidenceRefs; the class rows assume it has none")
	}
	r, err := validator.New().Bundle(v)
	checkResult(t, r, err, nil, nil, "")
}

// bump returns a mutator adding delta to the integer at ptr.
func bump(ptr string, delta int64) mutator {
	return func(t *testing.T, v *canonjson.Value) {
		t.Helper()
		n := at(t, v, ptr)
		if !n.Is(canonjson.Int) {
			t.Fatalf("%s is not an integer", ptr)
		}
		put(t, v, ptr, canonjson.NewInt(n.Int+delta))
	}
}

// bumpEntry returns a mutator adding delta to the bytes of the manifest
// entry for path.
func bumpEntry(path string, delta int64) mutator {
	return func(t *testing.T, v *canonjson.Value) { bump(entry(t, v, path)+"/bytes", delta)(t, v) }
}

// sealFrom returns a mutator re-sealing from stage, for rows that must
// place a fault after a reseal.
func sealFrom(stage bundle.Stage) mutator {
	return func(t *testing.T, v *canonjson.Value) {
		t.Helper()
		if err := bundle.SealFrom(v, stage); err != nil {
			t.Fatalf("re-sealing from %s: %v", stage, err)
		}
	}
}
