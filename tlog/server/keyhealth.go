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
// it.
type KeyHealth struct {
	note.Signer
	probe []byte

	mu     sync.Mutex
	failed error
	tried  time.Time
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

// Ready returns nil while the last signature succeeded. After a failure
// it signs a probe (not a checkpoint: the tlog signer probe's text) at
// most once per ProbeInterval, and returns the failure until one
// succeeds: so the log answers again as soon as the key is back.
func (k *KeyHealth) Ready() error {
	k.mu.Lock()
	failed, tried := k.failed, k.tried
	k.mu.Unlock()
	if failed == nil {
		return nil
	}
	if time.Since(tried) < ProbeInterval {
		return fmt.Errorf("the log key cannot sign: %w", failed)
	}
	if _, err := k.Sign(k.probe); err != nil {
		return fmt.Errorf("the log key cannot sign: %w", err)
	}
	return nil
}
