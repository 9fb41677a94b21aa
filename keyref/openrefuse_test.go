package keyref

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
)

// envOf is a LookupEnv of the variables given.
func envOf(kv ...string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == name {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

// A pkcs11: reference is refused before any token is touched when it has
// no module (neither module-path= nor $MCPRES_PKCS11_MODULE), a module
// that is not a regular file, an unreadable pin-source (its path's PIN
// redacted), or no opener in this program (ErrNoPKCS11); a holder whose
// key is not Ed25519 is refused and closed. The controls: the module and
// the PIN from the environment, pin-value= (warned about) reach the
// opener.
func TestOpenPKCS11Refuses(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "module.so")
	if err := os.WriteFile(module, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	errOpened := errors.New("opened")
	var got *PKCS11Request
	opener := func(req *PKCS11Request) (Holder, error) { got = req; return nil, errOpened }

	for _, c := range []struct {
		name string
		ref  string
		o    Options
		is   error
		has  string
	}{
		{"no module", "pkcs11:object=k", Options{LookupEnv: envOf(), PKCS11: opener}, ErrModule, "MCPRES_PKCS11_MODULE"},
		{"module not there", "pkcs11:object=k?module-path=" + filepath.Join(dir, "none.so"), Options{LookupEnv: envOf(), PKCS11: opener}, ErrModule, "none.so: not found"},
		{"module a directory", "pkcs11:object=k?module-path=" + dir, Options{LookupEnv: envOf(), PKCS11: opener}, ErrModule, "not a regular file"},
		{"no opener", "pkcs11:object=k?module-path=" + module, Options{LookupEnv: envOf()}, ErrNoPKCS11, "in this program"},
		{"pin-source missing", "pkcs11:object=k?module-path=" + module + "&pin-source=" + filepath.Join(dir, "pin%3D"+testPIN), Options{LookupEnv: envOf(), PKCS11: opener}, fs.ErrNotExist, "pin-source"},
	} {
		got = nil
		_, err := Open(c.ref, c.o)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.has) || got != nil {
			t.Errorf("%s: %v (opener called: %t), want %v containing %q", c.name, err, got != nil, c.is, c.has)
		}
		if err != nil && strings.Contains(err.Error(), testPIN) {
			t.Errorf("%s: the error holds the PIN: %v", c.name, err)
		}
	}

	got = nil
	_, err := Open("pkcs11:object=k", Options{LookupEnv: envOf(EnvPKCS11Module, module, EnvPKCS11PIN, testPIN), PKCS11: opener})
	if !errors.Is(err, errOpened) || got == nil || got.Module != module || got.PIN != testPIN || !got.HasPIN {
		t.Errorf("control, module and PIN from the environment: %v, %+v", err, got)
	}
	got = nil
	_, err = Open("pkcs11:object=k", Options{LookupEnv: envOf(EnvPKCS11Module, module), PKCS11: opener})
	if !errors.Is(err, errOpened) || got == nil || got.HasPIN {
		t.Errorf("control, no PIN anywhere: %v, %+v", err, got)
	}
	var warned []string
	got = nil
	_, err = Open("pkcs11:object=k?module-path="+module+"&pin-value="+testPIN, Options{LookupEnv: envOf(), PKCS11: opener, Warn: func(m string) { warned = append(warned, m) }})
	if !errors.Is(err, errOpened) || got == nil || got.PIN != testPIN {
		t.Errorf("control, pin-value: %v, %+v", err, got)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "carries its PIN") || strings.Contains(warned[0], testPIN) {
		t.Errorf("pin-value warnings %q, want one without the PIN", warned)
	}

	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	closed := false
	_, err = Open("pkcs11:object=k?module-path="+module, Options{LookupEnv: envOf(), PKCS11: func(*PKCS11Request) (Holder, error) {
		return fakeHolder{Signer: ec, closed: &closed}, nil
	}})
	if !errors.Is(err, ed25519strict.ErrSigner) || !closed {
		t.Errorf("a P-256 key in the token: %v (closed: %t), want ed25519strict.ErrSigner and the holder closed", err, closed)
	}
	seed := sha256.Sum256([]byte("k"))
	k, err := Open("pkcs11:object=k?module-path="+module, Options{LookupEnv: envOf(), PKCS11: func(*PKCS11Request) (Holder, error) {
		return fakeHolder{Signer: ed25519.NewKeyFromSeed(seed[:]), closed: &closed}, nil
	}})
	if err != nil || !k.InToken() || k.Ref().Scheme != PKCS11 {
		t.Fatalf("control, an Ed25519 key in the token: %v", err)
	}
	if _, err := k.Sign(nil, make([]byte, 64), &ed25519.Options{Hash: crypto.SHA512}); !errors.Is(err, ErrPrehash) {
		t.Errorf("Ed25519ph of a key in a token: %v, want ErrPrehash", err)
	}
	closed = false
	if err := k.Close(); err != nil || !closed {
		t.Errorf("Close: %v, holder closed %t", err, closed)
	}
	closed = false
	if err := k.Close(); err != nil || closed {
		t.Errorf("second Close: %v, holder closed again %t", err, closed)
	}
}

// A key file or variable is refused when the variable is unset or empty,
// the file is missing, or its text is not the kind wanted; a signed-note
// key file must be one line holding one key of the right kind. The
// controls open a log key and a witness key with their names, and a PEM
// key readable by others is opened with a warning.
func TestOpenTextRefuses(t *testing.T) {
	dir := t.TempDir()
	logKey, _, err := signednote.GenerateKey(rand.Reader, signednote.TypeEd25519, "example.org/log")
	if err != nil {
		t.Fatal(err)
	}
	witnessKey, _, err := signednote.GenerateKey(rand.Reader, signednote.TypeCosignatureV1, "example.org/witness")
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := keyfile.GenerateKey(rand.Reader)
	pem, _ := keyfile.MarshalPrivateKeyPEM(priv)
	pubPEM, _ := keyfile.MarshalPublicKeyPEM(priv.Public().(ed25519.PublicKey))
	write := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	var kindErr *keyfile.KindError
	for _, c := range []struct {
		name string
		ref  string
		o    Options
		has  string
		as   any
	}{
		{"unset variable", "env:MCPRES_TEST_NO_KEY", Options{LookupEnv: envOf()}, "MCPRES_TEST_NO_KEY is not set or empty", nil},
		{"empty variable", "env:MCPRES_TEST_NO_KEY", Options{LookupEnv: envOf("MCPRES_TEST_NO_KEY", "")}, "not set or empty", nil},
		{"missing file", filepath.Join(dir, "none.key"), Options{}, "none.key", nil},
		{"witness key for a log", "env:K", Options{LookupEnv: envOf("K", witnessKey), Want: keyfile.LogSignerKey}, "", &kindErr},
		{"log key for a witness", "env:K", Options{LookupEnv: envOf("K", logKey), Want: keyfile.WitnessSignerKey}, "", &kindErr},
		{"two lines", "env:K", Options{LookupEnv: envOf("K", logKey+"\n"+logKey), Want: keyfile.LogSignerKey}, "one line holding one key", nil},
		{"trailing space", "env:K", Options{LookupEnv: envOf("K", logKey+" "), Want: keyfile.LogSignerKey}, "one line holding one key", nil},
		{"too long", "env:K", Options{LookupEnv: envOf("K", logKey+strings.Repeat("A", maxNoteKeyBytes)), Want: keyfile.LogSignerKey}, "more than 4096 bytes", nil},
		{"broken log key", "env:K", Options{LookupEnv: envOf("K", logKey[:len(logKey)-4]), Want: keyfile.LogSignerKey}, "", nil},
		{"broken witness key", "env:K", Options{LookupEnv: envOf("K", witnessKey[:len(witnessKey)-4]), Want: keyfile.WitnessSignerKey}, "", nil},
		{"public key for a private one", write("pub.pem", pubPEM, 0o644), Options{}, "", &kindErr},
	} {
		var warned []string
		c.o.Warn = func(m string) { warned = append(warned, m) }
		k, err := Open(c.ref, c.o)
		if err == nil || k != nil || !strings.Contains(err.Error(), c.has) || (c.as != nil && !errors.As(err, c.as)) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.has)
		}
		if len(warned) != 0 {
			t.Errorf("%s: warnings %q", c.name, warned)
		}
	}

	for _, c := range []struct {
		key  string
		want keyfile.Kind
		name string
		typ  byte
	}{
		{logKey + "\n", keyfile.LogSignerKey, "example.org/log", signednote.TypeEd25519},
		{witnessKey, keyfile.WitnessSignerKey, "example.org/witness", signednote.TypeCosignatureV1},
	} {
		k, err := Open("env:K", Options{LookupEnv: envOf("K", c.key), Want: c.want})
		if err != nil {
			t.Fatalf("control %s: %v", c.name, err)
		}
		if n, typ := k.NoteName(); n != c.name || typ != c.typ || k.InToken() {
			t.Errorf("control %s: NoteName %q %d, InToken %t", c.name, n, typ, k.InToken())
		}
		k.Close()
	}

	var warned []string
	open := write("open.pem", pem, 0o644)
	k, err := Open(open, Options{Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatalf("control, a PEM key readable by others: %v", err)
	}
	defer k.Close()
	if len(warned) != 1 || !strings.Contains(warned[0], "chmod 600") {
		t.Errorf("warnings %q, want one saying chmod 600", warned)
	}
	if !k.PublicKey().Equal(priv.Public()) || k.Public() == nil {
		t.Error("the key opened is not the one written")
	}
}

