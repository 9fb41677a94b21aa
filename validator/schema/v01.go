package schema

// V01ConformanceBundle names the schema of the frozen mcp-res.conformance-bundle/0.1.0
// (REFERENCE §3.7), a self-contained document with its "$id" under the v0.1.0
// base of REFERENCE §0.1. It leaves two path bounds to the v0.1 validator
// (see the schema's description). Its root "schemaVersion" is deliberately
// not registered with NameForSchemaVersion, which maps v0.2.0 documents only.
const V01ConformanceBundle = "v01-conformance-bundle"
