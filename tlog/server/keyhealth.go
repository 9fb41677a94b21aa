package server

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// ProbeInterval is how often, at most, a [KeyHealth] whose key failed
// tries it again for [KeyHealth.Ready].
const ProbeInterval = time.Second

// A KeyHealth is the log's checkpoint signer, watched: it remembers
// whether its last signature failed (a key in a token or an agent that is
// gone), so that submissions are refused at once with 503 rather than
// waiting for a checkpoint that cannot be signed ([Config.KeyReady]).
// Checkpoints are still signed once per integration, by Tessera, through
// it; Ready adds at most one probe signature per ProbeInterval.
type KeyHealth struct {
	note.Signer
	probe []byte

	mu      sync.Mutex
	failed  error
	tried   time.Time
	probing bool
}

// NewKeyHealth watches s, the signer of the log whose origin is origin.
func NewKeyHealth(s note.Signer, origin string) *KeyHealth {
	return &KeyHealth{Signer: s, probe: []byte("mcpres tlog key probe\n" + origin + "\n")}
}

// Sign signs msg with the key and records whether it could.
func (k *KeyHealth) Sign(msg []byte) ([]byte, error) {
	sig, err := k.Signer.Sign(msg)
	k.mu.Lock()
	k.failed, k.tried = err, time.Now()
	k.mu.Unlock()
	return sig, err
}

// Ready says whether the key can sign: the outcome of the last signature
// when it is younger than ProbeInterval (or another caller is probing),
// else of a probe signed now (not a checkpoint: the text of the tlog
// signer probe). So a key that went away is noticed within a second, and
// the log answers again as soon as it is back.
func (k *KeyHealth) Ready() error {
	k.mu.Lock()
	if k.probing || time.Since(k.tried) < ProbeInterval {
		err := k.failed
		k.mu.Unlock()
		if err != nil {
			return fmt.Errorf("the log key cannot sign: %w", err)
		}
		return nil
	}
	k.probing = true
	k.mu.Unlock()
	_, err := k.Sign(k.probe)
	k.mu.Lock()
	k.probing = false
	k.mu.Unlock()
	if err != nil {
		return fmt.Errorf("the log key cannot sign: %w", err)
	}
	return nil
}
