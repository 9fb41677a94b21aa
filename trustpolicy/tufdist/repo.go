package tufdist

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/secure-systems-lab/go-securesystemslib/cjson"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// Default expiry periods, counted from the time the caller passes.
const (
	DefaultRootExpiry      = 365 * 24 * time.Hour // 8760h
	DefaultTargetsExpiry   = 90 * 24 * time.Hour  // 2160h
	DefaultSnapshotExpiry  = 7 * 24 * time.Hour   // 168h
	DefaultTimestampExpiry = 24 * time.Hour
)

// MaxMetadataBytes bounds a metadata file read from disk (a pinned root, a
// repository's or a cache's metadata): the largest of go-tuf's default
// download limits (targets metadata, 5,000,000 bytes). Files are read as
// regular files only (internal/regularfile), never blocking on a FIFO.
const MaxMetadataBytes = 5_000_000

// maxTargetBytes bounds a target file read from a cache: a trust policy,
// which the strict JSON reader bounds in turn.
const maxTargetBytes = canonjson.MaxInputBytes

// MaxTargetNameLength is the longest target name accepted, in bytes.
const MaxTargetNameLength = 200

// Expiry holds how long each role's metadata stays valid after it is
// signed. Every period a function uses must be positive.
type Expiry struct {
	Root, Targets, Snapshot, Timestamp time.Duration
}

// DefaultExpiry returns the default periods: one year for root, 90 days
// for targets, 7 days for snapshot and one day for timestamp.
func DefaultExpiry() Expiry {
	return Expiry{DefaultRootExpiry, DefaultTargetsExpiry, DefaultSnapshotExpiry, DefaultTimestampExpiry}
}

// RoleState describes one metadata file as written.
type RoleState struct {
	Role       string
	Version    int64
	Expires    time.Time
	File       string // path of the file written
	Signatures int    // valid signatures by keys of the role (each key counted once)
	Threshold  int
}

// InitConfig describes a new repository.
type InitConfig struct {
	// Dir is the repository directory; it is created if needed and must not
	// already hold TUF metadata.
	Dir string
	// RootKeys are the root role's public keys, RootThreshold how many of
	// them must sign a root (1 ≤ RootThreshold ≤ len(RootKeys)).
	RootKeys      []ed25519.PublicKey
	RootThreshold int
	// RootSigners are the private halves, among RootKeys, that sign
	// 1.root.json now. The others add their signatures later with [Sign];
	// until RootThreshold signatures are there, clients reject the root.
	RootSigners []crypto.Signer
	// Targets, Snapshot and Timestamp are the single keys of those roles.
	Targets, Snapshot, Timestamp crypto.Signer
	// Now is the signing time; expiries are Now plus the Expiry periods.
	Now    time.Time
	Expiry Expiry
}

