package tufdist

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/config"
	"github.com/theupdateframework/go-tuf/v2/metadata/updater"
)

const (
	policyV1 = `{"schemaVersion":"example/policy","version":1}`
	policyV2 = `{"schemaVersion":"example/policy","version":2}`
)

func targetPath(name, content string) string {
	sum := sha256.Sum256([]byte(content))
	return "targets/" + hex.EncodeToString(sum[:]) + "." + name
}

func TestFetchHTTP(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	srv := newRepoServer(t, r.dir)
	cache := t.TempDir()
	cfg := Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: cache, Now: t0.Add(time.Hour)}

	res, err := Fetch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Data) != policyV1 || res.FromCache || res.FetchError != nil {
		t.Fatalf("got %q fromCache %t (%v), want the policy fetched online", res.Data, res.FromCache, res.FetchError)
	}
	sum := sha256.Sum256([]byte(policyV1))
	if res.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("SHA256 %s", res.SHA256)
	}
	got := []int64{res.Root.Version, res.Timestamp.Version, res.Snapshot.Version, res.Targets.Version}
	if !slices.Equal(got, []int64{1, 2, 2, 2}) {
		t.Errorf("versions root/timestamp/snapshot/targets %v, want [1 2 2 2]", got)
	}
	if !res.ValidUntil().Equal(t0.Add(DefaultTimestampExpiry)) || !res.EvaluatedAt.Equal(cfg.Now) {
		t.Errorf("valid until %s evaluated at %s", res.ValidUntil(), res.EvaluatedAt)
	}
	wantReq := []string{"2.root.json", "timestamp.json", "2.snapshot.json", "2.targets.json", targetPath("policy.json", policyV1)}
	if req := srv.takeRequests(); !slices.Equal(req, wantReq) {
		t.Errorf("first fetch requested %q, want %q", req, wantReq)
	}

	// Nothing changed: only the root probe and the timestamp are fetched;
	// snapshot, targets and the target come from the cache.
	if res, err = Fetch(cfg); err != nil || string(res.Data) != policyV1 {
		t.Fatalf("second fetch: %v", err)
	}
	if req := srv.takeRequests(); !slices.Equal(req, []string{"2.root.json", "timestamp.json"}) {
		t.Errorf("second fetch requested %q", req)
	}

	// A new policy is published: the cache follows.
	r.add("policy.json", policyV2)
	if res, err = Fetch(cfg); err != nil || string(res.Data) != policyV2 || res.Targets.Version != 3 {
		t.Fatalf("after publishing v2: %v", err)
	}
}

