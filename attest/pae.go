package attest

import "github.com/secure-systems-lab/go-securesystemslib/dsse"

// PAE returns the DSSE pre-authentication encoding (REFERENCE §6.5), the
// exact bytes an envelope signature covers:
//
//	"DSSEv1" SP LEN(payloadType) SP payloadType SP LEN(payload) SP payload
//
// where SP is one space (0x20) and LEN is the length in bytes in ASCII
// decimal without leading zeros. For MCP-RES payloadType is the envelope's
// payloadType member, always "application/vnd.in-toto+json" (28 bytes), and
// payload is the decoded (not base64) payload, so every message starts
// "DSSEv1 28 application/vnd.in-toto+json <N> ". The signature is pure
// Ed25519 over these bytes: no pre-hash, no context.
//
// PAE delegates to go-securesystemslib's dsse.PAE; the tests pin that it
// agrees with the definition above and with the goldens of REFERENCE §2.5.
func PAE(payloadType string, payload []byte) []byte {
	return dsse.PAE(payloadType, payload)
}
