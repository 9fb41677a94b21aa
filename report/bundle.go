package report

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

type bundleView struct {
	Subject, Scenario, Run, Manifest []kv
	Faults, Policies                 *table
	Graph                            graphView
	Operations                       *table
	Negatives                        []negView
	Timeline                         timelineView
	Coverage                         *table
	Trial                            []kv
	Chart                            *chartView
	Artifacts                        *table
}

type negView struct {
	Op    string
	Facts []kv
}

func buildBundle(b *canonjson.Value, r validator.Result) *bundleView {
	ev := b.Get("evidence")
	st := b.Get("statement")
	desc := ev.Path("scenario", "descriptor")
	v := &bundleView{}
	v.Subject = []kv{
		fact("Subject type", ev.Path("subject", "subjectType")),
		fact("Name", ev.Path("subject", "name")),
		fact("Version", ev.Path("subject", "version")),
		digestFact("Artifact SHA-256", ev.Path("subject", "artifactSha256")),
		digestFact("Identity digest", ev.Path("subject", "identityDigest")),
	}
	v.Scenario = []kv{
		fact("Standard version", ev.Get("standardVersion")),
		fact("Profile", joinFacts(ev.Path("profile", "id"), ev.Path("profile", "version"))),
		fact("Protocol revision", ev.Get("protocolRevision")),
		fact("Operation class", desc.Get("operationClass")),
		fact("Side-effect model", desc.Get("sideEffectModel")),
		fact("Deterministic seed", desc.Get("deterministicSeed")),
		digestFact("Scenario fingerprint", ev.Path("scenario", "fingerprint")),
		digestFact("Execution-instance digest", st.Get("executionInstanceDigest")),
		digestFact("Configuration-profile digest", desc.Get("configurationProfileDigest")),
		fact("Validator policy", joinFacts(desc.Path("validatorPolicy", "name"), desc.Path("validatorPolicy", "version"))),
		fact("Statement result", st.Get("result")),
		fact("Statement verified at", st.Get("verifiedAt")),
	}
	run := ev.Get("run")
	v.Run = []kv{
		fact("Run id", run.Get("id")),
		fact("Started at", run.Get("startedAt")),
		fact("Finished at", run.Get("finishedAt")),
		fact("Monotonic duration (ms)", run.Get("monotonicDurationMs")),
		fact("Runner", joinFacts(run.Path("environment", "runner", "name"), run.Path("environment", "runner", "version"))),
		fact("OS / architecture", joinFacts(run.Path("environment", "os"), run.Path("environment", "architecture"))),
		digestFact("Environment digest", run.Path("environment", "environmentDigest")),
	}
	faults := newTable(mono("Fault"), col("Version"), col("Method"), col("Target"), col("Expected effect"), col("Seed"))
	for _, f := range items(desc.Get("faults")) {
		if faults.full() {
			break
		}
		faults.add(cell(f.Get("id")), cell(f.Get("version")), cell(f.Get("method")), cell(f.Get("targetOperationClass")), cell(f.Get("expectedEffect")), cell(f.Get("seed")))
	}
	v.Faults = faults.orNil()
	policies := newTable(mono("Policy"), col("Retry limit"), col("Max backoff (ms)"), col("Time limit (ms)"), col("Cancellation"), col("Side effects"), col("Safety mechanism"))
	for _, p := range items(desc.Get("recoveryPolicies")) {
		if policies.full() {
			break
		}
		policies.add(cell(p.Get("id")), cell(p.Get("retryLimit")), cell(p.Get("maxBackoffMs")), cell(p.Get("timeLimitMs")), cell(p.Get("cancellationBoundary")), cell(p.Get("sideEffectModel")), cell(p.Get("safetyMechanism")))
	}
	v.Policies = policies.orNil()

	ops := operations(ev, firedNames(r.Detail))
	v.Graph = buildGraph(ops)
	v.Operations = operationRows(ev, ops, v.Graph.Collapsed).orNil()
	for _, it := range items(ev.Get("operations")) {
		if len(v.Negatives) == 20 {
			break
		}
		no := it.Get("negativeObservation")
		if str(it.Get("kind")) != "NEGATIVE_CONTROL" || !no.Is(canonjson.Object) {
			continue
		}
		n := negView{Op: cell(it.Get("operationId"))}
		for _, k := range []string{"propertyUnderTest", "propertyReached", "expectedVerdict", "observedVerdict", "expectedStopReason", "observedStopReason", "oracleEvidenceRef", "prerequisitesReached", "mutantId", "mutantKilled"} {
			if no.Has(k) {
				n.Facts = append(n.Facts, fact(k, no.Get(k)))
			}
		}
		v.Negatives = append(v.Negatives, n)
	}
	v.Timeline = buildTimeline(ev)

	coverage := newTable(col("Surface"), col("Required"), chip("Status"), mono("Observations"))
	for _, s := range items(ev.Path("coverage", "surfaces")) {
		if coverage.full() {
			break
		}
		var refs []string
		for _, ref := range items(s.Get("observationRefs")) {
			refs = append(refs, cell(ref))
		}
		coverage.addClass(statusClass(str(s.Get("status")), s.Get("required").Is(canonjson.Bool) && !s.Get("required").Bool),
			cell(s.Get("surface")), required(s.Get("required")), cell(s.Get("status")), strings.Join(refs, ", "))
	}
	v.Coverage = coverage.orNil()

	ts := ev.Get("trialSummary")
	v.Trial = []kv{
		fact("Classification", ts.Get("classification")),
		fact("Planned / completed trials", joinFacts(ts.Get("plannedTrials"), ts.Get("completedTrials"))),
		fact("Success / failure / incomplete", joinFacts(ts.Path("counts", "success"), ts.Path("counts", "failure"), ts.Path("counts", "incomplete"))),
		fact("Process count", ts.Get("processCount")),
		kv{K: "Seeds", V: countOf(ts.Get("seeds"))},
		kv{K: "Distinct outcome hashes", V: countOf(ts.Get("distinctOutcomeHashes"))},
		fact("Stop rule", ts.Get("stopRule")),
	}
	v.Chart = buildChart(ts)

	in := b.Get("integrity")
	v.Manifest = []kv{
		fact("Canonicalization", in.Get("canonicalizationAlgorithm")),
		fact("Hash algorithm", in.Get("hashAlgorithm")),
		fact("Publication", in.Get("publication")),
		fact("Complete", in.Get("complete")),
		digestFact("Bundle digest", in.Get("bundleDigest")),
		digestFact("Supporting-artifact manifest digest", ev.Get("supportingArtifactManifestDigest")),
		digestFact("Evidence SHA-256 (statement)", st.Get("evidenceSha256")),
	}
	arts := items(in.Get("artifacts"))
	artifacts := newTable(mono("Path"), col("Media type"), col("Bytes"), mono("SHA-256"))
	for i, a := range arts {
		if artifacts.full() {
			artifacts.Note = fmt.Sprintf("%d more artifacts are not listed.", len(arts)-i)
			break
		}
		artifacts.add(cell(a.Get("path")), cell(a.Get("mediaType")), cell(a.Get("bytes")), cell(a.Get("sha256")))
	}
	v.Artifacts = artifacts.orNil()
	return v
}

