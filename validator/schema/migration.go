package schema

// MigrationResult names the schema of mcp-res.migration-result/0.2.0
// (REFERENCE §3.3). Its originalBundle is an open object; the migration-result
// validator re-validates it with the v0.1 rules.
const MigrationResult = "migration-result"
