package tufdist

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/config"
	"github.com/theupdateframework/go-tuf/v2/metadata/fetcher"
	"github.com/theupdateframework/go-tuf/v2/metadata/trustedmetadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/updater"
)

// DefaultHTTPTimeout bounds each HTTP request Fetch makes.
const DefaultHTTPTimeout = 30 * time.Second

// Config says what to fetch, from where, trusting what, and when.
type Config struct {
	// TrustedRoot is the root metadata the user pins (a repository's
	// 1.root.json, or a later root obtained out of band). It must carry
	// its threshold of valid signatures.
	TrustedRoot []byte
	// RepoURL is the repository: an http:// or https:// URL, or a local
	// directory path (read with no network at all).
	RepoURL string
	// Target is the name of the target to fetch (see [ValidTargetName]).
	// Only the top-level targets role is consulted; delegations are not.
	Target string
	// CacheDir holds the verified metadata and targets between runs; it is
	// what gives rollback protection across runs and what stands in for an
	// unreachable repository. "" means [DefaultCacheDir](TrustedRoot).
	CacheDir string
	// Now is the evaluation time of every expiry check; it must be set.
	// Pass the current time: an earlier time re-opens freeze attacks.
	Now time.Time
}

// RoleInfo is the version and expiry of the metadata of one role.
type RoleInfo struct {
	Version int64
	Expires time.Time
}

// Result is a verified target and what it was verified against.
type Result struct {
	Target string
	Data   []byte
	SHA256 string // lowercase hex SHA-256 of Data
	// The metadata that vouched for Data.
	Root, Timestamp, Snapshot, Targets RoleInfo
	EvaluatedAt                        time.Time
	CacheDir                           string
	// FromCache reports that the repository could not be read and the
	// cached metadata, verified again at EvaluatedAt and still unexpired,
	// stood in for it. FetchError then says why the repository could not
	// be read.
	FromCache  bool
	FetchError error
}

// ValidUntil is the earliest expiry among the four roles: after it, the
// same metadata no longer verifies and the repository must be reached.
func (r *Result) ValidUntil() time.Time {
	t := r.Root.Expires
	for _, e := range []time.Time{r.Timestamp.Expires, r.Snapshot.Expires, r.Targets.Expires} {
		if e.Before(t) {
			t = e
		}
	}
	return t
}

// DefaultCacheDir returns os.UserCacheDir()/mcpres/tuf/<hex SHA-256 of
// trustedRoot>: one cache per pinned root, shared by every mirror of the
// repository.
func DefaultCacheDir(trustedRoot []byte) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("tufdist: no user cache directory (%w); set the cache directory explicitly", err)
	}
	sum := sha256.Sum256(trustedRoot)
	return filepath.Join(base, "mcpres", "tuf", hex.EncodeToString(sum[:])), nil
}

func (c *Config) valid() error {
	switch {
	case len(c.TrustedRoot) == 0:
		return errors.New("tufdist: Config.TrustedRoot must be set")
	case c.RepoURL == "":
		return errors.New("tufdist: Config.RepoURL must be set")
	case c.Now.IsZero():
		return errors.New("tufdist: Config.Now must be set (the evaluation time of every expiry check)")
	}
	return ValidTargetName(c.Target)
}

