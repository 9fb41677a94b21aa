package bundle

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpres/mcpres/canonjson"
)

// A Stage is one step of sealing a draft bundle. Stages run in the order of
// their values; each reads what earlier stages wrote, so after a change to a
// sealed bundle only the stages from the first one that reads the changed
// member on need to run again (SealFrom).
type Stage int

// The sealing stages, in order. See Seal for what each computes.
const (
	StageSubject Stage = iota
	StageObservations
	StageScenario
	StageEvidence
	StageStatement
	StageIntegrity
)

func (s Stage) String() string {
	switch s {
	case StageSubject:
		return "subject"
	case StageObservations:
		return "observations"
	case StageScenario:
		return "scenario"
	case StageEvidence:
		return "evidence"
	case StageStatement:
		return "statement"
	case StageIntegrity:
		return "integrity"
	}
	return "Stage(" + strconv.Itoa(int(s)) + ")"
}

// A SealError reports a draft that cannot be sealed: a member a stage reads
// is missing or has the wrong JSON type, or a value has no canonical form
// (Err is then the *canonjson.CanonicalError).
type SealError struct {
	Stage  Stage
	Path   string // RFC 6901 JSON Pointer of the offending member; "" is the root
	Reason string
	Err    error // underlying error, or nil
}

func (e *SealError) Error() string {
	p := e.Path
	if p == "" {
		p = "(root)"
	}
	msg := "bundle: seal " + e.Stage.String() + ": " + p + ": " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *SealError) Unwrap() error { return e.Err }

// Seal computes, in place, every digest and derived member of a draft
// mcp-res.conformance-bundle/0.2.0 (REFERENCE §2.1, §2.2, §3.1.9). It is
// SealFrom(draft, StageSubject).
//
// The stages, in order, and exactly what each writes:
//
//   - StageSubject: evidence.subject.identityDigest = sha256 of the canonical
//     object {subjectType, name, version, artifactSha256} taken from
//     evidence.subject (the producer convention of §2.1; validators never
//     recompute it). The same digest is copied to
//     evidence.scenario.descriptor.subjectIdentityDigest and to the
//     subjectRef of every observation.
//   - StageObservations: each observation's observationSha256 = sha256 of
//     the observation without that member. The integrity manifest entry whose
//     path is the observation's FIRST artifactRef gets mediaType
//     application/vnd.mcp-res.observation+json, bytes = the canonical length
//     and sha256 = the digest; when several entries have that path the last
//     one is updated (validators look paths up last-wins, §2.2), and when
//     none has it a new entry {path, mediaType, bytes, sha256} is appended.
//     Other artifactRefs are left alone: they must name entries the draft
//     already has.
//   - StageScenario: evidence.scenario.fingerprint = sha256 of the whole
//     descriptor.
//   - StageEvidence: evidence.supportingArtifactManifestDigest = sha256 of
//     {"artifacts": S}, S = every manifest entry whose path is neither
//     evidence-envelope.json nor conformance-statement.json, stably sorted by
//     path. Entries are digested as they stand (a schema-valid entry has
//     exactly bytes, mediaType, path and sha256).
//   - StageStatement: the statement mirrors of §3.1.9 — standardVersion,
//     profileId, profileVersion, protocolRevision, subjectType, subjectName,
//     subjectVersion, evidenceClass (:= evidence.evidenceClassClaim),
//     scenarioFingerprint, stabilityClassification (:= trialSummary
//     classification) and validator (:= a copy of
//     descriptor.validatorPolicy) — then evidenceSha256 = sha256 of the
//     evidence envelope and executionInstanceDigest = sha256 of
//     {scenarioFingerprint, run, observationDigests, actualOutcome,
//     supportingArtifactManifestDigest} built as §2.1 says.
//   - StageIntegrity: the constant members of §2.2 (schemaVersion,
//     canonicalizationAlgorithm, hashAlgorithm, publication, complete);
//     manifest entries evidence-envelope.json and conformance-statement.json
//     with mediaType application/json and the canonical length and sha256 of
//     the evidence and the statement (last entry with the path updated, or a
//     new one appended); the entries then stably sorted by path (duplicates
//     are kept: reporting them is the validator's job); bundleDigest last,
//     over all entries.
//
// Seal never derives or changes anything else. In particular it does not
// derive the evidence class (evidenceClassClaim is the producer's claim and
// is only mirrored; the validator checks it against §4.1), does not set
// statement.result or statement.verifiedAt (both are the producer's and are
// required or kept as they are), does not check the trial summary, coverage,
// causality or any schema rule, and does not set the schemaVersion of the
// bundle, evidence or statement. A sealed bundle is therefore
// digest-consistent but valid only if the draft was.
//
// Seal requires exactly the members the stages read, and checks nothing
// else: evidence with subject (the four identity members), scenario with its
// descriptor (and descriptor.validatorPolicy), run, observations (an array of
// objects, each with a non-empty artifactRefs array whose first element is
// a string), and the mirror sources standardVersion, profile.id,
// profile.version, protocolRevision, evidenceClassClaim and
// trialSummary.classification; a statement object with its result; and,
// when present, an integrity object whose artifacts are objects with a
// string path. Their values may be of any JSON type. Containers that can be
// invented are created when absent: the integrity object (its constant
// members, then an empty artifacts array) and its artifacts array. The
// statement is not: its result is the producer's, so a draft without a
// statement is an error. Members of existing objects keep their order;
// members Seal adds are appended.
//
// On error Seal returns a *SealError naming the stage and the JSON Pointer of
// the member at fault, and leaves draft exactly as it was.
func Seal(draft *canonjson.Value) error {
	return SealFrom(draft, StageSubject)
}

