package trustpolicy

import (
	"crypto/ed25519"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/internal/truncate"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// A Problem is one reason a policy document does not load. Path is an RFC
// 6901 JSON Pointer into the document ("" for the root). Keyword is the
// failing JSON Schema keyword for schema problems, or one of the semantic
// check names of [Load] (window, uniqueName, publicKey, uniqueKey,
// fingerprint, uniqueFingerprint, member, quorum, subjects, tlogPolicy,
// certificateIdentity, identityRegexp, uniqueIdentity, trustedRoot).
type Problem struct {
	Path    string `json:"instancePath"`
	Keyword string `json:"keyword"`
	Message string `json:"message"`
}

// String formats p as "PATH: MESSAGE (KEYWORD)", with "(root)" for the
// empty path.
func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "(root)"
	}
	return fmt.Sprintf("%s: %s (%s)", path, p.Message, p.Keyword)
}

func schemaProblems(errs []schema.Error) []Problem {
	out := make([]Problem, len(errs))
	for i, e := range errs {
		out[i] = Problem{Path: e.InstancePath, Keyword: e.Keyword, Message: e.Message}
	}
	return out
}

func schemaErrors(ps []Problem) []schema.Error {
	out := make([]schema.Error, len(ps))
	for i, p := range ps {
		out[i] = schema.Error{InstancePath: p.Path, Keyword: p.Keyword, Message: p.Message}
	}
	return out
}

// Load checks an mcpres.trust-policy/v1 document strictly and returns the
// policy, or every problem found and a nil policy (never both). val may be
// nil (a new validator is used).
//
// The schema problems come first, in document order. The semantic checks
// run even when the schema fails (on every part that has the right type),
// so that one run reports everything, in document order:
//
//   - window: validFrom ≤ validUntil, for the policy and for each signer
//     that has both;
//   - uniqueName: no two signers share a name;
//   - publicKey: each key is an Ed25519 SPKI (PEM or base64, see
//     keyfile.ParsePublicKeyPEM) that passes ed25519strict.CheckPublicKey;
//   - uniqueKey: no two signers share a key, compared by SPKI fingerprint,
//     whatever their names or identities (one key is one signer and counts
//     once);
//   - fingerprint, uniqueFingerprint: each revocation names a lowercase hex
//     SHA-256, at most once;
//   - member: each witnesses.members entry names a signer with the witness
//     role, at most once;
//   - quorum: 1 ≤ witnesses.quorum ≤ the number of distinct members;
//   - subjects: each of a signer's subject patterns follows the pattern
//     language ([ParseScope]) and appears once;
//   - tlogPolicy: transparency.tlogPolicy parses with [ParseTLogPolicy]
//     (each of its problems is one Problem, "line N: …");
//   - certificateIdentity: an identity signer has neither identity nor
//     publicKey, its issuer is an https URL (http on loopback only);
//     identityRegexp: the expression is anchored RE2 that matches no
//     identity of any owner ([CheckIdentityRegexp]); uniqueIdentity: no
//     two identity signers are the same; trustedRoot: a policy with an
//     identity signer names its trusted root.
func Load(doc *canonjson.Value, val *validator.Validator) (*Policy, []Problem) {
	if val == nil {
		val = validator.New()
	}
	problems := schemaProblems(val.SchemaErrors(SchemaName, doc))
	c := &checker{}
	c.check(doc)
	problems = append(problems, c.problems...)
	if len(problems) > 0 {
		return nil, problems
	}
	var d Document
	if err := canonjson.Unmarshal(doc, &d); err != nil {
		return nil, []Problem{{Path: "", Keyword: "decode", Message: err.Error()}}
	}
	d.normalize()
	return newPolicy(&d, c)
}

// checker runs the semantic checks on a raw document.
type checker struct {
	problems []Problem
	keys     []ed25519.PublicKey // per signer index; nil when invalid
	scopes   [][]Scope           // per signer index; nil: every subject
	tlog     *TLogPolicy
}

func (c *checker) add(path, keyword, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: path, Keyword: keyword, Message: fmt.Sprintf(format, args...)})
}

// str returns v[key] when it is a string.
func str(v *canonjson.Value, key string) (string, bool) {
	m := v.Get(key)
	if !m.Is(canonjson.String) {
		return "", false
	}
	return m.Str, true
}

func (c *checker) window(v *canonjson.Value, at string) {
	from, ok1 := str(v, "validFrom")
	until, ok2 := str(v, "validUntil")
	if !ok1 || !ok2 {
		return
	}
	f, err1 := datetime.Parse(from)
	u, err2 := datetime.Parse(until)
	if err1 == nil && err2 == nil && f.Compare(u) > 0 {
		c.add(at+"/validUntil", "window", "validFrom %s is after validUntil %s", from, until)
	}
}

