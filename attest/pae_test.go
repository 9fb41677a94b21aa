package attest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"strconv"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
)

// inTotoPayloadType is the payloadType of every MCP-RES envelope, spelled
// out here so that these tests depend on nothing but the code under test.
const inTotoPayloadType = "application/vnd.in-toto+json"

// handPAE is REFERENCE §6.5 written out, independent of go-securesystemslib.
func handPAE(payloadType string, payload []byte) []byte {
	s := "DSSEv1 " + strconv.Itoa(len(payloadType)) + " " + payloadType + " " + strconv.Itoa(len(payload)) + " "
	return append([]byte(s), payload...)
}

func TestPAEMatchesDefinition(t *testing.T) {
	for _, tc := range []struct {
		typ     string
		payload []byte
	}{
		{inTotoPayloadType, []byte("{}")},
		{inTotoPayloadType, nil},
		{inTotoPayloadType, []byte{}},
		{"", nil},
		{"", []byte("x")},
		{"application/vnd.in-toto+json; charset=ü", []byte("hello world")}, // length in bytes, not characters
		{"text/plain", bytes.Repeat([]byte{0, 0xff, ' '}, 1000)},
		{inTotoPayloadType, bytes.Repeat([]byte("a"), 1048576)},
	} {
		got, want := PAE(tc.typ, tc.payload), handPAE(tc.typ, tc.payload)
		if !bytes.Equal(got, want) {
			n := min(len(got), len(want), 80)
			t.Errorf("PAE(%q, %d bytes) starts %q, want %q", tc.typ, len(tc.payload), got[:n], want[:n])
		}
	}
	if got := string(PAE("", nil)); got != "DSSEv1 0  0 " {
		t.Errorf("PAE(\"\", nil) = %q, want \"DSSEv1 0  0 \"", got)
	}
}

// goldenStatements are the three payloads of REFERENCE §2.5. The file holds
// the key-one statement exactly as printed there (1034 bytes, no newline);
// the other two are derived from it by the substitutions the reference
// describes, and their digests pin the result.
func goldenStatements(t testing.TB) map[string][]byte {
	t.Helper()
	one, err := os.ReadFile("testdata/statement-key-one.json")
	if err != nil {
		t.Fatal(err)
	}
	two := bytes.ReplaceAll(one, []byte("test://mcp-res/disposable/signer-one"), []byte("test://mcp-res/disposable/signer-two"))
	two = bytes.ReplaceAll(two, []byte(testKeyOneKeyID), []byte(testKeyTwoKeyID))
	// §6.10 test transparency reference; members in canonical order, and
	// "transparencyReference" sorts before "trustPolicyId".
	tr := `"transparencyReference":{"entryUuid":"test-entry-0001",` +
		`"inclusionProofBase64":"b2ZmbGluZS10ZXN0LWluY2x1c2lvbi1wcm9vZi12MQ==",` +
		`"inclusionProofSha256":"543adb4c2c8c8a13a723c418e55cb8da585200ce59fa5d1096c0c238212e2167","logId":"test-log"},`
	withTR := bytes.Replace(one, []byte(`"trustPolicyId"`), []byte(tr+`"trustPolicyId"`), 1)
	return map[string][]byte{"one": one, "two": two, "one-transparency": withTR}
}

