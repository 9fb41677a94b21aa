package monitor

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/filelock"
	"github.com/mcpres/mcpres/internal/regularfile"
)

// StateSchema is the schemaVersion of a state file.
const StateSchema = "mcpres.log-monitor-state/v1"

// maxStateBytes bounds a state file: a checkpoint and at most 64 range
// hashes.
const maxStateBytes = 1 << 20

// State is what the monitor has verified of one log: the last checkpoint
// it accepted and how far it has read the entries under it. It is kept in
// STATEDIR/NAME.json (NAME from the log key: [StateName]), replaced
// atomically, read and written under the OS lock of STATEDIR/NAME.lock.
// It only moves forward: a checkpoint smaller than the one it holds is
// never written, nor is an entry position below the one it holds.
type State struct {
	SchemaVersion string `json:"schemaVersion"`
	// LogKey is the log's verifier key (NAME+HASH+KEY).
	LogKey string `json:"logKey"`
	// Checkpoint is the last verified checkpoint, as signed (with the
	// cosignatures it had), or "" before the first.
	Checkpoint string   `json:"checkpoint,omitempty"`
	Tree       TreeHead `json:"tree"`
	// Next is the index of the next entry to read (≤ Tree.Size); Range
	// is the compact range of the leaves [0, Next) (its hashes in base64,
	// at most 64), which the entries after it extend.
	Next  uint64   `json:"next"`
	Range []string `json:"range"`
	// Entries counts the entries read, Watched those about a watched
	// subject, Alerts the entry alerts raised.
	Entries uint64 `json:"entries"`
	Watched uint64 `json:"watched"`
	Alerts  uint64 `json:"alerts"`
	// Updated is when the state was last written (RFC 3339, UTC).
	Updated string `json:"updated,omitempty"`
}

// StateName is the name of a log's state files in the state directory:
// the origin with every character outside [A-Za-z0-9.-] replaced by "_",
// "+", and the key hash in hex.
func StateName(origin string, keyHash uint32) string {
	var b strings.Builder
	for _, r := range origin {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 100 {
		s = s[:100]
	}
	return fmt.Sprintf("%s+%08x", s, keyHash)
}

// stateFile is a locked state file.
type stateFile struct {
	path string
	lock *filelock.Lock
}

// lockState takes the lock of the state NAME in dir (creating dir),
// waiting at most wait for another process.
func lockState(dir, name string, wait time.Duration) (*stateFile, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	l, err := filelock.Acquire(filepath.Join(dir, name+".lock"), wait)
	if err != nil {
		return nil, fmt.Errorf("state of log %s: %w (another monitor of this log runs with this state directory)", name, err)
	}
	return &stateFile{path: filepath.Join(dir, name+".json"), lock: l}, nil
}

func (f *stateFile) release() { f.lock.Release() }

// load reads the state, or returns nil when there is none yet.
func (f *stateFile) load(logKey string) (*State, error) {
	b, err := regularfile.ReadFile(f.path, maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	var s State
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("state %s: %v", f.path, err)
	}
	switch {
	case s.SchemaVersion != StateSchema:
		return nil, fmt.Errorf("state %s: schemaVersion %q, want %q", f.path, s.SchemaVersion, StateSchema)
	case s.LogKey != logKey:
		return nil, fmt.Errorf("state %s is for log key %q, not %q", f.path, s.LogKey, logKey)
	case s.Next > s.Tree.Size || len(s.Range) > 64:
		return nil, fmt.Errorf("state %s: entry position %d past the tree size %d", f.path, s.Next, s.Tree.Size)
	}
	if _, err := s.rangeHashes(); err != nil {
		return nil, fmt.Errorf("state %s: %v", f.path, err)
	}
	if _, err := base64.StdEncoding.DecodeString(s.Tree.RootHash); err != nil && s.Checkpoint != "" {
		return nil, fmt.Errorf("state %s: root hash: %v", f.path, err)
	}
	return &s, nil
}

func (s *State) rangeHashes() ([][]byte, error) {
	out := make([][]byte, len(s.Range))
	for i, h := range s.Range {
		b, err := base64.StdEncoding.DecodeString(h)
		if err != nil || len(b) != 32 {
			return nil, fmt.Errorf("range hash %d is not 32 bytes of base64", i)
		}
		out[i] = b
	}
	return out, nil
}

// save writes s, refusing to move it backwards from old.
func (f *stateFile) save(s, old *State, now time.Time) error {
	if old != nil && (s.Tree.Size < old.Tree.Size || s.Next < old.Next) {
		return fmt.Errorf("state: refusing to move back from tree size %d (next entry %d) to %d (%d)", old.Tree.Size, old.Next, s.Tree.Size, s.Next)
	}
	s.SchemaVersion = StateSchema
	s.Updated = now.UTC().Format(time.RFC3339)
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(f.path, append(b, '\n'), 0o600, true); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	return nil
}
