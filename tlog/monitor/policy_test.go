package monitor_test

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/tlog/monitor"
	"github.com/mcpres/mcpres/trustpolicy"
)

// The keys of the policy tests: release signs for acme/* within its own
// window, other signs for other/*, old is revoked, stranger is no signer.
var (
	keyRelease  = offlinetest.TestOnlyKey("monitor-release")
	keyOther    = offlinetest.TestOnlyKey("monitor-other")
	keyOld      = offlinetest.TestOnlyKey("monitor-old")
	keyStranger = offlinetest.TestOnlyKey("monitor-stranger")
)

func fingerprint(k ed25519.PrivateKey) string {
	return ed25519strict.Fingerprint(k.Public().(ed25519.PublicKey))
}

// testPolicy is an mcpres.trust-policy/v1 in force 2025–2027.
func testPolicy(t *testing.T) *trustpolicy.Policy {
	t.Helper()
	d := trustpolicy.New("acme/release-policy", "2025-01-01T00:00:00Z", "2027-12-31T00:00:00Z")
	add := func(name, identity string, k ed25519.PrivateKey, subjects []string, from, until string) {
		pem, err := keyfile.MarshalPublicKeyPEM(k.Public().(ed25519.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		d.AddSigner(trustpolicy.Signer{Name: name, Identity: identity, PublicKey: string(pem), Roles: []string{trustpolicy.RoleSigner},
			Subjects: subjects, ValidFrom: from, ValidUntil: until})
	}
	add("release", "release@acme", keyRelease, []string{"acme/*"}, "2026-01-01T00:00:00Z", "2026-06-30T00:00:00Z")
	add("other", "ci@other", keyOther, []string{"other/*"}, "", "")
	add("old", "old@acme", keyOld, nil, "", "")
	d.Revoke(trustpolicy.Revocation{Fingerprint: fingerprint(keyOld), Reason: "key compromise"})
	doc, err := canonjson.FromGo(d)
	if err != nil {
		t.Fatal(err)
	}
	p, problems := trustpolicy.Load(doc, nil)
	if len(problems) > 0 {
		t.Fatalf("policy: %v", problems)
	}
	return p
}

func signer(k ed25519.PrivateKey, identity, at string) offline.EntrySigner {
	return offline.EntrySigner{KeyFingerprint: fingerprint(k), SignerIdentity: identity, SigningTime: at}
}

// signedEntry is an mcpres.transparency-entry/v2 about subject.
func signedEntry(t *testing.T, subject, bundleDigest string, signers ...offline.EntrySigner) offline.Entry {
	t.Helper()
	e, err := monitor.DecodeEntry(entry(t, subject, bundleDigest))
	if err != nil {
		t.Fatal(err)
	}
	e.SchemaVersion, e.Signers = offline.SchemaVersionEntrySigned, signers
	return e
}

func marshal(t *testing.T, e offline.Entry) []byte {
	t.Helper()
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := monitor.DecodeEntry(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPolicyAuthoriser: every way a signer can be unauthorised for the
// subject is refused for its own reason, each a change of one fact of
// the authorised entry (the control); a v1 entry is unattributed.
func TestPolicyAuthoriser(t *testing.T) {
	a := monitor.PolicyAuthoriser{Policy: testPolicy(t)}
	const in, id = "2026-03-01T12:00:00Z", "release@acme"
	if err := a.Authorise(signedEntry(t, "acme/server", digest('1'), signer(keyRelease, id, in))); err != nil {
		t.Fatalf("the authorised signer: %v", err)
	}
	if err := a.Authorise(signedEntry(t, "other/tool", digest('1'), signer(keyOther, "ci@other", in), signer(keyRelease, id, "2026-06-29T00:00:00Z"))); err == nil ||
		!strings.Contains(err.Error(), "envelope 1:") || strings.Contains(err.Error(), "envelope 0:") {
		t.Errorf("two signers, the second out of scope: %v", err)
	}
	for _, c := range []struct {
		name string
		e    offline.Entry
		want string
	}{
		{"an unknown key", signedEntry(t, "acme/server", digest('1'), signer(keyStranger, id, in)), "is not a signer of the policy"},
		{"another identity", signedEntry(t, "acme/server", digest('1'), signer(keyRelease, "mallory@acme", in)), `identity "mallory@acme" differs`},
		{"out of scope", signedEntry(t, "other/tool", digest('1'), signer(keyRelease, id, in)), `is not trusted for subject "other/tool"`},
		{"before the key window", signedEntry(t, "acme/server", digest('1'), signer(keyRelease, id, "2025-12-31T23:59:59Z")), "outside signer \"release\"'s key window"},
		{"after the key window", signedEntry(t, "acme/server", digest('1'), signer(keyRelease, id, "2026-07-01T00:00:00Z")), "outside signer \"release\"'s key window"},
		{"a revoked key", signedEntry(t, "acme/server", digest('1'), signer(keyOld, "old@acme", in)), "is revoked by the policy"},
		{"outside the policy window", signedEntry(t, "other/tool", digest('1'), signer(keyOther, "ci@other", "2028-01-01T00:00:00Z")), "outside the policy window"},
		{"two signers, one unknown", signedEntry(t, "acme/server", digest('1'), signer(keyRelease, id, in), signer(keyStranger, "x", in)), "envelope 1: key " + fingerprint(keyStranger)},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := a.Authorise(c.e)
			var un *monitor.UnattributedError
			if err == nil || errors.As(err, &un) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want an error saying %q", err, c.want)
			}
		})
	}
	v1, err := monitor.DecodeEntry(entry(t, "acme/server", digest('1')))
	if err != nil {
		t.Fatal(err)
	}
	var un *monitor.UnattributedError
	if err := a.Authorise(v1); !errors.As(err, &un) {
		t.Errorf("a v1 entry: %v, want an *UnattributedError", err)
	}
}

// TestPolicyMonitor: with a trust policy (and RequireSigners), a log of
// an authorised entry, an entry of an unknown key and a v1 entry about
// the watched subject, and an unauthorised entry about a subject nobody
// watches, raises exactly one unauthorised-entry and one
// unattributed-entry alert, the first naming its signer; the next run
// raises none, and an authorised entry logged later none either. Without
// RequireSigners (the control) the v1 entry is counted, not an alert.
func TestPolicyMonitor(t *testing.T) {
	l := newLog(t, "log")
	const in = "2026-03-01T12:00:00Z"
	honest := marshal(t, signedEntry(t, "acme/server", digest('1'), signer(keyRelease, "release@acme", in)))
	l.add(t, honest,
		marshal(t, signedEntry(t, "acme/server", digest('2'), signer(keyStranger, "release@acme", in))),
		entry(t, "acme/server", digest('3')),
		marshal(t, signedEntry(t, "elsewhere/x", digest('4'), signer(keyStranger, "x", in))))
	h := newHarness(t, l.key)
	h.cfg.Watch = watch(t, "acme/*")
	h.cfg.Authoriser = monitor.PolicyAuthoriser{Policy: testPolicy(t)}
	lenient := *h
	lenient.cfg.StateDir = t.TempDir()
	res, as := lenient.run(t, dir(t, l))
	wantKinds(t, as, "unauthorised-entry")
	if res.Unattributed != 1 || res.Watched != 3 {
		t.Errorf("without RequireSigners: %+v", res)
	}
	h.cfg.RequireSigners = true
	res, as = h.run(t, dir(t, l))
	wantKinds(t, as, "unauthorised-entry,unattributed-entry")
	if e := as[0].Entry; e.Index != 1 || len(e.Signers) != 1 || e.Signers[0].KeyFingerprint != fingerprint(keyStranger) ||
		!strings.Contains(as[0].Message, "is not a signer of the policy") || !strings.Contains(string(as[0].JSON()), `"signers":[{"keyFingerprint":"`+fingerprint(keyStranger)) {
		t.Errorf("alert %s", as[0].JSON())
	}
	if e := as[1].Entry; e.Index != 2 || e.Signers != nil {
		t.Errorf("alert %s", as[1].JSON())
	}
	if res.Entries != 4 || res.Watched != 3 || res.Unattributed != 0 {
		t.Errorf("result %+v", res)
	}
	_, as = h.run(t, dir(t, l))
	wantKinds(t, as, "")
	l.add(t, marshal(t, signedEntry(t, "acme/server", digest('5'), signer(keyRelease, "release@acme", in))))
	res, as = h.run(t, dir(t, l))
	wantKinds(t, as, "")
	if res.Entries != 1 || res.Watched != 1 || res.Next != 5 {
		t.Errorf("result %+v", res)
	}
}

// TestPolicyAuthoriserUpstream: an upstream mcp-res.trust-policy/0.2.0
// (trustpolicy.Open) judges by key and identity pairs and revocations:
// its trusted signer is authorised; another key, the trusted key under
// another identity, and a revoked key are not, each message naming the
// signer (the upstream policy itself only counts).
func TestPolicyAuthoriserUpstream(t *testing.T) {
	tp, errs, err := trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}, Revoked: []string{attesttest.KeyID(attesttest.TestOnlyKeyTwo())}}), trustpolicy.OpenOptions{}).Policy()
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	a := monitor.PolicyAuthoriser{Policy: tp}
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	at := attesttest.SigningTime
	if err := a.Authorise(signedEntry(t, "any/server", digest('1'), signer(one, attesttest.IdentityOne, at))); err != nil {
		t.Fatalf("the trusted signer: %v", err)
	}
	for _, c := range []struct {
		name string
		s    offline.EntrySigner
		want string
	}{
		{"another key", signer(keyStranger, attesttest.IdentityOne, at), "envelope 0 (key " + fingerprint(keyStranger) + ` as "` + attesttest.IdentityOne + `") not trusted by the policy`},
		{"another identity", signer(one, attesttest.IdentityTwo, at), `as "` + attesttest.IdentityTwo + `") not trusted`},
		{"a revoked key", signer(two, attesttest.IdentityTwo, at), "is revoked by the policy"},
	} {
		if err := a.Authorise(signedEntry(t, "any/server", digest('1'), c.s)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