// Fetch returns the target c.Target of the repository c.RepoURL, verified
// by the TUF client workflow (go-tuf's updater) from the pinned root
// c.TrustedRoot at the time c.Now:
//
//  1. The pinned root must verify by itself (its threshold of signatures).
//     Root versions kept in the cache are chained onto it, each verified
//     by its predecessor and by itself; the newest is the starting point.
//  2. Online: newer roots, then timestamp, snapshot and targets are
//     fetched and verified (signatures against thresholds, versions never
//     lower than those cached, the versions, lengths and hashes each
//     referring file names, expiry at c.Now), then the target, whose
//     length and SHA-256 must be those the targets metadata lists. A
//     cached copy of the target with those hashes is used without a
//     download. The cache is updated with what verified, and only then.
//  3. If the repository could not be read (a transport error: connection
//     refused, timeout, HTTP error status, missing directory or file), the
//     cached timestamp, snapshot, targets and target file are verified
//     again, from the newest cached root, at c.Now. If everything holds,
//     the result has FromCache set; if not, the error is an
//     [*UnreachableError] holding both reasons. Expiry is enforced exactly
//     as online, so a cache is usable only until [Result.ValidUntil].
//
// A verification failure never falls back to the cache. It is a
// [*VerificationError] naming the role and the check (expired metadata
// [CheckExpiry], a rollback [CheckVersion], too few signatures
// [CheckSignatures], a replaced target or mixed repository states
// [CheckHashes], ...) that wraps go-tuf's error. A target the targets
// metadata does not list yields [ErrTargetNotFound].
//
// Fetch returns either a complete result or an error, never both.
func Fetch(c Config) (*Result, error) {
	if err := c.valid(); err != nil {
		return nil, err
	}
	cacheDir := c.CacheDir
	if cacheDir == "" {
		var err error
		if cacheDir, err = DefaultCacheDir(c.TrustedRoot); err != nil {
			return nil, err
		}
	}
	rootBytes, err := newestRoot(c.TrustedRoot, cacheDir)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{cacheDir, filepath.Join(cacheDir, "metadata"), filepath.Join(cacheDir, "roots"), filepath.Join(cacheDir, "targets")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("tufdist: cache: %w", err)
		}
	}
	res, err := fetchOnline(c, cacheDir, rootBytes)
	var fe *fetchError
	if err == nil || !errors.As(err, &fe) {
		return res, err
	}
	// Root versions accepted during the failed attempt are in the cache
	// now: a cache verified under an older root must not stand in.
	if rootBytes, err = newestRoot(c.TrustedRoot, cacheDir); err != nil {
		return nil, err
	}
	res, cacheErr := fetchCached(c, cacheDir, rootBytes)
	if cacheErr != nil {
		return nil, &UnreachableError{Repo: c.RepoURL, Err: fe, CacheErr: cacheErr}
	}
	res.FromCache, res.FetchError = true, fe
	return res, nil
}

// newestRoot verifies the pinned root, then chains onto it the root
// versions of the cache's history (cacheDir/roots/N.root.json), each
// verified by its predecessor and by itself, and returns the bytes of the
// last one that verifies. Versions after one that does not are ignored;
// the next refresh fetches them again.
func newestRoot(pinned []byte, cacheDir string) ([]byte, error) {
	tm, err := trustedmetadata.New(pinned)
	if err != nil {
		return nil, classify(fmt.Errorf("pinned root: %w", err), RoleRoot, "", time.Time{}, time.Time{})
	}
	newest := pinned
	for v := tm.Root.Signed.Version + 1; ; v++ {
		data, err := regularfile.ReadFile(filepath.Join(cacheDir, "roots", strconv.FormatInt(v, 10)+".root.json"), MaxMetadataBytes)
		if err != nil {
			break
		}
		if _, err := tm.UpdateRoot(data); err != nil {
			break
		}
		newest = data
	}
	return newest, nil
}