// Init creates a TUF repository with consistent snapshots in c.Dir:
//
//	1.root.json       root version 1: the keys and thresholds of all roles
//	1.targets.json    targets version 1, listing no target
//	1.snapshot.json   snapshot version 1: targets.json version, length, sha256
//	timestamp.json    timestamp version 1: snapshot.json version, length, sha256
//	targets/          the target files, named <sha256 hex>.<name>
//
// 1.root.json is the file clients pin (the TrustedRoot of [Config]).
// Files are written atomically, 1.root.json last; Init returns the state
// of the four in the order written. It refuses a directory that already
// has 1.root.json or timestamp.json, duplicate root keys, signers that are
// not root keys, and Ed25519 keys that ed25519strict.CheckPublicKey
// rejects.
func Init(c InitConfig) ([]RoleState, error) {
	if err := c.valid(); err != nil {
		return nil, err
	}
	for _, name := range []string{"1.root.json", "timestamp.json"} {
		if _, err := os.Lstat(filepath.Join(c.Dir, name)); err == nil {
			return nil, fmt.Errorf("tufdist: %s already holds a TUF repository (%s exists)", c.Dir, name)
		}
	}
	now := c.Now.UTC().Truncate(time.Second)
	root := metadata.Root(now.Add(c.Expiry.Root))
	root.Signed.ConsistentSnapshot = true
	for _, pub := range c.RootKeys {
		if err := root.Signed.AddKey(tufKey(pub), metadata.ROOT); err != nil {
			return nil, err
		}
	}
	root.Signed.Roles[metadata.ROOT].Threshold = c.RootThreshold
	for _, rk := range []struct {
		role string
		key  crypto.Signer
	}{{metadata.TARGETS, c.Targets}, {metadata.SNAPSHOT, c.Snapshot}, {metadata.TIMESTAMP, c.Timestamp}} {
		if err := root.Signed.AddKey(tufKey(rk.key.Public().(ed25519.PublicKey)), rk.role); err != nil {
			return nil, err
		}
	}
	for _, k := range c.RootSigners {
		if err := sign(root, k); err != nil {
			return nil, err
		}
	}
	targets := metadata.Targets(now.Add(c.Expiry.Targets))
	snapshot := metadata.Snapshot(now.Add(c.Expiry.Snapshot))
	timestamp := metadata.Timestamp(now.Add(c.Expiry.Timestamp))
	s := &repoState{dir: c.Dir, root: root, targets: targets, snapshot: snapshot, timestamp: timestamp}
	if err := os.MkdirAll(filepath.Join(c.Dir, "targets"), 0o755); err != nil {
		return nil, fmt.Errorf("tufdist: %w", err)
	}
	rootBytes, err := marshal(root)
	if err != nil {
		return nil, err
	}
	states, err := s.publish(c.Targets, c.Snapshot, c.Timestamp, false)
	if err != nil {
		return nil, err
	}
	// 1.root.json last: the repository exists once it does.
	rootFile := filepath.Join(c.Dir, "1.root.json")
	if err := atomicfile.WriteFile(rootFile, rootBytes, 0o644, false); err != nil {
		return nil, fmt.Errorf("tufdist: writing %s: %w", rootFile, err)
	}
	return append(states, roleState(root, metadata.ROOT, root, rootFile)), nil
}

func (c *InitConfig) valid() error {
	if c.Dir == "" {
		return errors.New("tufdist: InitConfig.Dir must be set")
	}
	if c.Now.IsZero() {
		return errors.New("tufdist: InitConfig.Now must be set")
	}
	if err := c.Expiry.valid(true); err != nil {
		return err
	}
	if len(c.RootKeys) == 0 {
		return errors.New("tufdist: at least one root key is required")
	}
	for i, pub := range c.RootKeys {
		if err := ed25519strict.CheckPublicKey(pub); err != nil {
			return fmt.Errorf("tufdist: root key %d: %w", i+1, err)
		}
		for _, other := range c.RootKeys[:i] {
			if bytes.Equal(pub, other) {
				return fmt.Errorf("tufdist: root key %d is listed twice (key id %s); a key counts once towards the threshold", i+1, keyID(pub))
			}
		}
	}
	if c.RootThreshold < 1 || c.RootThreshold > len(c.RootKeys) {
		return fmt.Errorf("tufdist: root threshold %d is not between 1 and the %d root keys", c.RootThreshold, len(c.RootKeys))
	}
	for i, k := range c.RootSigners {
		if err := checkPrivate(k); err != nil {
			return fmt.Errorf("tufdist: root signer %d: %w", i+1, err)
		}
		pub := k.Public().(ed25519.PublicKey)
		if !slices.ContainsFunc(c.RootKeys, func(p ed25519.PublicKey) bool { return bytes.Equal(p, pub) }) {
			return fmt.Errorf("tufdist: root signer %d (key id %s) is not one of the root keys", i+1, keyID(pub))
		}
		for _, other := range c.RootSigners[:i] {
			if bytes.Equal(pub, other.Public().(ed25519.PublicKey)) {
				return fmt.Errorf("tufdist: root signer %d (key id %s) is given twice", i+1, keyID(pub))
			}
		}
	}
	for _, rk := range []struct {
		role string
		key  crypto.Signer
	}{{"targets", c.Targets}, {"snapshot", c.Snapshot}, {"timestamp", c.Timestamp}} {
		if err := checkPrivate(rk.key); err != nil {
			return fmt.Errorf("tufdist: %s key: %w", rk.role, err)
		}
	}
	return nil
}

