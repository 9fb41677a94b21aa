// Package offline verifies transparency references with no network: the
// log entry that binds a bundle, its RFC 6962 inclusion proof, the log's
// signed checkpoint and the witnesses' cosignatures, all carried in the
// reference's proof bytes and checked against keys from a trust policy.
//
// It never imports a package that opens network connections.
package offline
