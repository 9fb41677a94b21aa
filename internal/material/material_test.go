package material

import "testing"

func TestName(t *testing.T) {
	for n, want := range map[int]string{1: "b.json.sigstore.json", 2: "b.json.sigstore.2.json", 10: "b.json.sigstore.10.json"} {
		if got := Name("b.json", n); got != want || !IsName(got) {
			t.Errorf("Name(b.json, %d) = %q (IsMaterialName %t), want %q", n, got, IsName(got), want)
		}
	}
	// Controls: bundles and look-alikes are not material.
	for _, name := range []string{"b.json", "sigstore.json.bak", "b.json.sigstore.1.json", "b.json.sigstore.02.json", "b.json.sigstore.-2.json", "b.json.sigstore.x.json", "b.sigstore.2.jsonl"} {
		if IsName(name) {
			t.Errorf("IsName(%q) = true", name)
		}
	}
}
