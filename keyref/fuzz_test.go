package keyref

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// fuzzPIN is the PIN FuzzParse puts in every PIN attribute of its input;
// no message and no String may hold it.
const fuzzPIN = "7Q4X9K2"

// pinAttr finds a PIN attribute as a person may misspell it, written
// apart from Redact's patterns so that the test does not take them on
// trust: "pin", up to three characters that are no letter, digit, "=" or
// "&", "value" (or nothing: a bare pin=), then "=" and the value.
var pinAttr = regexp.MustCompile(`(?i)(pin(?:[^a-z0-9=&]{0,3}value)?\s*=)[^&]*`)

// FuzzParse: a reference that parses has one canonical pkcs11 form (its
// String parses again to the same String), and a pin-value is never in
// it; an error is ErrSyntax and quotes no pin-value. The PIN attributes
// of the input, in any spelling (PIN-VALUE=, pin_value=, pin=), hold
// fuzzPIN: neither the error nor the String may contain it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"release.key", "file:release.key", "env:MCPRES_SIGNING_KEY", "env:", "env:1X",
		"pkcs11:token=mcpres;object=release?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=/run/pin",
		"pkcs11:token=my%20token;id=%01%02;slot-id=7;type=private?pin-value=123456",
		"pkcs11:object=a;object=b", "pkcs11:token=x", "pkcs11:object=x?pin-value=1&pin-source=f", "pkcs11:serial=%zz;object=x",
		"ssh-agent:SHA256:drkQ9HwGr4rF65cNzP51OzueWeLcXTBa7D617NNI7rM", "ssh-agent:MD5:00", "ssh-agent:SHA256:short",
		// Look-alikes (issue 31): refused, the PIN never quoted.
		"PKCS11:token=t;object=k?pin-value=97531", " pkcs11:object=k?pin-value=97531", "pkcs11;object=k?pin-value=97531",
		"pkcs11:object=k?PIN-VALUE=97531", "file:PKCS11:object=k?pin-value=97531", "./x?pin=97531", "Pkcs11:object=k?Pin_Value=97531",
		"pkcs11:object=pin-value=97531", "pkcs11:slot-id=pin-value=97531;object=k", "pkcs11:type=pin-value=97531;object=k",
		"SSH-AGENT:SHA256:drkQ9HwGr4rF65cNzP51OzueWeLcXTBa7D617NNI7rM", "c:d.key", "./c:d.key", "file:c:d.key", "https://x/y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = pinAttr.ReplaceAllString(s, "${1}"+fuzzPIN)
		r, err := Parse(s)
		if err != nil {
			if r != nil || !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q) = %v, %v", s, r, err)
			}
			if strings.Contains(err.Error(), fuzzPIN) {
				t.Fatalf("the error of %q quotes its PIN: %v", s, err)
			}
			if i := strings.Index(s, "pin-value="); i >= 0 {
				pin, _, _ := strings.Cut(s[i+len("pin-value="):], "&")
				if len(pin) >= 4 && strings.Contains(err.Error(), pin) {
					t.Fatalf("the error of %q quotes its pin-value: %v", s, err)
				}
			}
			return
		}
		if strings.Contains(r.String(), fuzzPIN) {
			t.Fatalf("String %q of %q holds its PIN", r, s)
		}
		if r.Scheme != PKCS11 {
			return
		}
		again, err := ParseURI(r.PKCS11.String())
		if err != nil {
			t.Fatalf("String %q of %q does not parse: %v", r.PKCS11, s, err)
		}
		if again.String() != r.PKCS11.String() {
			t.Fatalf("not canonical: %q then %q", r.PKCS11, again)
		}
		if r.PKCS11.HasPINValue() && (!strings.Contains(r.String(), "pin-value=REDACTED") || (len(r.PKCS11.pinValue) >= 4 && strings.Contains(r.String(), r.PKCS11.pinValue) && r.PKCS11.pinValue != "REDACTED")) {
			t.Fatalf("String %q shows the pin-value", r)
		}
	})
}

// FuzzHelperFrames: the helper's decoders return a request or an error,
// never both; a request re-encodes to a payload that decodes to the same.
func FuzzHelperFrames(f *testing.F) {
	u, _ := ParseURI("pkcs11:token=t;object=o")
	for _, req := range []*PKCS11Request{{URI: u, Module: "/m.so"}, {URI: u, Module: "/m.so", PIN: "1234", HasPIN: true}} {
		p := encodeOpen(req)
		var frame bytes.Buffer
		writeFrame(&frame, frameOpen, p)
		f.Add(frame.Bytes())
	}
	f.Add([]byte("O\x00\x00\x00\x04abcd"))
	f.Add([]byte("O\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, p, err := readFrame(bytes.NewReader(data))
		if err != nil {
			if p != nil {
				t.Fatal("a payload with an error")
			}
			return
		}
		if typ != frameOpen {
			return
		}
		req, err := decodeOpen(p)
		if err != nil {
			if req != nil {
				t.Fatal("a request with an error")
			}
			return
		}
		back, err := decodeOpen(encodeOpen(req))
		if err != nil || back.URI.String() != req.URI.String() || back.Module != req.Module || back.PIN != req.PIN || back.HasPIN != req.HasPIN {
			t.Fatalf("round trip: %+v, %v; want %+v", back, err, req)
		}
	})
}
