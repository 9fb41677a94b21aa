package keyhints

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/keyfile"
)

// Every kind a reader can name has its origin in the table, and every
// kind but NoteKey says what takes it.
func TestEveryKindWorded(t *testing.T) {
	for k := keyfile.PEMPrivateKey; k <= keyfile.NoteKey; k++ {
		if kinds[k].origin == "" {
			t.Errorf("%s: no origin", k)
		}
		if k != keyfile.NoteKey && kinds[k].uses == "" {
			t.Errorf("%s: nothing takes it", k)
		}
	}
}

// Word rewords the KindError inside a wrapped error, keeps the wrapping
// text and what the error matches, and names the flag; an error without a
// KindError is returned unchanged (the control).
func TestWord(t *testing.T) {
	sentinel := errors.New("unsupported key format")
	ke := &keyfile.KindError{Got: keyfile.PEMPublicKey, Want: keyfile.PEMPrivateKey, Err: sentinel}
	err := fmt.Errorf("private key a.pub: %w", ke)
	got := Word(err, "--key")
	want := "private key a.pub: unsupported key format: this is a PEM public key (NAME.pub of `mcpres key generate`), for signers and co-signers (witnesses) of attested bundles: `mcpres attest verify --key`, `mcpres policy add-signer`/`add-witness`/`revoke --key`, `mcpres key fingerprint`; --key takes a PEM private key (NAME.key of `mcpres key generate`)"
	if got.Error() != want {
		t.Errorf("Word:\n got %q\nwant %q", got, want)
	}
	if !errors.Is(got, sentinel) || !errors.As(got, new(*keyfile.KindError)) {
		t.Errorf("Word: the result no longer matches its cause")
	}
	if got := Word(ke, ""); !strings.HasSuffix(got.Error(), "; not a PEM private key (NAME.key of `mcpres key generate`)") {
		t.Errorf("no flag: %q", got)
	}
	other := fmt.Errorf("private key a.key: %w", sentinel)
	if got := Word(other, "--key"); got != other {
		t.Errorf("an error without a KindError was changed: %q", got)
	}
	if got := Word(nil, "--key"); got != nil {
		t.Errorf("Word(nil) = %v", got)
	}
}
