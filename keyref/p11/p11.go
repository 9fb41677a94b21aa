//go:build cgo

// Package p11 opens the Ed25519 keys of PKCS#11 tokens in this process,
// through github.com/miekg/pkcs11 (cgo): a keyref.PKCS11Opener. mcpres
// itself opens them through the helper cmd/mcpres-pkcs11 (which runs this
// package), so that its own binary links no cgo package beyond the
// standard library's; a Go program that wants tokens in its own process
// passes Open as keyref.Options.PKCS11. Built without cgo, Open refuses
// with keyref.ErrNoPKCS11 and says how to get a build that has it.
package p11

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyref"
	"github.com/miekg/pkcs11"
)

// Supported reports whether this build opens PKCS#11 keys (it was
// built with cgo).
const Supported = true

// PKCS#11 v3.0 values that miekg/pkcs11 v1.1.2 (v2.40) does not name.
const (
	ckkECEdwards   = 0x40
	ckkECMontgomry = 0x41
	ckmEdDSA       = 0x1057
)

// The EC_PARAMS of edwards25519: the RFC 8410 OID 1.3.101.112, or the
// PrintableString "edwards25519" (PKCS#11 v3.0 §2.3.10; SoftHSM2 and
// pkcs11-tool write this form).
var (
	ed25519OID  = []byte{0x06, 0x03, 0x2b, 0x65, 0x70}
	ed25519Name = append([]byte{0x13, 0x0c}, "edwards25519"...)
)

// p11Signer signs with a private key in a token, one signature at a time
// through one session. A failed signature drops the session; the next
// one opens it again (the token was removed and returned, the module
// restarted), and refuses a key that is no longer the one opened.
type p11Signer struct {
	uri    *keyref.URI
	module string
	pin    string
	pinSet bool
	pub    ed25519.PublicKey

	mu      sync.Mutex
	ctx     *pkcs11.Ctx
	owned   bool // this signer initialised the module, and finalises it
	session pkcs11.SessionHandle
	key     pkcs11.ObjectHandle
	open    bool
}

// Open opens the key of a pkcs11: reference in this process: it loads
// the module, finds the one token and the one private key the URI names,
// checks that the key is Ed25519 (CKK_EC_EDWARDS on edwards25519) with
// its public key object beside it, and logs in with the request's PIN.
// It is a keyref.PKCS11Opener; failures are keyref's Err… values.
func Open(req *keyref.PKCS11Request) (keyref.Holder, error) {
	s := &p11Signer{uri: req.URI, module: req.Module, pin: req.PIN, pinSet: req.HasPIN}
	ctx := pkcs11.New(s.module)
	if ctx == nil {
		return nil, fmt.Errorf("%w: %s cannot be loaded as a PKCS#11 module", keyref.ErrModule, s.module)
	}
	s.ctx = ctx
	if err := ctx.Initialize(); err == nil {
		s.owned = true
	} else if !isCKR(err, pkcs11.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
		ctx.Destroy()
		return nil, fmt.Errorf("%w: %s: C_Initialize: %v%s", keyref.ErrModule, s.module, err, softHSMHint(s.module))
	}
	pub, err := s.connect()
	if err != nil {
		s.release()
		return nil, err
	}
	s.pub = pub
	return s, nil
}

func isCKR(err error, code uint) bool {
	var e pkcs11.Error
	return errors.As(err, &e) && uint(e) == code
}

// connect finds the token, opens a session, logs in and finds the key:
// everything up to the first signature. It returns the key's public key.
func (s *p11Signer) connect() (ed25519.PublicKey, error) {
	slot, info, err := s.findToken()
	if err != nil {
		return nil, err
	}
	sh, err := s.ctx.OpenSession(slot, pkcs11.CKF_SERIAL_SESSION)
	if err != nil {
		return nil, fmt.Errorf("%w: opening a session on token %q: %v", keyref.ErrUnavailable, info.Label, err)
	}
	ok := false
	defer func() {
		if !ok {
			s.ctx.CloseSession(sh)
		}
	}()
	if err := s.login(sh, info); err != nil {
		return nil, err
	}
	key, pub, err := s.findKey(sh, info.Label)
	if err != nil {
		return nil, err
	}
	s.session, s.key, s.open, ok = sh, key, true, true
	return pub, nil
}

