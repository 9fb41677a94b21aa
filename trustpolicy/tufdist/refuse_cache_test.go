package tufdist

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// cachedOffline fetches policy.json from a directory repository into a
// fresh cache, then takes the repository away: every later Fetch of cfg
// must stand on the cache alone.
func cachedOffline(t *testing.T) (cfg Config, cache string) {
	t.Helper()
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	cache = t.TempDir()
	cfg = Config{TrustedRoot: r.root(), RepoURL: r.dir, Target: "policy.json", CacheDir: cache, Now: t0.Add(time.Hour)}
	if _, err := Fetch(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(r.dir, r.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	return cfg, cache
}

// wantUnreachable returns the cache's reason of an *UnreachableError.
func wantUnreachable(t *testing.T, err error) error {
	t.Helper()
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Err == nil || ue.CacheErr == nil {
		t.Fatalf("error %v (%T), want an *UnreachableError with both reasons", err, err)
	}
	return ue.CacheErr
}

// Offline, every cached role is verified again: a cached snapshot or
// targets file that is missing is ErrNotCached naming the role, one whose
// signature no longer verifies is refused for that role, and a cached
// targets that does not list the target is ErrTargetNotFound. The
// untouched cache stands in (control).
func TestFetchOfflineRefusesDamagedCache(t *testing.T) {
	t.Parallel()
	// Control: the cache as written.
	cfg, _ := cachedOffline(t)
	res, err := Fetch(cfg)
	if err != nil || !res.FromCache || string(res.Data) != policyV1 {
		t.Fatalf("control: %v", err)
	}

	for _, role := range []string{RoleSnapshot, RoleTargets} {
		t.Run(role+" missing", func(t *testing.T) {
			t.Parallel()
			cfg, cache := cachedOffline(t)
			if err := os.Remove(filepath.Join(cache, "metadata", role+".json")); err != nil {
				t.Fatal(err)
			}
			_, err := Fetch(cfg)
			cerr := wantUnreachable(t, err)
			if !errors.Is(cerr, ErrNotCached) || !strings.Contains(cerr.Error(), "no cached "+role+" metadata in ") {
				t.Fatalf("cache error %v, want ErrNotCached naming %s", cerr, role)
			}
		})
		t.Run(role+" re-signed by nobody", func(t *testing.T) {
			t.Parallel()
			cfg, cache := cachedOffline(t)
			file := filepath.Join(cache, "metadata", role+".json")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// Same length and shape, another signature: the key's
			// signature no longer verifies.
			loc := regexp.MustCompile(`"sig": ?"`).FindIndex(data)
			if loc == nil {
				t.Fatalf("no signature in %s", data)
			}
			i := loc[1]
			if data[i] == 'a' {
				data[i] = 'b'
			} else {
				data[i] = 'a'
			}
			if err := os.WriteFile(file, data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = Fetch(cfg)
			wantUnreachable(t, err)
			var ve *VerificationError
			if !errors.As(err, &ve) || ve.Role != role {
				t.Fatalf("error %v, want a *VerificationError of role %s", err, role)
			}
		})
	}

	// Past the root's expiry (one year after t0) the cache is refused for
	// the root, before the other roles are read.
	t.Run("root expired", func(t *testing.T) {
		t.Parallel()
		cfg, _ := cachedOffline(t)
		cfg.Now = t0.Add(DefaultRootExpiry + time.Hour)
		_, err := Fetch(cfg)
		cerr := wantUnreachable(t, err)
		var ve *VerificationError
		if !errors.As(cerr, &ve) || ve.Role != RoleRoot || ve.Check != CheckExpiry || !strings.Contains(cerr.Error(), "final root.json is expired") {
			t.Fatalf("cache error %v, want the root's expiry", cerr)
		}
	})
	t.Run("target not listed", func(t *testing.T) {
		t.Parallel()
		cfg, _ := cachedOffline(t)
		cfg.Target = "other.json"
		_, err := Fetch(cfg)
		cerr := wantUnreachable(t, err)
		if !errors.Is(cerr, ErrTargetNotFound) || !strings.Contains(cerr.Error(), `cached targets version 2 does not list "other.json"`) {
			t.Fatalf("cache error %v, want ErrTargetNotFound", cerr)
		}
	})
}

// Without a cache directory and without a user cache directory, Fetch
// refuses before reading anything and says to set one; with a user cache
// directory the cache is kept under it, per pinned root (control).
func TestFetchDefaultCacheDir(t *testing.T) {
	r := newTestRepo(t)
	r.add("policy.json", policyV1)
	cfg := Config{TrustedRoot: r.root(), RepoURL: r.dir, Target: "policy.json", Now: t0.Add(time.Hour)}

	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	_, err := Fetch(cfg)
	if err == nil || !strings.HasPrefix(err.Error(), "tufdist: no user cache directory (") || !strings.HasSuffix(err.Error(), "); set the cache directory explicitly") {
		t.Fatalf("no user cache directory: %v", err)
	}

	base := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", base)
	res, err := Fetch(cfg)
	if err != nil || string(res.Data) != policyV1 {
		t.Fatalf("control: %v", err)
	}
	dir, err := DefaultCacheDir(r.root())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != filepath.Join(base, "mcpres", "tuf") || len(filepath.Base(dir)) != 64 {
		t.Errorf("cache dir %s", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "targets", "policy.json")); err != nil {
		t.Errorf("the default cache holds no target: %v", err)
	}
	other, _ := DefaultCacheDir(append(r.root(), ' '))
	if other == dir {
		t.Error("two pinned roots share a cache")
	}
}

// expiresIn reads the expiry of refused metadata for the message only:
// bytes that are not JSON give the zero time, never an error.
func TestExpiresIn(t *testing.T) {
	if got := expiresIn([]byte("<html>")); !got.IsZero() {
		t.Errorf("not JSON: %v", got)
	}
	want := time.Date(2026, 6, 2, 12, 0, 0, 0, time.UTC)
	if got := expiresIn([]byte(`{"signed":{"expires":"2026-06-02T12:00:00Z"}}`)); !got.Equal(want) {
		t.Errorf("control: %v", got)
	}
}