// openRepo returns the fetcher for repo and the base URL the updater is
// configured with. A directory that cannot be opened is a transport error,
// so that the cache can stand in for a repository on an unmounted drive.
func openRepo(repo string) (fetcher.Fetcher, string, func(), error) {
	if strings.Contains(repo, "://") {
		u, err := url.Parse(repo)
		if err != nil {
			return nil, "", nil, fmt.Errorf("tufdist: repository URL: %w", err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, "", nil, fmt.Errorf("tufdist: repository URL scheme %q is not http or https (a local directory is given as a plain path)", u.Scheme)
		}
		f := fetcher.NewDefaultFetcher()
		f.SetHTTPClient(&http.Client{Timeout: DefaultHTTPTimeout})
		f.SetHTTPUserAgent("mcpres-tufdist")
		return f, strings.TrimRight(repo, "/"), func() {}, nil
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		return nil, "", nil, fmt.Errorf("tufdist: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, "", nil, &fetchError{name: "the repository directory", err: err}
	}
	return &dirFetcher{root: root, dir: abs}, dirBase, func() { root.Close() }, nil
}

// fetchOnline runs go-tuf's updater against the repository. The updater
// works in a staging directory seeded with the cached metadata (its
// rollback reference); what it accepted is copied to the cache only when
// the whole refresh verified, so the cache never holds a partial state.
func fetchOnline(c Config, cacheDir string, rootBytes []byte) (*Result, error) {
	fetch, base, closeRepo, err := openRepo(c.RepoURL)
	if err != nil {
		return nil, err
	}
	defer closeRepo()
	stage, err := os.MkdirTemp(cacheDir, ".refresh-")
	if err != nil {
		return nil, fmt.Errorf("tufdist: cache: %w", err)
	}
	defer os.RemoveAll(stage)
	stageMeta := filepath.Join(stage, "metadata")
	if err := os.Mkdir(stageMeta, 0o700); err != nil {
		return nil, fmt.Errorf("tufdist: cache: %w", err)
	}
	if err := seedStage(filepath.Join(cacheDir, "metadata"), stageMeta); err != nil {
		return nil, err
	}
	cfg, err := config.New(base, rootBytes)
	if err != nil {
		return nil, fmt.Errorf("tufdist: %w", err)
	}
	cfg.LocalMetadataDir = stageMeta
	cfg.LocalTargetsDir = filepath.Join(stage, "targets")
	cfg.PrefixTargetsWithHash = true
	rec := &recorder{inner: fetch, metaBase: base + "/", targetsBase: strings.TrimRight(cfg.RemoteTargetsURL, "/") + "/", roots: map[int64][]byte{}}
	cfg.Fetcher = rec
	u, err := updater.New(cfg)
	if err != nil {
		return nil, classify(err, RoleRoot, "", time.Time{}, c.Now)
	}
	// go-tuf documents UnsafeSetRefTime as meant for tests: it replaces the
	// reference time trustedmetadata.New took from time.Now(). Here it is
	// called before anything but the trusted root is loaded, with the
	// caller's explicit evaluation time, so that every expiry check of the
	// refresh uses exactly c.Now, the instant the result reports. Nothing
	// else changes; passing the current time is the caller's duty (see
	// Config.Now).
	u.UnsafeSetRefTime(c.Now)
	refreshErr := u.Refresh()
	tm := u.GetTrustedMetadataSet()
	if err := saveRoots(cacheDir, rec.roots, tm.Root.Signed.Version); err != nil {
		return nil, err
	}
	if refreshErr != nil {
		return nil, rec.describe(refreshErr, tm, c.Now)
	}
	if err := checkRootKeys(tm.Root); err != nil {
		return nil, err
	}
	// The whole metadata set verified: it becomes the cached state, even
	// if the target download below fails (the cache must not keep
	// standing in with an older target once a newer one is known).
	if err := commitMetadata(stageMeta, filepath.Join(cacheDir, "metadata")); err != nil {
		return nil, err
	}
	info := tm.Targets[metadata.TARGETS].Signed.Targets[c.Target]
	if info == nil {
		return nil, fmt.Errorf("tufdist: %w: targets version %d does not list %q", ErrTargetNotFound, tm.Targets[metadata.TARGETS].Signed.Version, c.Target)
	}
	cachedTarget := filepath.Join(cacheDir, "targets", url.PathEscape(c.Target))
	data, err := regularfile.ReadFile(cachedTarget, maxTargetBytes)
	if err != nil || info.VerifyLengthHashes(data) != nil {
		if _, data, err = u.DownloadTarget(info, filepath.Join(stage, "target"), ""); err != nil {
			return nil, classify(err, RoleTargetFile, c.Target, time.Time{}, c.Now)
		}
		if err := atomicfile.WriteFile(cachedTarget, data, 0o600, true); err != nil {
			return nil, fmt.Errorf("tufdist: cache: %w", err)
		}
	}
	return result(c, cacheDir, tm, data), nil
}

// fetchCached verifies the cached state at c.Now, from the root rootBytes,
// exactly as go-tuf's UpdaterConfig.UnsafeLocalMode does (timestamp, then
// snapshot checked against the timestamp's hashes, then targets, each
// checked for signatures, versions and expiry by trustedmetadata), then
// the cached target file against the targets metadata.
//
// go-tuf v2.4.2's only offline switch is UnsafeLocalMode. It does enforce
// expiry (unsafeLocalRefresh calls the same UpdateTimestamp,
// UpdateSnapshot and UpdateDelegatedTargets, which check the final root,
// timestamp, snapshot and targets against the reference time;
// TestUnsafeLocalModeEnforcesExpiry pins this), but it is not used here:
// updater.New writes the root it is given over the cached root.json, so a
// rotated root would be lost, and its errors do not say which role
// failed. The cache is read as untrusted storage: everything in it is
// verified again, and nothing is taken on the word of having been
// verified before.
func fetchCached(c Config, cacheDir string, rootBytes []byte) (*Result, error) {
	tm, err := trustedmetadata.New(rootBytes)
	if err != nil {
		return nil, classify(err, RoleRoot, "", time.Time{}, c.Now)
	}
	tm.RefTime = c.Now
	if err := checkRootKeys(tm.Root); err != nil {
		return nil, err
	}
	if tm.Root.Signed.IsExpired(c.Now) {
		return nil, classify(&metadata.ErrExpiredMetadata{Msg: "final root.json is expired"}, RoleRoot, "", tm.Root.Signed.Expires, c.Now)
	}
	metaDir := filepath.Join(cacheDir, "metadata")
	data, err := readCached(metaDir, RoleTimestamp)
	if err != nil {
		return nil, err
	}
	if _, err := tm.UpdateTimestamp(data); err != nil {
		return nil, classify(err, RoleTimestamp, "", expiresOf(tm, RoleTimestamp), c.Now)
	}
	if data, err = readCached(metaDir, RoleSnapshot); err != nil {
		return nil, err
	}
	if _, err := tm.UpdateSnapshot(data, false); err != nil {
		return nil, classify(err, RoleSnapshot, "", expiresOf(tm, RoleSnapshot), c.Now)
	}
	if data, err = readCached(metaDir, RoleTargets); err != nil {
		return nil, err
	}
	if _, err := tm.UpdateTargets(data); err != nil {
		return nil, classify(err, RoleTargets, "", expiresIn(data), c.Now)
	}
	targets := tm.Targets[metadata.TARGETS]
	info := targets.Signed.Targets[c.Target]
	if info == nil {
		return nil, fmt.Errorf("tufdist: %w: cached targets version %d does not list %q", ErrTargetNotFound, targets.Signed.Version, c.Target)
	}
	data, err = regularfile.ReadFile(filepath.Join(cacheDir, "targets", url.PathEscape(c.Target)), maxTargetBytes)
	if err == nil {
		err = info.VerifyLengthHashes(data)
	}
	if err != nil {
		return nil, fmt.Errorf("tufdist: %w: no cached copy of %q matching targets version %d", ErrNotCached, c.Target, targets.Signed.Version)
	}
	return result(c, cacheDir, *tm, data), nil
}

func readCached(metaDir, role string) ([]byte, error) {
	data, err := regularfile.ReadFile(filepath.Join(metaDir, role+".json"), MaxMetadataBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tufdist: %w: no cached %s metadata in %s", ErrNotCached, role, metaDir)
	}
	if err != nil {
		return nil, fmt.Errorf("tufdist: cache: %w", err)
	}
	return data, nil
}

// seedStage copies the cached timestamp, snapshot and targets metadata into
// the updater's staging directory. A cached file that does not even parse
// as its role's metadata is left out: go-tuf ignores cached metadata that
// fails verification, but stops at metadata it cannot parse.
func seedStage(cacheMeta, stageMeta string) error {
	parses := map[string]func([]byte) error{
		RoleTimestamp: func(b []byte) error { _, err := metadata.Timestamp().FromBytes(b); return err },
		RoleSnapshot:  func(b []byte) error { _, err := metadata.Snapshot().FromBytes(b); return err },
		RoleTargets:   func(b []byte) error { _, err := metadata.Targets().FromBytes(b); return err },
	}
	for _, role := range []string{RoleTimestamp, RoleSnapshot, RoleTargets} {
		data, err := regularfile.ReadFile(filepath.Join(cacheMeta, role+".json"), MaxMetadataBytes)
		if err != nil || parses[role](data) != nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(stageMeta, role+".json"), data, 0o600); err != nil {
			return fmt.Errorf("tufdist: cache: %w", err)
		}
	}
	return nil
}

// commitMetadata copies the metadata the updater accepted from the staging
// directory to the cache, timestamp last, leaving unchanged files alone.
func commitMetadata(stageMeta, cacheMeta string) error {
	for _, role := range []string{RoleTargets, RoleSnapshot, RoleTimestamp} {
		data, err := regularfile.ReadFile(filepath.Join(stageMeta, role+".json"), MaxMetadataBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		dst := filepath.Join(cacheMeta, role+".json")
		if old, _ := regularfile.ReadFile(dst, MaxMetadataBytes); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err == nil {
			err = atomicfile.WriteFile(dst, data, 0o600, true)
		}
		if err != nil {
			return fmt.Errorf("tufdist: cache: %w", err)
		}
	}
	return nil
}

// saveRoots adds to the cache's root history the root versions the updater
// downloaded and accepted: those up to the version it ended with, since
// it accepts them one by one, each verified by its predecessor.
func saveRoots(cacheDir string, roots map[int64][]byte, accepted int64) error {
	for v, data := range roots {
		if v > accepted {
			continue
		}
		if err := atomicfile.WriteFile(filepath.Join(cacheDir, "roots", strconv.FormatInt(v, 10)+".root.json"), data, 0o600, true); err != nil {
			return fmt.Errorf("tufdist: cache: %w", err)
		}
	}
	return nil
}

// describe names the role of a refresh failure. Expiry is checked on the
// final metadata in the order root, timestamp, snapshot, targets, so the
// first expired role in the trusted set is the one refused; a new targets
// role refused for expiry is not in the set, and was the last download.
// Every other check fails on the file just downloaded (cached files that
// fail verification are silently replaced by a download).
func (r *recorder) describe(err error, tm trustedmetadata.TrustedMetadata, now time.Time) error {
	if checkOf(err) == CheckExpiry {
		for _, role := range []string{RoleRoot, RoleTimestamp, RoleSnapshot, RoleTargets} {
			if exp := expiresOf(&tm, role); !exp.IsZero() && now.After(exp) {
				return classify(err, role, "", exp, now)
			}
		}
		return classify(err, r.lastRole, "", expiresIn(r.lastData), now)
	}
	role := r.lastRole
	if role == "" {
		role = RoleRoot
	}
	return classify(err, role, "", time.Time{}, now)
}

// expiresOf is the expiry of role in the trusted set, or zero.
func expiresOf(tm *trustedmetadata.TrustedMetadata, role string) time.Time {
	switch {
	case role == RoleRoot && tm.Root != nil:
		return tm.Root.Signed.Expires
	case role == RoleTimestamp && tm.Timestamp != nil:
		return tm.Timestamp.Signed.Expires
	case role == RoleSnapshot && tm.Snapshot != nil:
		return tm.Snapshot.Signed.Expires
	case role == RoleTargets && tm.Targets[metadata.TARGETS] != nil:
		return tm.Targets[metadata.TARGETS].Signed.Expires
	}
	return time.Time{}
}

// expiresIn reads signed.expires from metadata bytes, for an error
// message only (the bytes were refused; nothing else is read from them).
func expiresIn(data []byte) time.Time {
	var m struct {
		Signed struct {
			Expires time.Time `json:"expires"`
		} `json:"signed"`
	}
	if json.Unmarshal(data, &m) != nil {
		return time.Time{}
	}
	return m.Signed.Expires
}

// checkRootKeys refuses a root that lists an Ed25519 key attest's strict
// rules reject (REFERENCE §6.7): go-tuf verifies with crypto/ed25519,
// which accepts small-order keys, for which anyone can forge signatures.
func checkRootKeys(root *metadata.Metadata[metadata.RootType]) error {
	ids := make([]string, 0, len(root.Signed.Keys))
	for id := range root.Signed.Keys {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		k := root.Signed.Keys[id]
		if k.Type != metadata.KeyTypeEd25519 {
			continue
		}
		pub, err := hex.DecodeString(k.Value.PublicKey)
		if err == nil {
			err = ed25519strict.CheckPublicKey(pub)
		}
		if err != nil {
			return &VerificationError{Role: RoleRoot, Check: CheckKeys,
				Detail: fmt.Sprintf("root version %d lists Ed25519 key %s, which must never be trusted", root.Signed.Version, id), Err: err}
		}
	}
	return nil
}

func result(c Config, cacheDir string, tm trustedmetadata.TrustedMetadata, data []byte) *Result {
	sum := sha256.Sum256(data)
	targets := tm.Targets[metadata.TARGETS]
	return &Result{
		Target:      c.Target,
		Data:        data,
		SHA256:      hex.EncodeToString(sum[:]),
		Root:        RoleInfo{tm.Root.Signed.Version, tm.Root.Signed.Expires},
		Timestamp:   RoleInfo{tm.Timestamp.Signed.Version, tm.Timestamp.Signed.Expires},
		Snapshot:    RoleInfo{tm.Snapshot.Signed.Version, tm.Snapshot.Signed.Expires},
		Targets:     RoleInfo{targets.Signed.Version, targets.Signed.Expires},
		EvaluatedAt: c.Now,
		CacheDir:    cacheDir,
	}
}