func (e Expiry) valid(withRoot bool) error {
	for _, p := range []struct {
		name string
		d    time.Duration
		used bool
	}{{"Root", e.Root, withRoot}, {"Targets", e.Targets, true}, {"Snapshot", e.Snapshot, true}, {"Timestamp", e.Timestamp, true}} {
		if p.used && p.d <= 0 {
			return fmt.Errorf("tufdist: Expiry.%s must be positive, got %s", p.name, p.d)
		}
	}
	return nil
}

// AddTargetConfig describes a target to add to, or replace in, a
// repository made by [Init].
type AddTargetConfig struct {
	Dir  string
	Name string // see [ValidTargetName]
	Data []byte
	// Targets, Snapshot and Timestamp must be keys of those roles in the
	// repository's latest root.
	Targets, Snapshot, Timestamp crypto.Signer
	// Now is the signing time; Expiry.Targets, .Snapshot and .Timestamp are
	// used (Expiry.Root is not).
	Now    time.Time
	Expiry Expiry
}

// AddTarget adds the target c.Name with content c.Data to the repository in
// c.Dir, or replaces it. It reads the published state (timestamp.json, the
// snapshot and targets versions it names, and the latest N.root.json),
// then writes, each file atomically and in this order:
//
//	targets/<sha256 hex>.<name>   the content (kept if already there)
//	<T+1>.targets.json            the target list with c.Name's length and sha256
//	<S+1>.snapshot.json           targets.json version T+1, its length and sha256
//	timestamp.json                snapshot.json version S+1, its length and sha256
//
// with every version bumped by one and every expiry recomputed from c.Now.
// Clients see the new state only once timestamp.json is replaced, so an
// interrupted AddTarget publishes nothing. Earlier versions and target
// files stay in place for clients that are mid-update. It returns the
// state of the three metadata files written.
func AddTarget(c AddTargetConfig) ([]RoleState, error) {
	switch {
	case c.Dir == "":
		return nil, errors.New("tufdist: AddTargetConfig.Dir must be set")
	case c.Now.IsZero():
		return nil, errors.New("tufdist: AddTargetConfig.Now must be set")
	}
	if err := ValidTargetName(c.Name); err != nil {
		return nil, err
	}
	if err := c.Expiry.valid(false); err != nil {
		return nil, err
	}
	s, err := loadRepo(c.Dir)
	if err != nil {
		return nil, err
	}
	for _, rk := range []struct {
		role string
		key  crypto.Signer
	}{{metadata.TARGETS, c.Targets}, {metadata.SNAPSHOT, c.Snapshot}, {metadata.TIMESTAMP, c.Timestamp}} {
		if err := checkPrivate(rk.key); err != nil {
			return nil, fmt.Errorf("tufdist: %s key: %w", rk.role, err)
		}
		if err := s.authorized(rk.role, rk.key); err != nil {
			return nil, err
		}
	}
	now := c.Now.UTC().Truncate(time.Second)
	info, err := metadata.TargetFile().FromBytes(c.Name, c.Data, "sha256")
	if err != nil {
		return nil, err
	}
	dir, base := splitTargetName(c.Name)
	targetFile := filepath.Join(c.Dir, "targets", filepath.FromSlash(dir), hex.EncodeToString(info.Hashes["sha256"])+"."+base)
	if err := writeContentAddressed(targetFile, c.Data); err != nil {
		return nil, err
	}
	s.targets.Signed.Targets[c.Name] = info
	s.targets.Signed.Version++
	s.targets.Signed.Expires = now.Add(c.Expiry.Targets)
	s.snapshot.Signed.Expires = now.Add(c.Expiry.Snapshot)
	s.timestamp.Signed.Expires = now.Add(c.Expiry.Timestamp)
	return s.publish(c.Targets, c.Snapshot, c.Timestamp, true)
}

