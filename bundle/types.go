package bundle

import "github.com/mcpres/mcpres/canonjson"

// Schema versions of the MCP-RES documents (REFERENCE §0.1, §3): the value
// of each document's root "schemaVersion". This is the one place they are
// named; package document detects a document's kind from them.
const (
	SchemaVersionBundle             = "mcp-res.conformance-bundle/0.2.0"
	SchemaVersionBundleV01          = "mcp-res.conformance-bundle/0.1.0"
	SchemaVersionEvidence           = "mcp-res.evidence-envelope/0.2.0"
	SchemaVersionObservation        = "mcp-res.observation/0.2.0"
	SchemaVersionCoverage           = "mcp-res.observation-coverage/0.2.0"
	SchemaVersionTrialSummary       = "mcp-res.trial-summary/0.2.0"
	SchemaVersionStatement          = "mcp-res.conformance-statement/0.2.0"
	SchemaVersionIntegrity          = "mcp-res.integrity-manifest/0.2.0"
	SchemaVersionAttestedBundle     = "mcp-res.attested-conformance-bundle/0.2.0"
	SchemaVersionAuthenticity       = "mcp-res.authenticity/0.2.0"
	SchemaVersionEnvelope           = "mcp-res.dsse-envelope/0.2.0"
	SchemaVersionTrustPolicy        = "mcp-res.trust-policy/0.2.0"
	SchemaVersionMigrationResult    = "mcp-res.migration-result/0.2.0"
	SchemaVersionOfficialAttachment = "mcp-res.official-conformance-attachment/0.2.0"
	SchemaVersionProfileEvaluation  = "mcp-res.profile-evaluation/0.2.0"
	SchemaVersionProfileManifest    = "mcp-res.reliability-profile-manifest/0.2.0"
	SchemaVersionOAuthEvaluation    = "mcp-res.oauth-boundary-evaluation/0.2.0"
)

// Fixed identifiers of MCP-RES v0.2.0 (REFERENCE §0.1).
const (
	CanonicalizationAlg  = "mcp-res-json-utf16-v1"
	HashAlgorithm        = "SHA-256"
	PublicationMode      = "MANIFEST_LAST"
	ObservationMediaType = "application/vnd.mcp-res.observation+json"
	JSONMediaType        = "application/json"
	EvidencePath         = "evidence-envelope.json"
	StatementPath        = "conformance-statement.json"
)

// Bundle is a typed view of a schema-valid mcp-res.conformance-bundle/0.2.0
// (REFERENCE §3.1). Decode it from a *canonjson.Value with Decode; digests
// are always computed from the Value, never from this struct.
type Bundle struct {
	SchemaVersion string    `json:"schemaVersion"`
	Evidence      Evidence  `json:"evidence"`
	Statement     Statement `json:"statement"`
	Integrity     Integrity `json:"integrity"`
}

// Evidence is the evidence envelope (§3.1.1).
type Evidence struct {
	SchemaVersion                    string            `json:"schemaVersion"`
	StandardVersion                  string            `json:"standardVersion"`
	Profile                          Profile           `json:"profile"`
	ProtocolRevision                 string            `json:"protocolRevision"`
	EvidenceClassClaim               string            `json:"evidenceClassClaim"`
	Subject                          Subject           `json:"subject"`
	Scenario                         Scenario          `json:"scenario"`
	Run                              Run               `json:"run"`
	Operations                       []Operation       `json:"operations"`
	Observations                     []Observation     `json:"observations"`
	Coverage                         Coverage          `json:"coverage"`
	TrialSummary                     TrialSummary      `json:"trialSummary"`
	SupportingArtifactManifestDigest string            `json:"supportingArtifactManifestDigest"`
	SourceEvidenceRefs               []string          `json:"sourceEvidenceRefs,omitempty"`
	LegacyAssertions                 []LegacyAssertion `json:"legacyAssertions,omitempty"`
}

// Profile names the evidence profile.
type Profile struct {
	ID      string `json:"id"`
	Version string `json:"version"`
}

// Subject is the exact subject under test.
type Subject struct {
	SubjectType    string `json:"subjectType"`
	Name           string `json:"name"`
	Version        string `json:"version"`
	ArtifactSha256 string `json:"artifactSha256"`
	IdentityDigest string `json:"identityDigest"`
}

// Scenario holds the fingerprint and the descriptor it digests.
type Scenario struct {
	Fingerprint string     `json:"fingerprint"`
	Descriptor  Descriptor `json:"descriptor"`
}

// Descriptor is the canonical scenario descriptor (§3.1.2).
type Descriptor struct {
	StandardVersion            string           `json:"standardVersion"`
	ProfileID                  string           `json:"profileId"`
	ProfileVersion             string           `json:"profileVersion"`
	ProtocolRevision           string           `json:"protocolRevision"`
	SubjectIdentityDigest      string           `json:"subjectIdentityDigest"`
	ConfigurationProfileDigest string           `json:"configurationProfileDigest"`
	OperationClass             string           `json:"operationClass"`
	Faults                     []Fault          `json:"faults"`
	RecoveryPolicies           []RecoveryPolicy `json:"recoveryPolicies"`
	SideEffectModel            string           `json:"sideEffectModel"`
	ResourceLimits             ResourceLimits   `json:"resourceLimits"`
	ValidatorPolicy            ToolIdentity     `json:"validatorPolicy"`
	DeterministicSeed          int64            `json:"deterministicSeed"`
}

