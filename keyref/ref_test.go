package keyref

import (
	"errors"
	"strings"
	"testing"
)

// testPIN is the PIN of the references below: no message may hold it.
const testPIN = "97531"

const fp = "SHA256:drkQ9HwGr4rF65cNzP51OzueWeLcXTBa7D617NNI7rM"

// A reference that looks like one but is not (a misspelt scheme, white
// space around it, a URI scheme, a PIN in a path) is refused naming the
// problem, not read as a path, and its error never holds the PIN
// (issue 31 item 7: "PKCS11:…?pin-value=…" was a file path, echoed whole).
func TestParseRefusesLookalikes(t *testing.T) {
	const uri = "token=release;object=signer?pin-value=" + testPIN
	for _, c := range []struct{ ref, says string }{
		{"PKCS11:" + uri, "(did you mean pkcs11:?)"},
		{"Pkcs11:" + uri, "(did you mean pkcs11:?)"},
		{"pkcs11;" + uri, `"pkcs11"; is not a scheme of a key reference (did you mean pkcs11:?)`},
		{"PKCS11;" + uri, "(did you mean pkcs11:?)"},
		{"pkcs12:" + uri, "(did you mean pkcs11:?)"},
		{"pcks11:" + uri, "(did you mean pkcs11:?)"},
		{"pkcs#11:" + uri, "(did you mean pkcs11:?)"},
		{" pkcs11:" + uri, "white space before or after the reference (did you mean pkcs11:…?)"},
		{"pkcs11:" + uri + " ", "white space before or after the reference"},
		{"\tkeys/release.key", "white space before or after the reference"},
		{"SSH-AGENT:" + fp, "(did you mean ssh-agent:?)"},
		{"ssh_agent:" + fp, "(did you mean ssh-agent:?)"},
		{"ssh-agnet:" + fp, "(did you mean ssh-agent:?)"},
		{"ENV:MCPRES_SIGNING_KEY", "(did you mean env:?)"},
		{"File:release.key", "(did you mean file:?)"},
		{"https://keys.example.org/release.key", `"https": is not a scheme of a key reference (file:, env:, pkcs11:, ssh-agent:)`},
		{"c:d.key", "a key file whose path has a colon is given as file:PATH or ./PATH"},
		{"./PKCS11:" + uri, "holds a PIN attribute looks like a mistyped PKCS#11 URI (did you mean pkcs11:?)"},
		{"file:PKCS11:" + uri, "holds a PIN attribute"},
		{"keys/token;PIN-VALUE=" + testPIN, "holds a PIN attribute"},
		{"keys/x?pin=" + testPIN, "holds a PIN attribute"},
	} {
		r, err := Parse(c.ref)
		if err == nil {
			t.Errorf("%q: parsed as %+v", c.ref, r)
			continue
		}
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %v, want ErrSyntax saying %q", c.ref, err, c.says)
		}
		if strings.Contains(err.Error(), testPIN) {
			t.Errorf("%q: the error holds the PIN: %v", c.ref, err)
		}
	}
}

// The references that are what they look like still parse: the exact
// schemes, plain paths (relative, with a colon after "./" or a "/", a
// drive letter), file:PATH with a colon.
func TestParseControls(t *testing.T) {
	for _, c := range []struct {
		ref    string
		scheme Scheme
		path   string
	}{
		{"keys/release.key", File, "keys/release.key"},
		{"release.key", File, "release.key"},
		{"./c:d.key", File, "./c:d.key"},
		{"/etc/mcpres/a:b.key", File, "/etc/mcpres/a:b.key"},
		{"keys/pkcs11:x", File, "keys/pkcs11:x"},
		{"file:c:d.key", File, "c:d.key"},
		{"file:release.key", File, "release.key"},
		{`C:\keys\release.key`, File, `C:\keys\release.key`},
		{"C:/keys/release.key", File, "C:/keys/release.key"},
		{"keys;release.key", File, "keys;release.key"},
		{"pkcs11.key", File, "pkcs11.key"},
		{"spinner.key", File, "spinner.key"},
		{"env:MCPRES_SIGNING_KEY", Env, ""},
		{"pkcs11:token=release;object=signer?pin-value=" + testPIN, PKCS11, ""},
		{"ssh-agent:" + fp, SSHAgent, ""},
	} {
		r, err := Parse(c.ref)
		if err != nil || r.Scheme != c.scheme || r.Path != c.path {
			t.Errorf("%q: %+v, %v; want scheme %d path %q", c.ref, r, err, c.scheme, c.path)
			continue
		}
		if strings.Contains(r.String(), testPIN) {
			t.Errorf("%q: String %q holds the PIN", c.ref, r)
		}
	}
}

// Redact replaces a PIN in every spelling, and leaves everything else.
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"pkcs11:object=k?pin-value=97531", "pkcs11:object=k?pin-value=REDACTED"},
		{"PKCS11:object=k?PIN-VALUE=97531&module-path=/m.so", "PKCS11:object=k?pin-value=REDACTED&module-path=/m.so"},
		{"pkcs11:object=k?Pin_Value=97531", "pkcs11:object=k?pin-value=REDACTED"},
		{"pkcs11:object=k?pinvalue=97531", "pkcs11:object=k?pin-value=REDACTED"},
		{"pkcs11:object=k?pin value = 97531", "pkcs11:object=k?pin-value=REDACTED"},
		{"pkcs11:object=k?pin%2Dvalue=97531", "pkcs11:object=k?pin-value=REDACTED"},
		{"pkcs11:object=k?pin-value%3D97531", "pkcs11:object=k?pin-value=REDACTED"},
		{"pkcs11:pin-value=975;31;object=k", "pkcs11:pin-value=REDACTED"},
		{"pkcs11:object=k?pin=97531", "pkcs11:object=k?pin=REDACTED"},
		{"pkcs11:object=k?PIN=97531&x=y", "pkcs11:object=k?pin=REDACTED&x=y"},
		// Controls: no PIN, nothing changes; redacting twice is redacting once.
		{"pkcs11:object=k?pin-source=/run/pin", "pkcs11:object=k?pin-source=/run/pin"},
		{"keys/spinner.key", "keys/spinner.key"},
		{"keys/0pin=97531", "keys/0pin=REDACTED"},
		{"pkcs11:object=k?pin-value=REDACTED", "pkcs11:object=k?pin-value=REDACTED"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// What quotes a reference redacts it: a Ref made by hand, a URI whose
	// label holds a PIN attribute, the error of a key file's path.
	if s := (&Ref{Scheme: File, Path: "x?pin-value=" + testPIN}).String(); s != "x?pin-value=REDACTED" {
		t.Errorf("Ref.String %q", s)
	}
	u, err := ParseURI("pkcs11:object=pin-value=" + testPIN)
	if err != nil || strings.Contains(u.String(), testPIN) || !strings.Contains(u.canonical(), testPIN) {
		t.Errorf("URI %v: String %q, canonical (what the helper is sent) %q", err, u, u.canonical())
	}
	_, err = OpenRef(&Ref{Scheme: File, Path: "testdata/no-such-dir/x?pin-value=" + testPIN}, Options{})
	if err == nil || strings.Contains(err.Error(), testPIN) || !strings.Contains(err.Error(), "pin-value=REDACTED") {
		t.Errorf("OpenRef of a missing file: %v", err)
	}
}
