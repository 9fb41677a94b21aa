package main

import (
	"os"
	"testing"

	"github.com/mcpres/mcpres/internal/clitest"
	"github.com/mcpres/mcpres/internal/example"
)

// TestMain lets the script tests run mcpres as a real process (package
// internal/clitest re-executes the test binary as "mcpres").
func TestMain(m *testing.M) {
	clitest.Main(m, map[string]func(){
		"mcpres": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txt: exit codes and the separation of
// stdout and stderr, command by command. Add a .txt file to add a case
// (the language is described in package internal/clitest). Every script
// starts with draft.json, the example draft of `mcpres demo`.
func TestScripts(t *testing.T) {
	clitest.Run(t, "testdata/script", map[string][]byte{"draft.json": example.Draft()}, "mcpres")
}