// Fault is a fault definition of the descriptor.
type Fault struct {
	ID                    string `json:"id"`
	Version               string `json:"version"`
	Method                string `json:"method"`
	Seed                  int64  `json:"seed"`
	TargetOperationClass  string `json:"targetOperationClass"`
	ExpectedEffect        string `json:"expectedEffect"`
	ReproducibilitySha256 string `json:"reproducibilitySha256"`
}

// RecoveryPolicy is a bounded recovery policy of the descriptor.
type RecoveryPolicy struct {
	ID                   string  `json:"id"`
	RetryLimit           int64   `json:"retryLimit"`
	MaxBackoffMs         int64   `json:"maxBackoffMs"`
	TimeLimitMs          int64   `json:"timeLimitMs"`
	CancellationBoundary string  `json:"cancellationBoundary"`
	SideEffectModel      string  `json:"sideEffectModel"`
	SafetyMechanism      *string `json:"safetyMechanism"`
}

// ResourceLimits bounds the scenario.
type ResourceLimits struct {
	InputBytes         int64 `json:"inputBytes"`
	Events             int64 `json:"events"`
	Retries            int64 `json:"retries"`
	Concurrency        int64 `json:"concurrency"`
	ScenarioDurationMs int64 `json:"scenarioDurationMs"`
}

// ToolIdentity names a tool by name, version and SHA-256.
type ToolIdentity struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Sha256  string `json:"sha256"`
}

// Run is the run identity (§3.1.3).
type Run struct {
	ID                  string      `json:"id"`
	StartedAt           string      `json:"startedAt"`
	FinishedAt          string      `json:"finishedAt"`
	MonotonicDurationMs int64       `json:"monotonicDurationMs"`
	Environment         Environment `json:"environment"`
}

// Environment identifies the runner and environment.
type Environment struct {
	Runner            ToolIdentity `json:"runner"`
	OS                string       `json:"os"`
	Architecture      string       `json:"architecture"`
	EnvironmentDigest string       `json:"environmentDigest"`
}

// Operation kinds.
const (
	KindCleanControl    = "CLEAN_CONTROL"
	KindFaultCase       = "FAULT_CASE"
	KindNegativeControl = "NEGATIVE_CONTROL"
	KindRecoveryAttempt = "RECOVERY_ATTEMPT"
)

// Operation is one operation of the run (§3.1.4). Nullable members are nil
// when null.
type Operation struct {
	RunID               string               `json:"runId"`
	OperationID         string               `json:"operationId"`
	ParentOperationID   *string              `json:"parentOperationId"`
	Kind                string               `json:"kind"`
	FaultID             *string              `json:"faultId"`
	RecoveryPolicyID    *string              `json:"recoveryPolicyId"`
	Attempt             int64                `json:"attempt"`
	Outcome             string               `json:"outcome"`
	StartedOffsetMs     int64                `json:"startedOffsetMs"`
	DurationMs          int64                `json:"durationMs"`
	NegativeObservation *NegativeObservation `json:"negativeObservation,omitempty"`
}

// NegativeObservation binds a reason-bound negative control (§3.1.5).
// PropertyReached is kept as a Value: it is a boolean or "UNKNOWN".
type NegativeObservation struct {
	PropertyUnderTest    string           `json:"propertyUnderTest"`
	PropertyReached      *canonjson.Value `json:"propertyReached"`
	ExpectedVerdict      string           `json:"expectedVerdict"`
	ObservedVerdict      string           `json:"observedVerdict"`
	ExpectedStopReason   string           `json:"expectedStopReason"`
	ObservedStopReason   string           `json:"observedStopReason"`
	OracleEvidenceRef    string           `json:"oracleEvidenceRef"`
	PrerequisitesReached []string         `json:"prerequisitesReached"`
	MutantID             *string          `json:"mutantId,omitempty"`
	MutantKilled         *bool            `json:"mutantKilled,omitempty"`
}

// Observation types and strengths used by class derivation (§4.1).
const (
	ObsProcessExecution      = "PROCESS_EXECUTION"
	ObsProtocolExchange      = "PROTOCOL_EXCHANGE"
	ObsFixtureExecution      = "FIXTURE_EXECUTION"
	ObsInstallationExecution = "INSTALLATION_EXECUTION"
	ObsValidatorCheck        = "VALIDATOR_CHECK"
	ObsPrivacyScan           = "PRIVACY_SCAN"
	ObsCleanupCheck          = "CLEANUP_CHECK"
	StrengthIntegrityBound   = "INTEGRITY_BOUND"
)