func TestFetchDirectory(t *testing.T) {
	r := newTestRepo(t)
	r.add("policies/release.json", policyV1)
	res, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: r.dir, Target: "policies/release.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
	if err != nil || string(res.Data) != policyV1 || res.FromCache {
		t.Fatalf("absolute path: %v", err)
	}
	// A relative path works too.
	t.Chdir(filepath.Dir(r.dir))
	res, err = Fetch(Config{TrustedRoot: r.root(), RepoURL: filepath.Base(r.dir), Target: "policies/release.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
	if err != nil || string(res.Data) != policyV1 {
		t.Fatalf("relative path: %v", err)
	}
}

// The cache stands in for an unreachable repository until the cached
// metadata expires, and not a second longer.
func TestFetchOfflineFromCache(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	srv := newRepoServer(t, r.dir)
	cache := t.TempDir()
	cfg := Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: cache, Now: t0.Add(time.Hour)}
	if _, err := Fetch(cfg); err != nil {
		t.Fatal(err)
	}
	srv.Close()

	cfg.Now = t0.Add(23 * time.Hour)
	res, err := Fetch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !res.FromCache || res.FetchError == nil || string(res.Data) != policyV1 || res.Targets.Version != 2 {
		t.Fatalf("got fromCache %t fetchError %v data %q, want the cached policy", res.FromCache, res.FetchError, res.Data)
	}
	if msg := res.FetchError.Error(); !strings.Contains(msg, "fetching 2.root.json") || !strings.Contains(msg, "connection refused") {
		t.Errorf("fetch error %q does not say what could not be fetched", res.FetchError)
	}

	// Expired cache while offline: refused, with both reasons.
	cfg.Now = t0.Add(DefaultTimestampExpiry + time.Second)
	res, err = Fetch(cfg)
	if res != nil {
		t.Fatal("a result with an error")
	}
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Err == nil {
		t.Fatalf("error %v, want an *UnreachableError", err)
	}
	ve := wantVerificationError(t, err, RoleTimestamp, CheckExpiry, &metadata.ErrExpiredMetadata{})
	if !strings.Contains(ve.Detail, "expired at 2026-06-02T12:00:00Z, evaluation time 2026-06-02T12:00:01Z") {
		t.Errorf("detail %q does not give the two times", ve.Detail)
	}
}

func TestFetchOfflineDirectoryGone(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	cache := t.TempDir()
	cfg := Config{TrustedRoot: r.root(), RepoURL: r.dir, Target: "policy.json", CacheDir: cache, Now: t0.Add(time.Hour)}
	if _, err := Fetch(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(r.dir, r.dir+".unmounted"); err != nil {
		t.Fatal(err)
	}
	res, err := Fetch(cfg)
	if err != nil || !res.FromCache || string(res.Data) != policyV1 {
		t.Fatalf("got %v, want the cached policy", err)
	}
}

func TestFetchOfflineEmptyCache(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	srv := newRepoServer(t, r.dir)
	srv.Close()
	_, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
	var ue *UnreachableError
	if !errors.As(err, &ue) || !errors.Is(err, ErrNotCached) {
		t.Fatalf("error %v, want an *UnreachableError with ErrNotCached", err)
	}
}

// Freeze attacks: metadata that is no longer fresh is refused, online,
// whatever the cache holds, and the error names the stale role.
func TestFreezeAttack(t *testing.T) {
	t.Parallel()
	expired := t0.Add(DefaultTimestampExpiry + time.Minute)
	t.Run("expired timestamp, empty cache", func(t *testing.T) {
		t.Parallel()
		r := newTestRepo(t)
		r.add("policy.json", policyV1)
		srv := newRepoServer(t, r.dir)
		_, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: expired})
		wantVerificationError(t, err, RoleTimestamp, CheckExpiry, &metadata.ErrExpiredMetadata{})
		var ue *UnreachableError
		if errors.As(err, &ue) {
			t.Error("a verification failure fell back to the cache")
		}
	})
	t.Run("same expired timestamp served after caching it", func(t *testing.T) {
		t.Parallel()
		r := newTestRepo(t)
		r.add("policy.json", policyV1)
		srv := newRepoServer(t, r.dir)
		cfg := Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)}
		if _, err := Fetch(cfg); err != nil {
			t.Fatal(err)
		}
		cfg.Now = expired
		_, err := Fetch(cfg)
		wantVerificationError(t, err, RoleTimestamp, CheckExpiry, &metadata.ErrExpiredMetadata{})
	})
	t.Run("fresh timestamp over an expired snapshot", func(t *testing.T) {
		// A timestamp key holder keeps re-signing timestamps, but the
		// snapshot they point to has expired.
		t.Parallel()
		r := newTestRepo(t)
		r.add("policy.json", policyV1)
		srv := newRepoServer(t, r.dir)
		now := t0.Add(DefaultSnapshotExpiry + time.Hour)
		ts := parse(t, metadata.Timestamp(), r.read("timestamp.json"))
		ts.Signed.Version++
		ts.Signed.Expires = now.Add(time.Hour)
		srv.override("timestamp.json", resign(t, ts, testOnlyKey("timestamp")))
		_, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: now})
		wantVerificationError(t, err, RoleSnapshot, CheckExpiry, &metadata.ErrExpiredMetadata{})
	})
}

