package monitor

import (
	"bytes"
	"fmt"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/offline"
)

// MaxHeldBytes bounds what a checkpoint-only source ([OpenCheckpoint])
// answers: a checkpoint, or a tlog-proof (at most offline.MaxProofSize)
// or a transparency reference (that proof in base64) carrying one.
const MaxHeldBytes = offline.MaxProofSize/3*4 + 4096

// HeldCheckpoint returns the signed checkpoint in what a checkpoint-only
// source answered, decided by its first bytes: a transparency reference
// (a JSON object: attest.ParseTransparencyReference) carries a C2SP
// tlog-proof, a tlog-proof (offline.ProofHeader: offline.ParseProof)
// ends with its checkpoint, and anything else is the checkpoint itself
// (at most [MaxCheckpointBytes]). Nothing is verified here: the caller
// verifies the checkpoint with the log key (a reference's proof of
// inclusion is not the monitor's concern, only the tree it names).
func HeldCheckpoint(b []byte) ([]byte, error) {
	if bytes.HasPrefix(b, []byte("{")) {
		_, proof, err := attest.ParseTransparencyReference(b)
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(proof, []byte(offline.ProofHeader)) {
			return nil, fmt.Errorf("transparency reference: its proof is not a tlog-proof (%s): it carries no checkpoint", offline.DetectKind(proof))
		}
		b = proof
	}
	if bytes.HasPrefix(b, []byte(offline.ProofHeader)) {
		p, err := offline.ParseProof(b)
		if err != nil {
			return nil, err
		}
		b = p.Checkpoint
	}
	if len(b) > MaxCheckpointBytes {
		return nil, fmt.Errorf("%w: a checkpoint of %d bytes, at most %d", ErrTooLarge, len(b), MaxCheckpointBytes)
	}
	return b, nil
}
