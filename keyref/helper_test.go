package keyref

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// helperModeEnv makes the test binary, started as a PKCS#11 helper by
// HelperOpener, act as one: its value says how (see fakeHelper).
const helperModeEnv = "MCPRES_KEYREF_TEST_HELPER"

// helperSeedEnv is mixed into the key the fake helper's opener makes, so
// that a helper started again can hold another key.
const helperSeedEnv = "MCPRES_KEYREF_TEST_HELPER_SEED"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperModeEnv); mode != "" {
		os.Exit(fakeHelper(mode))
	}
	os.Exit(m.Run())
}

// fakeHelper is the helper side in a child process:
//
//   - serve: ServeHelper with fakeOpener (the real protocol);
//   - exit: exits at once without answering;
//   - short-key: answers the open request with a 5-byte 'K' frame;
//   - bad-sig-frame: answers open correctly, then a sign request with 'X';
//   - die-on-sign: answers open correctly, then exits on a sign request.
func fakeHelper(mode string) int {
	r, w := bufio.NewReader(os.Stdin), bufio.NewWriter(os.Stdout)
	if mode == "serve" {
		if err := ServeHelper(r, w, fakeOpener); err != nil {
			return 1
		}
		return 0
	}
	if mode == "exit" {
		return 3
	}
	typ, p, err := readFrame(r)
	if err != nil || typ != frameOpen {
		return 1
	}
	req, err := decodeOpen(p)
	if err != nil {
		return 1
	}
	if mode == "short-key" {
		writeFrame(w, frameKey, []byte("short"))
		return 0
	}
	writeFrame(w, frameKey, fakeKey(req).Public().(ed25519.PublicKey))
	if _, _, err := readFrame(r); err != nil {
		return 1
	}
	switch mode {
	case "bad-sig-frame":
		writeFrame(w, 'X', nil)
		io.Copy(io.Discard, r)
	case "die-on-sign":
	}
	return 0
}

// fakeKey is the key the fake token holds for a request: derived from the
// object name and $MCPRES_KEYREF_TEST_HELPER_SEED.
func fakeKey(req *PKCS11Request) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(req.URI.Object + "/" + os.Getenv(helperSeedEnv)))
	return ed25519.NewKeyFromSeed(seed[:])
}

// fakeHolder is a key in a fake token; a signature of "refuse" is
// refused with ErrPINRequired (a token that logged out).
type fakeHolder struct {
	crypto.Signer
	closed *bool
}

func (h fakeHolder) Sign(r io.Reader, msg []byte, o crypto.SignerOpts) ([]byte, error) {
	if string(msg) == "refuse" {
		return nil, fmt.Errorf("%w: the token logged out", ErrPINRequired)
	}
	return h.Signer.Sign(r, msg, o)
}

func (h fakeHolder) Close() error {
	if h.closed != nil {
		*h.closed = true
	}
	return nil
}

// fakeOpener opens fakeKey, except for the objects named "locked" (the
// PIN is locked) and "ecdsa" (a P-256 key, which ServeHelper refuses).
func fakeOpener(req *PKCS11Request) (Holder, error) {
	switch req.URI.Object {
	case "locked":
		return nil, fmt.Errorf("%w: token t: too many wrong PINs", ErrPINLocked)
	case "ecdsa":
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		return fakeHolder{Signer: k}, nil
	}
	return fakeHolder{Signer: fakeKey(req)}, nil
}

func openFrame(t *testing.T, uri string) []byte {
	t.Helper()
	u, err := ParseURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	writeFrame(&b, frameOpen, encodeOpen(&PKCS11Request{URI: u, Module: "/m.so", PIN: testPIN, HasPIN: true}))
	return b.Bytes()
}

func frames(t *testing.T, b []byte) (types string, payloads [][]byte) {
	t.Helper()
	r := bytes.NewReader(b)
	for r.Len() > 0 {
		typ, p, err := readFrame(r)
		if err != nil {
			t.Fatalf("the helper's answer: %v", err)
		}
		types += string(typ)
		payloads = append(payloads, p)
	}
	return types, payloads
}