func (c *checker) check(doc *canonjson.Value) {
	if !doc.Is(canonjson.Object) {
		return
	}
	c.window(doc, "")

	names := map[string]int{}  // signer name → index
	roles := map[string]bool{} // signer name → has the witness role
	keys := map[string]int{}   // fingerprint → signer index
	idents := map[string]int{} // certificateIdentity (compact JSON) → signer index
	var identitySigners []int
	if signers := doc.Get("signers"); signers.Is(canonjson.Array) {
		c.keys = make([]ed25519.PublicKey, len(signers.Items))
		c.scopes = make([][]Scope, len(signers.Items))
		for i, s := range signers.Items {
			if !s.Is(canonjson.Object) {
				continue
			}
			at := "/signers/" + strconv.Itoa(i)
			name, hasName := str(s, "name")
			if hasName {
				if j, dup := names[name]; dup {
					c.add(at+"/name", "uniqueName", "name %q is already used by /signers/%d", name, j)
				} else {
					names[name] = i
					roles[name] = hasRoleValue(s, RoleWitness)
				}
			}
			if pk, ok := str(s, "publicKey"); ok {
				pub, err := keyfile.ParsePublicKeyPEM([]byte(pk))
				if err != nil {
					c.add(at+"/publicKey", "publicKey", "not a valid Ed25519 public key: %v", err)
				} else {
					fp := fingerprint(pub)
					if j, dup := keys[fp]; dup {
						c.add(at+"/publicKey", "uniqueKey", "key %s is already listed as /signers/%d%s; one key is one signer and counts once", fp, j, quotedName(signers.Items[j]))
					} else {
						keys[fp] = i
						c.keys[i] = pub
					}
				}
			}
			if s.Has("certificateIdentity") {
				identitySigners = append(identitySigners, i)
				if k := c.certificateIdentity(s, at); k != "" {
					if j, dup := idents[k]; dup {
						c.add(at+"/certificateIdentity", "uniqueIdentity", "the same certificate identity is already /signers/%d%s; one identity is one signer and counts once", j, quotedName(signers.Items[j]))
					} else {
						idents[k] = i
					}
				}
			}
			c.window(s, at)
			c.scopes[i] = c.subjects(s, at)
		}
	}
	c.trustedRoot(doc, identitySigners)

	if revs := doc.Get("revocations"); revs.Is(canonjson.Array) {
		seen := map[string]int{}
		for i, r := range revs.Items {
			fp, ok := str(r, "fingerprint")
			if !ok {
				continue
			}
			at := "/revocations/" + strconv.Itoa(i) + "/fingerprint"
			if !isFingerprint(fp) {
				c.add(at, "fingerprint", "%q is not a key fingerprint (64 lowercase hex digits: the SHA-256 of the SPKI DER)", truncate.String(fp, 80))
				continue
			}
			if j, dup := seen[fp]; dup {
				c.add(at, "uniqueFingerprint", "fingerprint %s is already revoked by /revocations/%d", fp, j)
				continue
			}
			seen[fp] = i
		}
	}

	if w := doc.Get("witnesses"); w.Is(canonjson.Object) {
		distinct := 0
		if members := w.Get("members"); members.Is(canonjson.Array) {
			listed := map[string]int{}
			for j, m := range members.Items {
				if !m.Is(canonjson.String) {
					continue
				}
				at := "/witnesses/members/" + strconv.Itoa(j)
				if k, dup := listed[m.Str]; dup {
					c.add(at, "member", "%q is already listed as /witnesses/members/%d; a witness counts once", m.Str, k)
					continue
				}
				listed[m.Str] = j
				distinct++
				i, known := names[m.Str]
				switch {
				case !known:
					c.add(at, "member", "%q is not the name of a signer of this policy", truncate.String(m.Str, 80))
				case !roles[m.Str]:
					c.add(at, "member", "signer %q (/signers/%d) does not have the witness role", m.Str, i)
				}
			}
		}
		if q := w.Get("quorum"); q.Is(canonjson.Int) && (q.Int < 1 || q.Int > int64(distinct)) {
			c.add("/witnesses/quorum", "quorum", "quorum %d is outside 1..%d (the number of distinct members)", q.Int, distinct)
		}
	}

	if t := doc.Get("transparency"); t.Is(canonjson.Object) {
		if text, ok := str(t, "tlogPolicy"); ok {
			tp, errs := ParseTLogPolicy(text)
			for _, e := range errs {
				c.add("/transparency/tlogPolicy", "tlogPolicy", "%s", e.Error())
			}
			c.tlog = tp
		}
	}
}

// subjects checks the subjects of the signer s at path at and returns
// them parsed (nil when absent or not an array: the schema reports that).
func (c *checker) subjects(s *canonjson.Value, at string) []Scope {
	subs := s.Get("subjects")
	if !subs.Is(canonjson.Array) {
		return nil
	}
	scopes := []Scope{}
	seen := map[string]int{}
	for j, p := range subs.Items {
		if !p.Is(canonjson.String) {
			continue
		}
		where := at + "/subjects/" + strconv.Itoa(j)
		if k, dup := seen[p.Str]; dup {
			c.add(where, "subjects", "pattern %q is already listed as %s/subjects/%d", truncate.String(p.Str, 80), at, k)
			continue
		}
		seen[p.Str] = j
		sc, err := ParseScope(p.Str)
		if err != nil {
			c.add(where, "subjects", "%v", err)
			continue
		}
		scopes = append(scopes, sc)
	}
	return scopes
}

func hasRoleValue(s *canonjson.Value, role string) bool {
	roles := s.Get("roles")
	if !roles.Is(canonjson.Array) {
		return false
	}
	for _, r := range roles.Items {
		if r.Is(canonjson.String) && r.Str == role {
			return true
		}
	}
	return false
}

func quotedName(s *canonjson.Value) string {
	if name, ok := str(s, "name"); ok {
		return fmt.Sprintf(" (%q)", name)
	}
	return ""
}

// isFingerprint reports whether s is 64 lowercase hex digits.
func isFingerprint(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

func fingerprint(pub ed25519.PublicKey) string { return ed25519strict.Fingerprint(pub) }
