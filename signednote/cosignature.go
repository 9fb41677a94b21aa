package signednote

// A CountedCosignature is a witness's cosignature/v1 signature on a
// checkpoint that verified and counts: once per witness key, whatever the
// names and however many lines the key signed. Package offline counts
// them toward a trust's quorum, package attest reports them
// (attest.VerifiedTransparency), and package witness lists them on a
// checkpoint it attaches cosignatures to.
type CountedCosignature struct {
	// Name is the witness's name: the trust policy's name for it where a
	// policy counts (packages offline and attest), else the name of its
	// key (package witness).
	Name string
	// Fingerprint is the witness key's fingerprint, the lowercase hex
	// SHA-256 of its SPKI DER ([Verifier.Fingerprint]).
	Fingerprint string
	// Time is the cosignature's timestamp as the witness wrote it, in
	// seconds since the Unix epoch ([CosignatureTimestamp]).
	Time uint64
}

// An UncountedCosignature is a witness's cosignature/v1 signature that
// verified but does not count, because of its timestamp (package
// offline judges it against the evaluation time and the trust's maximum
// cosignature age).
type UncountedCosignature struct {
	Name   string // the trust policy's name for the witness
	Time   uint64 // the cosignature's timestamp, Unix seconds, as written
	Reason string // why it does not count: "dated after the evaluation time …", "older than …"
}