// Key.Sign refuses Ed25519ctx and any hash but none (pure Ed25519) or
// SHA-512 (Ed25519ph, of a key file); the controls sign both ways.
func TestKeySignOptions(t *testing.T) {
	priv, _ := keyfile.GenerateKey(rand.Reader)
	pem, _ := keyfile.MarshalPrivateKeyPEM(priv)
	k, err := Open("env:K", Options{LookupEnv: envOf("K", string(pem))})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	msg := []byte("message")
	digest := sha256.Sum256(msg)
	if _, err := k.Sign(nil, msg, &ed25519.Options{Context: "ctx"}); err == nil || !strings.Contains(err.Error(), "Ed25519ctx") {
		t.Errorf("Ed25519ctx: %v", err)
	}
	if _, err := k.Sign(nil, digest[:], crypto.SHA256); err == nil || !strings.Contains(err.Error(), "only pure Ed25519") {
		t.Errorf("SHA-256: %v", err)
	}
	if _, err := k.Sign(nil, msg, nil); err == nil {
		t.Error("nil options: signed")
	}
	if sig, err := k.Sign(nil, msg, crypto.Hash(0)); err != nil || !ed25519.Verify(k.PublicKey(), msg, sig) {
		t.Errorf("control, pure Ed25519: %v", err)
	}
	if _, err := k.Sign(nil, make([]byte, 64), &ed25519.Options{Hash: crypto.SHA512}); err != nil {
		t.Errorf("control, Ed25519ph of a key file: %v", err)
	}
}
