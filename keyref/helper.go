package keyref

import (
	"bufio"
	"crypto"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpres/mcpres/ed25519strict"
)

// MaxHelperFrame bounds the payload of a helper frame: a message to sign
// (a DSSE statement, TUF metadata) is far smaller.
const MaxHelperFrame = 64 << 20

// Frame types.
const (
	frameOpen  = 'O'
	frameKey   = 'K'
	frameSign  = 'S'
	frameSig   = 'G'
	frameError = 'E'
)

// helperCodes are the error codes of 'E' frames, in order.
var helperCodes = []error{nil, ErrModule, ErrTokenNotFound, ErrObjectNotFound, ErrPINRequired, ErrPINIncorrect, ErrPINLocked, ErrKeyType, ErrUnavailable, ErrNoPKCS11}

func writeFrame(w io.Writer, typ byte, payload []byte) error {
	if len(payload) > MaxHelperFrame {
		return fmt.Errorf("keyref: a helper frame of %d bytes, more than %d", len(payload), MaxHelperFrame)
	}
	var hdr [5]byte
	hdr[0] = typ
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(payload)))
	if _, err := w.Write(append(hdr[:], payload...)); err != nil {
		return err
	}
	if f, ok := w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// readFrame reads one frame; an incomplete or oversized one is an error.
func readFrame(r io.Reader) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > MaxHelperFrame {
		return 0, nil, fmt.Errorf("keyref: a helper frame of %d bytes, more than %d", n, MaxHelperFrame)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, fmt.Errorf("keyref: truncated helper frame: %w", io.ErrUnexpectedEOF)
	}
	return hdr[0], payload, nil
}

func appendField(b []byte, f string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(f))), f...)
}

// encodeOpen is the payload of an 'O' frame.
func encodeOpen(req *PKCS11Request) []byte {
	has := "0"
	if req.HasPIN {
		has = "1"
	}
	var b []byte
	for _, f := range []string{req.URI.canonical(), req.Module, has, req.PIN} {
		b = appendField(b, f)
	}
	return b
}

// decodeOpen parses an 'O' payload strictly: exactly four fields, a URI
// that ParseURI takes, "0" or "1", and no PIN after "0".
func decodeOpen(p []byte) (*PKCS11Request, error) {
	var fields []string
	for len(p) > 0 {
		if len(p) < 4 {
			return nil, errors.New("keyref: malformed open frame")
		}
		n := binary.BigEndian.Uint32(p)
		p = p[4:]
		if uint64(n) > uint64(len(p)) {
			return nil, errors.New("keyref: malformed open frame")
		}
		fields = append(fields, string(p[:n]))
		p = p[n:]
	}
	if len(fields) != 4 || (fields[2] != "0" && fields[2] != "1") || (fields[2] == "0" && fields[3] != "") || fields[1] == "" {
		return nil, errors.New("keyref: malformed open frame")
	}
	u, err := ParseURI(fields[0])
	if err != nil {
		return nil, err
	}
	return &PKCS11Request{URI: u, Module: fields[1], HasPIN: fields[2] == "1", PIN: fields[3]}, nil
}

func errorPayload(err error) []byte {
	code := byte(0)
	for i, e := range helperCodes {
		if e != nil && errors.Is(err, e) {
			code = byte(i)
			break
		}
	}
	return append([]byte{code}, err.Error()...)
}

// A helperError is an error a helper answered: its message, matching the
// Err… value of its code.
type helperError struct {
	msg string
	is  error
}

func (e *helperError) Error() string { return e.msg }
func (e *helperError) Unwrap() error { return e.is }

func decodeError(p []byte) error {
	if len(p) == 0 {
		return errors.New("keyref: the PKCS#11 helper failed without a message")
	}
	var is error
	if int(p[0]) < len(helperCodes) {
		is = helperCodes[p[0]]
	}
	return &helperError{msg: string(p[1:]), is: is}
}

// ServeHelper is the helper's side of the protocol: it reads the open
// request from in, opens the key with open, and answers sign requests
// until in ends. It returns nil at the end of in, or the error that ended
// it (a malformed frame, a key that could not be opened, which was also
// answered).
func ServeHelper(in io.Reader, out io.Writer, open PKCS11Opener) error {
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	typ, p, err := readFrame(r)
	if err != nil {
		return fmt.Errorf("keyref: reading the open request: %w", err)
	}
	if typ != frameOpen {
		return fmt.Errorf("keyref: the first frame is %q, want an open request", typ)
	}
	req, err := decodeOpen(p)
	clear(p)
	if err != nil {
		writeFrame(w, frameError, errorPayload(err))
		return err
	}
	h, err := open(req)
	req.PIN = ""
	if err != nil {
		writeFrame(w, frameError, errorPayload(err))
		return err
	}
	defer h.Close()
	pub, err := ed25519strict.SignerPublicKey(h)
	if err != nil {
		writeFrame(w, frameError, errorPayload(err))
		return err
	}
	if err := writeFrame(w, frameKey, pub); err != nil {
		return err
	}
	for {
		typ, msg, err := readFrame(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if typ != frameSign {
			return fmt.Errorf("keyref: frame %q, want a sign request", typ)
		}
		sig, err := h.Sign(nil, msg, crypto.Hash(0))
		if err != nil {
			err = writeFrame(w, frameError, errorPayload(err))
		} else {
			err = writeFrame(w, frameSig, sig)
		}
		if err != nil {
			return err
		}
	}
}

// HelperEnv names the PKCS#11 helper executable (cmd/mcpres-pkcs11)
// explicitly; [FindHelper] looks there first.
const HelperEnv = "MCPRES_PKCS11_HELPER"

// HelperName is the helper's executable name.
const HelperName = "mcpres-pkcs11"

// FindHelper returns the PKCS#11 helper: $MCPRES_PKCS11_HELPER, else
// mcpres-pkcs11 next to the running executable, else on PATH. Not found,
// the error matches [ErrNoPKCS11] and says how to install it.
func FindHelper(lookupEnv func(string) (string, bool)) (string, error) {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	if p, ok := lookupEnv(HelperEnv); ok && p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), HelperName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: PKCS#11 keys are opened by the %s program, which was not found next to this one, on PATH or in $%s: install it with a C compiler present (go install ./cmd/...)", ErrNoPKCS11, HelperName, HelperEnv)
}

