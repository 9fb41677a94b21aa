package monitor

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/offline"
)

// AlertSchema is the schemaVersion of every alert.
const AlertSchema = "mcpres.log-monitor-alert/v1"

// A Kind says what an alert is about. The values are part of the alert
// schema: new kinds may be added, existing ones keep their meaning.
type Kind string

// The kinds of alert.
const (
	// KindLogUnreadable: a source's checkpoint or tiles could not be read
	// (missing, too large, a redirect, an HTTP error, a timeout).
	KindLogUnreadable Kind = "log-unreadable"
	// KindCheckpointSignature: a checkpoint not signed by the log key
	// (another key, a bad signature, another origin, a malformed note).
	KindCheckpointSignature Kind = "checkpoint-signature"
	// KindRollback: a checkpoint smaller than the last verified one.
	KindRollback Kind = "rollback"
	// KindFork: a checkpoint that is not consistent with the last verified
	// one (same size and another root, or a consistency proof that does
	// not verify).
	KindFork Kind = "fork"
	// KindSplitView: two sources of one log serve checkpoints that are not
	// consistent with each other.
	KindSplitView Kind = "split-view"
	// KindBelowQuorum: a checkpoint signed by the log whose witness
	// cosignatures do not meet the tlog policy's quorum.
	KindBelowQuorum Kind = "below-quorum"
	// KindTiles: entry bundles or hash tiles that do not hash to the
	// verified checkpoint (or are malformed).
	KindTiles Kind = "tiles"
	// KindEntryUndecodable: an entry of the verified tree that is not an
	// mcpres.transparency-entry/v1 or /v2.
	KindEntryUndecodable Kind = "entry-undecodable"
	// KindWatchedEntry: an entry about a watched subject, with no
	// authoriser to judge it.
	KindWatchedEntry Kind = "watched-entry"
	// KindUnauthorisedEntry: an entry about a watched subject that the
	// authoriser does not authorise.
	KindUnauthorisedEntry Kind = "unauthorised-entry"
	// KindUnattributedEntry: with Config.RequireSigners, an entry about a
	// watched subject that names no signer (an
	// mcpres.transparency-entry/v1), which the Authoriser cannot judge
	// ([UnattributedError]).
	KindUnattributedEntry Kind = "unattributed-entry"
)

// An Alert is one finding, written as one JSON line (schema
// [AlertSchema]; docs/monitor.md documents each member).
type Alert struct {
	SchemaVersion string `json:"schemaVersion"`
	Kind          Kind   `json:"kind"`
	// Log is the log's origin (the log key's name).
	Log string `json:"log"`
	// Source is where the finding was read: a URL or a directory.
	Source string `json:"source,omitempty"`
	// Time is when the alert was raised (RFC 3339, UTC).
	Time    string `json:"time"`
	Message string `json:"message"`
	// Checkpoint is the tree head the source served, when it was signed
	// by the log key.
	Checkpoint *TreeHead `json:"checkpoint,omitempty"`
	// Verified is the last verified tree head of the state, when there is
	// one.
	Verified *TreeHead `json:"verified,omitempty"`
	// Other is the other side of a split view.
	Other *View `json:"other,omitempty"`
	// Entry is the entry an entry alert is about.
	Entry *EntryInfo `json:"entry,omitempty"`
}

// A TreeHead is a tree size and its root hash (standard base64).
type TreeHead struct {
	Size     uint64 `json:"size"`
	RootHash string `json:"rootHash"`
}

// A View is what one source served.
type View struct {
	Source     string   `json:"source"`
	Checkpoint TreeHead `json:"checkpoint"`
	// Cosigners, with a tlog policy, are the witnesses of the policy
	// whose cosignatures on this checkpoint verify, by key
	// ("NAME+HASH", the key's name and key hash in hex), in signature
	// order; QuorumMet says that they meet its quorum (at the time of
	// the check, Config.MaxCosignatureAge judged). Never copied from the
	// note unverified.
	Cosigners []string `json:"cosigners,omitempty"`
	QuorumMet bool     `json:"quorumMet,omitempty"`
}

// EntryInfo describes an entry of the log.
type EntryInfo struct {
	Index uint64 `json:"index"`
	// LeafHash is the RFC 6962 leaf hash, lowercase hex.
	LeafHash string `json:"leafHash"`
	// The members of the decoded mcpres.transparency-entry/v1, when it
	// decoded.
	Subject              string `json:"subject,omitempty"`
	SubjectSha256        string `json:"subjectSha256,omitempty"`
	EvidenceBundleDigest string `json:"evidenceBundleDigest,omitempty"`
	// Signers are the signers a v2 entry names (key fingerprint, signer
	// identity, signing time), one per envelope of the attested bundle
	// logged.
	Signers []offline.EntrySigner `json:"signers,omitempty"`
	// Watch is the watch rule that matched ("subject PATTERN" or
	// "digest sha256:HEX").
	Watch string `json:"watch,omitempty"`
}

// JSON returns the alert as one line of JSON, without the newline.
func (a *Alert) JSON() []byte {
	b, err := json.Marshal(a)
	if err != nil { // unreachable: strings and numbers only
		panic(err)
	}
	return b
}

// Text returns the alert as one line for a terminal (its values are for
// a person; escape it before printing: they come from the log).
func (a *Alert) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ALERT %s: log %s", a.Kind, a.Log)
	if a.Source != "" {
		fmt.Fprintf(&b, " (%s)", a.Source)
	}
	fmt.Fprintf(&b, ": %s", a.Message)
	if e := a.Entry; e != nil {
		fmt.Fprintf(&b, " [entry %d", e.Index)
		if e.Subject != "" {
			fmt.Fprintf(&b, " subject %q sha256:%s bundle %s", e.Subject, e.SubjectSha256, e.EvidenceBundleDigest)
		}
		for _, s := range e.Signers {
			fmt.Fprintf(&b, " signer %s as %q", s.KeyFingerprint, s.SignerIdentity)
		}
		b.WriteString("]")
	}
	return b.String()
}
