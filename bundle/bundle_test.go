package bundle

import (
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
)

func TestDecodeUpstreamValid(t *testing.T) {
	dir := upstreamtest.Dir(t, "..", "v0.2.0/valid")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no upstream vectors in %s", dir)
	}
	for _, f := range files {
		_, v, err := canonjson.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Decode(v)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b.Evidence.Subject.Name == "" || len(b.Evidence.Operations) < 2 {
			t.Errorf("%s: decoded view incomplete", f)
		}
	}
}
