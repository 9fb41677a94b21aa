package main

import (
	"os"
	"testing"

	"github.com/mcpres/mcpres/internal/clitest"
)

func TestMain(m *testing.M) {
	clitest.Main(m, map[string]func(){
		"mcpres-oci": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txt (see package internal/clitest).
func TestScripts(t *testing.T) {
	clitest.Run(t, "testdata/script", nil, "mcpres-oci")
}
