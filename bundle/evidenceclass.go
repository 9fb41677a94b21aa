package bundle

import (
	"fmt"
	"strings"
)

// An EvidenceClass is an MCP-RES evidence class (MCP-RES §3,
// MCPRES-OBS-002), ordered: a greater class is stronger evidence. This is
// the only place the order is written down; attest.Level is the
// corresponding order of authenticity levels.
type EvidenceClass int

// The five evidence classes, in increasing strength.
const (
	DocumentedOnly EvidenceClass = iota
	InstallationVerified
	FixtureVerified
	FixtureBackedProtocol
	GenuineRuntime
)

var evidenceClassNames = [...]string{"DOCUMENTED_ONLY", "INSTALLATION_VERIFIED", "FIXTURE_VERIFIED", "FIXTURE_BACKED_PROTOCOL", "GENUINE_RUNTIME"}

// EvidenceClasses returns every evidence class in increasing strength.
func EvidenceClasses() []EvidenceClass {
	cs := make([]EvidenceClass, len(evidenceClassNames))
	for i := range cs {
		cs[i] = EvidenceClass(i)
	}
	return cs
}

// String returns the class's name as bundles spell it, e.g.
// "GENUINE_RUNTIME".
func (c EvidenceClass) String() string {
	if c < 0 || int(c) >= len(evidenceClassNames) {
		return fmt.Sprintf("EvidenceClass(%d)", int(c))
	}
	return evidenceClassNames[c]
}

// ParseEvidenceClass returns the evidence class named s.
func ParseEvidenceClass(s string) (EvidenceClass, error) {
	for i, n := range evidenceClassNames {
		if n == s {
			return EvidenceClass(i), nil
		}
	}
	return 0, fmt.Errorf("unknown evidence class %q (want one of %s)", s, strings.Join(evidenceClassNames[:], ", "))
}
