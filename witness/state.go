package witness

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/signednote"
)

// SchemaVersionState is the schemaVersion of a witness state document.
const SchemaVersionState = "mcpres.witness-state/v1"

// MaxStateLogs is the largest number of logs one state document holds.
const MaxStateLogs = 1024

// MaxTreeSize is the largest tree size a witness cosigns: the largest a
// state document records (sizes are JSON safe integers, at most 2^53−1).
// [CosignCheckpoint] and [AddCheckpoint] refuse larger checkpoints before anything
// is signed or recorded.
const MaxTreeSize = 1<<53 - 1

// A State is what a witness has cosigned: per log origin, the latest tree.
type State struct {
	Logs []LogState // sorted by origin, one entry per origin
}

type stateDoc struct {
	SchemaVersion string        `json:"schemaVersion"`
	Logs          []stateLogDoc `json:"logs"`
}

type stateLogDoc struct {
	Origin   string `json:"origin"`
	Size     int64  `json:"size"`
	RootHash string `json:"rootHash"`
}

// ParseState reads a state document strictly (canonjson's reader: no
// duplicate keys, no unknown members, safe integers). Every member is
// required, origins are unique, sizes are not negative and root hashes are
// canonical base64 of 32 bytes.
func ParseState(data []byte) (*State, error) {
	v, err := canonjson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("witness state: %w", err)
	}
	var d stateDoc
	if err := canonjson.Unmarshal(v, &d); err != nil {
		return nil, fmt.Errorf("witness state: %w", err)
	}
	if d.SchemaVersion != SchemaVersionState {
		return nil, fmt.Errorf("witness state: schemaVersion is %q, want %q", d.SchemaVersion, SchemaVersionState)
	}
	if !v.Has("logs") {
		return nil, fmt.Errorf("witness state: member \"logs\" is missing")
	}
	if len(d.Logs) > MaxStateLogs {
		return nil, fmt.Errorf("witness state: %d logs, more than %d", len(d.Logs), MaxStateLogs)
	}
	s := &State{}
	for i, l := range d.Logs {
		item := v.Get("logs").Items[i]
		for _, k := range []string{"origin", "size", "rootHash"} {
			if !item.Has(k) {
				return nil, fmt.Errorf("witness state: /logs/%d: member %q is missing", i, k)
			}
		}
		if l.Origin == "" || strings.ContainsAny(l.Origin, "\n") {
			return nil, fmt.Errorf("witness state: /logs/%d: origin is empty or has a newline", i)
		}
		if l.Size < 0 {
			return nil, fmt.Errorf("witness state: /logs/%d: size %d is negative", i, l.Size)
		}
		h, err := signednote.ParseHash(l.RootHash)
		if err != nil {
			return nil, fmt.Errorf("witness state: /logs/%d: rootHash is not canonical base64 of %d bytes", i, sha256.Size)
		}
		if s.Get(l.Origin) != nil {
			return nil, fmt.Errorf("witness state: /logs/%d: origin %q is listed twice", i, l.Origin)
		}
		s.Put(LogState{Origin: l.Origin, Size: uint64(l.Size), Hash: h})
	}
	return s, nil
}

// Marshal returns the state document, pretty-printed.
func (s *State) Marshal() ([]byte, error) {
	d := stateDoc{SchemaVersion: SchemaVersionState, Logs: []stateLogDoc{}}
	for _, l := range s.Logs {
		if l.Size > MaxTreeSize {
			return nil, fmt.Errorf("witness state: size %d of %q is beyond the JSON safe integers", l.Size, l.Origin)
		}
		d.Logs = append(d.Logs, stateLogDoc{Origin: l.Origin, Size: int64(l.Size), RootHash: l.Hash.String()})
	}
	v, err := canonjson.FromGo(d)
	if err != nil {
		return nil, err
	}
	return canonjson.Pretty(v)
}

// Get returns the state of the log with this origin, or nil.
func (s *State) Get(origin string) *LogState {
	i, ok := slices.BinarySearchFunc(s.Logs, origin, func(l LogState, o string) int { return strings.Compare(l.Origin, o) })
	if !ok {
		return nil
	}
	l := s.Logs[i]
	return &l
}

// Put records l, replacing the state of its origin.
func (s *State) Put(l LogState) {
	i, ok := slices.BinarySearchFunc(s.Logs, l.Origin, func(x LogState, o string) int { return strings.Compare(x.Origin, o) })
	if ok {
		s.Logs[i] = l
		return
	}
	s.Logs = slices.Insert(s.Logs, i, l)
}
