package validator

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/validator/schema"
)

// Bundle validates a parsed mcp-res.conformance-bundle/0.2.0 exactly as
// REFERENCE §5.1 orders it: pre-schema checks (P1–P3), the schema (S), then
// the semantic checks a–k, stopping at the first failure.
//
// A non-nil error is an *InputError (MCP_RES_INPUT_INVALID): the document
// has a shape on which evaluation is impossible. Otherwise the Result holds
// the verdict.
func (v *Validator) Bundle(doc *canonjson.Value) (Result, error) {
	return v.BundleWith(doc, BundleOptions{})
}

// BundleOptions adjust Bundle for callers that have established part of
// its work already.
type BundleOptions struct {
	// SchemaChecked says that doc is known to be valid against the
	// conformance-bundle schema: it is the bundle member of a document
	// that passed a schema embedding that one by a plain $ref (an attested
	// bundle, REFERENCE §5.3 G2). The schema step is then not evaluated a
	// second time; the result is the same.
	SchemaChecked bool
}

// BundleWith is Bundle with options.
func (v *Validator) BundleWith(doc *canonjson.Value, o BundleOptions) (Result, error) {
	if ok, why := selfAsserted(doc.Get("evidence")); ok {
		return Fail(CodeSelfAssertedClaim, why), nil
	}
	if r, ok, err := negativeControls(doc); err != nil || !ok {
		return r, err
	}
	if !o.SchemaChecked {
		if errs := v.SchemaErrors(schema.ConformanceBundle, doc); len(errs) > 0 {
			r := Fail(CodeSchemaInvalid, schema.Summary(errs))
			r.SchemaErrors = errs
			return r, nil
		}
	}
	b, err := bundle.Decode(doc)
	if err != nil {
		return Result{}, &InputError{Reason: "schema-valid bundle does not decode: " + err.Error()}
	}
	c := &coreCheck{doc: doc, b: b, ev: &b.Evidence}
	for _, check := range []func() (string, string, error){
		c.scenario, c.wallClock, c.operations, c.observations, c.coverage,
		c.trialSummary, c.evidenceClass, c.completion, c.digests, c.executionDigest, c.mirrors,
	} {
		code, detail, err := check()
		if err != nil {
			return Result{}, &InputError{Reason: err.Error()}
		}
		if code != "" {
			return Fail(code, detail), nil
		}
	}
	return Pass(), nil
}

// coreCheck carries one bundle through the semantic checks. Each check
// returns a diagnostic code and detail on failure, "" when it passes, or an
// error when a digest cannot be computed at all.
type coreCheck struct {
	doc *canonjson.Value
	b   *bundle.Bundle
	ev  *bundle.Evidence

	evidenceSum string // canonical digest of evidence, computed once
	evidenceLen int
	// From the same pass over evidence: the descriptor's digest and each
	// observation's (without observationSha256), when that pass succeeded.
	descriptorSum string
	obsSums       []canonjson.Part

	opIDs  map[string]int              // operationId → index
	obsIDs map[string]bool             // observation ids
	arts   map[string]*bundle.Artifact // path → last manifest entry
}

// evidenceDigest returns the canonical digest and length of evidence,
// computing it once (steps i and k both need it).
func (c *coreCheck) evidenceDigest() (string, int, error) {
	if c.evidenceSum == "" {
		sum, n, err := digest(c.doc.Get("evidence"))
		if err != nil {
			return "", 0, err
		}
		c.evidenceSum, c.evidenceLen = sum, n
	}
	return c.evidenceSum, c.evidenceLen, nil
}

// evidenceDigests encodes evidence once, before step a, for the digests
// of steps a, d, i and k: evidence itself, the scenario descriptor and
// every observation without its observationSha256 are all runs of the
// same canonical bytes. If evidence has no canonical form nothing is
// recorded, and each step computes its own digest and reports its own
// failure, in the reference order, as if this pass had not run.
func (c *coreCheck) evidenceDigests() {
	ev := c.doc.Get("evidence")
	obs := ev.Get("observations").Items
	parts := make([]canonjson.Part, 1+len(obs))
	parts[0].Value = ev.Path("scenario", "descriptor")
	for i, o := range obs {
		parts[1+i] = canonjson.Part{Value: o, Omit: "observationSha256"}
	}
	sum, n, err := canonjson.DigestParts(ev, parts)
	if err != nil {
		return
	}
	c.evidenceSum, c.evidenceLen = sum, n
	c.descriptorSum, c.obsSums = parts[0].Sum, parts[1:]
}

