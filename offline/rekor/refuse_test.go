package rekor_test

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/rekor"
	"github.com/mcpres/mcpres/offline/rekor/rekortest"
)

// withBody is the entry's JSON with its body replaced by body (base64).
func withBody(t *testing.T, f *fixture, body []byte) []byte {
	t.Helper()
	e := f.log.Entry(t, f.index)
	e.Body = base64.StdEncoding.EncodeToString(body)
	return rekortest.Marshal(t, e)
}

// editJSON decodes b into a generic object, lets edit change it, and
// encodes it again.
func editJSON(t *testing.T, b []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The proof bytes and the entry body are refused before any signature is
// looked at, each for its own reason, with a *rekor.EntryError saying
// which: the size limit, not a JSON object, members of the wrong type,
// what rekor's models reject, no inclusion proof or signed entry
// timestamp, hashes that are not lowercase hex, a body that is not a
// string or canonical base64, and a body that is not a hashedrekord
// v0.0.1 with a supported data hash.
func TestVerifyRekorEntryRefusesShape(t *testing.T) {
	f := newFixture(t)
	good := rekortest.Marshal(t, f.log.Entry(t, f.index))
	body := f.log.Bodies[f.index]
	ip := func(m map[string]any) map[string]any {
		return m["verification"].(map[string]any)["inclusionProof"].(map[string]any)
	}
	for _, c := range []struct {
		name   string
		proof  []byte
		detail string
	}{
		{"too large", append(bytes.Clone(good), bytes.Repeat([]byte(" "), offline.MaxProofSize)...), "more than the limit of"},
		{"not an object", []byte(`["x"]`), "not a JSON object"},
		{"logIndex a string", editJSON(t, good, func(m map[string]any) { m["logIndex"] = "1" }), "does not decode"},
		{"no logID", editJSON(t, good, func(m map[string]any) { delete(m, "logID") }), "Rekor entry: invalid"},
		{"no inclusion proof", editJSON(t, good, func(m map[string]any) { delete(m["verification"].(map[string]any), "inclusionProof") }), "no inclusion proof"},
		{"no SET", editJSON(t, good, func(m map[string]any) { delete(m["verification"].(map[string]any), "signedEntryTimestamp") }), "no signed entry timestamp"},
		{"uppercase root hash", editJSON(t, good, func(m map[string]any) { ip(m)["rootHash"] = strings.ToUpper(ip(m)["rootHash"].(string)) }), "inclusionProof.rootHash is not 64 lowercase hex digits"},
		{"uppercase proof hash", editJSON(t, good, func(m map[string]any) {
			hs := ip(m)["hashes"].([]any)
			hs[0] = strings.ToUpper(hs[0].(string))
		}), "inclusionProof.hashes[0] is not 64 lowercase hex digits"},
		{"too many hashes", editJSON(t, good, func(m map[string]any) {
			ip(m)["hashes"] = strings.Split(strings.Repeat(strings.Repeat("ab", 32)+",", offline.MaxProofHashes+1), ",")[:offline.MaxProofHashes+1]
		}), "inclusion hashes, more than the limit"},
		{"body a number", editJSON(t, good, func(m map[string]any) { m["body"] = 1 }), "body is not a string"},
		{"body unpadded base64", editJSON(t, good, func(m map[string]any) { m["body"] = strings.TrimRight(m["body"].(string), "=") + "\n" }), "body is not canonical padded base64"},
		{"body not JSON", withBody(t, f, []byte("not json")), "body is not strict JSON"},
		{"body of another kind", withBody(t, f, bytes.Replace(body, []byte(`"hashedrekord"`), []byte(`"rekord"`), 1)), "body is not a hashedrekord entry"},
		{"body of another version", withBody(t, f, bytes.Replace(body, []byte(`"0.0.1"`), []byte(`"0.0.2"`), 1)), "apiVersion is not 0.0.1"},
		{"apiVersion a number", withBody(t, f, []byte(`{"kind":"hashedrekord","apiVersion":1,"spec":{}}`)), "hashedrekord body does not decode"},
		{"body of the wrong shape", withBody(t, f, []byte(`{"kind":"hashedrekord","apiVersion":"0.0.1","spec":[]}`)), "hashedrekord spec does not decode"},
		{"spec without its signature", withBody(t, f, editJSON(t, body, func(m map[string]any) { delete(m["spec"].(map[string]any), "signature") })), "hashedrekord spec is invalid"},
		{"md5 data hash", withBody(t, f, editJSON(t, body, func(m map[string]any) {
			m["spec"].(map[string]any)["data"].(map[string]any)["hash"].(map[string]any)["algorithm"] = "md5"
		})), "hashedrekord spec is invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := rekor.Verifier{}.Verify(c.proof, f.want, f.trustNone)
			if err == nil || v != nil {
				t.Fatalf("verified %+v", v)
			}
			if !is[*rekor.EntryError](err) || !strings.Contains(err.Error(), c.detail) {
				t.Errorf("error %T %q, want a *rekor.EntryError containing %q", err, err, c.detail)
			}
		})
	}
	// Control: the entry as it was verifies.
	if _, err := (rekor.Verifier{}).Verify(good, f.want, f.trustNone); err != nil {
		t.Fatalf("control: %v", err)
	}
}

// A hashedrekord whose data hash is the SHA-384 or SHA-512 of the entry
// binds it as SHA-256 does; the same algorithm with another digest is a
// *offline.BindingError naming the algorithm.
func TestVerifyRekorEntryHashAlgorithms(t *testing.T) {
	f := newFixture(t)
	entry, err := f.want.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s384, s512 := sha512.Sum384(entry), sha512.Sum512(entry)
	for alg, sum := range map[string][]byte{"sha384": s384[:], "sha512": s512[:]} {
		body := editJSON(t, f.log.Bodies[f.index], func(m map[string]any) {
			h := m["spec"].(map[string]any)["data"].(map[string]any)["hash"].(map[string]any)
			h["algorithm"], h["value"] = alg, hex.EncodeToString(sum)
		})
		i := f.log.Append(body)
		if _, err := (rekor.Verifier{}).Verify(rekortest.Marshal(t, f.log.Entry(t, i)), f.want, f.trustNone); err != nil {
			t.Errorf("%s: %v", alg, err)
		}
		wrong := bytes.Clone(sum)
		wrong[0] ^= 1
		bad := editJSON(t, body, func(m map[string]any) {
			m["spec"].(map[string]any)["data"].(map[string]any)["hash"].(map[string]any)["value"] = hex.EncodeToString(wrong)
		})
		if _, err := (rekor.Verifier{}).Verify(withBody(t, f, bad), f.want, f.trustNone); !is[*offline.BindingError](err) || !strings.Contains(err.Error(), alg) {
			t.Errorf("%s of another entry: %v", alg, err)
		}
	}
	if k := (rekor.Verifier{}).Kind(); k != offline.KindRekorV1 {
		t.Errorf("Kind %v", k)
	}
}

// A trust without a usable log is refused before the entry is read.
func TestVerifyRekorEntryRefusesTrust(t *testing.T) {
	f := newFixture(t)
	good := rekortest.Marshal(t, f.log.Entry(t, f.index))
	if _, err := (rekor.Verifier{}).Verify(good, f.want, offline.Trust{Quorum: "none"}); err == nil {
		t.Error("verified with no log in the trust")
	}
	if _, err := (rekor.Verifier{}).Verify(good, f.want, f.trustNone); err != nil {
		t.Errorf("control: %v", err)
	}
}
