package bundle_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
)

// upstreamValid returns the upstream v0.2.0 valid vectors, read from the
// shared tree beside the repository (never copied into it), and skips the
// test when that tree is absent.
func upstreamValid(t *testing.T) []string {
	t.Helper()
	dir := upstreamtest.Dir(t, "..", "v0.2.0/valid") // read from ../shared, never vendored
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no upstream vectors in %s", dir)
	}
	return files
}

func readVector(t *testing.T, path string) *canonjson.Value {
	t.Helper()
	_, v, err := canonjson.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func canonical(t testing.TB, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func digestOf(t testing.TB, v *canonjson.Value) (string, int) {
	t.Helper()
	sum, n, err := canonjson.Digest(v)
	if err != nil {
		t.Fatal(err)
	}
	return sum, n
}

var blank = canonjson.NewString

// statementMirrors are the statement members Seal copies from the evidence.
var statementMirrors = []string{
	"standardVersion", "profileId", "profileVersion", "protocolRevision", "subjectType",
	"subjectName", "subjectVersion", "evidenceClass", "scenarioFingerprint", "stabilityClassification",
}

// blankDigests erases everything Seal computes: digests become "", statement
// mirrors "" (the validator mirror is removed), observation manifest entries
// lose their sha256 and bytes, and the evidence and statement entries go.
func blankDigests(v *canonjson.Value) {
	ev := v.Get("evidence")
	ev.Get("subject").Set("identityDigest", blank(""))
	ev.Path("scenario", "descriptor").Set("subjectIdentityDigest", blank(""))
	ev.Get("scenario").Set("fingerprint", blank(""))
	for _, o := range ev.Get("observations").Items {
		o.Set("subjectRef", blank(""))
		o.Set("observationSha256", blank(""))
	}
	ev.Set("supportingArtifactManifestDigest", blank(""))
	st := v.Get("statement")
	for _, k := range statementMirrors {
		st.Set(k, blank(""))
	}
	st.Set("evidenceSha256", blank(""))
	st.Set("executionInstanceDigest", blank(""))
	st.Delete("validator")
	in := v.Get("integrity")
	arts := in.Get("artifacts")
	var kept []*canonjson.Value
	for _, e := range arts.Items {
		switch e.Get("path").Str {
		case bundle.EvidencePath, bundle.StatementPath:
			continue
		}
		e.Set("sha256", blank(""))
		e.Set("bytes", canonjson.NewInt(0))
		kept = append(kept, e)
	}
	arts.Items = kept
	in.Set("bundleDigest", blank(""))
}

// Sealing a blanked upstream valid vector must give back its exact canonical
// bytes: every digest rule of §2.1 and §2.2 is byte-compatible.
func TestSealReproducesUpstreamValid(t *testing.T) {
	blankings := []struct {
		name  string
		blank func(*canonjson.Value)
	}{
		{"blanked", blankDigests},
		{"no-integrity", func(v *canonjson.Value) {
			blankDigests(v)
			v.Delete("integrity")
		}},
		{"reversed-manifest", func(v *canonjson.Value) {
			blankDigests(v)
			items := v.Path("integrity", "artifacts").Items
			for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
				items[i], items[j] = items[j], items[i]
			}
		}},
	}
	for _, f := range upstreamValid(t) {
		want := canonical(t, readVector(t, f))
		for _, bl := range blankings {
			t.Run(filepath.Base(f)+"/"+bl.name, func(t *testing.T) {
				v := readVector(t, f)
				bl.blank(v)
				if bytes.Equal(canonical(t, v), want) {
					t.Fatal("blanking changed nothing")
				}
				if err := bundle.Seal(v); err != nil {
					t.Fatal(err)
				}
				if got := canonical(t, v); !bytes.Equal(got, want) {
					t.Errorf("sealed canonical bytes differ from the vector's:\n got %s\nwant %s", got, want)
				}
			})
		}
	}
}

// The digest goldens of REFERENCE §2.4, produced by Seal from a blanked
// reason-bound-negative.json.
func TestSealGoldensReasonBoundNegative(t *testing.T) {
	var path string
	for _, f := range upstreamValid(t) {
		if filepath.Base(f) == "reason-bound-negative.json" {
			path = f
		}
	}
	if path == "" {
		t.Skip("reason-bound-negative.json not available")
	}
	v := readVector(t, path)
	blankDigests(v)
	if err := bundle.Seal(v); err != nil {
		t.Fatal(err)
	}
	ev, st, in := v.Get("evidence"), v.Get("statement"), v.Get("integrity")

	// The execution material is rebuilt here from §2.1, not taken from Seal.
	var obsDigests []*canonjson.Value
	for _, o := range ev.Get("observations").Items {
		obsDigests = append(obsDigests, o.Get("observationSha256"))
	}
	material := canonjson.NewObject(
		canonjson.Member{Key: "scenarioFingerprint", Value: ev.Path("scenario", "fingerprint")},
		canonjson.Member{Key: "run", Value: ev.Get("run")},
		canonjson.Member{Key: "observationDigests", Value: canonjson.NewArray(obsDigests...)},
		canonjson.Member{Key: "actualOutcome", Value: st.Get("result")},
		canonjson.Member{Key: "supportingArtifactManifestDigest", Value: ev.Get("supportingArtifactManifestDigest")},
	)
	if sum, n := digestOf(t, material); sum != "b2a6bb75649f441461e8df9c43936d1248126860d4a39ea07f6bc2455ecd4095" || n != 1074 {
		t.Errorf("execution material digest = %s (%d bytes), want b2a6bb75… (1074 bytes)", sum, n)
	}
	for _, c := range []struct {
		name, got, want string
	}{
		{"subject.identityDigest", ev.Path("subject", "identityDigest").Str, "b9556404d13de805a962089152d733f08001e603df62bfdee2c59caa739dca5a"},
		{"scenario.fingerprint", ev.Path("scenario", "fingerprint").Str, "af617a946877bcfb5b2a1fc2feb3b353d1ba7f845f301bd70b7cbac65d811123"},
		{"executionInstanceDigest", st.Get("executionInstanceDigest").Str, "b2a6bb75649f441461e8df9c43936d1248126860d4a39ea07f6bc2455ecd4095"},
		{"supportingArtifactManifestDigest", ev.Get("supportingArtifactManifestDigest").Str, "e4355709f683eccf6d2bf0a36a093917722548c5f94d50d7541cfd705ce599cb"},
		{"evidenceSha256", st.Get("evidenceSha256").Str, "95d8ceb38be1a7e9c5a84cff13e0fc71c842bb0eb50369352f5f3b286f37460c"},
		{"bundleDigest", in.Get("bundleDigest").Str, "1155b3cd9ba1a8c5db05add3652b8cb312a6064df71dd81e70cd276ff699573f"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if sum, n := digestOf(t, v); sum != "566de6b7dd5e93e29f81fe7463f3330a143889dcaa719e5d149e4776f4128e3c" || n != 11291 {
		t.Errorf("canonical bundle = %s (%d bytes), want 566de6b7… (11291 bytes)", sum, n)
	}
}

func TestSealIdempotent(t *testing.T) {
	v := bundletest.Draft(t)
	if err := bundle.Seal(v); err != nil {
		t.Fatal(err)
	}
	once, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := bundle.Seal(v); err != nil {
		t.Fatal(err)
	}
	twice, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(once, twice) {
		t.Errorf("sealing twice changed the bundle:\n%s\nvs\n%s", once, twice)
	}
}

// A fault injected before a stage survives SealFrom(that stage), while every
// later digest is bound to it; SealFrom(StageSubject) repairs it.
func TestSealFromKeepsInjectedFault(t *testing.T) {
	const bogus = "0000000000000000000000000000000000000000000000000000000000000000"
	for st := bundle.StageObservations; st <= bundle.StageIntegrity; st++ {
		t.Run(st.String(), func(t *testing.T) {
			v := bundletest.Example(t)
			obs := v.Path("evidence", "observations").Items[0]
			staleObs := obs.Get("observationSha256").Str
			obs.Set("subjectRef", canonjson.NewString(bogus))
			if err := bundle.SealFrom(v, st); err != nil {
				t.Fatal(err)
			}
			if got := obs.Get("subjectRef").Str; got != bogus {
				t.Fatalf("subjectRef = %s, want the injected %s", got, bogus)
			}
			if id := v.Path("evidence", "subject", "identityDigest").Str; id == bogus {
				t.Fatal("identityDigest took the injected value")
			}
			fresh, _ := digestOf(t, obs.Without("observationSha256"))
			wantObs := staleObs // stages after StageObservations leave the observation digest alone
			if st == bundle.StageObservations {
				wantObs = fresh
			}
			if got := obs.Get("observationSha256").Str; got != wantObs {
				t.Errorf("observationSha256 = %s, want %s", got, wantObs)
			}
			// Later digests are consistent with the faulty evidence.
			evSum, _ := digestOf(t, v.Get("evidence"))
			if got := v.Path("statement", "evidenceSha256").Str; st <= bundle.StageStatement && got != evSum {
				t.Errorf("evidenceSha256 = %s, want %s", got, evSum)
			}
			checkIntegrity(t, v)

			if err := bundle.SealFrom(v, bundle.StageSubject); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(canonical(t, v), canonical(t, bundletest.Example(t))) {
				t.Error("SealFrom(StageSubject) did not restore the example")
			}
		})
	}
}

// checkIntegrity recomputes the evidence and statement entries and the
// bundle digest independently of Seal.
func checkIntegrity(t *testing.T, v *canonjson.Value) {
	t.Helper()
	entries := map[string]*canonjson.Value{}
	for _, e := range v.Path("integrity", "artifacts").Items {
		entries[e.Get("path").Str] = e
	}
	for path, doc := range map[string]*canonjson.Value{bundle.EvidencePath: v.Get("evidence"), bundle.StatementPath: v.Get("statement")} {
		sum, n := digestOf(t, doc)
		e := entries[path]
		if e == nil || e.Get("sha256").Str != sum || e.Get("bytes").Int != int64(n) || e.Get("mediaType").Str != bundle.JSONMediaType {
			t.Errorf("manifest entry %s = %v, want sha256 %s, bytes %d", path, e, sum, n)
		}
	}
	all := canonjson.NewObject(canonjson.Member{Key: "artifacts", Value: v.Path("integrity", "artifacts")})
	if sum, _ := digestOf(t, all); v.Path("integrity", "bundleDigest").Str != sum {
		t.Errorf("bundleDigest = %s, want %s", v.Path("integrity", "bundleDigest").Str, sum)
	}
}

func TestSealCreatesMissingContainers(t *testing.T) {
	v := bundletest.Draft(t)
	v.Delete("integrity")
	if err := bundle.Seal(v); err != nil {
		t.Fatal(err)
	}
	in := v.Get("integrity")
	var keys []string
	for _, m := range in.Members {
		keys = append(keys, m.Key)
	}
	want := "schemaVersion canonicalizationAlgorithm hashAlgorithm publication complete artifacts bundleDigest"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("new integrity members = %s, want %s", got, want)
	}
	var paths []string
	for _, e := range in.Get("artifacts").Items {
		paths = append(paths, e.Get("path").Str)
	}
	wantPaths := "conformance-statement.json evidence-envelope.json observations/obs-cleanup-verify.json " +
		"observations/obs-fixture-truncation.json observations/obs-oracle-truncation.json " +
		"observations/obs-privacy-sweep.json observations/obs-proc-spawn.json observations/obs-wire-exchange.json"
	if got := strings.Join(paths, " "); got != wantPaths {
		t.Errorf("artifact paths = %s\nwant %s", got, wantPaths)
	}
	checkIntegrity(t, v)

	// An integrity object without artifacts gets the array appended.
	v = bundletest.Draft(t)
	v.Get("integrity").Delete("artifacts")
	if err := bundle.Seal(v); err != nil {
		t.Fatal(err)
	}
	if n := len(v.Path("integrity", "artifacts").Items); n != 8 {
		t.Errorf("artifacts has %d entries, want 8", n)
	}
}

// Duplicate manifest paths are kept (the validator reports them); the last
// entry with an observation's path is the one Seal binds.
func TestSealKeepsDuplicatePaths(t *testing.T) {
	v := bundletest.Example(t)
	arts := v.Path("integrity", "artifacts")
	var dup *canonjson.Value
	for _, e := range arts.Items {
		if e.Get("path").Str == "observations/obs-proc-spawn.json" {
			dup = e.Clone()
		}
	}
	dup.Set("sha256", canonjson.NewString(strings.Repeat("ab", 32)))
	arts.Items = append([]*canonjson.Value{dup}, arts.Items...) // dup first, the original later
	if err := bundle.SealFrom(v, bundle.StageObservations); err != nil {
		t.Fatal(err)
	}
	var seen []*canonjson.Value
	for _, e := range arts.Items {
		if e.Get("path").Str == "observations/obs-proc-spawn.json" {
			seen = append(seen, e)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("%d entries for the duplicated path, want 2", len(seen))
	}
	if seen[0] != dup || seen[0].Get("sha256").Str != strings.Repeat("ab", 32) {
		t.Error("the earlier duplicate was changed or moved after the later one")
	}
	if len(arts.Items) != 10 {
		t.Errorf("artifacts has %d entries, want 10", len(arts.Items))
	}
	checkIntegrity(t, v)
}

func TestSealErrors(t *testing.T) {
	cases := []struct {
		name     string
		mutate   func(v *canonjson.Value)
		from     bundle.Stage
		stage    bundle.Stage
		path     string
		contains string
	}{
		{"root not object", func(v *canonjson.Value) { *v = *canonjson.NewArray() }, bundle.StageSubject, bundle.StageSubject, "", "got an array, want an object"},
		{"no evidence", func(v *canonjson.Value) { v.Delete("evidence") }, bundle.StageSubject, bundle.StageSubject, "/evidence", "missing"},
		{"no subject name", func(v *canonjson.Value) { v.Path("evidence", "subject").Delete("name") }, bundle.StageSubject, bundle.StageSubject, "/evidence/subject/name", "missing"},
		{"no descriptor", func(v *canonjson.Value) { v.Path("evidence", "scenario").Delete("descriptor") }, bundle.StageSubject, bundle.StageSubject, "/evidence/scenario/descriptor", "want an object"},
		{"observations not array", func(v *canonjson.Value) { v.Get("evidence").Set("observations", canonjson.NewObject()) }, bundle.StageSubject, bundle.StageSubject, "/evidence/observations", "got an object, want an array"},
		{"observation not object", func(v *canonjson.Value) { v.Path("evidence", "observations").Items[3] = canonjson.NewNull() }, bundle.StageSubject, bundle.StageSubject, "/evidence/observations/3", "got a null, want an object"},
		{"empty artifactRefs", func(v *canonjson.Value) {
			v.Path("evidence", "observations").Items[2].Set("artifactRefs", canonjson.NewArray())
		}, bundle.StageSubject, bundle.StageObservations, "/evidence/observations/2/artifactRefs", "is empty"},
		{"artifactRef not string", func(v *canonjson.Value) {
			v.Path("evidence", "observations").Items[1].Set("artifactRefs", canonjson.NewArray(canonjson.NewInt(7)))
		}, bundle.StageSubject, bundle.StageObservations, "/evidence/observations/1/artifactRefs/0", "got an integer, want a string"},
		{"integrity not object", func(v *canonjson.Value) { v.Set("integrity", canonjson.NewString("x")) }, bundle.StageSubject, bundle.StageObservations, "/integrity", "got a string, want an object"},
		{"entry without path", func(v *canonjson.Value) { v.Path("integrity", "artifacts").Items[0].Delete("path") }, bundle.StageSubject, bundle.StageObservations, "/integrity/artifacts/0/path", "missing"},
		{"no statement", func(v *canonjson.Value) { v.Delete("statement") }, bundle.StageSubject, bundle.StageStatement, "/statement", "missing"},
		{"no result", func(v *canonjson.Value) { v.Get("statement").Delete("result") }, bundle.StageSubject, bundle.StageStatement, "/statement/result", "never derives"},
		{"no validator policy", func(v *canonjson.Value) { v.Path("evidence", "scenario", "descriptor").Delete("validatorPolicy") }, bundle.StageScenario, bundle.StageStatement, "/evidence/scenario/descriptor/validatorPolicy", "missing"},
		{"no run", func(v *canonjson.Value) { v.Get("evidence").Delete("run") }, bundle.StageSubject, bundle.StageStatement, "/evidence/run", "missing"},
		{"no observation digest", func(v *canonjson.Value) { v.Path("evidence", "observations").Items[4].Delete("observationSha256") }, bundle.StageScenario, bundle.StageStatement, "/evidence/observations/4/observationSha256", "missing"},
		{"no canonical form", func(v *canonjson.Value) {
			v.Path("evidence", "run").Set("monotonicDurationMs", canonjson.NewInt(canonjson.MaxSafeInteger+1))
		}, bundle.StageSubject, bundle.StageStatement, "/statement/executionInstanceDigest", "no canonical form"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := bundletest.Draft(t)
			c.mutate(v)
			before := v.Clone()
			err := bundle.SealFrom(v, c.from)
			var se *bundle.SealError
			if !errors.As(err, &se) {
				t.Fatalf("SealFrom = %v, want a *SealError", err)
			}
			if se.Stage != c.stage || se.Path != c.path || !strings.Contains(se.Reason, c.contains) {
				t.Errorf("error = stage %s, path %q, reason %q; want stage %s, path %q, reason containing %q",
					se.Stage, se.Path, se.Reason, c.stage, c.path, c.contains)
			}
			if !strings.Contains(err.Error(), "bundle: seal "+c.stage.String()+": ") {
				t.Errorf("message %q does not name the stage", err)
			}
			if !canonjson.Equal(v, before) || !sameOrder(v, before) {
				t.Error("a failed seal modified the draft")
			}
		})
	}
	if err := bundle.SealFrom(bundletest.Draft(t), bundle.StageIntegrity+1); err == nil {
		t.Error("SealFrom accepted an unknown stage")
	}
}

// sameOrder reports whether a and b are equal with object members in the
// same order (it does not need a canonical form, unlike Compact).
func sameOrder(a, b *canonjson.Value) bool {
	if a == nil || b == nil || a.Kind != b.Kind {
		return a == b
	}
	switch a.Kind {
	case canonjson.Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !sameOrder(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	case canonjson.Object:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for i := range a.Members {
			if a.Members[i].Key != b.Members[i].Key || !sameOrder(a.Members[i].Value, b.Members[i].Value) {
				return false
			}
		}
		return true
	}
	return canonjson.Equal(a, b)
}

// diffPaths appends the JSON Pointers at which a and b differ (member order
// included); an array of a different length is one difference.
func diffPaths(a, b *canonjson.Value, path string, out *[]string) {
	switch {
	case a == nil || b == nil || a.Kind != b.Kind:
		*out = append(*out, path)
	case a.Kind == canonjson.Object:
		for i, m := range a.Members {
			if i >= len(b.Members) || b.Members[i].Key != m.Key {
				*out = append(*out, path+" (member order)")
				return
			}
			diffPaths(m.Value, b.Members[i].Value, path+"/"+canonjson.EscapePointer(m.Key), out)
		}
		if len(b.Members) != len(a.Members) {
			*out = append(*out, path+" (members)")
		}
	case a.Kind == canonjson.Array:
		if len(a.Items) != len(b.Items) {
			*out = append(*out, path)
			return
		}
		for i := range a.Items {
			diffPaths(a.Items[i], b.Items[i], path+"/"+strconv.Itoa(i), out)
		}
	case !canonjson.Equal(a, b):
		*out = append(*out, path)
	}
}

// Seal writes only the members it documents, in place: everything else in
// the sealed example, member order included, is as in the draft.
func TestSealTouchesOnlyDerivedMembers(t *testing.T) {
	derived := regexp.MustCompile(`^(` + strings.Join([]string{
		`/evidence/subject/identityDigest`,
		`/evidence/scenario/descriptor/subjectIdentityDigest`,
		`/evidence/scenario/fingerprint`,
		`/evidence/observations/\d+/(subjectRef|observationSha256)`,
		`/evidence/supportingArtifactManifestDigest`,
		`/statement/(` + strings.Join(statementMirrors, "|") + `|validator|evidenceSha256|executionInstanceDigest)`,
		`/integrity/artifacts`,
		`/integrity/bundleDigest`,
	}, "|") + `)$`)
	var diffs []string
	diffPaths(bundletest.Draft(t), bundletest.Example(t), "", &diffs)
	if len(diffs) < 30 {
		t.Errorf("only %d members differ between draft and sealed example: %v", len(diffs), diffs)
	}
	for _, d := range diffs {
		if !derived.MatchString(d) {
			t.Errorf("Seal changed %s", d)
		}
	}
}

func TestStageString(t *testing.T) {
	want := []string{"subject", "observations", "scenario", "evidence", "statement", "integrity"}
	for st := bundle.StageSubject; st <= bundle.StageIntegrity; st++ {
		if st.String() != want[st] {
			t.Errorf("Stage(%d) = %q, want %q", int(st), st, want[st])
		}
	}
	if s := bundle.Stage(42).String(); s != "Stage(42)" {
		t.Errorf("Stage(42) = %q", s)
	}
}

// The stage guide in SealFrom's documentation: each fault survives re-sealing
// from the stage it names, and the manifest stays consistent with it.
func TestSealFromGuide(t *testing.T) {
	const bogus = "1111111111111111111111111111111111111111111111111111111111111111"
	obs0 := func(v *canonjson.Value) *canonjson.Value { return v.Path("evidence", "observations").Items[0] }
	entry := func(v *canonjson.Value, path string) *canonjson.Value {
		for _, e := range v.Path("integrity", "artifacts").Items {
			if e.Get("path").Str == path {
				return e
			}
		}
		t.Fatalf("no manifest entry %s", path)
		return nil
	}
	cases := []struct {
		name  string
		stage bundle.Stage
		at    func(v *canonjson.Value) (obj *canonjson.Value, key string)
	}{
		{"run id", bundle.StageSubject, func(v *canonjson.Value) (*canonjson.Value, string) { return v.Path("evidence", "run"), "id" }},
		{"result", bundle.StageSubject, func(v *canonjson.Value) (*canonjson.Value, string) { return v.Get("statement"), "result" }},
		{"transcript entry", bundle.StageSubject, func(v *canonjson.Value) (*canonjson.Value, string) {
			return entry(v, "transcripts/wire-exchange.jsonl"), "sha256"
		}},
		{"identityDigest", bundle.StageObservations, func(v *canonjson.Value) (*canonjson.Value, string) {
			return v.Path("evidence", "subject"), "identityDigest"
		}},
		{"subjectIdentityDigest", bundle.StageObservations, func(v *canonjson.Value) (*canonjson.Value, string) {
			return v.Path("evidence", "scenario", "descriptor"), "subjectIdentityDigest"
		}},
		{"subjectRef", bundle.StageObservations, func(v *canonjson.Value) (*canonjson.Value, string) { return obs0(v), "subjectRef" }},
		{"observationSha256", bundle.StageScenario, func(v *canonjson.Value) (*canonjson.Value, string) { return obs0(v), "observationSha256" }},
		{"observation entry", bundle.StageScenario, func(v *canonjson.Value) (*canonjson.Value, string) {
			return entry(v, "observations/obs-proc-spawn.json"), "sha256"
		}},
		{"fingerprint", bundle.StageEvidence, func(v *canonjson.Value) (*canonjson.Value, string) {
			return v.Path("evidence", "scenario"), "fingerprint"
		}},
		{"supporting digest", bundle.StageStatement, func(v *canonjson.Value) (*canonjson.Value, string) {
			return v.Get("evidence"), "supportingArtifactManifestDigest"
		}},
		{"mirror", bundle.StageIntegrity, func(v *canonjson.Value) (*canonjson.Value, string) { return v.Get("statement"), "subjectName" }},
		{"evidenceSha256", bundle.StageIntegrity, func(v *canonjson.Value) (*canonjson.Value, string) { return v.Get("statement"), "evidenceSha256" }},
		{"executionInstanceDigest", bundle.StageIntegrity, func(v *canonjson.Value) (*canonjson.Value, string) {
			return v.Get("statement"), "executionInstanceDigest"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := bundletest.Example(t)
			obj, key := c.at(v)
			obj.Set(key, canonjson.NewString(bogus))
			if err := bundle.SealFrom(v, c.stage); err != nil {
				t.Fatal(err)
			}
			obj, key = c.at(v)
			if got := obj.Get(key).Str; got != bogus {
				t.Errorf("%s = %s after SealFrom(%s), want the injected value", key, got, c.stage)
			}
			checkIntegrity(t, v)
			if c.stage > bundle.StageSubject {
				// One stage earlier repairs it.
				if err := bundle.SealFrom(v, c.stage-1); err != nil {
					t.Fatal(err)
				}
				if obj, key = c.at(v); obj.Get(key).Str == bogus {
					t.Errorf("SealFrom(%s) kept the injected %s", c.stage-1, key)
				}
			}
		})
	}
}