// ServeHelper refuses, each for its reason and answering an 'E' frame
// whose code matches the opener's Err… value where there is an answer to
// give: an input that does not start with an open request, a malformed
// open request, a key the opener refuses, a key that is not Ed25519, and
// a frame other than a sign request after the open. A signature the
// holder refuses is answered with its error and the helper goes on. The
// control signs twice and ends cleanly at the end of its input.
func TestServeHelperRefuses(t *testing.T) {
	sign := func(msg string) []byte {
		var b bytes.Buffer
		writeFrame(&b, frameSign, []byte(msg))
		return b.Bytes()
	}
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	malformed := func() []byte {
		var b bytes.Buffer
		writeFrame(&b, frameOpen, []byte("\x00\x00\x00\x01x"))
		return b.Bytes()
	}()
	for _, c := range []struct {
		name   string
		in     []byte
		errHas string // "" : ServeHelper returns nil
		is     error  // what the error (and its 'E' answer) matches
		types  string // the frames answered
	}{
		{"control", cat(openFrame(t, "pkcs11:object=k"), sign("a"), sign("b")), "", nil, "KGG"},
		{"empty input", nil, "reading the open request", io.EOF, ""},
		{"sign before open", sign("a"), "want an open request", nil, ""},
		{"malformed open", malformed, "malformed open frame", nil, "E"},
		{"key refused", openFrame(t, "pkcs11:object=locked"), "too many wrong PINs", ErrPINLocked, "E"},
		{"not Ed25519", openFrame(t, "pkcs11:object=ecdsa"), "not an Ed25519 key", nil, "E"},
		{"open twice", cat(openFrame(t, "pkcs11:object=k"), openFrame(t, "pkcs11:object=k")), "want a sign request", nil, "K"},
		{"signature refused", cat(openFrame(t, "pkcs11:object=k"), sign("refuse"), sign("b")), "", nil, "KEG"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := ServeHelper(bytes.NewReader(c.in), &out, fakeOpener)
			if c.errHas == "" && err != nil || c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)) {
				t.Fatalf("ServeHelper: %v, want an error containing %q", err, c.errHas)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("ServeHelper: %v, want it to match %v", err, c.is)
			}
			types, payloads := frames(t, out.Bytes())
			if types != c.types {
				t.Fatalf("answered frames %q, want %q", types, c.types)
			}
			for i, typ := range types {
				switch typ {
				case frameError:
					e := decodeError(payloads[i])
					if c.is != nil && !errors.Is(e, c.is) {
						t.Errorf("'E' answer %v does not match %v", e, c.is)
					}
					if c.name == "signature refused" && !errors.Is(e, ErrPINRequired) {
						t.Errorf("'E' answer to a refused signature: %v, want ErrPINRequired", e)
					}
				case frameSig:
					pub := ed25519.PublicKey(payloads[0])
					if !ed25519.Verify(pub, []byte("a"), payloads[i]) && !ed25519.Verify(pub, []byte("b"), payloads[i]) {
						t.Errorf("signature %d does not verify", i)
					}
				}
			}
			if bytes.Contains(out.Bytes(), []byte(testPIN)) {
				t.Error("the answer holds the PIN")
			}
		})
	}
}

// decodeError: an 'E' frame without a code or message is an error of its
// own; an unknown code keeps the message but matches no Err… value; a
// known code matches its value.
func TestDecodeError(t *testing.T) {
	if err := decodeError(nil); err == nil || !strings.Contains(err.Error(), "without a message") {
		t.Errorf("empty 'E' payload: %v", err)
	}
	err := decodeError(append([]byte{200}, "strange"...))
	if err.Error() != "strange" {
		t.Errorf("unknown code: %q", err)
	}
	for _, e := range helperCodes[1:] {
		if errors.Is(err, e) {
			t.Errorf("unknown code matches %v", e)
		}
	}
	for _, e := range helperCodes[1:] {
		got := decodeError(errorPayload(fmt.Errorf("%w: detail", e)))
		if !errors.Is(got, e) || got.Error() != e.Error()+": detail" {
			t.Errorf("code of %v: %v", e, got)
		}
	}
	if p := errorPayload(errors.New("plain")); p[0] != 0 {
		t.Errorf("an error of no Err… value has code %d", p[0])
	}
}