// Sign adds key's signature to the latest N.root.json of the repository in
// dir: this is how the holders of further root keys bring a root up to its
// threshold. role must be "root": in repositories made by [Init] only root
// can have more than one key, and targets, snapshot and timestamp are
// signed whenever [AddTarget] writes them. The key must be a root key of
// that root and must not have signed it already. The returned state counts
// the valid signatures now present.
func Sign(dir, role string, key crypto.Signer) (RoleState, error) {
	if role != metadata.ROOT {
		return RoleState{}, fmt.Errorf("tufdist: cannot add a signature to %q: only root can have a threshold above 1 here (targets, snapshot and timestamp are signed by add-target)", role)
	}
	if err := checkPrivate(key); err != nil {
		return RoleState{}, fmt.Errorf("tufdist: %w", err)
	}
	root, file, err := latestRoot(dir)
	if err != nil {
		return RoleState{}, err
	}
	pub := key.Public().(ed25519.PublicKey)
	id := keyID(pub)
	if !slices.Contains(root.Signed.Roles[metadata.ROOT].KeyIDs, id) {
		return RoleState{}, fmt.Errorf("tufdist: key %s is not a root key of %s", id, file)
	}
	for _, sig := range root.Signatures {
		if sig.KeyID == id {
			return RoleState{}, fmt.Errorf("tufdist: key %s already signed %s", id, file)
		}
	}
	if err := sign(root, key); err != nil {
		return RoleState{}, err
	}
	data, err := marshal(root)
	if err != nil {
		return RoleState{}, err
	}
	if err := atomicfile.WriteFile(file, data, 0o644, true); err != nil {
		return RoleState{}, fmt.Errorf("tufdist: writing %s: %w", file, err)
	}
	return roleState(root, metadata.ROOT, root, file), nil
}

// ValidTargetName reports whether name can name a target: one or more
// "/"-separated segments of ASCII letters, digits, ".", "_" and "-", none
// of them empty, "." or "..", at most [MaxTargetNameLength] bytes in all.
// The restriction keeps names identical in URLs, file names and cache
// entries, with no escaping anywhere.
func ValidTargetName(name string) error {
	if name == "" || len(name) > MaxTargetNameLength {
		return fmt.Errorf("tufdist: target name must be 1 to %d bytes, got %d", MaxTargetNameLength, len(name))
	}
	for seg := range strings.SplitSeq(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("tufdist: target name %q has an empty, \".\" or \"..\" segment", name)
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				return fmt.Errorf("tufdist: target name %q has the character %q; use ASCII letters, digits, '.', '_', '-' and '/'", name, r)
			}
		}
	}
	return nil
}

// repoState is the published state of a repository.
type repoState struct {
	dir       string
	root      *metadata.Metadata[metadata.RootType]
	targets   *metadata.Metadata[metadata.TargetsType]
	snapshot  *metadata.Metadata[metadata.SnapshotType]
	timestamp *metadata.Metadata[metadata.TimestampType]
}

