package keyref

import (
	"errors"
	"strings"
	"testing"
)

// ParseURI refuses, each with its own ErrSyntax diagnostic and never
// quoting the PIN, a URI that would not name one key exactly (issue 31):
// an attribute it does not read, one given twice, a value not encoded as
// RFC 7512 says, an empty module-path or pin-source, a slot-id that is not
// a decimal number, a type other than private, both pin-source and
// pin-value, no object= or id=. The controls, which differ from the rows
// by the fault alone, parse to the attributes they carry.
func TestParseURIRefuses(t *testing.T) {
	const key = "token=release;object=signer"
	for _, c := range []struct{ uri, says string }{
		{"pkcs11-" + key, `a PKCS#11 URI starts with "pkcs11:"`},
		{"pkcs11:" + key + ";" + testPIN, "the path attribute 3 is not NAME=VALUE"},
		{"pkcs11:" + key + "?=" + testPIN, "the query attribute 1 is not NAME=VALUE"},
		{"pkcs11:" + key + ";library-version=1", `attribute "library-version" is not supported here`},
		{"pkcs11:" + key + "?module-name=softhsm2", `attribute "module-name" is not supported here`},
		{"pkcs11:" + key + ";token=other", `attribute "token" given twice`},
		{"pkcs11:" + key + "?pin-value=%4", "pin-value is not percent-encoded correctly"},
		{"pkcs11:" + key + "?pin-value=" + testPIN + "%zz", "pin-value is not percent-encoded correctly"},
		{"pkcs11:" + key + "?pin-value=" + testPIN + "%", "pin-value is not percent-encoded correctly"},
		{"pkcs11:token=re%4;object=signer", "pkcs11: token: truncated percent-encoding"},
		{"pkcs11:token=re%zzx;object=signer", `pkcs11: token: bad percent-encoding "%zz"`},
		{"pkcs11:token=a b;object=signer", `pkcs11: token: character ' ' must be percent-encoded`},
		{"pkcs11:" + key + "?module-path=/lib/a#b.so", `pkcs11: module-path: character '#' must be percent-encoded`},
		{"pkcs11:" + key + "?module-path=", "pkcs11: module-path is empty"},
		{"pkcs11:" + key + "?pin-source=", "pkcs11: pin-source is empty"},
		{"pkcs11:" + key + ";slot-id=01", `pkcs11: slot-id "01" is not a decimal number`},
		{"pkcs11:" + key + ";slot-id=-1", `pkcs11: slot-id "-1" is not a decimal number`},
		{"pkcs11:" + key + ";type=public", "pkcs11: type=public: the key that signs is a private key"},
		{"pkcs11:" + key + "?pin-source=file:pin&pin-value=" + testPIN, "give pin-source or pin-value, not both"},
		{"pkcs11:token=release", "name the key with object= (its label) or id="},
		{"pkcs11:", "name the key with object= (its label) or id="},
	} {
		u, err := ParseURI(c.uri)
		if err == nil {
			t.Errorf("%q: parsed as %v", c.uri, u)
			continue
		}
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %v, want ErrSyntax saying %q", c.uri, err, c.says)
		}
		if strings.Contains(err.Error(), testPIN) {
			t.Errorf("%q: the error holds the PIN: %v", c.uri, err)
		}
	}
	for _, c := range []struct {
		uri  string
		want URI
	}{
		{"pkcs11:" + key + ";manufacturer=SoftHSM;model=SoftHSM%20v2;serial=1a2b;slot-id=7;type=private", URI{Token: "release", Object: "signer", Manufacturer: "SoftHSM", Model: "SoftHSM v2", Serial: "1a2b", SlotID: 7, HasSlotID: true, Type: "private"}},
		{"pkcs11:token=re%41;id=%01%02?module-path=/lib/a%3Bb.so&pin-source=file:/run/pin", URI{Token: "reA", ID: []byte{1, 2}, ModulePath: "/lib/a;b.so", PINSource: "file:/run/pin"}},
		{"pkcs11:" + key + "?pin-value=" + testPIN, URI{Token: "release", Object: "signer"}},
	} {
		u, err := ParseURI(c.uri)
		if err != nil {
			t.Errorf("%q: %v", c.uri, err)
			continue
		}
		if u.Token != c.want.Token || u.Object != c.want.Object || string(u.ID) != string(c.want.ID) || u.Manufacturer != c.want.Manufacturer ||
			u.Model != c.want.Model || u.Serial != c.want.Serial || u.SlotID != c.want.SlotID || u.HasSlotID != c.want.HasSlotID ||
			u.Type != c.want.Type || u.ModulePath != c.want.ModulePath || u.PINSource != c.want.PINSource {
			t.Errorf("%q: %+v, want %+v", c.uri, u, c.want)
		}
		// String writes back every attribute read, the PIN redacted.
		if s := u.String(); strings.Contains(s, testPIN) || (u.HasPINValue() && !strings.Contains(s, "pin-value=REDACTED")) {
			t.Errorf("%q: String %q", c.uri, s)
		}
		if u.Model != "" && !strings.Contains(u.String(), "model=SoftHSM%20v2") {
			t.Errorf("%q: String %q lost the model", c.uri, u.String())
		}
	}
}

// Parse refuses an oversized reference and an empty file: path before
// reading anything; the controls are a reference of the largest size and
// file:PATH.
func TestParseRefusesSize(t *testing.T) {
	long := "keys/" + strings.Repeat("k", MaxRefBytes-len("keys/"))
	if r, err := Parse(long); err != nil || r.Path != long {
		t.Fatalf("a reference of %d bytes: %+v, %v", len(long), r, err)
	}
	for _, c := range []struct{ ref, says string }{
		{long + "k", "more than"},
		{"file:", "file: needs a path"},
	} {
		if _, err := Parse(c.ref); !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%.20q…: %v, want ErrSyntax saying %q", c.ref, err, c.says)
		}
	}
}