// SealFrom runs the stages of Seal from stage from to StageIntegrity.
//
// Tests use it to inject a single fault into a sealed bundle so that every
// digest is consistent with the fault and nothing else is wrong: mutate,
// then re-seal from the stage after the one that writes the mutated member.
//
//   - Members no stage writes (operations, run, coverage, trial summary,
//     result, a supporting artifact's entry...): plain Seal keeps the fault.
//   - subject.identityDigest, descriptor.subjectIdentityDigest, an
//     observation's subjectRef: SealFrom(b, StageObservations).
//   - An observation's observationSha256 or its manifest entry:
//     SealFrom(b, StageScenario).
//   - scenario.fingerprint: SealFrom(b, StageEvidence).
//   - supportingArtifactManifestDigest: SealFrom(b, StageStatement).
//   - A statement mirror, evidenceSha256, executionInstanceDigest:
//     SealFrom(b, StageIntegrity).
//   - The evidence or statement manifest entry, a manifest constant, the
//     entry order or bundleDigest: mutate after sealing; StageIntegrity
//     rewrites them.
//
// Errors and guarantees are those of Seal.
func SealFrom(b *canonjson.Value, from Stage) error {
	if from < StageSubject || from > StageIntegrity {
		return fmt.Errorf("bundle: seal: unknown stage %d", int(from))
	}
	s := &sealer{root: node{v: b}}
	for st := from; st <= StageIntegrity; st++ {
		s.stage = st
		if err := s.run(st); err != nil {
			s.rollback()
			return err
		}
	}
	return nil
}

// sealer runs the stages on one bundle. Every write goes through set or
// setItems, which record how to undo it, so a failing stage leaves the draft
// as it was.
type sealer struct {
	stage Stage
	root  node
	undo  []func()

	// Digest of the evidence computed by StageStatement, reused by
	// StageIntegrity: no stage in between writes to the evidence.
	evidenceSum string
	evidenceLen int
}

func (s *sealer) run(st Stage) error {
	if _, err := s.object(s.root); err != nil {
		return err
	}
	switch st {
	case StageSubject:
		return s.sealSubject()
	case StageObservations:
		return s.sealObservations()
	case StageScenario:
		return s.sealScenario()
	case StageEvidence:
		return s.sealEvidence()
	case StageStatement:
		return s.sealStatement()
	case StageIntegrity:
		return s.sealIntegrity()
	}
	panic("bundle: seal: unhandled stage " + st.String())
}