// loadRepo reads the published state: the latest root, timestamp.json, and
// the snapshot and targets versions it leads to. It checks types and
// versions, not signatures (a root may still be short of signatures).
func loadRepo(dir string) (*repoState, error) {
	root, _, err := latestRoot(dir)
	if err != nil {
		return nil, err
	}
	s := &repoState{dir: dir, root: root}
	if s.timestamp, err = readMeta(metadata.Timestamp(), filepath.Join(dir, "timestamp.json")); err != nil {
		return nil, err
	}
	sv := s.timestamp.Signed.Meta["snapshot.json"]
	if sv == nil {
		return nil, fmt.Errorf("tufdist: %s names no snapshot.json", filepath.Join(dir, "timestamp.json"))
	}
	snapFile := filepath.Join(dir, strconv.FormatInt(sv.Version, 10)+".snapshot.json")
	if s.snapshot, err = readMeta(metadata.Snapshot(), snapFile); err != nil {
		return nil, err
	}
	if s.snapshot.Signed.Version != sv.Version {
		return nil, fmt.Errorf("tufdist: %s has version %d", snapFile, s.snapshot.Signed.Version)
	}
	tv := s.snapshot.Signed.Meta["targets.json"]
	if tv == nil {
		return nil, fmt.Errorf("tufdist: %s names no targets.json", snapFile)
	}
	targetsFile := filepath.Join(dir, strconv.FormatInt(tv.Version, 10)+".targets.json")
	if s.targets, err = readMeta(metadata.Targets(), targetsFile); err != nil {
		return nil, err
	}
	if s.targets.Signed.Version != tv.Version {
		return nil, fmt.Errorf("tufdist: %s has version %d", targetsFile, s.targets.Signed.Version)
	}
	if s.targets.Signed.Targets == nil {
		s.targets.Signed.Targets = map[string]*metadata.TargetFiles{}
	}
	return s, nil
}

// latestRoot returns the root with the highest N such that 1.root.json …
// N.root.json all exist in dir, and that file's path.
func latestRoot(dir string) (*metadata.Metadata[metadata.RootType], string, error) {
	var root *metadata.Metadata[metadata.RootType]
	file := ""
	for n := int64(1); ; n++ {
		f := filepath.Join(dir, strconv.FormatInt(n, 10)+".root.json")
		if _, err := os.Lstat(f); errors.Is(err, fs.ErrNotExist) && n > 1 {
			break
		}
		r, err := readMeta(metadata.Root(), f)
		if err != nil {
			return nil, "", err
		}
		if r.Signed.Version != n {
			return nil, "", fmt.Errorf("tufdist: %s has version %d", f, r.Signed.Version)
		}
		root, file = r, f
	}
	return root, file, nil
}

func readMeta[T metadata.Roles](m *metadata.Metadata[T], file string) (*metadata.Metadata[T], error) {
	data, err := regularfile.ReadFile(file, MaxMetadataBytes)
	if err != nil {
		return nil, fmt.Errorf("tufdist: %w", err)
	}
	if _, err := m.FromBytes(data); err != nil {
		return nil, fmt.Errorf("tufdist: %s: %w", file, err)
	}
	return m, nil
}

// authorized checks that key is a key of role in the latest root.
func (s *repoState) authorized(role string, key crypto.Signer) error {
	id := keyID(key.Public().(ed25519.PublicKey))
	if r := s.root.Signed.Roles[role]; r == nil || !slices.Contains(r.KeyIDs, id) {
		return fmt.Errorf("tufdist: the %s key given (key id %s) is not a %s key of root version %d", role, id, role, s.root.Signed.Version)
	}
	return nil
}