func digest(v *canonjson.Value) (string, int, error) {
	sum, n, err := canonjson.Digest(v)
	if err != nil {
		return "", 0, fmt.Errorf("cannot canonicalize: %w", err)
	}
	return sum, n, nil
}

// a. Scenario fingerprint and descriptor mirrors.
func (c *coreCheck) scenario() (string, string, error) {
	d := &c.ev.Scenario.Descriptor
	mismatch := func(what string) (string, string, error) {
		return CodeScenarioFingerprintMismatch, what, nil
	}
	switch {
	case d.StandardVersion != c.ev.StandardVersion:
		return mismatch("descriptor.standardVersion differs from evidence.standardVersion")
	case d.ProfileID != c.ev.Profile.ID:
		return mismatch("descriptor.profileId differs from evidence.profile.id")
	case d.ProfileVersion != c.ev.Profile.Version:
		return mismatch("descriptor.profileVersion differs from evidence.profile.version")
	case d.ProtocolRevision != c.ev.ProtocolRevision:
		return mismatch("descriptor.protocolRevision differs from evidence.protocolRevision")
	case d.SubjectIdentityDigest != c.ev.Subject.IdentityDigest:
		return mismatch("descriptor.subjectIdentityDigest differs from subject.identityDigest")
	}
	c.evidenceDigests()
	sum := c.descriptorSum
	if sum == "" {
		var err error
		if sum, _, err = digest(c.doc.Path("evidence", "scenario", "descriptor")); err != nil {
			return "", "", err
		}
	}
	if sum != c.ev.Scenario.Fingerprint {
		return mismatch(fmt.Sprintf("scenario.fingerprint is %s, descriptor digests to %s", c.ev.Scenario.Fingerprint, sum))
	}
	return "", "", nil
}

// b. Wall clock, in exact microseconds.
func (c *coreCheck) wallClock() (string, string, error) {
	start, err := datetime.Parse(c.ev.Run.StartedAt)
	if err != nil {
		return "", "", fmt.Errorf("run.startedAt: %w", err)
	}
	finish, err := datetime.Parse(c.ev.Run.FinishedAt)
	if err != nil {
		return "", "", fmt.Errorf("run.finishedAt: %w", err)
	}
	if finish.Compare(start) < 0 {
		return CodeWallClockReversal, "run.finishedAt precedes run.startedAt", nil
	}
	if elapsed := finish.Sub(start); c.ev.Run.MonotonicDurationMs*1000 > elapsed {
		return CodeWallClockReversal, fmt.Sprintf("monotonicDurationMs %d exceeds the wall-clock interval of %d µs", c.ev.Run.MonotonicDurationMs, elapsed), nil
	}
	return "", "", nil
}

