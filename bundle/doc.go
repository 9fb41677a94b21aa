// Package bundle is the typed model of MCP-RES v0.2.0 conformance bundles
// (REFERENCE §3.1) and the producer side of their integrity: Seal computes
// every digest of a draft bundle (REFERENCE §2.1, §2.2, the statement
// mirrors of §3.1.9), in stages that SealFrom can resume so tests can inject
// exactly one fault.
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