// publish signs and writes targets, snapshot and timestamp. With bump, the
// three versions are incremented first (targets by the caller). Snapshot
// and timestamp record the version, length and sha256 of the file they
// point to, so that metadata from another repository state is rejected by
// hash, not only by version.
func (s *repoState) publish(targetsKey, snapshotKey, timestampKey crypto.Signer, bump bool) ([]RoleState, error) {
	if bump {
		s.snapshot.Signed.Version++
		s.timestamp.Signed.Version++
	}
	s.targets.Signatures = nil
	if err := sign(s.targets, targetsKey); err != nil {
		return nil, err
	}
	targetsBytes, err := marshal(s.targets)
	if err != nil {
		return nil, err
	}
	s.snapshot.Signed.Meta["targets.json"] = metaFile(s.targets.Signed.Version, targetsBytes)
	s.snapshot.Signatures = nil
	if err := sign(s.snapshot, snapshotKey); err != nil {
		return nil, err
	}
	snapshotBytes, err := marshal(s.snapshot)
	if err != nil {
		return nil, err
	}
	s.timestamp.Signed.Meta = map[string]*metadata.MetaFiles{"snapshot.json": metaFile(s.snapshot.Signed.Version, snapshotBytes)}
	s.timestamp.Signatures = nil
	if err := sign(s.timestamp, timestampKey); err != nil {
		return nil, err
	}
	timestampBytes, err := marshal(s.timestamp)
	if err != nil {
		return nil, err
	}
	targetsFile := filepath.Join(s.dir, strconv.FormatInt(s.targets.Signed.Version, 10)+".targets.json")
	snapshotFile := filepath.Join(s.dir, strconv.FormatInt(s.snapshot.Signed.Version, 10)+".snapshot.json")
	timestampFile := filepath.Join(s.dir, "timestamp.json")
	// timestamp.json last: it is what makes the new state visible.
	for _, w := range []struct {
		file string
		data []byte
	}{{targetsFile, targetsBytes}, {snapshotFile, snapshotBytes}, {timestampFile, timestampBytes}} {
		if err := atomicfile.WriteFile(w.file, w.data, 0o644, true); err != nil {
			return nil, fmt.Errorf("tufdist: writing %s: %w", w.file, err)
		}
	}
	return []RoleState{
		roleState(s.root, metadata.TARGETS, s.targets, targetsFile),
		roleState(s.root, metadata.SNAPSHOT, s.snapshot, snapshotFile),
		roleState(s.root, metadata.TIMESTAMP, s.timestamp, timestampFile),
	}, nil
}

// writeContentAddressed writes a target file named by its hash; an existing
// file with the same content is kept, one with other content is an error
// (a hash-named file never changes).
func writeContentAddressed(file string, data []byte) error {
	if old, err := regularfile.ReadFile(file, maxTargetBytes); err == nil {
		if bytes.Equal(old, data) {
			return nil
		}
		return fmt.Errorf("tufdist: %s exists with other content than its name's hash", file)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("tufdist: %w", err)
	}
	if err := atomicfile.WriteFile(file, data, 0o644, false); err != nil {
		return fmt.Errorf("tufdist: writing %s: %w", file, err)
	}
	return nil
}

func metaFile(version int64, data []byte) *metadata.MetaFiles {
	sum := sha256.Sum256(data)
	return &metadata.MetaFiles{Version: version, Length: int64(len(data)), Hashes: metadata.Hashes{"sha256": sum[:]}}
}

// splitTargetName splits a target name into its directory ("" for none) and base.
func splitTargetName(name string) (string, string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

func marshal[T metadata.Roles](m *metadata.Metadata[T]) ([]byte, error) {
	data, err := m.ToBytes(true)
	if err != nil {
		return nil, fmt.Errorf("tufdist: encoding metadata: %w", err)
	}
	return append(data, '\n'), nil
}

func sign[T metadata.Roles](m *metadata.Metadata[T], key crypto.Signer) error {
	s := &tufSigner{key: key}
	if _, err := m.Sign(s); err != nil {
		if s.err != nil {
			return fmt.Errorf("tufdist: signing: %w", s.err)
		}
		return fmt.Errorf("tufdist: signing: %w", err)
	}
	return nil
}

// tufSigner is go-tuf's signer of an Ed25519 crypto.Signer: every
// signature is made and checked by ed25519strict.Sign (a token that signs
// with another key, or pre-hashes, is refused). err keeps the signer's
// error, which go-tuf replaces by its own.
type tufSigner struct {
	key crypto.Signer
	err error
}

func (s *tufSigner) PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return ed25519strict.SignerPublicKey(s.key)
}