// c. Operations: identity, run binding, bounds, references, retry limits,
// then parent cycles.
func (c *coreCheck) operations() (string, string, error) {
	ops := c.ev.Operations
	run := &c.ev.Run
	c.opIDs = make(map[string]int, len(ops))
	for i := range ops {
		op := &ops[i]
		if _, dup := c.opIDs[op.OperationID]; dup {
			return CodeCausalMismatch, "operationId " + op.OperationID + " is not unique", nil
		}
		c.opIDs[op.OperationID] = i
		if op.RunID != run.ID {
			return CodeCrossRunSubstitution, fmt.Sprintf("operation %s names run %s, not %s", op.OperationID, op.RunID, run.ID), nil
		}
		if op.StartedOffsetMs+op.DurationMs > run.MonotonicDurationMs {
			return CodeCausalMismatch, fmt.Sprintf("operation %s ends at %d ms, after the run's %d ms", op.OperationID, op.StartedOffsetMs+op.DurationMs, run.MonotonicDurationMs), nil
		}
	}
	d := &c.ev.Scenario.Descriptor
	faults := make(map[string]bool, len(d.Faults))
	for _, f := range d.Faults {
		faults[f.ID] = true
	}
	policies := make(map[string]int64, len(d.RecoveryPolicies))
	for _, p := range d.RecoveryPolicies {
		policies[p.ID] = p.RetryLimit // the last definition wins
	}
	for i := range ops {
		op := &ops[i]
		if op.ParentOperationID != nil {
			if _, ok := c.opIDs[*op.ParentOperationID]; !ok {
				return CodeCausalMismatch, fmt.Sprintf("operation %s: parent %q is not an operation", op.OperationID, *op.ParentOperationID), nil
			}
		}
		if op.FaultID != nil && !faults[*op.FaultID] {
			return CodeCausalMismatch, fmt.Sprintf("operation %s: fault %q is not defined", op.OperationID, *op.FaultID), nil
		}
		if op.RecoveryPolicyID != nil {
			limit, ok := policies[*op.RecoveryPolicyID]
			if !ok {
				return CodeCausalMismatch, fmt.Sprintf("operation %s: recovery policy %q is not defined", op.OperationID, *op.RecoveryPolicyID), nil
			}
			if op.Attempt > limit {
				return CodeRetryLimitExceeded, fmt.Sprintf("operation %s: attempt %d exceeds retryLimit %d of %s", op.OperationID, op.Attempt, limit, *op.RecoveryPolicyID), nil
			}
		}
	}
	if id, ok := parentCycle(ops, c.opIDs); ok {
		return CodeOperationParentCycle, "operation " + id + " is its own ancestor", nil
	}
	return "", "", nil
}

// parentCycle reports an operation on a parent cycle. Every parent is known
// to resolve. Each operation has at most one parent, so one walk per
// unvisited operation, marking nodes as on-path then done, is linear.
func parentCycle(ops []bundle.Operation, index map[string]int) (string, bool) {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(ops))
	path := make([]int, 0, 64)
	for start := range ops {
		path = path[:0]
		i := start
		for {
			if state[i] == done {
				break
			}
			if state[i] == onPath {
				return ops[i].OperationID, true
			}
			state[i] = onPath
			path = append(path, i)
			p := ops[i].ParentOperationID
			if p == nil {
				break
			}
			i = index[*p]
		}
		for _, j := range path {
			state[j] = done
		}
	}
	return "", false
}

// d. Observations: identity, binding, artifacts and digests; then the
// oracle of every negative control.
func (c *coreCheck) observations() (string, string, error) {
	arts := c.b.Integrity.Artifacts
	c.arts = make(map[string]*bundle.Artifact, len(arts))
	for i := range arts {
		c.arts[arts[i].Path] = &arts[i] // the last entry with a path wins
	}
	obsValues := c.doc.Path("evidence", "observations").Items
	c.obsIDs = make(map[string]bool, len(c.ev.Observations))
	run := &c.ev.Run
	for i := range c.ev.Observations {
		o := &c.ev.Observations[i]
		if c.obsIDs[o.ID] {
			return CodeObservationCausalMismatch, "observation id " + o.ID + " is not unique", nil
		}
		c.obsIDs[o.ID] = true
		if o.SubjectRef != c.ev.Subject.IdentityDigest {
			return CodeObservationCausalMismatch, "observation " + o.ID + " names another subject", nil
		}
		if o.OperationRef != nil {
			if _, ok := c.opIDs[*o.OperationRef]; !ok {
				return CodeObservationCausalMismatch, fmt.Sprintf("observation %s: operation %q does not exist", o.ID, *o.OperationRef), nil
			}
		}
		if o.StartedOffsetMs+o.DurationMs > run.MonotonicDurationMs {
			return CodeObservationCausalMismatch, fmt.Sprintf("observation %s ends at %d ms, after the run's %d ms", o.ID, o.StartedOffsetMs+o.DurationMs, run.MonotonicDurationMs), nil
		}
		for _, ref := range o.ArtifactRefs {
			if c.arts[ref] == nil {
				return CodeMissingObservationArtifact, fmt.Sprintf("observation %s: artifact %s is not in the integrity manifest", o.ID, ref), nil
			}
		}
		sum, n, err := c.observationDigest(obsValues, i)
		if err != nil {
			return "", "", err
		}
		if sum != o.ObservationSha256 {
			return CodeObservationHashMismatch, fmt.Sprintf("observation %s: observationSha256 is %s, the observation digests to %s", o.ID, o.ObservationSha256, sum), nil
		}
		carried := false
		for _, ref := range o.ArtifactRefs {
			a := c.arts[ref]
			if a.Sha256 == sum && a.Bytes == int64(n) && a.MediaType == bundle.ObservationMediaType {
				carried = true
				break
			}
		}
		if !carried {
			return CodeObservationHashMismatch, fmt.Sprintf("observation %s: no referenced manifest entry carries its digest, %d bytes and media type %s", o.ID, n, bundle.ObservationMediaType), nil
		}
	}
	// Oracles: index VALIDATOR_CHECK observations by operation.
	checks := make(map[string][]int)
	for i := range c.ev.Observations {
		o := &c.ev.Observations[i]
		if o.Type == bundle.ObsValidatorCheck && o.OperationRef != nil {
			checks[*o.OperationRef] = append(checks[*o.OperationRef], i)
		}
	}
	for i := range c.ev.Operations {
		op := &c.ev.Operations[i]
		if op.Kind != bundle.KindNegativeControl {
			continue
		}
		ref := op.NegativeObservation.OracleEvidenceRef
		if c.arts[ref] == nil {
			return CodeMissingObservationArtifact, fmt.Sprintf("negative control %s: oracle evidence %s is not in the integrity manifest", op.OperationID, ref), nil
		}
		found := false
		for _, j := range checks[op.OperationID] {
			if slices.Contains(c.ev.Observations[j].ArtifactRefs, ref) {
				found = true
				break
			}
		}
		if !found {
			return CodeObservationCausalMismatch, fmt.Sprintf("negative control %s: no VALIDATOR_CHECK observation of this operation carries oracle evidence %s", op.OperationID, ref), nil
		}
	}
	return "", "", nil
}