// findToken returns the one slot whose token matches the URI.
func (s *p11Signer) findToken() (uint, pkcs11.TokenInfo, error) {
	slots, err := s.ctx.GetSlotList(true)
	if err != nil {
		return 0, pkcs11.TokenInfo{}, fmt.Errorf("%w: %s: listing the slots: %v", keyref.ErrModule, s.module, err)
	}
	u := s.uri
	var matches []uint
	var infos []pkcs11.TokenInfo
	var all []string
	for _, slot := range slots {
		info, err := s.ctx.GetTokenInfo(slot)
		if err != nil || info.Flags&pkcs11.CKF_TOKEN_INITIALIZED == 0 {
			continue
		}
		all = append(all, fmt.Sprintf("token=%s;serial=%s (slot-id=%d)", keyref.EncodeAttr(info.Label), keyref.EncodeAttr(info.SerialNumber), slot))
		if (u.Has("token") && info.Label != u.Token) || (u.Has("manufacturer") && info.ManufacturerID != u.Manufacturer) ||
			(u.Has("serial") && info.SerialNumber != u.Serial) || (u.Has("model") && info.Model != u.Model) ||
			(u.HasSlotID && slot != u.SlotID) {
			continue
		}
		matches = append(matches, slot)
		infos = append(infos, info)
	}
	switch {
	case len(matches) == 1:
		return matches[0], infos[0], nil
	case len(matches) > 1:
		return 0, pkcs11.TokenInfo{}, fmt.Errorf("%w: %d tokens match %s: add serial= or slot-id= (there are %s)", keyref.ErrTokenNotFound, len(matches), u, strings.Join(all, ", "))
	case len(all) == 0:
		return 0, pkcs11.TokenInfo{}, fmt.Errorf("%w: module %s has no token (is one initialised? softhsm2-util --show-slots)%s", keyref.ErrTokenNotFound, s.module, softHSMHint(s.module))
	}
	return 0, pkcs11.TokenInfo{}, fmt.Errorf("%w: no token of module %s matches %s; there are: %s%s", keyref.ErrTokenNotFound, s.module, u, strings.Join(all, ", "), softHSMHint(s.module))
}

// softHSMHint is what to do when SoftHSM2 finds no token or cannot start:
// it reads its token directory from the file $SOFTHSM2_CONF names (else
// /etc/softhsm/softhsm2.conf), and a helper or a CI step that lost the
// variable sees another store. "" for another module.
func softHSMHint(module string) string {
	if !strings.Contains(strings.ToLower(filepath.Base(module)), "softhsm") {
		return ""
	}
	const todo = "set SOFTHSM2_CONF to the softhsm2.conf of the token directory (softhsm2-util --show-slots lists the tokens it sees)"
	conf, ok := os.LookupEnv("SOFTHSM2_CONF")
	switch {
	case !ok || conf == "":
		return "; SoftHSM2: $SOFTHSM2_CONF is not set, so it reads /etc/softhsm/softhsm2.conf: " + todo
	case !regularFile(conf):
		return fmt.Sprintf("; SoftHSM2: $SOFTHSM2_CONF is %s, which is not a file: %s", conf, todo)
	}
	return fmt.Sprintf("; SoftHSM2 reads the tokens of $SOFTHSM2_CONF=%s: if the token is elsewhere, %s", conf, todo)
}

func regularFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// login logs the user in with the PIN, unless the token needs no login.
func (s *p11Signer) login(sh pkcs11.SessionHandle, info pkcs11.TokenInfo) error {
	if info.Flags&pkcs11.CKF_LOGIN_REQUIRED == 0 {
		return nil
	}
	if info.Flags&pkcs11.CKF_USER_PIN_LOCKED != 0 {
		return fmt.Errorf("%w: token %q: the user PIN is locked; the security officer must reset it (softhsm2-util or the token's tool)", keyref.ErrPINLocked, info.Label)
	}
	var err error
	switch {
	case s.pinSet:
		err = s.ctx.Login(sh, pkcs11.CKU_USER, s.pin)
	case info.Flags&pkcs11.CKF_PROTECTED_AUTHENTICATION_PATH != 0:
		err = s.ctx.Login(sh, pkcs11.CKU_USER, "") // the token's own PIN pad
	default:
		return fmt.Errorf("%w: token %q needs its user PIN: add ?pin-source=FILE to the URI or set $%s", keyref.ErrPINRequired, info.Label, keyref.EnvPKCS11PIN)
	}
	return loginError(err, info.Label)
}

// loginError is what a failed C_Login says: the CKR_ code is all it
// carries (never the PIN).
func loginError(err error, token string) error {
	switch {
	case err == nil, isCKR(err, pkcs11.CKR_USER_ALREADY_LOGGED_IN):
		return nil
	case isCKR(err, pkcs11.CKR_PIN_INCORRECT):
		return fmt.Errorf("%w: token %q refused the PIN", keyref.ErrPINIncorrect, token)
	case isCKR(err, pkcs11.CKR_PIN_LOCKED):
		return fmt.Errorf("%w: token %q: the user PIN is locked (too many wrong PINs); the security officer must reset it", keyref.ErrPINLocked, token)
	case isCKR(err, pkcs11.CKR_PIN_LEN_RANGE), isCKR(err, pkcs11.CKR_PIN_INVALID):
		return fmt.Errorf("%w: token %q: the PIN has the wrong length or characters", keyref.ErrPINIncorrect, token)
	}
	return fmt.Errorf("%w: logging in to token %q: %v", keyref.ErrUnavailable, token, err)
}

// findKey returns the one private key matching object= and id=, checked
// to be Ed25519, and its public key.
func (s *p11Signer) findKey(sh pkcs11.SessionHandle, token string) (pkcs11.ObjectHandle, ed25519.PublicKey, error) {
	tmpl := []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PRIVATE_KEY)}
	if s.uri.Has("object") {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_LABEL, s.uri.Object))
	}
	if s.uri.Has("id") {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_ID, s.uri.ID))
	}
	found, err := s.find(sh, tmpl)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: token %q: searching for the key: %v", keyref.ErrUnavailable, token, err)
	}
	if len(found) != 1 {
		held := s.describeKeys(sh)
		what := "no private key"
		if len(found) > 1 {
			what = fmt.Sprintf("%d private keys", len(found))
		}
		return 0, nil, fmt.Errorf("%w: token %q has %s matching %s; it holds %s", keyref.ErrObjectNotFound, token, what, s.uri, held)
	}
	key := found[0]
	attrs, err := s.ctx.GetAttributeValue(sh, key, []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, nil), pkcs11.NewAttribute(pkcs11.CKA_ID, nil),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, nil), pkcs11.NewAttribute(pkcs11.CKA_EC_PARAMS, nil),
	})
	if err != nil {
		// Some tokens refuse CKA_EC_PARAMS on a key that is not EC: read
		// the type alone to name it.
		attrs, err = s.ctx.GetAttributeValue(sh, key, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, nil)})
		if err != nil {
			return 0, nil, fmt.Errorf("%w: token %q: reading the key's type: %v", keyref.ErrUnavailable, token, err)
		}
	}
	var typ uint64
	var id, label, params []byte
	for _, a := range attrs {
		switch a.Type {
		case pkcs11.CKA_KEY_TYPE:
			typ = ulong(a.Value)
		case pkcs11.CKA_ID:
			id = a.Value
		case pkcs11.CKA_LABEL:
			label = a.Value
		case pkcs11.CKA_EC_PARAMS:
			params = a.Value
		}
	}
	if typ != ckkECEdwards {
		return 0, nil, fmt.Errorf("%w: the key %s in token %q is %s; %s", keyref.ErrKeyType, s.uri, token, keyTypeName(typ), s.makeEd25519(token))
	}
	if !bytes.Equal(params, ed25519OID) && !bytes.Equal(params, ed25519Name) {
		return 0, nil, fmt.Errorf("%w: the key %s in token %q is an EdDSA key on another curve than edwards25519 (Ed448?); %s", keyref.ErrKeyType, s.uri, token, s.makeEd25519(token))
	}
	pub, err := s.publicKey(sh, id, label)
	if err != nil {
		return 0, nil, fmt.Errorf("token %q, key %s: %w", token, s.uri, err)
	}
	return key, pub, nil
}