// writeFrame refuses a payload over MaxHelperFrame (before writing
// anything), and readFrame a header announcing one.
func TestFrameLimit(t *testing.T) {
	var b bytes.Buffer
	if err := writeFrame(&b, frameSign, make([]byte, MaxHelperFrame+1)); err == nil || b.Len() != 0 {
		t.Errorf("writeFrame of MaxHelperFrame+1 bytes: %v, %d bytes written", err, b.Len())
	}
	if _, _, err := readFrame(bytes.NewReader([]byte{frameSign, 0x04, 0, 0, 1})); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("readFrame of a header over the limit: %v", err)
	}
	if _, _, err := readFrame(bytes.NewReader([]byte{frameSign, 0, 0, 0, 4, 'a'})); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("readFrame of a truncated frame: %v", err)
	}
	if err := writeFrame(&b, frameSign, []byte("ok")); err != nil || b.Len() != 7 {
		t.Errorf("control: %v, %d bytes", err, b.Len())
	}
}

func testExecutable(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	return exe
}

func helperRequest(t *testing.T, object string) *PKCS11Request {
	t.Helper()
	u, err := ParseURI("pkcs11:token=t;object=" + object)
	if err != nil {
		t.Fatal(err)
	}
	return &PKCS11Request{URI: u, Module: "/m.so", PIN: testPIN, HasPIN: true}
}

// Through a helper process (this test binary acting as one), a key opens
// with the public key the helper holds and signs; a key the helper's
// token refuses is refused with the token's Err… value; and a signature
// after Close is refused.
func TestHelperOpener(t *testing.T) {
	exe := testExecutable(t)
	t.Setenv(helperModeEnv, "serve")
	h, err := HelperOpener(exe)(helperRequest(t, "k"))
	if err != nil {
		t.Fatal(err)
	}
	want := fakeKey(helperRequest(t, "k")).Public().(ed25519.PublicKey)
	if !want.Equal(h.Public()) {
		t.Fatalf("public key %x, the helper holds %x", h.Public(), want)
	}
	sig, err := h.Sign(nil, []byte("m"), crypto.Hash(0))
	if err != nil || !ed25519.Verify(want, []byte("m"), sig) {
		t.Fatalf("signature through the helper: %v", err)
	}
	if _, err := h.Sign(nil, []byte("refuse"), crypto.Hash(0)); !errors.Is(err, ErrPINRequired) || !strings.Contains(err.Error(), "logged out") {
		t.Errorf("a signature the token refuses: %v, want ErrPINRequired", err)
	}
	if sig, err := h.Sign(nil, []byte("m2"), crypto.Hash(0)); err != nil || !ed25519.Verify(want, []byte("m2"), sig) {
		t.Errorf("a signature after a refused one: %v", err)
	}
	h.Close()
	if _, err := h.Sign(nil, []byte("m"), crypto.Hash(0)); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "closed") {
		t.Errorf("a signature after Close: %v, want ErrUnavailable", err)
	}

	if _, err := HelperOpener(exe)(helperRequest(t, "locked")); !errors.Is(err, ErrPINLocked) || strings.Contains(err.Error(), testPIN) {
		t.Errorf("a locked token through the helper: %v, want ErrPINLocked without the PIN", err)
	}
}

// A helper that cannot be started is ErrNoPKCS11; one that exits or
// answers the open request with anything but a 32-byte key is
// ErrUnavailable, naming the helper.
func TestHelperOpenerBrokenHelper(t *testing.T) {
	exe := testExecutable(t)
	missing := filepath.Join(t.TempDir(), "mcpres-pkcs11")
	if _, err := HelperOpener(missing)(helperRequest(t, "k")); !errors.Is(err, ErrNoPKCS11) || !strings.Contains(err.Error(), missing) {
		t.Errorf("a helper that is not there: %v, want ErrNoPKCS11 naming it", err)
	}
	for _, mode := range []string{"exit", "short-key"} {
		t.Setenv(helperModeEnv, mode)
		_, err := HelperOpener(exe)(helperRequest(t, "k"))
		if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrNoPKCS11) || !strings.Contains(err.Error(), exe) || strings.Contains(err.Error(), testPIN) {
			t.Errorf("helper %s: %v, want ErrUnavailable naming the helper", mode, err)
		}
	}
}

