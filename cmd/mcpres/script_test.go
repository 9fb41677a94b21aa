package main

import (
	"os"
	"testing"

	"github.com/mcpres/mcpres/internal/clitest"
	"github.com/mcpres/mcpres/internal/example"
	"github.com/mcpres/mcpres/internal/upstreamtest"
)

// TestMain lets the script tests run mcpres as a real process (package
// internal/clitest re-executes the test binary as "mcpres"), and says in
// one line how many conformance tests were skipped for want of ../shared
// (package internal/upstreamtest).
func TestMain(m *testing.M) {
	clitest.Programs(map[string]func(){
		"mcpres": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
	upstreamtest.Main(m)
}

// TestScripts runs testdata/script/*.txt: exit codes and the separation of
// stdout and stderr, command by command. Add a .txt file to add a case
// (the language is described in package internal/clitest). Every script
// starts with draft.json, the example draft of `mcpres demo`.
func TestScripts(t *testing.T) {
	clitest.Run(t, "testdata/script", map[string][]byte{"draft.json": example.Draft()}, "mcpres")
}
