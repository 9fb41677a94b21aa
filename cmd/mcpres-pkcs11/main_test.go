package main

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// frame is one frame of the keyref helper protocol: its type, then the
// payload's length (big-endian uint32), then the payload.
func frame(typ byte, payload []byte) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{typ}, uint32(len(payload))), payload...)
}

// openPayload is the payload of an open request: four length-prefixed
// fields (URI, module, "1" when a PIN follows, PIN).
func openPayload(fields ...string) []byte {
	var b []byte
	for _, f := range fields {
		b = append(binary.BigEndian.AppendUint32(b, uint32(len(f))), f...)
	}
	return b
}

// readFrames splits what the helper answered into frames.
func readFrames(t *testing.T, out []byte) (types []byte, payloads [][]byte) {
	t.Helper()
	for len(out) > 0 {
		if len(out) < 5 {
			t.Fatalf("a torn frame header: %q", out)
		}
		n := binary.BigEndian.Uint32(out[1:5])
		if uint64(len(out)-5) < uint64(n) {
			t.Fatalf("a torn frame: %q", out)
		}
		types, payloads = append(types, out[0]), append(payloads, out[5:5+n])
		out = out[5+n:]
	}
	return types, payloads
}

func serve(t *testing.T, stdin []byte) (code int, stdout []byte, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run([]string{"serve"}, bytes.NewReader(stdin), &out, &errb)
	return code, out.Bytes(), errb.String()
}

// The command line: serve takes no arguments and there is no other
// command; both are usage errors (exit 2 with the pointer to the help).
func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"serve", "extra"}, {"sign"}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "Run 'mcpres-pkcs11") || out.Len() != 0 {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q", args, code, out.String(), errb.String())
		}
	}
	// Control: --help is no error.
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "not meant to be\nrun by hand") {
		t.Errorf("--help: exit %d %q", code, out.String())
	}
}

// serve refuses a pipe that does not start with a well-formed open
// request: nothing at all, a torn frame or another frame is refused
// without an answer; a malformed open request and a module that cannot
// be loaded are answered with an error frame (the parent is told why)
// and end the helper with exit 2.
func TestServeRefusesOpen(t *testing.T) {
	for _, tt := range []struct {
		name, stdin string
		answer      byte // 0: no frame at all
		want        string
	}{
		{"nothing", "", 0, "mcpres-pkcs11: error: keyref: reading the open request: EOF\n"},
		{"torn frame", string(frame('O', openPayload("x")))[:7], 0, "mcpres-pkcs11: error: keyref: reading the open request: keyref: truncated helper frame: unexpected EOF\n"},
		{"sign first", string(frame('S', []byte("msg"))), 0, "mcpres-pkcs11: error: keyref: the first frame is 'S', want an open request\n"},
		{"three fields", string(frame('O', openPayload("pkcs11:token=t;object=o", "/m.so", "0"))), 'E', "mcpres-pkcs11: error: keyref: malformed open frame\n"},
		{"PIN after no PIN", string(frame('O', openPayload("pkcs11:token=t;object=o", "/m.so", "0", "1234"))), 'E', "mcpres-pkcs11: error: keyref: malformed open frame\n"},
		{"no module", string(frame('O', openPayload("pkcs11:token=t;object=o", "", "0", ""))), 'E', "mcpres-pkcs11: error: keyref: malformed open frame\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := serve(t, []byte(tt.stdin))
			if code != 2 || errs != tt.want {
				t.Errorf("exit %d, stderr %q, want %q", code, errs, tt.want)
			}
			types, payloads := readFrames(t, out)
			switch {
			case tt.answer == 0 && len(types) != 0:
				t.Errorf("answered %q", out)
			case tt.answer != 0 && (len(types) != 1 || types[0] != tt.answer || !strings.HasSuffix(tt.want, string(payloads[0][1:])+"\n")):
				t.Errorf("answered %q, want one %q frame with the message", out, tt.answer)
			}
		})
	}

}