// A helper that dies is started again at the next signature, which then
// comes from the same key; a helper that comes back holding another key
// is refused (ErrUnavailable naming both keys), and so is an answer to a
// sign request that is not a signature.
func TestHelperSignerRestart(t *testing.T) {
	exe := testExecutable(t)
	t.Setenv(helperModeEnv, "die-on-sign")
	h, err := HelperOpener(exe)(helperRequest(t, "k"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	pub := h.Public().(ed25519.PublicKey)
	if _, err := h.Sign(nil, []byte("m"), crypto.Hash(0)); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a helper that dies while signing: %v, want ErrUnavailable", err)
	}
	t.Setenv(helperModeEnv, "serve")
	sig, err := h.Sign(nil, []byte("m"), crypto.Hash(0))
	if err != nil || !ed25519.Verify(pub, []byte("m"), sig) {
		t.Fatalf("control: the helper started again signs with the same key: %v", err)
	}

	t.Setenv(helperModeEnv, "die-on-sign")
	h2, err := HelperOpener(exe)(helperRequest(t, "k"))
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	h2.Sign(nil, []byte("m"), crypto.Hash(0))
	t.Setenv(helperModeEnv, "serve")
	t.Setenv(helperSeedEnv, "another token")
	_, err = h2.Sign(nil, []byte("m"), crypto.Hash(0))
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "another key") {
		t.Errorf("a helper started again with another key: %v, want ErrUnavailable", err)
	}

	t.Setenv(helperModeEnv, "bad-sig-frame")
	h3, err := HelperOpener(exe)(helperRequest(t, "k"))
	if err != nil {
		t.Fatal(err)
	}
	defer h3.Close()
	if _, err := h3.Sign(nil, []byte("m"), crypto.Hash(0)); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "to sign") {
		t.Errorf("a helper that answers a sign request with 'X': %v, want ErrUnavailable", err)
	}
}

// FindHelper takes $MCPRES_PKCS11_HELPER, else mcpres-pkcs11 on PATH;
// none found is ErrNoPKCS11 saying how to install it, and
// FindHelperOpener then refuses the key with that error.
func TestFindHelper(t *testing.T) {
	noEnv := func(string) (string, bool) { return "", false }
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := FindHelper(noEnv); !errors.Is(err, ErrNoPKCS11) || !strings.Contains(err.Error(), "go install ./cmd/...") {
		t.Errorf("no helper: %v, want ErrNoPKCS11 saying how to install it", err)
	}
	if _, err := FindHelperOpener(noEnv)(helperRequest(t, "k")); !errors.Is(err, ErrNoPKCS11) {
		t.Errorf("FindHelperOpener with no helper: %v", err)
	}
	env := func(n string) (string, bool) {
		if n == HelperEnv {
			return "/opt/helper", true
		}
		return "", false
	}
	if p, err := FindHelper(env); err != nil || p != "/opt/helper" {
		t.Errorf("$%s: %q, %v", HelperEnv, p, err)
	}
	onPath := filepath.Join(dir, HelperName)
	if err := os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := FindHelper(noEnv); err != nil || p != onPath {
		t.Errorf("on PATH: %q, %v", p, err)
	}
	exe := testExecutable(t)
	t.Setenv(helperModeEnv, "serve")
	h, err := FindHelperOpener(func(n string) (string, bool) {
		if n == HelperEnv {
			return exe, true
		}
		return "", false
	})(helperRequest(t, "k"))
	if err != nil {
		t.Fatalf("FindHelperOpener of $%s: %v", HelperEnv, err)
	}
	h.Close()
}