func (s *sealer) rollback() {
	for i := len(s.undo) - 1; i >= 0; i-- {
		s.undo[i]()
	}
	s.undo = nil
}

// subjectIdentityMembers are the members of evidence.subject that the
// producer convention of REFERENCE §2.1 digests into identityDigest.
var subjectIdentityMembers = [...]string{"subjectType", "name", "version", "artifactSha256"}

func (s *sealer) sealSubject() error {
	ev, err := s.object(s.root.at("evidence"))
	if err != nil {
		return err
	}
	subj, err := s.object(ev.at("subject"))
	if err != nil {
		return err
	}
	id := canonjson.NewObject()
	for _, k := range subjectIdentityMembers {
		m, err := s.present(subj.at(k))
		if err != nil {
			return err
		}
		id.Members = append(id.Members, canonjson.Member{Key: k, Value: m})
	}
	desc, err := s.descriptor(ev)
	if err != nil {
		return err
	}
	obs, err := s.observations(ev)
	if err != nil {
		return err
	}
	sum, _, err := s.digest(node{id, subj.path})
	if err != nil {
		return err
	}
	s.set(subj, "identityDigest", canonjson.NewString(sum))
	s.set(desc, "subjectIdentityDigest", canonjson.NewString(sum))
	for _, o := range obs {
		s.set(o, "subjectRef", canonjson.NewString(sum))
	}
	return nil
}

func (s *sealer) sealObservations() error {
	ev, err := s.object(s.root.at("evidence"))
	if err != nil {
		return err
	}
	obs, err := s.observations(ev)
	if err != nil {
		return err
	}
	m, err := s.manifest()
	if err != nil {
		return err
	}
	for _, o := range obs {
		refs, err := s.array(o.at("artifactRefs"))
		if err != nil {
			return err
		}
		if len(refs.v.Items) == 0 {
			return s.fail(refs, "is empty; its first path names the observation's manifest entry")
		}
		path, err := s.str(refs.item(0))
		if err != nil {
			return err
		}
		sum, n, err := s.digest(node{o.v.Without("observationSha256"), o.path})
		if err != nil {
			return err
		}
		s.set(o, "observationSha256", canonjson.NewString(sum))
		s.putEntry(m, path, ObservationMediaType, n, sum)
	}
	return nil
}

func (s *sealer) sealScenario() error {
	ev, err := s.object(s.root.at("evidence"))
	if err != nil {
		return err
	}
	desc, err := s.descriptor(ev)
	if err != nil {
		return err
	}
	sum, _, err := s.digest(desc)
	if err != nil {
		return err
	}
	s.set(ev.at("scenario"), "fingerprint", canonjson.NewString(sum))
	return nil
}

func (s *sealer) sealEvidence() error {
	ev, err := s.object(s.root.at("evidence"))
	if err != nil {
		return err
	}
	m, err := s.manifest()
	if err != nil {
		return err
	}
	var supporting []*canonjson.Value
	for _, e := range sortedEntries(m.entries) {
		if e.path != EvidencePath && e.path != StatementPath {
			supporting = append(supporting, e.v)
		}
	}
	sum, _, err := s.digest(node{artifactsObject(supporting), m.arts.path})
	if err != nil {
		return err
	}
	s.set(ev, "supportingArtifactManifestDigest", canonjson.NewString(sum))
	return nil
}

