package bundle_test

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle"
)

func TestEvidenceClassOrder(t *testing.T) {
	want := []string{"DOCUMENTED_ONLY", "INSTALLATION_VERIFIED", "FIXTURE_VERIFIED", "FIXTURE_BACKED_PROTOCOL", "GENUINE_RUNTIME"}
	cs := bundle.EvidenceClasses()
	if len(cs) != len(want) {
		t.Fatalf("%d classes, want %d", len(cs), len(want))
	}
	for i, c := range cs {
		if c.String() != want[i] {
			t.Errorf("class %d is %s, want %s", i, c, want[i])
		}
		if i > 0 && !(cs[i-1] < c) {
			t.Errorf("%s is not below %s", cs[i-1], c)
		}
		got, err := bundle.ParseEvidenceClass(want[i])
		if err != nil || got != c {
			t.Errorf("ParseEvidenceClass(%q) = %v, %v", want[i], got, err)
		}
	}
	if bundle.GenuineRuntime <= bundle.FixtureBackedProtocol || bundle.DocumentedOnly >= bundle.InstallationVerified {
		t.Error("named constants out of order")
	}
	for _, bad := range []string{"", "genuine_runtime", "GENUINE_RUNTIME ", "UNKNOWN"} {
		if _, err := bundle.ParseEvidenceClass(bad); err == nil || !strings.Contains(err.Error(), "want one of DOCUMENTED_ONLY, INSTALLATION_VERIFIED") {
			t.Errorf("ParseEvidenceClass(%q) = %v", bad, err)
		}
	}
	if s := bundle.EvidenceClass(5).String(); s != "EvidenceClass(5)" {
		t.Errorf("out of range: %s", s)
	}
}
