package tlog

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpres/mcpres/signednote"
)

// A KeyRecorder is a Storage that records the log's verifier key beside
// the log: operator state, not part of the tlog-tiles API (verifiers take
// the log key from their trust policy, never from the log). [Log.Init]
// records the key; [Key] and [CheckKey] read it, so that the commands run
// after a log was created need not be given its key, and cannot be given
// another log's. tlog/posix keeps it in DIR/.mcpres/log.vkey, tlog/mysql
// in a table.
type KeyRecorder interface {
	// RecordKey records vkey, the text of the log's verifier key. It
	// fails if a key is recorded already.
	RecordKey(ctx context.Context, vkey string) error
	// RecordedKey returns the recorded key text, "" when none is.
	RecordedKey(ctx context.Context) (string, error)
}

// ErrNoRecordedKey is returned (wrapped: "DIR has no recorded log key")
// by [Key] when no key is given and the storage records none.
var ErrNoRecordedKey = errors.New("no recorded log key")

// A KeyMismatchError is a log key that is not the key the storage
// records: the key of another log.
type KeyMismatchError struct {
	// Key is the key given, Recorded the recorded one; Where names the
	// storage (its String method, "the storage" without one).
	Key, Recorded, Where string
}

func (e *KeyMismatchError) Error() string {
	return fmt.Sprintf("the log key %s is not the key of the log in %s (its key is %s)", e.Key, e.Where, e.Recorded)
}

// where names store in messages: its String method, if it has one.
func where(store Storage) string {
	if s, ok := store.(fmt.Stringer); ok {
		return s.String()
	}
	return "the storage"
}

// recordedKey returns the key store records, nil when it records none or
// is no KeyRecorder.
func recordedKey(ctx context.Context, store Storage) (*signednote.Verifier, error) {
	kr, ok := store.(KeyRecorder)
	if !ok {
		return nil, nil
	}
	text, err := kr.RecordedKey(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the recorded log key: %w", where(store), err)
	}
	if text == "" {
		return nil, nil
	}
	v, err := signednote.ParseLogVerifier(text)
	if err != nil {
		return nil, fmt.Errorf("%s: the recorded log key: %w", where(store), err)
	}
	return v, nil
}

// CheckKey fails with a *[KeyMismatchError] when store records a log key
// that is not key. A storage that records none (or cannot record one)
// passes.
func CheckKey(ctx context.Context, store Storage, key *signednote.Verifier) error {
	rec, err := recordedKey(ctx, store)
	if err != nil {
		return err
	}
	if rec != nil && rec.String() != key.String() {
		return &KeyMismatchError{Key: key.String(), Recorded: rec.String(), Where: where(store)}
	}
	return nil
}

// Key returns the key of the log in store: key when it is not nil (and
// passes [CheckKey]), else the key store records. With neither it fails
// with [ErrNoRecordedKey] (wrapped).
func Key(ctx context.Context, store Storage, key *signednote.Verifier) (*signednote.Verifier, error) {
	if key != nil {
		return key, CheckKey(ctx, store, key)
	}
	rec, err := recordedKey(ctx, store)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("%s has %w", where(store), ErrNoRecordedKey)
	}
	return rec, nil
}