func (s *tufSigner) SignMessage(message io.Reader, _ ...signature.SignOption) ([]byte, error) {
	msg, err := io.ReadAll(message)
	if err != nil {
		return nil, err
	}
	sig, err := ed25519strict.Sign(s.key, msg)
	s.err = err
	return sig, err
}

// tufKey is the TUF key object of an Ed25519 public key.
func tufKey(pub ed25519.PublicKey) *metadata.Key {
	return &metadata.Key{
		Type:   metadata.KeyTypeEd25519,
		Scheme: metadata.KeySchemeEd25519,
		Value:  metadata.KeyVal{PublicKey: hex.EncodeToString(pub)},
	}
}

// keyID is the TUF key id of an Ed25519 public key: the hex SHA-256 of the
// canonical JSON of its key object (not the SPKI fingerprint MCP-RES uses).
func keyID(pub ed25519.PublicKey) string {
	id, err := tufKey(pub).ID()
	if err != nil {
		// cjson encodes this fixed structure of strings; it cannot fail.
		panic("tufdist: key id: " + err.Error())
	}
	return id
}

// KeyID returns the TUF key id of pub, the id that root.json lists: the
// lowercase hex SHA-256 of the canonical JSON key object
// {"keytype":"ed25519","keyval":{"public":HEX},"scheme":"ed25519"}. It
// differs from the SPKI fingerprint that MCP-RES envelopes use.
func KeyID(pub ed25519.PublicKey) string { return keyID(pub) }

// checkPrivate checks a signing key: an Ed25519 crypto.Signer with a
// strict public key; an ed25519.PrivateKey must be 64 bytes whose second
// half is the public key of its seed.
func checkPrivate(k crypto.Signer) error {
	if priv, ok := k.(ed25519.PrivateKey); ok {
		if len(priv) != ed25519.PrivateKeySize {
			return fmt.Errorf("Ed25519 private key is %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
		}
		if !bytes.Equal(ed25519.NewKeyFromSeed(priv.Seed())[ed25519.SeedSize:], priv[ed25519.SeedSize:]) {
			return errors.New("the public half of the Ed25519 private key does not match its seed")
		}
	}
	_, err := ed25519strict.SignerPublicKey(k)
	return err
}

// roleState describes m (of role) as authorized by root: its valid
// signatures by the role's keys, each key counted once.
func roleState[T metadata.Roles](root *metadata.Metadata[metadata.RootType], role string, m *metadata.Metadata[T], file string) RoleState {
	st := RoleState{Role: role, File: file}
	var signed any
	switch v := any(m).(type) {
	case *metadata.Metadata[metadata.RootType]:
		st.Version, st.Expires, signed = v.Signed.Version, v.Signed.Expires, v.Signed
	case *metadata.Metadata[metadata.TargetsType]:
		st.Version, st.Expires, signed = v.Signed.Version, v.Signed.Expires, v.Signed
	case *metadata.Metadata[metadata.SnapshotType]:
		st.Version, st.Expires, signed = v.Signed.Version, v.Signed.Expires, v.Signed
	case *metadata.Metadata[metadata.TimestampType]:
		st.Version, st.Expires, signed = v.Signed.Version, v.Signed.Expires, v.Signed
	}
	r := root.Signed.Roles[role]
	if r == nil {
		return st
	}
	st.Threshold = r.Threshold
	payload, err := cjson.EncodeCanonical(signed)
	if err != nil {
		return st
	}
	counted := map[string]bool{}
	for _, sig := range m.Signatures {
		k := root.Signed.Keys[sig.KeyID]
		if k == nil || counted[sig.KeyID] || !slices.Contains(r.KeyIDs, sig.KeyID) || k.Type != metadata.KeyTypeEd25519 {
			continue
		}
		pub, err := hex.DecodeString(k.Value.PublicKey)
		if err != nil || ed25519strict.Verify(pub, payload, sig.Signature) != nil {
			continue
		}
		counted[sig.KeyID] = true
	}
	st.Signatures = len(counted)
	return st
}
