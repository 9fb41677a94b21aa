// Package version holds the mcpres version and the validator identity that
// mcpres writes into documents it produces (REFERENCE §2.3 convention:
// {name, version, sha256("mcpres@<version>\n")}).
package version

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"strings"
)

// Version is the mcpres release version.
const Version = "0.1.0"

// ToolName is the name mcpres uses for itself in tool identities.
const ToolName = "mcpres"

// IdentitySha256 is the SHA-256 of "mcpres@<Version>\n".
func IdentitySha256() string {
	sum := sha256.Sum256([]byte(ToolName + "@" + Version + "\n"))
	return hex.EncodeToString(sum[:])
}

// Build describes the running binary from its build information
// (runtime/debug.ReadBuildInfo): the module version ("(devel)" for a build
// from a checkout) and, when the binary was built from a VCS checkout with
// VCS stamping on (not with -buildvcs=false), the revision, its commit time
// and whether the tree had uncommitted changes.
type Build struct {
	Module   string // module path
	Version  string // module version, "(devel)" or "" when unknown
	Revision string // VCS revision, "" when not recorded
	Time     string // VCS commit time (RFC 3339), "" when not recorded
	Modified bool   // the working tree had uncommitted changes
	Go       string // Go version that built the binary
}

// Describe is the text `mcpres version` prints: the mcpres version, then
// one line each for the module version, the VCS revision and time (or why
// they are missing) and the Go version.
func (b Build) Describe(name string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s\n", name, Version)
	mod, ver := b.Module, b.Version
	if mod == "" {
		mod = "github.com/mcpres/mcpres"
	}
	if ver == "" {
		ver = "unknown"
	}
	fmt.Fprintf(&s, "module: %s %s\n", mod, ver)
	if b.Revision == "" {
		s.WriteString("revision: unknown (built without VCS information, e.g. with -buildvcs=false)\n")
	} else {
		rev := b.Revision
		if b.Modified {
			rev += " (modified)"
		}
		fmt.Fprintf(&s, "revision: %s\n", rev)
		if b.Time != "" {
			fmt.Fprintf(&s, "time: %s\n", b.Time)
		}
	}
	if b.Go != "" {
		fmt.Fprintf(&s, "go: %s\n", b.Go)
	}
	return s.String()
}

// ReadBuild returns the running binary's build information; the fields it
// cannot find are empty.
func ReadBuild() Build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo extracts a Build from bi.
func FromBuildInfo(bi *debug.BuildInfo) Build {
	b := Build{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}
