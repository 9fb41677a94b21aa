//go:build cgo

package p11

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/keyref"
	"github.com/miekg/pkcs11"
)

// What a failed C_Login says, by its CKR_ code. SoftHSM2 never locks a
// PIN (it counts no failures), so a locked token is shown here by the
// code a token that locks answers.
func TestLoginError(t *testing.T) {
	for _, c := range []struct {
		code uint
		want error
		says string
	}{
		{pkcs11.CKR_PIN_INCORRECT, keyref.ErrPINIncorrect, "refused the PIN"},
		{pkcs11.CKR_PIN_LOCKED, keyref.ErrPINLocked, "security officer must reset it"},
		{pkcs11.CKR_PIN_LEN_RANGE, keyref.ErrPINIncorrect, "wrong length"},
		{pkcs11.CKR_DEVICE_REMOVED, keyref.ErrUnavailable, "CKR_DEVICE_REMOVED"},
	} {
		err := loginError(pkcs11.Error(c.code), "tok")
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("code 0x%x: %v, want %v saying %q", c.code, err, c.want, c.says)
		}
	}
	if err := loginError(pkcs11.Error(pkcs11.CKR_USER_ALREADY_LOGGED_IN), "tok"); err != nil {
		t.Errorf("already logged in: %v", err)
	}
}

// The SoftHSM2 hint is for SoftHSM2 alone: another module's missing token
// is not about $SOFTHSM2_CONF.
func TestSoftHSMHintOnlyForSoftHSM(t *testing.T) {
	t.Setenv("SOFTHSM2_CONF", "")
	if h := softHSMHint("/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so"); h != "" {
		t.Errorf("OpenSC: %q", h)
	}
	if h := softHSMHint("/usr/lib/softhsm/libsofthsm2.so"); !strings.Contains(h, "set SOFTHSM2_CONF to the softhsm2.conf of the token directory") {
		t.Errorf("SoftHSM2: %q", h)
	}
}
