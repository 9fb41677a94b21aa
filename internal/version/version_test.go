package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/mcpres/mcpres", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-12-01T09:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := FromBuildInfo(bi).Describe("mcpres")
	want := "mcpres " + Version + "\nmodule: github.com/mcpres/mcpres (devel)\nrevision: 0123abc (modified)\ntime: 2026-12-01T09:00:00Z\ngo: go1.26.0\n"
	if got != want {
		t.Errorf("with VCS info:\n%s\nwant:\n%s", got, want)
	}
	// Control: without VCS settings (-buildvcs=false) the revision is
	// said to be unknown, and no time line is invented.
	bi.Settings = nil
	got = FromBuildInfo(bi).Describe("mcpres")
	if !strings.Contains(got, "revision: unknown (built without VCS information") || strings.Contains(got, "time:") {
		t.Errorf("without VCS info:\n%s", got)
	}
	if got := (Build{}).Describe("x"); !strings.Contains(got, "module: github.com/mcpres/mcpres unknown") {
		t.Errorf("no build info at all:\n%s", got)
	}
}
