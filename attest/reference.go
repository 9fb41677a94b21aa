package attest

import (
	"errors"
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyfile"
)

// referenceMembers are the members of a transparency reference, in the
// order Marshal writes them.
var referenceMembers = []string{"logId", "entryUuid", "inclusionProofBase64", "inclusionProofSha256"}

// ParseTransparencyReference reads a transparency reference document (what
// `mcpres log add -o` writes and `attest sign --transparency` takes)
// strictly: data is one JSON object (the strict reader) with exactly the
// members logId, entryUuid, inclusionProofBase64 and inclusionProofSha256,
// each a string, none empty; inclusionProofBase64 is strict base64
// (REFERENCE §6.8) and inclusionProofSha256 the lowercase hex SHA-256 of
// the bytes it decodes to (§6.10, E14). It returns the reference and those
// proof bytes. What the proof bytes prove is not checked here: that is
// package offline's (a verifier's trust policy) or offline.CheckReference
// (at signing time).
func ParseTransparencyReference(data []byte) (*TransparencyReference, []byte, error) {
	v, err := canonjson.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("transparency reference: %w", err)
	}
	if !v.Is(canonjson.Object) {
		return nil, nil, errors.New("transparency reference: not a JSON object")
	}
	for _, m := range v.Members {
		known := false
		for _, k := range referenceMembers {
			known = known || m.Key == k
		}
		if !known {
			return nil, nil, fmt.Errorf("transparency reference: unknown member %q", m.Key)
		}
	}
	for _, k := range referenceMembers {
		m := v.Get(k)
		if m == nil {
			return nil, nil, fmt.Errorf("transparency reference: no %s", k)
		}
		if !m.Is(canonjson.String) || m.Str == "" {
			return nil, nil, fmt.Errorf("transparency reference: %s is not a non-empty string", k)
		}
	}
	ref := &TransparencyReference{
		LogID:                v.Get("logId").Str,
		EntryUUID:            v.Get("entryUuid").Str,
		InclusionProofBase64: v.Get("inclusionProofBase64").Str,
		InclusionProofSha256: v.Get("inclusionProofSha256").Str,
	}
	proof, err := keyfile.DecodeStrictBase64(ref.InclusionProofBase64)
	if err != nil {
		return nil, nil, fmt.Errorf("transparency reference: inclusionProofBase64: %w", err)
	}
	if canonjson.BytesDigest(proof) != ref.InclusionProofSha256 {
		return nil, nil, errors.New("transparency reference: inclusionProofSha256 is not the SHA-256 of the proof bytes")
	}
	return ref, proof, nil
}

// Marshal returns the reference as a document: pretty-printed JSON (two
// spaces, a final newline) with the members in the order logId, entryUuid,
// inclusionProofBase64, inclusionProofSha256. It is what `mcpres log add
// -o` writes and `mcpres log serve` answers, byte for byte.
func (r *TransparencyReference) Marshal() ([]byte, error) {
	v, err := canonjson.FromGo(r)
	if err != nil {
		return nil, err
	}
	return canonjson.Pretty(v)
}