// Rollback attacks: after a newer state was verified and cached, an older
// one is refused.
func TestRollback(t *testing.T) {
	t.Parallel()
	now := t0.Add(time.Hour)
	setup := func(t *testing.T) (old, cur *testRepo, srv *repoServer, cfg Config) {
		cur = newTestRepo(t)
		cur.add("policy.json", policyV1)
		old = cur.copyTo()
		cur.add("policy.json", policyV2)
		srv = newRepoServer(t, cur.dir)
		cfg = Config{TrustedRoot: cur.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: now}
		if res, err := Fetch(cfg); err != nil || string(res.Data) != policyV2 {
			t.Fatalf("fetching the current state: %v", err)
		}
		return old, cur, srv, cfg
	}
	t.Run("older timestamp", func(t *testing.T) {
		t.Parallel()
		old, _, srv, cfg := setup(t)
		srv.set(old.dir)
		_, err := Fetch(cfg)
		ve := wantVerificationError(t, err, RoleTimestamp, CheckVersion, &metadata.ErrBadVersionNumber{})
		if !strings.Contains(ve.Error(), "new timestamp version 2 must be >= 3") {
			t.Errorf("message %q does not give the versions", ve)
		}
	})
	t.Run("snapshot listing an older targets version", func(t *testing.T) {
		// The snapshot and timestamp keys are compromised; the attacker
		// tries to bring back targets version 2 (policy v1).
		t.Parallel()
		old, cur, srv, cfg := setup(t)
		snap := parse(t, metadata.Snapshot(), cur.read("3.snapshot.json"))
		snap.Signed.Version = 4
		snap.Signed.Meta["targets.json"] = metaFile(2, old.read("2.targets.json"))
		snapBytes := resign(t, snap, testOnlyKey("snapshot"))
		ts := parse(t, metadata.Timestamp(), cur.read("timestamp.json"))
		ts.Signed.Version = 4
		ts.Signed.Meta["snapshot.json"] = metaFile(4, snapBytes)
		srv.override("4.snapshot.json", snapBytes)
		srv.override("timestamp.json", resign(t, ts, testOnlyKey("timestamp")))
		_, err := Fetch(cfg)
		wantVerificationError(t, err, RoleSnapshot, CheckVersion, &metadata.ErrBadVersionNumber{})
	})
	t.Run("timestamp naming an older snapshot version", func(t *testing.T) {
		t.Parallel()
		old, cur, srv, cfg := setup(t)
		ts := parse(t, metadata.Timestamp(), cur.read("timestamp.json"))
		ts.Signed.Version = 4
		ts.Signed.Meta["snapshot.json"] = metaFile(2, old.read("2.snapshot.json"))
		srv.override("timestamp.json", resign(t, ts, testOnlyKey("timestamp")))
		_, err := Fetch(cfg)
		ve := wantVerificationError(t, err, RoleTimestamp, CheckVersion, &metadata.ErrBadVersionNumber{})
		if !strings.Contains(ve.Error(), "new snapshot version 2 must be >= 3") {
			t.Errorf("message %q does not give the versions", ve)
		}
	})
}

// Mix-and-match: metadata from another state of the repository, validly
// signed but not the file the referring metadata names, is refused by hash.
func TestMixAndMatch(t *testing.T) {
	t.Parallel()
	for _, role := range []string{RoleSnapshot, RoleTargets} {
		t.Run(role, func(t *testing.T) {
			t.Parallel()
			r := newTestRepo(t)
			r.add("policy.json", policyV1)
			fork := r.copyTo()
			r.add("policy.json", policyV2)
			fork.add("policy.json", `{"schemaVersion":"example/policy","version":"forged"}`)
			srv := newRepoServer(t, r.dir)
			file := "3." + role + ".json"
			if bytes.Equal(fork.read(file), r.read(file)) {
				t.Fatal("the fork did not diverge")
			}
			srv.override(file, fork.read(file))
			_, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
			wantVerificationError(t, err, role, CheckHashes, &metadata.ErrLengthOrHashMismatch{})
		})
	}
}