// Observation is an integrity-bound observation (§3.1.6).
type Observation struct {
	SchemaVersion     string       `json:"schemaVersion"`
	ID                string       `json:"id"`
	Type              string       `json:"type"`
	Strength          string       `json:"strength"`
	Producer          ToolIdentity `json:"producer"`
	SubjectRef        string       `json:"subjectRef"`
	OperationRef      *string      `json:"operationRef"`
	StartedOffsetMs   int64        `json:"startedOffsetMs"`
	DurationMs        int64        `json:"durationMs"`
	Outcome           string       `json:"outcome"`
	ReasonCode        string       `json:"reasonCode"`
	ArtifactRefs      []string     `json:"artifactRefs"`
	ObservationSha256 string       `json:"observationSha256"`
}

// Coverage lists the observation surfaces (§3.1.7).
type Coverage struct {
	SchemaVersion string            `json:"schemaVersion"`
	Surfaces      []SurfaceCoverage `json:"surfaces"`
}

// SurfaceCoverage is one surface entry.
type SurfaceCoverage struct {
	Surface         string   `json:"surface"`
	Required        bool     `json:"required"`
	Status          string   `json:"status"`
	ObservationRefs []string `json:"observationRefs"`
}

// Surfaces lists the 14 observation surfaces every bundle covers exactly once.
var Surfaces = [...]string{
	"MCP_WIRE_MESSAGES", "RAW_HTTP_REQUESTS", "RAW_HTTP_RESPONSES", "STDIO_INPUT_OUTPUT",
	"CHILD_PROCESS_LIFECYCLE", "TRANSPORT_DISCONNECTS", "RETRIES", "FILESYSTEM_OUTPUTS", "CLEANUP",
	"GENERATED_REGRESSION_EXECUTION", "AUTHORIZATION_REDIRECTS", "TOKEN_ENDPOINT", "CACHE_BEHAVIOR",
	"SOURCE_EVIDENCE",
}

// TrialSummary summarizes repeated trials (§3.1.8).
type TrialSummary struct {
	SchemaVersion         string          `json:"schemaVersion"`
	PlannedTrials         int64           `json:"plannedTrials"`
	CompletedTrials       int64           `json:"completedTrials"`
	Seeds                 []int64         `json:"seeds"`
	ProcessCount          int64           `json:"processCount"`
	Counts                TrialCounts     `json:"counts"`
	DistinctOutcomeHashes []string        `json:"distinctOutcomeHashes"`
	DurationMs            *TrialDurations `json:"durationMs"`
	Environments          []string        `json:"environments"`
	StopRule              string          `json:"stopRule"`
	Classification        string          `json:"classification"`
}

// TrialCounts counts trial results.
type TrialCounts struct {
	Success    int64 `json:"success"`
	Failure    int64 `json:"failure"`
	Incomplete int64 `json:"incomplete"`
}

// TrialDurations are the duration statistics of completed trials.
type TrialDurations struct {
	Minimum int64 `json:"minimum"`
	Median  int64 `json:"median"`
	P95     int64 `json:"p95"`
}

// Statement is the conformance statement (§3.1.9).
type Statement struct {
	SchemaVersion           string       `json:"schemaVersion"`
	StandardVersion         string       `json:"standardVersion"`
	ProfileID               string       `json:"profileId"`
	ProfileVersion          string       `json:"profileVersion"`
	ProtocolRevision        string       `json:"protocolRevision"`
	SubjectType             string       `json:"subjectType"`
	SubjectName             string       `json:"subjectName"`
	SubjectVersion          string       `json:"subjectVersion"`
	EvidenceClass           string       `json:"evidenceClass"`
	Result                  string       `json:"result"`
	ScenarioFingerprint     string       `json:"scenarioFingerprint"`
	ExecutionInstanceDigest string       `json:"executionInstanceDigest"`
	StabilityClassification string       `json:"stabilityClassification"`
	EvidenceSha256          string       `json:"evidenceSha256"`
	Validator               ToolIdentity `json:"validator"`
	VerifiedAt              string       `json:"verifiedAt"`
}

// Integrity is the integrity manifest (§3.1.10).
type Integrity struct {
	SchemaVersion             string     `json:"schemaVersion"`
	CanonicalizationAlgorithm string     `json:"canonicalizationAlgorithm"`
	HashAlgorithm             string     `json:"hashAlgorithm"`
	Publication               string     `json:"publication"`
	Complete                  bool       `json:"complete"`
	Artifacts                 []Artifact `json:"artifacts"`
	BundleDigest              string     `json:"bundleDigest"`
}

// Artifact is one integrity manifest entry.
type Artifact struct {
	Path      string `json:"path"`
	MediaType string `json:"mediaType"`
	Bytes     int64  `json:"bytes"`
	Sha256    string `json:"sha256"`
}

// LegacyAssertion is a producer-written v0.1 assertion, ignored by class
// derivation.
type LegacyAssertion struct {
	Name     string `json:"name"`
	Value    bool   `json:"value"`
	Strength string `json:"strength"`
}

// Decode returns the typed view of a schema-valid v0.2.0 bundle value.
func Decode(v *canonjson.Value) (*Bundle, error) {
	var b Bundle
	if err := canonjson.Unmarshal(v, &b); err != nil {
		return nil, err
	}
	return &b, nil
}
