// Package bundle is the typed model of MCP-RES v0.2.0 conformance bundles
// (REFERENCE §3.1) and the producer side of their integrity: Seal computes
// every digest of a draft bundle (REFERENCE §2.1, §2.2).
//
// Digests are computed on *canonjson.Value trees, never on the Go structs:
// the bytes that are hashed are exactly the bytes a validator will hash.
package bundle