func TestTooFewSignatures(t *testing.T) {
	t.Parallel()
	t.Run("root threshold 2, one signature", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "repo")
		states, err := Init(InitConfig{
			Dir:           dir,
			RootKeys:      []ed25519.PublicKey{testOnlyPub("root-1"), testOnlyPub("root-2")},
			RootThreshold: 2,
			RootSigners:   []crypto.Signer{testOnlyKey("root-1")},
			Targets:       testOnlyKey("targets"),
			Snapshot:      testOnlyKey("snapshot"),
			Timestamp:     testOnlyKey("timestamp"),
			Now:           t0,
			Expiry:        DefaultExpiry(),
		})
		if err != nil {
			t.Fatal(err)
		}
		if rs := states[3]; rs.Role != RoleRoot || rs.Signatures != 1 || rs.Threshold != 2 {
			t.Errorf("root state %+v, want 1 of 2 signatures", rs)
		}
		r := &testRepo{t: t, dir: dir}
		r.add("policy.json", policyV1)
		cfg := Config{TrustedRoot: r.root(), RepoURL: dir, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)}
		_, err = Fetch(cfg)
		ve := wantVerificationError(t, err, RoleRoot, CheckSignatures, &metadata.ErrUnsignedMetadata{})
		if !strings.Contains(ve.Error(), "got 1, want 2") {
			t.Errorf("message %q does not give the counts", ve)
		}

		st, err := Sign(dir, "root", testOnlyKey("root-2"))
		if err != nil || st.Signatures != 2 || st.Threshold != 2 {
			t.Fatalf("Sign: %+v %v", st, err)
		}
		cfg.TrustedRoot = r.root()
		if res, err := Fetch(cfg); err != nil || string(res.Data) != policyV1 {
			t.Fatalf("after the second signature: %v", err)
		}
	})
	t.Run("targets signed by a key root does not name", func(t *testing.T) {
		// The snapshot and timestamp keys are compromised, the targets key
		// is not: forged targets are refused for their signatures.
		t.Parallel()
		r := newTestRepo(t)
		r.add("policy.json", policyV1)
		srv := newRepoServer(t, r.dir)
		tg := parse(t, metadata.Targets(), r.read("2.targets.json"))
		tg.Signed.Version = 3
		forged := []byte(`{"forged":true}`)
		info, _ := metadata.TargetFile().FromBytes("policy.json", forged, "sha256")
		tg.Signed.Targets["policy.json"] = info
		tgBytes := resign(t, tg, testOnlyKey("attacker"))
		snap := parse(t, metadata.Snapshot(), r.read("2.snapshot.json"))
		snap.Signed.Version = 3
		snap.Signed.Meta["targets.json"] = metaFile(3, tgBytes)
		snapBytes := resign(t, snap, testOnlyKey("snapshot"))
		ts := parse(t, metadata.Timestamp(), r.read("timestamp.json"))
		ts.Signed.Version = 3
		ts.Signed.Meta["snapshot.json"] = metaFile(3, snapBytes)
		srv.override("3.targets.json", tgBytes)
		srv.override("3.snapshot.json", snapBytes)
		srv.override("timestamp.json", resign(t, ts, testOnlyKey("timestamp")))
		_, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
		wantVerificationError(t, err, RoleTargets, CheckSignatures, &metadata.ErrUnsignedMetadata{})
	})
}

func TestReplacedTarget(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	srv := newRepoServer(t, r.dir)
	srv.override(targetPath("policy.json", policyV1), []byte(policyV2))
	_, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
	ve := wantVerificationError(t, err, RoleTargetFile, CheckHashes, &metadata.ErrLengthOrHashMismatch{})
	if ve.Target != "policy.json" || !strings.Contains(ve.Error(), `"policy.json"`) {
		t.Errorf("error %q does not name the target", ve)
	}
}

