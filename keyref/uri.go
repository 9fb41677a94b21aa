package keyref

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpres/mcpres/internal/truncate"
)

// A URI is a parsed RFC 7512 PKCS#11 URI naming one private key in one
// token. Only the attributes below are read; every other one is refused
// (an attribute that was ignored could select another key).
type URI struct {
	// Path attributes (RFC 7512 §2.3) that select the token.
	Token, Manufacturer, Serial, Model string
	// SlotID selects the slot (slot-id=, decimal), when HasSlotID.
	SlotID    uint
	HasSlotID bool
	// Object (the key's CKA_LABEL) and ID (its CKA_ID) select the key.
	Object string
	ID     []byte
	// Type is "private" or "" (the only object type that signs).
	Type string
	// Query attributes (RFC 7512 §2.4): the module to load and where the
	// PIN comes from. pin-value is kept unexported and never printed.
	ModulePath string
	PINSource  string
	pinValue   string
	// has records the attributes present, even with an empty value.
	has map[string]bool
}

// The attributes a URI may carry, in the order String writes them.
var (
	pathAttrs  = []string{"token", "manufacturer", "serial", "model", "slot-id", "object", "id", "type"}
	queryAttrs = []string{"module-path", "pin-source", "pin-value"}
)

// Has reports whether attribute name was given (possibly empty).
func (u *URI) Has(name string) bool { return u.has[name] }

// HasPINValue reports whether the URI carries its PIN (pin-value=).
func (u *URI) HasPINValue() bool { return u.has["pin-value"] }

// ParseURI parses a PKCS#11 URI strictly (RFC 7512): "pkcs11:", path
// attributes separated by ";", then optionally "?" and query attributes
// separated by "&"; each NAME=VALUE with VALUE percent-encoded (%XX) where
// it holds a byte outside the characters RFC 7512 allows there. Refused,
// with an error matching [ErrSyntax] that never quotes a pin-value: an
// attribute other than token, manufacturer, serial, model, slot-id,
// object, id, type (path) and module-path, pin-source, pin-value (query);
// an attribute given twice; a malformed percent-encoding or a character
// that must be encoded; slot-id that is not a decimal number; type other
// than private; pin-source together with pin-value; an empty URI (it
// would match every key of every token).
func ParseURI(s string) (*URI, error) {
	body, ok := strings.CutPrefix(s, "pkcs11:")
	if !ok {
		return nil, fmt.Errorf("%w: a PKCS#11 URI starts with \"pkcs11:\"", ErrSyntax)
	}
	u := &URI{has: map[string]bool{}}
	path, query, hasQuery := strings.Cut(body, "?")
	if err := u.parseAttrs(path, ";", pathAttrs, pathChars); err != nil {
		return nil, err
	}
	if hasQuery {
		if err := u.parseAttrs(query, "&", queryAttrs, queryChars); err != nil {
			return nil, err
		}
	}
	switch {
	case u.has["pin-source"] && u.has["pin-value"]:
		return nil, fmt.Errorf("%w: pkcs11: give pin-source or pin-value, not both", ErrSyntax)
	case u.has["type"] && u.Type != "private":
		return nil, fmt.Errorf("%w: pkcs11: type=%s: the key that signs is a private key (type=private, or leave type out)", ErrSyntax, redactTrunc(u.Type, 32))
	case !u.has["object"] && !u.has["id"]:
		return nil, fmt.Errorf("%w: pkcs11: name the key with object= (its label) or id=, as in pkcs11:token=mcpres;object=release-key", ErrSyntax)
	}
	return u, nil
}