// observationDigest returns the digest and length of observation i
// without its observationSha256, from the evidence pass when it ran.
func (c *coreCheck) observationDigest(obs []*canonjson.Value, i int) (string, int, error) {
	if c.obsSums != nil {
		return c.obsSums[i].Sum, c.obsSums[i].Len, nil
	}
	return digest(obs[i].Without("observationSha256"))
}

// e. Coverage of the 14 observation surfaces.
func (c *coreCheck) coverage() (string, string, error) {
	seen := make(map[string]bool, len(bundle.Surfaces))
	for _, s := range c.ev.Coverage.Surfaces {
		if seen[s.Surface] {
			return CodeRequiredSurfaceUnobserved, "surface " + s.Surface + " is listed twice", nil
		}
		seen[s.Surface] = true
		if !s.Required {
			continue
		}
		switch s.Status {
		case "UNINSTRUMENTED", "UNKNOWN":
			return CodeRequiredSurfaceUnobserved, "required surface " + s.Surface + " is " + s.Status, nil
		case "INSTRUMENTED", "OBSERVED_INDIRECTLY":
			if len(s.ObservationRefs) == 0 {
				return CodeRequiredSurfaceUnobserved, "required surface " + s.Surface + " names no observation", nil
			}
			for _, ref := range s.ObservationRefs {
				if !c.obsIDs[ref] {
					return CodeRequiredSurfaceUnobserved, fmt.Sprintf("required surface %s names unknown observation %s", s.Surface, ref), nil
				}
			}
		}
	}
	if len(seen) != len(bundle.Surfaces) {
		return CodeRequiredSurfaceUnobserved, fmt.Sprintf("coverage lists %d of the %d surfaces", len(seen), len(bundle.Surfaces)), nil
	}
	return "", "", nil
}