func (s *sealer) sealStatement() error {
	ev, err := s.object(s.root.at("evidence"))
	if err != nil {
		return err
	}
	st, err := s.object(s.root.at("statement"))
	if err != nil {
		return err
	}
	result := st.at("result")
	if result.v == nil {
		return s.fail(result, "missing; the result is the producer's and Seal never derives it")
	}
	desc, err := s.descriptor(ev)
	if err != nil {
		return err
	}
	// Mirrors of §3.1.9, in the statement's member order.
	mirrors := []struct {
		key string
		src node
	}{
		{"standardVersion", ev.at("standardVersion")},
		{"profileId", ev.at("profile").at("id")},
		{"profileVersion", ev.at("profile").at("version")},
		{"protocolRevision", ev.at("protocolRevision")},
		{"subjectType", ev.at("subject").at("subjectType")},
		{"subjectName", ev.at("subject").at("name")},
		{"subjectVersion", ev.at("subject").at("version")},
		{"evidenceClass", ev.at("evidenceClassClaim")},
		{"scenarioFingerprint", ev.at("scenario").at("fingerprint")},
		{"stabilityClassification", ev.at("trialSummary").at("classification")},
		{"validator", desc.at("validatorPolicy")},
	}
	for _, m := range mirrors {
		if _, err := s.present(m.src); err != nil {
			return err
		}
	}
	exec, err := s.executionDigest(ev, result.v)
	if err != nil {
		return err
	}
	evSum, evLen, err := s.digest(ev)
	if err != nil {
		return err
	}
	s.evidenceSum, s.evidenceLen = evSum, evLen
	for _, m := range mirrors {
		// Members a new statement would lack are appended in §3.1.9 order.
		switch m.key {
		case "stabilityClassification":
			s.set(st, "executionInstanceDigest", canonjson.NewString(exec))
		case "validator":
			s.set(st, "evidenceSha256", canonjson.NewString(evSum))
		}
		s.set(st, m.key, m.src.v.Clone())
	}
	return nil
}

// executionDigest computes statement.executionInstanceDigest (REFERENCE
// §2.1): sha256 of {scenarioFingerprint, run, observationDigests,
// actualOutcome, supportingArtifactManifestDigest}.
func (s *sealer) executionDigest(ev node, result *canonjson.Value) (string, error) {
	fp, err := s.present(ev.at("scenario").at("fingerprint"))
	if err != nil {
		return "", err
	}
	run, err := s.present(ev.at("run"))
	if err != nil {
		return "", err
	}
	support, err := s.present(ev.at("supportingArtifactManifestDigest"))
	if err != nil {
		return "", err
	}
	obs, err := s.observations(ev)
	if err != nil {
		return "", err
	}
	digests := make([]*canonjson.Value, len(obs))
	for i, o := range obs {
		if digests[i], err = s.present(o.at("observationSha256")); err != nil {
			return "", err
		}
	}
	material := canonjson.NewObject(
		canonjson.Member{Key: "scenarioFingerprint", Value: fp},
		canonjson.Member{Key: "run", Value: run},
		canonjson.Member{Key: "observationDigests", Value: canonjson.NewArray(digests...)},
		canonjson.Member{Key: "actualOutcome", Value: result},
		canonjson.Member{Key: "supportingArtifactManifestDigest", Value: support},
	)
	sum, _, err := s.digest(node{material, s.root.at("statement").at("executionInstanceDigest").path})
	return sum, err
}

func (s *sealer) sealIntegrity() error {
	ev, err := s.object(s.root.at("evidence"))
	if err != nil {
		return err
	}
	st, err := s.object(s.root.at("statement"))
	if err != nil {
		return err
	}
	evSum, evLen := s.evidenceSum, s.evidenceLen
	if evSum == "" {
		if evSum, evLen, err = s.digest(ev); err != nil {
			return err
		}
	}
	stSum, stLen, err := s.digest(st)
	if err != nil {
		return err
	}
	m, err := s.manifest()
	if err != nil {
		return err
	}
	for _, c := range integrityConstants() {
		s.set(m.integrity, c.Key, c.Value)
	}
	s.putEntry(m, EvidencePath, JSONMediaType, evLen, evSum)
	s.putEntry(m, StatementPath, JSONMediaType, stLen, stSum)

	sorted := sortedEntries(m.entries)
	items := make([]*canonjson.Value, len(sorted))
	for i, e := range sorted {
		items[i] = e.v
	}
	s.setItems(m.arts, items)
	sum, _, err := s.digest(node{artifactsObject(items), m.arts.path})
	if err != nil {
		return err
	}
	s.set(m.integrity, "bundleDigest", canonjson.NewString(sum))
	return nil
}