// firedNames returns the words of a diagnostic's detail, so operations it
// names can be marked in the graph.
func firedNames(detail string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(detail) {
		m[strings.Trim(w, `"':,;()`)] = true
	}
	return m
}

func operationRows(ev *canonjson.Value, ops []*op, collapsed bool) *table {
	raw := items(ev.Get("operations"))
	t := newTable(mono("Operation"), mono("Parent"), col("Kind"), col("Outcome"), mono("Fault"), mono("Recovery policy"), col("Attempt"), col("Start (ms)"), col("Duration (ms)"))
	skipped := 0
	k := 0
	for _, it := range raw {
		if !it.Is(canonjson.Object) {
			continue
		}
		o := ops[k]
		k++
		if collapsed && !(o.kind == "NEGATIVE_CONTROL" || o.failing() || o.fired || o.hasFault || o.hasPolicy) {
			skipped++
			continue
		}
		if t.full() {
			skipped++
			continue
		}
		t.add(cell(it.Get("operationId")), cell(it.Get("parentOperationId")), cell(it.Get("kind")), cell(it.Get("outcome")),
			cell(it.Get("faultId")), cell(it.Get("recoveryPolicyId")), cell(it.Get("attempt")), cell(it.Get("startedOffsetMs")), cell(it.Get("durationMs")))
	}
	switch {
	case collapsed && skipped > 0:
		t.Note = fmt.Sprintf("Listed: negative controls, failing operations and operations with a fault or recovery policy (at most %d); %d other operations are not listed.", maxRows, skipped)
	case skipped > 0:
		t.Note = fmt.Sprintf("%d more operations are not listed.", skipped)
	}
	return t
}

func joinFacts(vs ...*canonjson.Value) *canonjson.Value {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = valueText(v, 400)
	}
	// Already display text; wrapped so fact can take it (show is idempotent
	// on it apart from the markers it already contains).
	return canonjson.NewString(strings.Join(parts, " / "))
}

func required(v *canonjson.Value) string {
	if v.Is(canonjson.Bool) {
		if v.Bool {
			return "required"
		}
		return "optional"
	}
	return cell(v)
}

// statusClass colours a coverage status: green instrumented, blue
// indirect, grey not applicable or an optional surface not instrumented,
// red a required surface without instrumentation.
func statusClass(s string, optional bool) string {
	switch {
	case s == "INSTRUMENTED":
		return "st-ok"
	case s == "OBSERVED_INDIRECTLY":
		return "st-ind"
	case optional, s == "NOT_APPLICABLE", s == "BYPASSED_INTENTIONALLY":
		return "st-na"
	}
	return "st-bad"
}

func countOf(v *canonjson.Value) string {
	if v.Is(canonjson.Array) {
		return fmt.Sprint(len(v.Items))
	}
	return cell(v)
}
