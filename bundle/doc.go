// Package bundle is the typed model of MCP-RES v0.2.0 conformance bundles
// (REFERENCE §3.1) and the producer side of their integrity: Seal computes
// every digest of a draft bundle (REFERENCE §2.1, §2.2, the statement
// mirrors of §3.1.9), in stages that SealFrom can resume so tests can inject
// exactly one fault.
//
// A producer writes a draft (every digest, statement mirror and generated
// manifest entry blank or absent), parses it with canonjson.Parse, calls
// Seal, and writes the result with canonjson.Pretty; a *SealError names the
// member that cannot be sealed. A consumer reads a bundle's members through
// the typed view Decode returns (Bundle: evidence, statement, integrity),
// after validation (package validator or document): Decode does not
// validate.
//
// Digests are computed on *canonjson.Value trees, never on the Go structs:
// the bytes that are hashed are exactly the bytes a validator will hash.
// Sealing a blanked copy of each upstream valid vector reproduces its
// canonical bytes exactly (TestSealReproducesUpstreamValid), and the §2.4
// goldens are asserted in TestSealGoldensReasonBoundNegative.
//
// Package bundletest provides the sealed example bundle of
// testdata/bundles/example.json and large variants of it for tests.
package bundle