func (s *p11Signer) find(sh pkcs11.SessionHandle, tmpl []*pkcs11.Attribute) ([]pkcs11.ObjectHandle, error) {
	if err := s.ctx.FindObjectsInit(sh, tmpl); err != nil {
		return nil, err
	}
	found, _, err := s.ctx.FindObjects(sh, 16)
	if ferr := s.ctx.FindObjectsFinal(sh); err == nil {
		err = ferr
	}
	return found, err
}

// describeKeys lists the private keys of the token for a message: their
// labels and ids as URI attributes.
func (s *p11Signer) describeKeys(sh pkcs11.SessionHandle) string {
	all, err := s.find(sh, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PRIVATE_KEY)})
	if err != nil || len(all) == 0 {
		return "no private key (is the PIN the user's?)"
	}
	var out []string
	for _, h := range all {
		attrs, err := s.ctx.GetAttributeValue(sh, h, []*pkcs11.Attribute{
			pkcs11.NewAttribute(pkcs11.CKA_LABEL, nil), pkcs11.NewAttribute(pkcs11.CKA_ID, nil), pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, nil)})
		if err != nil || len(attrs) != 3 {
			continue
		}
		out = append(out, fmt.Sprintf("object=%s;id=%s (%s)", keyref.EncodeAttr(string(attrs[0].Value)), keyref.EncodeAttr(string(attrs[1].Value)), keyTypeName(ulong(attrs[2].Value))))
	}
	return strings.Join(out, ", ")
}

// publicKey reads the public key object beside the private key (same
// CKA_ID, else same label): its CKA_EC_POINT, the DER OCTET STRING of the
// 32-byte key (or, on some tokens, the 32 bytes themselves).
func (s *p11Signer) publicKey(sh pkcs11.SessionHandle, id, label []byte) (ed25519.PublicKey, error) {
	tmpl := []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PUBLIC_KEY), pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, ckkECEdwards)}
	if len(id) > 0 {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_ID, id))
	} else {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_LABEL, label))
	}
	found, err := s.find(sh, tmpl)
	if err != nil {
		return nil, fmt.Errorf("%w: searching for its public key: %v", keyref.ErrUnavailable, err)
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("%w: %d public key objects have its CKA_ID, want exactly one (the public half is needed to check every signature)", keyref.ErrObjectNotFound, len(found))
	}
	attrs, err := s.ctx.GetAttributeValue(sh, found[0], []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_EC_POINT, nil)})
	if err != nil || len(attrs) != 1 {
		return nil, fmt.Errorf("%w: reading its public key: %v", keyref.ErrUnavailable, err)
	}
	point := attrs[0].Value
	if len(point) == 34 && point[0] == 0x04 && point[1] == 0x20 {
		point = point[2:]
	}
	if len(point) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: its public key's CKA_EC_POINT is %d bytes, not an Ed25519 key", keyref.ErrKeyType, len(attrs[0].Value))
	}
	pub := ed25519.PublicKey(bytes.Clone(point))
	if err := ed25519strict.CheckPublicKey(pub); err != nil {
		return nil, err
	}
	return pub, nil
}

// ulong reads a CK_ULONG attribute value (native byte order, 8 or 4
// bytes).
func ulong(b []byte) uint64 {
	switch len(b) {
	case 8:
		return binary.NativeEndian.Uint64(b)
	case 4:
		return uint64(binary.NativeEndian.Uint32(b))
	}
	return 1<<64 - 1
}