// A cached target that no longer matches the targets metadata is never
// returned: it is downloaded again online, and refused offline.
func TestTamperedCachedTarget(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	srv := newRepoServer(t, r.dir)
	cache := t.TempDir()
	cfg := Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: cache, Now: t0.Add(time.Hour)}
	if _, err := Fetch(cfg); err != nil {
		t.Fatal(err)
	}
	cached := filepath.Join(cache, "targets", "policy.json")
	if err := os.WriteFile(cached, []byte(policyV2), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.takeRequests()
	res, err := Fetch(cfg)
	if err != nil || string(res.Data) != policyV1 {
		t.Fatalf("online: %v %q", err, res.Data)
	}
	if req := srv.takeRequests(); !slices.Contains(req, targetPath("policy.json", policyV1)) {
		t.Errorf("requests %q: the target was not downloaded again", req)
	}
	if err := os.WriteFile(cached, []byte(policyV2), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	_, err = Fetch(cfg)
	if !errors.Is(err, ErrNotCached) {
		t.Fatalf("offline: %v, want ErrNotCached", err)
	}
}

func TestTargetNotFound(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	_, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: r.dir, Target: "other.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
	if !errors.Is(err, ErrTargetNotFound) || !strings.Contains(err.Error(), `targets version 2 does not list "other.json"`) {
		t.Fatalf("error %v, want ErrTargetNotFound", err)
	}
}

// A root rotated by the repository is fetched, verified, kept in the
// cache's root history, and used offline: the cached metadata signed by
// the new keys verifies without the repository.
func TestRootRotation(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	pinned := r.root()
	// Root version 2 replaces the timestamp key; signed by the old root
	// key (the threshold of version 1) and by itself.
	root := parse(t, metadata.Root(), pinned)
	root.Signed.Version = 2
	if err := root.Signed.RevokeKey(keyID(testOnlyPub("timestamp")), metadata.TIMESTAMP); err != nil {
		t.Fatal(err)
	}
	if err := root.Signed.AddKey(tufKey(testOnlyPub("timestamp-2")), metadata.TIMESTAMP); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "2.root.json"), resign(t, root, testOnlyKey("root-1")), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := parse(t, metadata.Timestamp(), r.read("timestamp.json"))
	ts.Signed.Version++
	if err := os.WriteFile(filepath.Join(r.dir, "timestamp.json"), resign(t, ts, testOnlyKey("timestamp-2")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newRepoServer(t, r.dir)
	cache := t.TempDir()
	cfg := Config{TrustedRoot: pinned, RepoURL: srv.URL, Target: "policy.json", CacheDir: cache, Now: t0.Add(time.Hour)}
	res, err := Fetch(cfg)
	if err != nil || res.Root.Version != 2 {
		t.Fatalf("online: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "roots", "2.root.json")); err != nil {
		t.Fatalf("root version 2 is not in the cache's history: %v", err)
	}
	// The next run starts from root version 2.
	srv.takeRequests()
	if _, err := Fetch(cfg); err != nil {
		t.Fatal(err)
	}
	if req := srv.takeRequests(); len(req) == 0 || req[0] != "3.root.json" {
		t.Errorf("requests %q, want the probe for root version 3 first", req)
	}
	srv.Close()
	res, err = Fetch(cfg)
	if err != nil || !res.FromCache || res.Root.Version != 2 {
		t.Fatalf("offline: %v", err)
	}
}

// Go's crypto/ed25519 (which go-tuf uses) accepts small-order public keys,
// for which anyone can forge signatures; a root that lists one is refused.
func TestSmallOrderKeyInRoot(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	root := parse(t, metadata.Root(), r.root())
	identity := make(ed25519.PublicKey, 32)
	identity[0] = 1 // the identity point, order 1
	if err := root.Signed.AddKey(tufKey(identity), metadata.TIMESTAMP); err != nil {
		t.Fatal(err)
	}
	pinned := resign(t, root, testOnlyKey("root-1"))
	_, err := Fetch(Config{TrustedRoot: pinned, RepoURL: r.dir, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
	ve := wantVerificationError(t, err, RoleRoot, CheckKeys, nil)
	if !strings.Contains(ve.Error(), keyID(identity)) {
		t.Errorf("message %q does not name the key", ve)
	}
}

// TestUnsafeLocalModeEnforcesExpiry pins what the package doc of
// fetchCached states about go-tuf v2.4.2: its offline mode,
// UpdaterConfig.UnsafeLocalMode, verifies the cached metadata's expiry
// against the reference time. (fetchCached performs the same calls itself
// rather than using it; see there why.)
func TestUnsafeLocalModeEnforcesExpiry(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	cache := t.TempDir()
	if _, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: r.dir, Target: "policy.json", CacheDir: cache, Now: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	refresh := func(now time.Time) error {
		meta := t.TempDir()
		if err := os.CopyFS(meta, os.DirFS(filepath.Join(cache, "metadata"))); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.New("http://127.0.0.1:1/unused", r.root())
		if err != nil {
			t.Fatal(err)
		}
		cfg.LocalMetadataDir, cfg.LocalTargetsDir = meta, t.TempDir()
		cfg.UnsafeLocalMode = true
		u, err := updater.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		u.UnsafeSetRefTime(now)
		return u.Refresh()
	}
	if err := refresh(t0.Add(2 * time.Hour)); err != nil {
		t.Fatalf("unexpired cache: %v", err)
	}
	for _, c := range []struct {
		after time.Duration
		msg   string
	}{
		{DefaultTimestampExpiry, "timestamp.json is expired"},
		{DefaultRootExpiry, "final root.json is expired"},
	} {
		err := refresh(t0.Add(c.after + time.Second))
		if !errors.Is(err, &metadata.ErrExpiredMetadata{}) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s after signing: %v, want ErrExpiredMetadata %q", c.after, err, c.msg)
		}
	}
}

func TestDirFetcher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	for name, data := range map[string]string{"a.json": "12345", outside: "secret"} {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f := &dirFetcher{root: root, dir: dir}
	if data, err := f.DownloadFile(dirBase+"/a.json", 5, 0); err != nil || string(data) != "12345" {
		t.Errorf("a.json: %q %v", data, err)
	}
	tests := []struct {
		name, url string
		max       int64
		check     func(error) bool
	}{
		{"missing file is a 404", dirBase + "/2.root.json", 100, func(err error) bool {
			var he *metadata.ErrDownloadHTTP
			return errors.As(err, &he) && he.StatusCode == http.StatusNotFound
		}},
		{"longer than allowed", dirBase + "/a.json", 4, func(err error) bool { return errors.Is(err, &metadata.ErrDownloadLengthMismatch{}) }},
		{"parent directory", dirBase + "/../a.json", 100, func(err error) bool { return errors.Is(err, &metadata.ErrDownload{}) }},
		{"other base", "file:///elsewhere/a.json", 100, func(err error) bool { return errors.Is(err, &metadata.ErrDownload{}) }},
		{"symbolic link leaving the directory", dirBase + "/link.json", 100, func(err error) bool { return err != nil && !strings.Contains(err.Error(), "secret\"") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := f.DownloadFile(tt.url, tt.max, 0)
			if data != nil || !tt.check(err) {
				t.Errorf("got %q, %v (%T)", data, err, err)
			}
		})
	}
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	good := Config{TrustedRoot: []byte("{}"), RepoURL: "repo", Target: "p.json", Now: t0}
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"no root", func(c *Config) { c.TrustedRoot = nil }, "TrustedRoot must be set"},
		{"no repository", func(c *Config) { c.RepoURL = "" }, "RepoURL must be set"},
		{"no evaluation time", func(c *Config) { c.Now = time.Time{} }, "Now must be set"},
		{"bad target", func(c *Config) { c.Target = "../p.json" }, `".." segment`},
		{"ftp", func(c *Config) {
			c.RepoURL = "ftp://example.org/repo"
			c.CacheDir = t.TempDir()
			c.TrustedRoot = newTestRepo(t).root()
		}, `scheme "ftp" is not http or https`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.change(&c)
			res, err := Fetch(c)
			if res != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := Fetch(Config{TrustedRoot: []byte("not json"), RepoURL: "repo", Target: "p.json", Now: t0, CacheDir: t.TempDir()}); err == nil {
		t.Error("a pinned root that is not JSON was accepted")
	} else {
		wantVerificationError(t, err, RoleRoot, CheckFormat, nil)
	}
}

// helperEnv carries a Config to TestHelperProcessFetch in a child process.
const helperEnv = "TUFDIST_TEST_HELPER_FETCH"

// TestFetchInEmptyNetworkNamespace runs Fetch in a child process (this test
// binary) inside a new, empty network namespace (unshare -rn: not even
// loopback is up). The repository's HTTP server keeps running outside, out
// of reach; the child must verify the cached state with no network.
func TestFetchInEmptyNetworkNamespace(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is not installed; skipping the network-namespace test")
	}
	if out, err := exec.Command("unshare", "-rn", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -rn does not work here (%v: %s); skipping the network-namespace test", err, bytes.TrimSpace(out))
	}
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	srv := newRepoServer(t, r.dir)
	rootFile := filepath.Join(t.TempDir(), "root.json")
	if err := os.WriteFile(rootFile, r.root(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{TrustedRoot: r.root(), RepoURL: srv.URL, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)}
	if _, err := Fetch(cfg); err != nil {
		t.Fatal(err)
	}
	run := func(now time.Time) (map[string]any, string) {
		arg, _ := json.Marshal(map[string]string{"root": rootFile, "repo": srv.URL, "target": cfg.Target, "cache": cfg.CacheDir, "now": now.Format(time.RFC3339)})
		cmd := exec.Command("unshare", "-rn", os.Args[0], "-test.run=^TestHelperProcessFetch$", "-test.v=false")
		cmd.Env = append(os.Environ(), helperEnv+"="+string(arg))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("child: %v\n%s%s", err, stdout.Bytes(), stderr.Bytes())
		}
		line, _, _ := strings.Cut(stdout.String(), "\n")
		var out map[string]any
		if err := json.Unmarshal([]byte(line), &out); err != nil {
			t.Fatalf("child printed %q: %v", stdout.String(), err)
		}
		return out, stderr.String()
	}
	out, _ := run(t0.Add(2 * time.Hour))
	sum := sha256.Sum256([]byte(policyV1))
	if out["fromCache"] != true || out["sha256"] != hex.EncodeToString(sum[:]) || !strings.Contains(fmt.Sprint(out["fetchError"]), "unreachable") {
		t.Errorf("child result %v, want the cached policy after a network error", out)
	}
	out, _ = run(t0.Add(DefaultTimestampExpiry + time.Second))
	if out["error"] == nil || !strings.Contains(fmt.Sprint(out["error"]), "tuf timestamp metadata failed the expiry check") {
		t.Errorf("child result %v, want the expired cache refused", out)
	}
}

// TestHelperProcessFetch is the child of TestFetchInEmptyNetworkNamespace;
// it does nothing in a normal test run.
func TestHelperProcessFetch(t *testing.T) {
	arg := os.Getenv(helperEnv)
	if arg == "" {
		return
	}
	var in map[string]string
	if err := json.Unmarshal([]byte(arg), &in); err != nil {
		t.Fatal(err)
	}
	root, err := os.ReadFile(in["root"])
	if err != nil {
		t.Fatal(err)
	}
	now, err := time.Parse(time.RFC3339, in["now"])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	res, err := Fetch(Config{TrustedRoot: root, RepoURL: in["repo"], Target: in["target"], CacheDir: in["cache"], Now: now})
	if err != nil {
		out["error"] = err.Error()
	} else {
		out["fromCache"], out["sha256"], out["fetchError"] = res.FromCache, res.SHA256, fmt.Sprint(res.FetchError)
	}
	line, _ := json.Marshal(out)
	fmt.Printf("%s\n", line)
}