// REFERENCE §2.5: payload and PAE sizes and digests, and the deterministic
// signatures of the two test keys, which VerifyEd25519 accepts.
func TestPAEGoldens(t *testing.T) {
	statements := goldenStatements(t)
	tests := []struct {
		name, statement         string
		priv                    ed25519.PrivateKey
		payloadLen              int
		payloadSHA256           string
		paeLen                  int
		paeSHA256, signatureHex string
	}{
		{"key one, plain", "one", testOnlyKeyOne(), 1034,
			"1f0f9f5ea6e1b3a51b4245f7fe2d16dca8768cbc9da32ba3bb5753983c6e5bb1", 1078,
			"869e27301a3741ce0acdfc74988110d333b95c19362d649e9c7a22fc5c1a9d44",
			"aec729324e2176ad6c313834ca67a78b05933e2b043a3a7cab66316c5670c88e4636b6f6f57697606a027038aced20fe9cbb2bdde328600d5c69aed131ebd80d"},
		{"key two, plain", "two", testOnlyKeyTwo(), 1034,
			"6402bab30c68c91cfd88df05fc909d9c3d28a44024c7f0ea4240950a7d300219", 1078,
			"b8d284f56846486d0dcc33cb848cfddb4b83e90d14b292c5f20e2fc10119ac77",
			"03b1d7dfe28ddc0666733abe5ba358f2786342bb25305c6127224addcd467ea22e9cc4ad719ccc9ae3a84d19508fab3abd31555f0d4d1ce71a18725765cf900a"},
		{"key one, transparency reference", "one-transparency", testOnlyKeyOne(), 1269,
			"15ee90ba1b7a09e16f782be477c1210f019d8105b8958fcf906eeb064760fa9d", 1313,
			"ff699fd4998a606c09d36c8263700ab80c9496fd54c7dfd65cdf0b66cdcd824a",
			"1897d21de17fd1b9774e41fcf222406614e027ff49cd3619ad72292f62aedac2d9003e55291368b858db8530d8f180b84aea654e524817acf9d13ffe359b3600"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := statements[tt.statement]
			if len(payload) != tt.payloadLen || sha256Hex(payload) != tt.payloadSHA256 {
				t.Fatalf("payload: %d bytes, sha256 %s; want %d, %s", len(payload), sha256Hex(payload), tt.payloadLen, tt.payloadSHA256)
			}
			pae := PAE(inTotoPayloadType, payload)
			if len(pae) != tt.paeLen || sha256Hex(pae) != tt.paeSHA256 {
				t.Fatalf("PAE: %d bytes, sha256 %s; want %d, %s", len(pae), sha256Hex(pae), tt.paeLen, tt.paeSHA256)
			}
			wantPrefix := "DSSEv1 28 application/vnd.in-toto+json " + strconv.Itoa(tt.payloadLen) + " "
			if !bytes.HasPrefix(pae, []byte(wantPrefix)) || !bytes.Equal(pae[len(wantPrefix):], payload) {
				t.Fatalf("PAE does not consist of %q followed by the payload", wantPrefix)
			}
			sig := ed25519.Sign(tt.priv, pae)
			if got := hex.EncodeToString(sig); got != tt.signatureHex {
				t.Fatalf("signature = %s, want %s", got, tt.signatureHex)
			}
			pub := tt.priv.Public().(ed25519.PublicKey)
			if err := ed25519strict.Verify(pub, pae, sig); err != nil {
				t.Fatalf("ed25519strict.Verify(golden) = %v", err)
			}
			if err := ed25519strict.Verify(pub, payload, sig); err == nil {
				t.Fatal("the signature verifies over the bare payload; it must cover the PAE")
			}
		})
	}
}

// REFERENCE §2.5 spells out the 44-byte prefix and the base64 signature of
// the first envelope.
func TestPAEGoldenPrefixAndBase64Signature(t *testing.T) {
	payload := goldenStatements(t)["one"]
	pae := PAE(inTotoPayloadType, payload)
	const prefix = "DSSEv1 28 application/vnd.in-toto+json 1034 "
	if len(prefix) != 44 || string(pae[:44]) != prefix {
		t.Fatalf("PAE starts %q, want %q", pae[:44], prefix)
	}
	const sigB64 = "rscpMk4hdq1sMTg0ymeniwWTPisEOjp8q2YxbFZwyI5GNrb29XaXYGoCcDis7SD+nLsr3eMoYA1caa7RMevYDQ=="
	sig, err := keyfile.DecodeStrictBase64(sigB64)
	if err != nil {
		t.Fatal(err)
	}
	if got := base64.StdEncoding.EncodeToString(ed25519.Sign(testOnlyKeyOne(), pae)); got != sigB64 {
		t.Fatalf("signature base64 = %s, want %s", got, sigB64)
	}
	if err := ed25519strict.Verify(mustHex(testKeyOnePubHex), pae, sig); err != nil {
		t.Fatalf("VerifyEd25519 = %v", err)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