// makeEd25519 says which keys sign and how to make one in the token.
func (s *p11Signer) makeEd25519(token string) string {
	return fmt.Sprintf("only Ed25519 keys (CKK_EC_EDWARDS on edwards25519, signing with CKM_EDDSA) sign MCP-RES envelopes and checkpoints: "+
		"make one with pkcs11-tool --module %s --token-label %s --login --keypairgen --key-type EC:edwards25519 --label LABEL --id ID, "+
		"and name it with object=LABEL", s.module, shellWord(token))
}

// shellWord quotes s for a shell command line when it needs it.
func shellWord(s string) string {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./:=@%+,", c) >= 0) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	if s == "" {
		return "''"
	}
	return s
}

func keyTypeName(t uint64) string {
	switch t {
	case pkcs11.CKK_RSA:
		return "an RSA key"
	case pkcs11.CKK_EC:
		return "an ECDSA key"
	case pkcs11.CKK_DSA:
		return "a DSA key"
	case ckkECEdwards:
		return "an EdDSA key"
	case ckkECMontgomry:
		return "an X25519/X448 (Montgomery) key, which cannot sign"
	case pkcs11.CKK_AES, pkcs11.CKK_GENERIC_SECRET:
		return "a secret key"
	}
	return fmt.Sprintf("a key of type 0x%x", t)
}

func (s *p11Signer) Public() crypto.PublicKey { return s.pub }

// Sign signs msg with CKM_EDDSA (no parameters: pure Ed25519). After a
// failure the session is opened again for the next signature.
func (s *p11Signer) Sign(_ io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		return nil, fmt.Errorf("%w: the key was closed", keyref.ErrUnavailable)
	}
	if !s.open {
		pub, err := s.reconnect()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", keyref.ErrUnavailable, s.uri, err)
		}
		if !bytes.Equal(pub, s.pub) {
			s.drop()
			return nil, fmt.Errorf("%w: %s now names another key (%s, was %s)", keyref.ErrUnavailable, s.uri, ed25519strict.Fingerprint(pub), ed25519strict.Fingerprint(s.pub))
		}
	}
	sig, err := s.sign(msg)
	if err != nil {
		s.drop()
		return nil, fmt.Errorf("%w: %s: %v", keyref.ErrUnavailable, s.uri, err)
	}
	return sig, nil
}

func (s *p11Signer) sign(msg []byte) ([]byte, error) {
	if err := s.ctx.SignInit(s.session, []*pkcs11.Mechanism{pkcs11.NewMechanism(ckmEdDSA, nil)}, s.key); err != nil {
		return nil, fmt.Errorf("C_SignInit: %w", err)
	}
	sig, err := s.ctx.Sign(s.session, msg)
	if err != nil {
		return nil, fmt.Errorf("C_Sign: %w", err)
	}
	return sig, nil
}

// reconnect opens the session again; if the module itself lost the token
// (its slot list is fixed when it is initialised), a module this signer
// initialised is initialised again first.
func (s *p11Signer) reconnect() (ed25519.PublicKey, error) {
	pub, err := s.connect()
	if err == nil || !s.owned {
		return pub, err
	}
	s.ctx.Finalize()
	if ierr := s.ctx.Initialize(); ierr != nil {
		return nil, fmt.Errorf("%w (C_Initialize again: %v)", err, ierr)
	}
	return s.connect()
}

// drop closes the session after a failure.
func (s *p11Signer) drop() {
	if s.open {
		s.ctx.CloseSession(s.session)
		s.open = false
	}
}

// release closes the session and unloads the module.
func (s *p11Signer) release() {
	s.drop()
	if s.owned {
		s.ctx.Finalize()
	}
	s.ctx.Destroy()
	s.ctx = nil
	s.pin = ""
}

func (s *p11Signer) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx != nil {
		s.release()
	}
	return nil
}
