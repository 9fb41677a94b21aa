// Package version holds the mcpres version and the validator identity that
// mcpres writes into documents it produces (REFERENCE §2.3 convention:
// {name, version, sha256("mcpres@<version>\n")}).
package version

import "github.com/mcpres/mcpres/internal/canonjson"

// Version is the mcpres release version.
const Version = "0.1.0"

// ToolName is the name mcpres uses for itself in tool identities.
const ToolName = "mcpres"

// IdentitySha256 is the SHA-256 of "mcpres@<Version>\n".
func IdentitySha256() string { return canonjson.TextDigest(ToolName + "@" + Version + "\n") }