// f. Trial summary consistency and stability claims.
func (c *coreCheck) trialSummary() (string, string, error) {
	ts := &c.ev.TrialSummary
	done := ts.CompletedTrials
	bad := func(why string) (string, string, error) { return CodeTrialSummaryInconsistent, why, nil }
	switch {
	case ts.Counts.Success+ts.Counts.Failure+ts.Counts.Incomplete != done:
		return bad(fmt.Sprintf("counts add up to %d, completedTrials is %d", ts.Counts.Success+ts.Counts.Failure+ts.Counts.Incomplete, done))
	case done > ts.PlannedTrials:
		return bad(fmt.Sprintf("completedTrials %d exceeds plannedTrials %d", done, ts.PlannedTrials))
	case int64(len(ts.Seeds)) != done:
		return bad(fmt.Sprintf("%d seeds for %d completed trials", len(ts.Seeds), done))
	case done > 0 && len(ts.DistinctOutcomeHashes) == 0:
		return bad("completed trials without an outcome hash")
	case done > 0 && ts.DurationMs == nil:
		return bad("completed trials without duration statistics")
	case ts.DurationMs != nil && (ts.DurationMs.Minimum > ts.DurationMs.Median || ts.DurationMs.Median > ts.DurationMs.P95):
		return bad("durations are not ordered minimum ≤ median ≤ p95")
	}
	switch ts.Classification {
	case "REPEATED_STABLE":
		if done < 2 || ts.Counts.Success != done || len(ts.DistinctOutcomeHashes) != 1 {
			return CodeFalseStabilityClaim, fmt.Sprintf("REPEATED_STABLE needs ≥ 2 trials, all successful, one outcome hash; got %d trials, %d successful, %d hashes", done, ts.Counts.Success, len(ts.DistinctOutcomeHashes)), nil
		}
	case "SINGLE_OBSERVATION":
		if done != 1 {
			return bad(fmt.Sprintf("SINGLE_OBSERVATION with %d completed trials", done))
		}
	case "INCOMPLETE":
		if ts.Counts.Incomplete == 0 && done == ts.PlannedTrials {
			return bad("INCOMPLETE although every planned trial completed without an incomplete result")
		}
	}
	return "", "", nil
}

// DeriveClass derives the evidence class of REFERENCE §4.1 from passing
// integrity-bound observations and bound source evidence.
func DeriveClass(b *bundle.Bundle) bundle.EvidenceClass {
	passing := map[string]bool{}
	for _, o := range b.Evidence.Observations {
		if o.Strength == bundle.StrengthIntegrityBound && o.Outcome == "PASS" {
			passing[o.Type] = true
		}
	}
	hasSource := len(b.Evidence.SourceEvidenceRefs) > 0
	if hasSource {
		paths := make(map[string]bool, len(b.Integrity.Artifacts))
		for _, a := range b.Integrity.Artifacts {
			paths[a.Path] = true
		}
		for _, ref := range b.Evidence.SourceEvidenceRefs {
			if !paths[ref] {
				hasSource = false
				break
			}
		}
	}
	switch {
	case passing[bundle.ObsProcessExecution] && passing[bundle.ObsProtocolExchange] && hasSource:
		return bundle.GenuineRuntime
	case passing[bundle.ObsProtocolExchange] && passing[bundle.ObsFixtureExecution]:
		return bundle.FixtureBackedProtocol
	case passing[bundle.ObsFixtureExecution]:
		return bundle.FixtureVerified
	case passing[bundle.ObsInstallationExecution]:
		return bundle.InstallationVerified
	}
	return bundle.DocumentedOnly
}

// g. Evidence class: claim and statement must equal the derived class.
func (c *coreCheck) evidenceClass() (string, string, error) {
	derived := DeriveClass(c.b)
	for _, f := range []struct{ name, got string }{
		{"evidenceClassClaim", c.ev.EvidenceClassClaim},
		{"statement.evidenceClass", c.b.Statement.EvidenceClass},
	} {
		// The schema admits the five classes only: a name that does not
		// parse cannot reach here, and would differ from any class.
		if got, err := bundle.ParseEvidenceClass(f.got); err != nil || got != derived {
			return CodeEvidenceClassPromotion, fmt.Sprintf("%s is %s, the observations derive %s", f.name, f.got, derived), nil
		}
	}
	return "", "", nil
}

// h. A PASS needs passing cleanup and privacy observations.
func (c *coreCheck) completion() (string, string, error) {
	if c.b.Statement.Result != "PASS" {
		return "", "", nil
	}
	var cleanup, privacy bool
	for _, o := range c.ev.Observations {
		if o.Strength == bundle.StrengthIntegrityBound && o.Outcome == "PASS" {
			cleanup = cleanup || o.Type == bundle.ObsCleanupCheck
			privacy = privacy || o.Type == bundle.ObsPrivacyScan
		}
	}
	if !cleanup || !privacy {
		return CodeCompletionUnobserved, fmt.Sprintf("result PASS without passing observations: CLEANUP_CHECK %t, PRIVACY_SCAN %t", cleanup, privacy), nil
	}
	return "", "", nil
}