// integrityConstants are the constant members of the integrity manifest
// (REFERENCE §2.2), in the order a new manifest lists them.
func integrityConstants() []canonjson.Member {
	return []canonjson.Member{
		{Key: "schemaVersion", Value: canonjson.NewString(SchemaVersionIntegrity)},
		{Key: "canonicalizationAlgorithm", Value: canonjson.NewString(CanonicalizationAlg)},
		{Key: "hashAlgorithm", Value: canonjson.NewString(HashAlgorithm)},
		{Key: "publication", Value: canonjson.NewString(PublicationMode)},
		{Key: "complete", Value: canonjson.NewBool(true)},
	}
}

func artifactsObject(entries []*canonjson.Value) *canonjson.Value {
	return canonjson.NewObject(canonjson.Member{Key: "artifacts", Value: canonjson.NewArray(entries...)})
}

// manifest is the integrity manifest of the bundle being sealed.
type manifest struct {
	integrity node
	arts      node
	entries   []entry
	last      map[string]int // path → index in entries of the last entry with it
}

// entry is one manifest entry with its path.
type entry struct {
	node
	path string
}

// manifest returns the integrity manifest, creating the integrity object
// (constants and an empty artifacts array) or its artifacts array when
// absent. Every entry must be an object with a string path.
func (s *sealer) manifest() (*manifest, error) {
	in := s.root.at("integrity")
	if in.v == nil {
		obj := canonjson.NewObject(append(integrityConstants(),
			canonjson.Member{Key: "artifacts", Value: canonjson.NewArray()})...)
		s.set(s.root, "integrity", obj)
		in = s.root.at("integrity")
	}
	if _, err := s.object(in); err != nil {
		return nil, err
	}
	arts := in.at("artifacts")
	if arts.v == nil {
		s.set(in, "artifacts", canonjson.NewArray())
		arts = in.at("artifacts")
	}
	if _, err := s.array(arts); err != nil {
		return nil, err
	}
	m := &manifest{integrity: in, arts: arts, last: make(map[string]int, len(arts.v.Items))}
	for i := range arts.v.Items {
		e, err := s.object(arts.item(i))
		if err != nil {
			return nil, err
		}
		p, err := s.str(e.at("path"))
		if err != nil {
			return nil, err
		}
		m.last[p] = len(m.entries)
		m.entries = append(m.entries, entry{e, p})
	}
	return m, nil
}

// putEntry binds path to (mediaType, n, sum): it updates the last entry with
// that path, or appends a new entry.
func (s *sealer) putEntry(m *manifest, path, mediaType string, n int, sum string) {
	if i, ok := m.last[path]; ok {
		e := m.entries[i].node
		s.set(e, "mediaType", canonjson.NewString(mediaType))
		s.set(e, "bytes", canonjson.NewInt(int64(n)))
		s.set(e, "sha256", canonjson.NewString(sum))
		return
	}
	v := canonjson.NewObject(
		canonjson.Member{Key: "path", Value: canonjson.NewString(path)},
		canonjson.Member{Key: "mediaType", Value: canonjson.NewString(mediaType)},
		canonjson.Member{Key: "bytes", Value: canonjson.NewInt(int64(n))},
		canonjson.Member{Key: "sha256", Value: canonjson.NewString(sum)},
	)
	i := len(m.arts.v.Items)
	s.setItems(m.arts, append(m.arts.v.Items, v))
	m.last[path] = len(m.entries)
	m.entries = append(m.entries, entry{m.arts.item(i), path})
}

// sortedEntries returns the entries stably sorted by path in UTF-16 code
// unit order (byte order for the ASCII paths the schema allows).
func sortedEntries(es []entry) []entry {
	out := slices.Clone(es)
	slices.SortStableFunc(out, func(a, b entry) int { return canonjson.CompareKeys(a.path, b.path) })
	return out
}

