package offline_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/signednote"
	"golang.org/x/mod/sumdb/note"
)

const testOrigin = "log.example.org/mcpres-test"

// fixture is a log of seven entries in which the example bundle's entry is
// leaf 3, three witnesses WA, WB, WC, and a trust that needs 2 of them.
type fixture struct {
	bundle     *canonjson.Value
	want       offline.Entry
	other      offline.Entry // the entry of another bundle, leaf 5
	log        *offlinetest.Log
	wa, wb, wc *offlinetest.Witness
	index      uint64
}

func exampleBundle(t testing.TB) *canonjson.Value {
	t.Helper()
	_, v, err := canonjson.ReadFile(filepath.Join("..", "testdata", "bundles", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustMarshal(t testing.TB, e offline.Entry) []byte {
	t.Helper()
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{bundle: exampleBundle(t)}
	f.want = offline.EntryFor(f.bundle)
	f.other = f.want
	f.other.EvidenceBundleDigest = strings.Repeat("ab", 32)
	f.log = offlinetest.NewLog(testOrigin, "log")
	for i := range 3 {
		f.log.Append([]byte("unrelated leaf " + string(rune('a'+i))))
	}
	f.index = f.log.Append(mustMarshal(t, f.want))
	f.log.Append([]byte("unrelated leaf d"), mustMarshal(t, f.other), []byte("unrelated leaf e"))
	f.wa = offlinetest.NewWitness("WA", "witness-a.example.org", "witness a", 1767225600)
	f.wb = offlinetest.NewWitness("WB", "witness-b.example.org", "witness b", 1767225601)
	f.wc = offlinetest.NewWitness("WC", "witness-c.example.org", "witness c", 1767225602)
	return f
}

// trust needs threshold of the members of group "witnesses".
func (f *fixture) trust(threshold int, members ...*offlinetest.Witness) offline.Trust {
	names := []string{}
	for _, w := range members {
		names = append(names, w.PolicyName)
	}
	return offlinetest.Trust([]*offlinetest.Log{f.log}, []*offlinetest.Witness{f.wa, f.wb, f.wc},
		[]offline.Group{{Name: "witnesses", Threshold: threshold, Members: names}}, "witnesses")
}

func (f *fixture) proof(cosigners ...note.Signer) *offline.Proof {
	return f.log.Proof(f.index, cosigners...)
}

func TestVerify(t *testing.T) {
	f := newFixture(t)
	p := f.proof(f.wa, f.wb, f.wc).Marshal()
	v, err := offline.Verify(p, f.want, f.trust(2, f.wa, f.wb, f.wc))
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != offline.KindTLogProof || v.LogID != testOrigin || v.EntryUUID != "3" || v.Index != 3 ||
		v.Checkpoint.Origin != testOrigin || v.Checkpoint.Size != 7 || v.Checkpoint.Quorum != "witnesses" || !reflect.DeepEqual(v.Entry, f.want) {
		t.Errorf("verified %+v", v)
	}
	var names []string
	for _, c := range v.Checkpoint.Witnesses {
		names = append(names, c.Name)
		k, _ := signednote.ParseVerifier(map[string]string{"WA": f.wa.VKey, "WB": f.wb.VKey, "WC": f.wc.VKey}[c.Name])
		if c.Fingerprint != k.Fingerprint() || len(c.Fingerprint) != 64 {
			t.Errorf("%s: fingerprint %s, want %s", c.Name, c.Fingerprint, k.Fingerprint())
		}
	}
	if !slices.Equal(names, []string{"WA", "WB", "WC"}) || v.Checkpoint.Witnesses[1].Time != 1767225601 {
		t.Errorf("witnesses %+v", v.Checkpoint.Witnesses)
	}
	if err := v.MatchesReference(testOrigin, "3"); err != nil {
		t.Error(err)
	}
	if err := v.MatchesReference(testOrigin, "03"); err == nil || !strings.Contains(err.Error(), `entryUuid is "03"`) {
		t.Errorf("entryUuid 03: %v", err)
	}
	if err := v.MatchesReference("test-log", "3"); err == nil || !strings.Contains(err.Error(), `logId is "test-log"`) {
		t.Errorf("logId: %v", err)
	}
	// No witness rule at all: the log signature alone.
	none := offlinetest.Trust([]*offlinetest.Log{f.log}, nil, nil, "none")
	if v, err := offline.Verify(f.proof().Marshal(), f.want, none); err != nil || v.Checkpoint.Quorum != "none" {
		t.Errorf("quorum none: %v %+v", err, v)
	}
	// A quorum naming one witness.
	one := offlinetest.Trust([]*offlinetest.Log{f.log}, []*offlinetest.Witness{f.wa}, nil, "WA")
	if _, err := offline.Verify(f.proof(f.wa).Marshal(), f.want, one); err != nil {
		t.Errorf("quorum WA: %v", err)
	}
}

// Each tamper fails at its own step, with its own error type and message.
func TestVerifyTampers(t *testing.T) {
	f := newFixture(t)
	two := f.trust(2, f.wa, f.wb)
	tests := []struct {
		name  string
		proof func() []byte
		trust offline.Trust
		check func(error) bool
		msg   string
	}{
		{
			name:  "entry for another bundle",
			proof: func() []byte { return f.log.Proof(5, f.wa, f.wb).Marshal() },
			check: is[*offline.BindingError],
			msg:   `log entry is for another bundle: evidenceBundleDigest is "abababababababababababababababababababababababababababababababab", this bundle's is "` + f.want.EvidenceBundleDigest + `"`,
		},
		{
			name: "flipped proof hash",
			proof: func() []byte {
				p := f.proof(f.wa, f.wb)
				p.Hashes[1][7] ^= 0x10
				return p.Marshal()
			},
			check: is[*offline.InclusionError],
			msg:   "inclusion proof of leaf 3 in the tree of size 7 does not verify: calculated root",
		},
		{
			name: "wrong leaf index",
			proof: func() []byte {
				p := f.proof(f.wa, f.wb)
				p.Index = 2
				return p.Marshal()
			},
			check: is[*offline.InclusionError],
			msg:   "inclusion proof of leaf 2 in the tree of size 7 does not verify",
		},
		{
			name: "leaf index beyond the tree",
			proof: func() []byte {
				p := f.proof(f.wa, f.wb)
				p.Index = 7
				return p.Marshal()
			},
			check: is[*offline.InclusionError],
			msg:   "inclusion proof of leaf 7 in the tree of size 7 does not verify: index is beyond size: 7 >= 7",
		},
		{
			name: "checkpoint from another origin",
			proof: func() []byte {
				p := f.proof()
				body := bytes.Replace(f.log.Body(7), []byte(testOrigin), []byte("log.example.org/elsewhere"), 1)
				p.Checkpoint = f.log.Sign(body, f.wa, f.wb)
				return p.Marshal()
			},
			check: is[*offline.OriginError],
			msg:   `checkpoint origin is "log.example.org/elsewhere", the log's is "` + testOrigin + `"`,
		},
		{
			name: "log key not in policy",
			proof: func() []byte {
				_, s := offlinetest.LogKey(testOrigin, "another log key")
				p := f.proof()
				p.Checkpoint = offlinetest.Sign(f.log.Body(7), s, f.wa, f.wb)
				return p.Marshal()
			},
			check: is[*offline.UnknownLogError],
			msg:   "checkpoint is not signed by a log key of the policy (signatures by " + testOrigin + "+",
		},
		{
			name:  "cosignature quorum not met",
			proof: func() []byte { return f.proof(f.wa).Marshal() },
			check: is[*offline.QuorumError],
			msg:   "cosignatures: 1 of 2 required (WB missing)",
		},
		{
			name:  "the same witness key twice",
			proof: func() []byte { return f.proof(f.wa, f.wa.At(1767229200)).Marshal() },
			check: is[*offline.QuorumError],
			msg:   "cosignatures: 1 of 2 required (WB missing); repeated cosignatures counted once: WA",
		},
		{
			name: "a witness's cosignature relabelled as another witness name",
			proof: func() []byte {
				// WA's key under WB's key name: the key hash binds the name,
				// so the line matches no key of the policy and is ignored.
				alias := offlinetest.NewWitness("WB", f.wb.KeyName, "witness a", 1767225600)
				return f.proof(f.wa, alias).Marshal()
			},
			check: is[*offline.QuorumError],
			msg:   "cosignatures: 1 of 2 required (WB missing); 1 signature(s) by keys not in the policy ignored",
		},
		{
			name: "bad log signature",
			proof: func() []byte {
				p := f.proof(f.wa, f.wb)
				p.Checkpoint = flipSignature(t, p.Checkpoint, 0)
				return p.Marshal()
			},
			check: is[*offline.SignatureError],
			msg:   "checkpoint signature by log " + testOrigin + "+",
		},
		{
			name: "bad witness signature",
			proof: func() []byte {
				p := f.proof(f.wa, f.wb)
				p.Checkpoint = flipSignature(t, p.Checkpoint, 2)
				return p.Marshal()
			},
			check: is[*offline.SignatureError],
			msg:   `checkpoint signature by witness "WB" witness-b.example.org+`,
		},
		{
			name: "leaf data not a canonical entry",
			proof: func() []byte {
				p := f.proof(f.wa, f.wb)
				p.Entry = append([]byte(" "), p.Entry...)
				return p.Marshal()
			},
			check: is[*offline.EntryError],
			msg:   "log entry:",
		},
		{
			name: "non-canonical checkpoint size",
			proof: func() []byte {
				p := f.proof()
				body := bytes.Replace(f.log.Body(7), []byte("\n7\n"), []byte("\n07\n"), 1)
				p.Checkpoint = f.log.Sign(body, f.wa, f.wb)
				return p.Marshal()
			},
			check: is[*offline.CheckpointError],
			msg:   "checkpoint: body is not in canonical form",
		},
		{
			name:  "not a tlog-proof",
			proof: func() []byte { return []byte("offline-test-inclusion-proof-v1") },
			check: func(err error) bool { return is[*offline.ProofError](err) && errors.Is(err, offline.ErrNotTLogProof) },
			msg:   `tlog-proof: opaque bytes (first line "offline-test-inclusion-proof-v1"): not a c2sp.org/tlog-proof@v1`,
		},
		{
			name:  "a key twice in the trust",
			proof: func() []byte { return f.proof(f.wa, f.wb).Marshal() },
			trust: offlinetest.Trust([]*offlinetest.Log{f.log}, []*offlinetest.Witness{f.wa, offlinetest.NewWitness("WA2", "other-name.example.org", "witness a", 0)}, nil, "WA"),
			check: is[*offline.TrustError],
			msg:   `trust: witness "WA2" has the same key as witness "WA": one key counts once`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trust := tt.trust
			if trust.Logs == nil {
				trust = two
			}
			v, err := offline.Verify(tt.proof(), f.want, trust)
			if err == nil || v != nil {
				t.Fatalf("verified %+v", v)
			}
			if !tt.check(err) {
				t.Errorf("error %T %q is not of the expected type", err, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q\nwant it to contain %q", err, tt.msg)
			}
		})
	}
}

func is[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

// flipSignature flips a bit in the signature (after the key hash) of
// signature line i of a signed note.
func flipSignature(t *testing.T, signed []byte, i int) []byte {
	t.Helper()
	_, err := note.Open(signed, note.VerifierList())
	var unv *note.UnverifiedNoteError
	if !errors.As(err, &unv) {
		t.Fatalf("open: %v", err)
	}
	n := unv.Note
	sigs := append(n.Sigs, n.UnverifiedSigs...)
	var out strings.Builder
	out.WriteString(n.Text + "\n")
	for j, s := range sigs {
		b64 := s.Base64
		if j == i {
			raw := mustB64(t, b64)
			raw[len(raw)-1] ^= 1
			b64 = b64enc(raw)
		}
		out.WriteString("— " + s.Name + " " + b64 + "\n")
	}
	return []byte(out.String())
}

// Changing any single byte of a proof makes verification fail (the quorum
// is all three witnesses, so that no signature line is spare).
func TestVerifyEveryByte(t *testing.T) {
	f := newFixture(t)
	all := f.trust(3, f.wa, f.wb, f.wc)
	good := f.proof(f.wa, f.wb, f.wc).Marshal()
	if _, err := offline.Verify(good, f.want, all); err != nil {
		t.Fatal(err)
	}
	for i := range good {
		for _, x := range []byte{0x01, 0x20, 0x80} {
			b := bytes.Clone(good)
			b[i] ^= x
			if v, err := offline.Verify(b, f.want, all); err == nil || v != nil {
				t.Fatalf("byte %d ^ %#x: verified", i, x)
			}
		}
	}
	for n := range len(good) {
		if _, err := offline.Verify(good[:n], f.want, all); err == nil {
			t.Fatalf("prefix of %d bytes verified", n)
		}
	}
}

func TestCheckBinding(t *testing.T) {
	f := newFixture(t)
	if err := offline.CheckBinding(f.proof().Marshal(), f.bundle); err != nil {
		t.Fatal(err)
	}
	// Without any key the signatures are not checked: a checkpoint signed
	// by an unknown key is fine here (Verify rejects it).
	_, s := offlinetest.LogKey("someone", "someone")
	p := f.proof()
	p.Checkpoint = offlinetest.Sign(f.log.Body(7), s)
	if err := offline.CheckBinding(p.Marshal(), f.bundle); err != nil {
		t.Errorf("unknown key: %v", err)
	}
	flipped := f.proof()
	flipped.Hashes[0][0] ^= 1
	for name, tt := range map[string]struct {
		proof []byte
		check func(error) bool
	}{
		"other bundle":  {f.log.Proof(5).Marshal(), is[*offline.BindingError]},
		"flipped hash":  {flipped.Marshal(), is[*offline.InclusionError]},
		"opaque":        {[]byte("offline-test-inclusion-proof-v1"), func(err error) bool { return errors.Is(err, offline.ErrNotTLogProof) }},
		"rekor entry":   {[]byte(`{"body":""}`), func(err error) bool { return errors.Is(err, offline.ErrNotTLogProof) }},
		"crlf":          {bytes.ReplaceAll(f.proof().Marshal(), []byte("\n"), []byte("\r\n")), is[*offline.ProofError]},
		"bad leaf data": {(&offline.Proof{Index: 0, Hashes: f.log.Hashes(0, 7), Checkpoint: f.log.Sign(f.log.Body(7)), Entry: []byte("unrelated leaf a")}).Marshal(), is[*offline.EntryError]},
	} {
		if err := offline.CheckBinding(tt.proof, f.bundle); err == nil || !tt.check(err) {
			t.Errorf("%s: %T %v", name, err, err)
		}
	}
	logID, uuid, err := offline.ReferenceIDs(f.proof().Marshal())
	if err != nil || logID != testOrigin || uuid != "3" {
		t.Errorf("ReferenceIDs = %q, %q, %v", logID, uuid, err)
	}
	good := f.proof().Marshal()
	if err := offline.CheckReference(testOrigin, "3", good, f.bundle); err != nil {
		t.Errorf("CheckReference: %v", err)
	}
	for _, tt := range []struct{ logID, uuid, msg string }{
		{"test-log", "3", `logId is "test-log", the checkpoint origin is "` + testOrigin + `"`},
		{testOrigin, "test-entry-0001", `entryUuid is "test-entry-0001", the leaf index is "3"`},
	} {
		if err := offline.CheckReference(tt.logID, tt.uuid, good, f.bundle); err == nil || err.Error() != tt.msg {
			t.Errorf("CheckReference(%q, %q) = %v, want %q", tt.logID, tt.uuid, err, tt.msg)
		}
	}
	if err := offline.CheckReference(testOrigin, "5", f.log.Proof(5).Marshal(), f.bundle); !is[*offline.BindingError](err) {
		t.Errorf("CheckReference, another bundle: %v", err)
	}
	if err := offline.CheckReference("test-log", "test-entry-0001", []byte("offline-test-inclusion-proof-v1"), f.bundle); !errors.Is(err, offline.ErrNotTLogProof) {
		t.Errorf("CheckReference, opaque: %v", err)
	}
}

func TestDetectKind(t *testing.T) {
	for in, want := range map[string]offline.Kind{
		"c2sp.org/tlog-proof@v1\nextra ":  offline.KindTLogProof,
		"c2sp.org/tlog-proof@v1":          offline.KindOpaque,
		`{"body":"x"}`:                    offline.KindRekorV1,
		` {"body":"x"}`:                   offline.KindOpaque,
		"":                                offline.KindOpaque,
		"offline-test-inclusion-proof-v1": offline.KindOpaque,
	} {
		if got := offline.DetectKind([]byte(in)); got != want {
			t.Errorf("DetectKind(%q) = %v, want %v", in, got, want)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	f := newFixture(b)
	trust := f.trust(2, f.wa, f.wb, f.wc)
	p := f.proof(f.wa, f.wb, f.wc).Marshal()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := offline.Verify(p, f.want, trust); err != nil {
			b.Fatal(err)
		}
	}
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func b64enc(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