func (u *URI) parseAttrs(s, sep string, allowed []string, chars string) error {
	if s == "" {
		return nil
	}
	for i, attr := range strings.Split(s, sep) {
		name, raw, ok := strings.Cut(attr, "=")
		if !ok || name == "" {
			// Not quoted: it may hold a PIN.
			return fmt.Errorf("%w: pkcs11: the %s attribute %d is not NAME=VALUE", ErrSyntax, map[string]string{";": "path", "&": "query"}[sep], i+1)
		}
		if !contains(allowed, name) {
			return fmt.Errorf("%w: pkcs11: attribute %q is not supported here (path: %s; query: %s)", ErrSyntax, redactTrunc(name, 32),
				strings.Join(pathAttrs, ", "), strings.Join(queryAttrs, ", "))
		}
		if u.has[name] {
			return fmt.Errorf("%w: pkcs11: attribute %q given twice", ErrSyntax, name)
		}
		v, err := pctDecode(raw, chars)
		if err != nil {
			if name == "pin-value" {
				return fmt.Errorf("%w: pkcs11: pin-value is not percent-encoded correctly", ErrSyntax)
			}
			return fmt.Errorf("%w: pkcs11: %s: %v", ErrSyntax, name, err)
		}
		u.has[name] = true
		switch name {
		case "token":
			u.Token = v
		case "manufacturer":
			u.Manufacturer = v
		case "serial":
			u.Serial = v
		case "model":
			u.Model = v
		case "object":
			u.Object = v
		case "id":
			u.ID = []byte(v)
		case "type":
			u.Type = v
		case "slot-id":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil || strconv.FormatUint(n, 10) != v {
				return fmt.Errorf("%w: pkcs11: slot-id %q is not a decimal number", ErrSyntax, redactTrunc(v, 32))
			}
			u.SlotID, u.HasSlotID = uint(n), true
		case "module-path":
			if v == "" {
				return fmt.Errorf("%w: pkcs11: module-path is empty", ErrSyntax)
			}
			u.ModulePath = v
		case "pin-source":
			if v == "" {
				return fmt.Errorf("%w: pkcs11: pin-source is empty", ErrSyntax)
			}
			u.PINSource = v
		case "pin-value":
			u.pinValue = v
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The characters RFC 7512 allows unencoded in a path or query value,
// besides unreserved (ALPHA, DIGIT, "-", ".", "_", "~").
const (
	pathChars  = ":[]@!$'()*+,=&"
	queryChars = ":[]@!$'()*+,;/?|"
)

func unreserved(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// pctDecode decodes a value: %XX (two hex digits) or an allowed
// character.
func pctDecode(s, allowed string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) {
				return "", fmt.Errorf("truncated percent-encoding")
			}
			n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("bad percent-encoding %q", truncate.String(s[i:i+3], 8))
			}
			b.WriteByte(byte(n))
			i += 2
		case unreserved(c) || strings.IndexByte(allowed, c) >= 0:
			b.WriteByte(c)
		default:
			return "", fmt.Errorf("character %q must be percent-encoded", c)
		}
	}
	return b.String(), nil
}

// EncodeAttr percent-encodes an attribute value for a URI path (token=,
// object=, id=, …): every byte but the unreserved characters. Messages
// that list tokens and keys as URI attributes use it.
func EncodeAttr(v string) string { return pctEncode(v, false) }

// pctEncode encodes every byte but the unreserved ones (and "/" in a
// query value, for paths).
func pctEncode(s string, query bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) || (query && c == '/') {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// String returns the URI in a canonical form with every attribute given,
// pin-value replaced by "REDACTED" and passed through [Redact] (an
// attribute value that holds "pin-value=…" too): what messages quote.
func (u *URI) String() string { return Redact(u.canonical()) }

// canonical is the URI in its canonical form with pin-value replaced by
// "REDACTED", every other value as it is: what the helper process is sent.
func (u *URI) canonical() string {
	var path, query []string
	for _, name := range pathAttrs {
		if u.has[name] {
			path = append(path, name+"="+pctEncode(u.value(name), false))
		}
	}
	for _, name := range queryAttrs {
		if u.has[name] {
			query = append(query, name+"="+pctEncode(u.value(name), true))
		}
	}
	s := "pkcs11:" + strings.Join(path, ";")
	if len(query) > 0 {
		s += "?" + strings.Join(query, "&")
	}
	return s
}

func (u *URI) value(name string) string {
	switch name {
	case "token":
		return u.Token
	case "manufacturer":
		return u.Manufacturer
	case "serial":
		return u.Serial
	case "model":
		return u.Model
	case "slot-id":
		return strconv.FormatUint(uint64(u.SlotID), 10)
	case "object":
		return u.Object
	case "id":
		return string(u.ID)
	case "type":
		return u.Type
	case "module-path":
		return u.ModulePath
	case "pin-source":
		return u.PINSource
	case "pin-value":
		return "REDACTED"
	}
	return ""
}