func (s *sealer) descriptor(ev node) (node, error) {
	if _, err := s.object(ev.at("scenario")); err != nil {
		return node{}, err
	}
	return s.object(ev.at("scenario").at("descriptor"))
}

// observations returns the elements of evidence.observations, which must
// all be objects.
func (s *sealer) observations(ev node) ([]node, error) {
	arr, err := s.array(ev.at("observations"))
	if err != nil {
		return nil, err
	}
	out := make([]node, len(arr.v.Items))
	for i := range arr.v.Items {
		if out[i], err = s.object(arr.item(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// node is a value together with its JSON Pointer, so errors can name it.
// v is nil for an absent member.
type node struct {
	v    *canonjson.Value
	path string
}

func (n node) at(key string) node {
	return node{n.v.Get(key), n.path + "/" + canonjson.EscapePointer(key)}
}

func (n node) item(i int) node {
	return node{n.v.Items[i], n.path + "/" + strconv.Itoa(i)}
}

func (s *sealer) fail(n node, format string, args ...any) error {
	return &SealError{Stage: s.stage, Path: n.path, Reason: fmt.Sprintf(format, args...)}
}

func (s *sealer) present(n node) (*canonjson.Value, error) {
	if n.v == nil {
		return nil, s.fail(n, "missing")
	}
	return n.v, nil
}

func (s *sealer) kind(n node, k canonjson.Kind) (node, error) {
	if n.v == nil {
		return node{}, s.fail(n, "missing; want %s", article(k))
	}
	if n.v.Kind != k {
		return node{}, s.fail(n, "got %s, want %s", article(n.v.Kind), article(k))
	}
	return n, nil
}

func (s *sealer) object(n node) (node, error) { return s.kind(n, canonjson.Object) }
func (s *sealer) array(n node) (node, error)  { return s.kind(n, canonjson.Array) }

func (s *sealer) str(n node) (string, error) {
	if _, err := s.kind(n, canonjson.String); err != nil {
		return "", err
	}
	return n.v.Str, nil
}

func article(k canonjson.Kind) string {
	switch k {
	case canonjson.Object, canonjson.Array, canonjson.Int:
		return "an " + k.String()
	}
	return "a " + k.String()
}

func (s *sealer) digest(n node) (string, int, error) {
	sum, size, err := canonjson.Digest(n.v)
	if err != nil {
		return "", 0, &SealError{Stage: s.stage, Path: n.path, Reason: "no canonical form", Err: err}
	}
	return sum, size, nil
}

// set writes member key of object n and records how to undo it: an
// existing member gets its old value back in place, a new one is deleted.
func (s *sealer) set(n node, key string, val *canonjson.Value) {
	obj := n.v
	if obj.Has(key) {
		old := obj.Get(key)
		s.undo = append(s.undo, func() { obj.Set(key, old) })
	} else {
		s.undo = append(s.undo, func() { obj.Delete(key) })
	}
	obj.Set(key, val)
}

// setItems replaces the elements of array n and records how to undo it.
// The old slice header is kept, so items must not be written through it
// (appending beyond its length is fine).
func (s *sealer) setItems(n node, items []*canonjson.Value) {
	arr, old := n.v, n.v.Items
	s.undo = append(s.undo, func() { arr.Items = old })
	arr.Items = items
}

// LooksUnsealed reports whether v has the shape of a draft that was never
// sealed: an mcp-res.conformance-bundle/0.2.0 whose integrity.bundleDigest,
// the last digest Seal computes, is missing, empty or not a lowercase hex
// SHA-256, or all zeros (placeholders). It is a hint for people ("run mcpres seal"),
// never a check: validation ignores it.
func LooksUnsealed(v *canonjson.Value) bool {
	if s := v.Get("schemaVersion"); !s.Is(canonjson.String) || s.Str != SchemaVersionBundle {
		return false
	}
	d := v.Path("integrity", "bundleDigest")
	return d == nil || !d.Is(canonjson.String) || !isHexSHA256(d.Str) || d.Str == zeroSHA256
}

const zeroSHA256 = "0000000000000000000000000000000000000000000000000000000000000000"

func isHexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
