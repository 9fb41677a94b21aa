//go:build !cgo

package main

import "testing"

// Built without cgo, serve answers an open request with the no-PKCS#11
// code and says how to get a build that has it (exit 2).
func TestServeWithoutCgo(t *testing.T) {
	code, out, errs := serve(t, frame('O', openPayload("pkcs11:token=t;object=o", "/usr/lib/softhsm/libsofthsm2.so", "0", "")))
	types, payloads := readFrames(t, out)
	const want = "no PKCS#11 support: this build was made without cgo (CGO_ENABLED=0); build it with a C compiler: CGO_ENABLED=1 go install ./cmd/..."
	if code != 2 || len(types) != 1 || types[0] != 'E' || payloads[0][0] == 0 || string(payloads[0][1:]) != want || errs != "mcpres-pkcs11: error: "+want+"\n" {
		t.Errorf("exit %d, answered %q, stderr %q", code, out, errs)
	}
}
