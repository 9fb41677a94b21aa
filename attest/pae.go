package attest

import "github.com/secure-systems-lab/go-securesystemslib/dsse"

// PayloadTypeInToto is the DSSE payloadType of every MCP-RES envelope
// (REFERENCE §0.1): 28 bytes.
const PayloadTypeInToto = "application/vnd.in-toto+json"

// PAE returns the DSSE pre-authentication encoding (REFERENCE §6.5), the
// exact bytes an envelope signature covers:
//
//	"DSSEv1" SP LEN(payloadType) SP payloadType SP LEN(payload) SP payload
//
// where SP is one space (0x20) and LEN is the length in bytes in ASCII
// decimal without leading zeros. For MCP-RES payloadType is
// [PayloadTypeInToto] and payload is the decoded (not base64) payload, so
// every message starts "DSSEv1 28 application/vnd.in-toto+json <N> ". The
// signature is pure Ed25519 over these bytes: no pre-hash, no context.
//
// PAE delegates to go-securesystemslib's dsse.PAE; the tests pin that it
// agrees with the definition above.
func PAE(payloadType string, payload []byte) []byte {
	return dsse.PAE(payloadType, payload)
}