// SupportingManifestDigest computes evidence.supportingArtifactManifestDigest
// from the manifest entries (REFERENCE §2.1): every entry except the evidence
// and statement entries, sorted by path.
func SupportingManifestDigest(artifacts []*canonjson.Value) (string, error) {
	var s []*canonjson.Value
	for _, a := range artifacts {
		if p := a.Get("path").Str; p != bundle.EvidencePath && p != bundle.StatementPath {
			s = append(s, a)
		}
	}
	return manifestDigest(s)
}

// BundleDigest computes integrity.bundleDigest over all manifest entries.
func BundleDigest(artifacts []*canonjson.Value) (string, error) {
	return manifestDigest(slices.Clone(artifacts))
}

func manifestDigest(entries []*canonjson.Value) (string, error) {
	slices.SortStableFunc(entries, func(a, b *canonjson.Value) int {
		return cmp.Compare(a.Get("path").Str, b.Get("path").Str)
	})
	sum, _, err := digest(canonjson.NewObject(canonjson.Member{Key: "artifacts", Value: canonjson.NewArray(entries...)}))
	return sum, err
}

// manifestDigests returns SupportingManifestDigest and BundleDigest of
// artifacts with one canonical encoding of each entry: both digest
// {"artifacts":[…]} over entries sorted by path, whose canonical bytes
// are the entries' canonical bytes joined by commas.
func manifestDigests(artifacts []*canonjson.Value) (sup, all string, err error) {
	// An entry takes 150–200 canonical bytes: one buffer, rarely grown.
	enc := make([]byte, 0, 192*len(artifacts))
	ends := make([]int, len(artifacts))
	for i, a := range artifacts {
		if enc, err = canonjson.AppendCanonical(enc, a); err != nil {
			return "", "", err
		}
		ends[i] = len(enc)
	}
	order := make([]int, len(artifacts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(artifacts[a].Get("path").Str, artifacts[b].Get("path").Str)
	})
	// The joined bytes go straight into the hash, not into a copy.
	h := sha256.New()
	join := func(keep func(*canonjson.Value) bool) string {
		h.Reset()
		h.Write([]byte(`{"artifacts":[`))
		first := true
		for _, i := range order {
			if !keep(artifacts[i]) {
				continue
			}
			if !first {
				h.Write([]byte{','})
			}
			first = false
			start := 0
			if i > 0 {
				start = ends[i-1]
			}
			h.Write(enc[start:ends[i]])
		}
		h.Write([]byte(`]}`))
		var sum [sha256.Size]byte
		return hex.EncodeToString(h.Sum(sum[:0]))
	}
	sup = join(func(a *canonjson.Value) bool {
		p := a.Get("path").Str
		return p != bundle.EvidencePath && p != bundle.StatementPath
	})
	all = join(func(*canonjson.Value) bool { return true })
	return sup, all, nil
}

