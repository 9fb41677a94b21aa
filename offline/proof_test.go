package offline_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/offline"
)

// ParseProof accepts one encoding per proof and names what is wrong.
func TestParseProof(t *testing.T) {
	f := newFixture(t)
	good := f.proof(f.wa).Marshal()
	p, err := offline.ParseProof(good)
	if err != nil {
		t.Fatal(err)
	}
	if p.Index != 3 || len(p.Hashes) != 3 || !bytes.Equal(p.Marshal(), good) {
		t.Errorf("parsed %+v", p)
	}
	header, rest, _ := bytes.Cut(good, []byte("\n"))
	extraLine, afterExtra, _ := bytes.Cut(rest, []byte("\n"))
	lines := strings.Split(string(good), "\n")
	hashLine := lines[3]
	tests := []struct {
		name string
		in   []byte
		msg  string
	}{
		{"CRLF", bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")), "carriage return at byte 22: lines end with LF only"},
		{"missing extra line", append(append(bytes.Clone(header), '\n'), afterExtra...), "no extra line after the header"},
		{"trailing data", append(bytes.Clone(good), "trailing"...), "not in canonical form"},
		{"trailing line", append(bytes.Clone(good), "trailing\n"...), `checkpoint: malformed signature line "trailing\n"`},
		{"leading zero index", bytes.Replace(good, []byte("\nindex 3\n"), []byte("\nindex 03\n"), 1), "not in canonical form"},
		{"non-canonical base64 hash", bytes.Replace(good, []byte(hashLine), []byte(hashLine[:42]+nextB64(hashLine[42])+"="), 1), "not in canonical form"},
		{"hash of 31 bytes", bytes.Replace(good, []byte(hashLine), []byte(b64enc(make([]byte, 31))), 1), "tlog proof hash length was 31, expected 32"},
		{"no header", good[len("c2sp.org/"):], "not a c2sp.org/tlog-proof@v1"},
		{"control character", bytes.Replace(good, []byte("index"), []byte("ind\x00x"), 1), "control character 0x00 at byte"},
		{"not UTF-8", append(bytes.Clone(good), 0xff), "not valid UTF-8"},
		{"no checkpoint", good[:bytes.Index(good, []byte("\n\n"))+2], "checkpoint: not a signed note"},
		{"no empty line before the checkpoint", bytes.Replace(good, []byte("\n\n"), []byte("\n"), 1), "tlog-proof"},
		{"extra not base64", bytes.Replace(good, extraLine, []byte("extra !!!"), 1), "tlog proof extra data not base64 encoded"},
		{"too large", append([]byte(offline.ProofHeader), make([]byte, offline.MaxProofSize)...), "786455 bytes, more than the limit of 786432"},
		{"too many hashes", manyHashes(good, 65), "65 inclusion hashes, more than the limit of 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := offline.ParseProof(tt.in)
			var pe *offline.ProofError
			if p != nil || !errors.As(err, &pe) {
				t.Fatalf("ParseProof = %+v, %T %v", p, err, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q\nwant it to contain %q", err, tt.msg)
			}
		})
	}
	// 64 hashes is the limit itself: accepted by the parser (the inclusion
	// check then fails).
	if _, err := offline.ParseProof(manyHashes(good, 64)); err != nil {
		t.Errorf("64 hashes: %v", err)
	}
}

// nextB64 returns the base64 character after c, which changes only the
// unused low bits of a 32-byte value's last character.
func nextB64(c byte) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	return string(alphabet[strings.IndexByte(alphabet, c)+1])
}

// manyHashes replaces the inclusion hashes of a proof by n zero hashes.
func manyHashes(good []byte, n int) []byte {
	p, err := offline.ParseProof(good)
	if err != nil {
		panic(err)
	}
	p.Hashes = make([][32]byte, n)
	return p.Marshal()
}

// FuzzParseProof: no panics; an error gives a nil proof; a success
// re-marshals to the identical bytes.
func FuzzParseProof(f *testing.F) {
	fx := newFixture(f)
	f.Add(fx.proof(fx.wa, fx.wb, fx.wc).Marshal())
	f.Add(fx.proof().Marshal())
	f.Add(bytes.ReplaceAll(fx.proof().Marshal(), []byte("\n"), []byte("\r\n")))
	f.Add([]byte(offline.ProofHeader + "extra \nindex 0\n\n"))
	f.Add([]byte("offline-test-inclusion-proof-v1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := offline.ParseProof(b)
		if err != nil {
			if p != nil {
				t.Fatalf("error %v with a proof", err)
			}
			return
		}
		if got := p.Marshal(); !bytes.Equal(got, b) {
			t.Fatalf("Marshal gives\n%q\nfor input\n%q", got, b)
		}
	})
}