// FindHelperOpener is [HelperOpener] of the helper [FindHelper] finds
// when a key is opened, through lookupEnv (nil: os.LookupEnv).
func FindHelperOpener(lookupEnv func(string) (string, bool)) PKCS11Opener {
	return func(req *PKCS11Request) (Holder, error) {
		path, err := FindHelper(lookupEnv)
		if err != nil {
			return nil, err
		}
		return HelperOpener(path)(req)
	}
}

// helperTimeout bounds one answer of the helper (a token that asks for
// a PIN on its own pad answers within it).
const helperTimeout = 60 * time.Second

// HelperOpener returns a [PKCS11Opener] that opens each key in a helper
// process started from the executable path (see [FindHelper]); the
// process holds the token session and the PIN, and ends when the Key is
// closed. A helper that dies is started again at the next signature,
// which must then come from the same key.
func HelperOpener(path string) PKCS11Opener {
	return func(req *PKCS11Request) (Holder, error) {
		h := &helperSigner{path: path, open: encodeOpen(req), uri: req.URI.String()}
		pub, err := h.start()
		if err != nil {
			clear(h.open)
			return nil, err
		}
		h.pub = pub
		return h, nil
	}
}

// helperSigner is a key held by a helper process.
type helperSigner struct {
	path string
	open []byte // the open request, kept to start the helper again
	uri  string
	pub  ed25519.PublicKey

	mu    sync.Mutex
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// start starts the helper and opens the key; the caller holds mu or owns
// h alone.
func (h *helperSigner) start() (ed25519.PublicKey, error) {
	cmd := exec.Command(h.path, "serve")
	// What the helper has to say comes through the pipe ('E'); its
	// standard error is not the user's.
	cmd.Stderr = nil
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: starting the PKCS#11 helper %s: %v", ErrNoPKCS11, h.path, err)
	}
	h.cmd, h.stdin, h.out = cmd, stdin, bufio.NewReader(stdout)
	typ, p, err := h.exchange(frameOpen, h.open)
	if err != nil {
		werr := h.stop()
		return nil, fmt.Errorf("%w: the PKCS#11 helper %s: %v (%v)", ErrUnavailable, h.path, err, werr)
	}
	switch {
	case typ == frameError:
		h.stop()
		return nil, decodeError(p)
	case typ != frameKey || len(p) != ed25519.PublicKeySize:
		h.stop()
		return nil, fmt.Errorf("%w: the PKCS#11 helper %s answered frame %q of %d bytes to open", ErrUnavailable, h.path, typ, len(p))
	}
	return ed25519.PublicKey(p), nil
}

// exchange sends one frame and reads the answer within helperTimeout.
func (h *helperSigner) exchange(typ byte, payload []byte) (byte, []byte, error) {
	type answer struct {
		typ byte
		p   []byte
		err error
	}
	done := make(chan answer, 1)
	go func() {
		if err := writeFrame(h.stdin, typ, payload); err != nil {
			done <- answer{err: err}
			return
		}
		t, p, err := readFrame(h.out)
		done <- answer{t, p, err}
	}()
	timer := time.NewTimer(helperTimeout)
	defer timer.Stop()
	select {
	case a := <-done:
		return a.typ, a.p, a.err
	case <-timer.C:
		h.stop() // unblocks the goroutine
		return 0, nil, fmt.Errorf("no answer within %v", helperTimeout)
	}
}

// stop ends the helper and returns how it exited.
func (h *helperSigner) stop() error {
	if h.cmd == nil {
		return nil
	}
	h.stdin.Close()
	done := make(chan error, 1)
	cmd := h.cmd
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		err = <-done
	}
	h.cmd = nil
	return err
}

func (h *helperSigner) Public() crypto.PublicKey { return h.pub }

// Sign asks the helper for a signature; a helper that is gone is started
// again, and must open the same key.
func (h *helperSigner) Sign(_ io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open == nil {
		return nil, fmt.Errorf("%w: %s: the key was closed", ErrUnavailable, h.uri)
	}
	if h.cmd == nil {
		pub, err := h.start()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, h.uri, err)
		}
		if !pub.Equal(h.pub) {
			h.stop()
			return nil, fmt.Errorf("%w: %s now names another key (%s, was %s)", ErrUnavailable, h.uri, ed25519strict.Fingerprint(pub), ed25519strict.Fingerprint(h.pub))
		}
	}
	typ, p, err := h.exchange(frameSign, msg)
	switch {
	case err != nil:
		h.stop()
		return nil, fmt.Errorf("%w: %s: the PKCS#11 helper: %v", ErrUnavailable, h.uri, err)
	case typ == frameError:
		return nil, decodeError(p)
	case typ != frameSig:
		h.stop()
		return nil, fmt.Errorf("%w: %s: the PKCS#11 helper answered frame %q to sign", ErrUnavailable, h.uri, typ)
	}
	return p, nil
}

// Close ends the helper, which closes its session and forgets the PIN.
func (h *helperSigner) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stop()
	clear(h.open)
	h.open = nil
	return nil
}