// i. Integrity manifest digests.
func (c *coreCheck) digests() (string, string, error) {
	bad := func(why string) (string, string, error) { return CodeDigestMismatch, why, nil }
	seen := make(map[string]bool, len(c.b.Integrity.Artifacts))
	for _, a := range c.b.Integrity.Artifacts {
		if seen[a.Path] {
			return bad("manifest lists " + a.Path + " twice")
		}
		seen[a.Path] = true
	}
	artValues := c.doc.Path("integrity", "artifacts").Items
	sup, all, err := manifestDigests(artValues)
	if err != nil {
		// Some entry has no canonical form: digest as the reference
		// orders it, so the same step reports the same failure.
		sup, all = "", ""
		if sup, err = SupportingManifestDigest(artValues); err != nil {
			return "", "", err
		}
	}
	if sup != c.ev.SupportingArtifactManifestDigest {
		return bad(fmt.Sprintf("supportingArtifactManifestDigest is %s, the manifest digests to %s", c.ev.SupportingArtifactManifestDigest, sup))
	}
	for _, part := range []struct{ path, member string }{{bundle.EvidencePath, "evidence"}, {bundle.StatementPath, "statement"}} {
		digestOf := func() (string, int, error) { return digest(c.doc.Get(part.member)) }
		if part.member == "evidence" {
			digestOf = c.evidenceDigest
		}
		sum, n, err := digestOf()
		if err != nil {
			return "", "", err
		}
		a := c.arts[part.path]
		if a == nil {
			return bad("manifest has no " + part.path + " entry")
		}
		if a.Sha256 != sum || a.Bytes != int64(n) {
			return bad(fmt.Sprintf("%s entry is %s (%d bytes), %s digests to %s (%d bytes)", part.path, a.Sha256, a.Bytes, part.member, sum, n))
		}
	}
	if all == "" {
		if all, err = BundleDigest(artValues); err != nil {
			return "", "", err
		}
	}
	if all != c.b.Integrity.BundleDigest {
		return bad(fmt.Sprintf("bundleDigest is %s, the manifest digests to %s", c.b.Integrity.BundleDigest, all))
	}
	return "", "", nil
}

// ExecutionMaterial is the object whose digest is
// statement.executionInstanceDigest (REFERENCE §2.1).
func ExecutionMaterial(doc *canonjson.Value) *canonjson.Value {
	ev := doc.Get("evidence")
	obs := ev.Get("observations").Items
	digests := make([]*canonjson.Value, len(obs))
	for i, o := range obs {
		digests[i] = o.Get("observationSha256")
	}
	return canonjson.NewObject(
		canonjson.Member{Key: "scenarioFingerprint", Value: ev.Path("scenario", "fingerprint")},
		canonjson.Member{Key: "run", Value: ev.Get("run")},
		canonjson.Member{Key: "observationDigests", Value: canonjson.NewArray(digests...)},
		canonjson.Member{Key: "actualOutcome", Value: doc.Path("statement", "result")},
		canonjson.Member{Key: "supportingArtifactManifestDigest", Value: ev.Get("supportingArtifactManifestDigest")},
	)
}

// j. Execution instance digest.
func (c *coreCheck) executionDigest() (string, string, error) {
	sum, _, err := digest(ExecutionMaterial(c.doc))
	if err != nil {
		return "", "", err
	}
	if sum != c.b.Statement.ExecutionInstanceDigest {
		return CodeExecutionDigestMismatch, fmt.Sprintf("executionInstanceDigest is %s, the execution material digests to %s", c.b.Statement.ExecutionInstanceDigest, sum), nil
	}
	return "", "", nil
}

// k. Statement mirrors of the evidence.
func (c *coreCheck) mirrors() (string, string, error) {
	s, ev := &c.b.Statement, c.ev
	evSum, _, err := c.evidenceDigest()
	if err != nil {
		return "", "", err
	}
	for _, m := range []struct {
		name      string
		got, want string
	}{
		{"standardVersion", s.StandardVersion, ev.StandardVersion},
		{"profileId", s.ProfileID, ev.Profile.ID},
		{"profileVersion", s.ProfileVersion, ev.Profile.Version},
		{"protocolRevision", s.ProtocolRevision, ev.ProtocolRevision},
		{"subjectType", s.SubjectType, ev.Subject.SubjectType},
		{"subjectName", s.SubjectName, ev.Subject.Name},
		{"subjectVersion", s.SubjectVersion, ev.Subject.Version},
		{"scenarioFingerprint", s.ScenarioFingerprint, ev.Scenario.Fingerprint},
		{"stabilityClassification", s.StabilityClassification, ev.TrialSummary.Classification},
		{"evidenceSha256", s.EvidenceSha256, evSum},
	} {
		if m.got != m.want {
			return CodeCausalMismatch, fmt.Sprintf("statement.%s is %q, the evidence says %q", m.name, m.got, m.want), nil
		}
	}
	if !canonjson.Equal(c.doc.Path("statement", "validator"), c.doc.Path("evidence", "scenario", "descriptor", "validatorPolicy")) {
		return CodeCausalMismatch, "statement.validator differs from descriptor.validatorPolicy", nil
	}
	return "", "", nil
}
