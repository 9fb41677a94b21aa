package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/transparency-dev/tessera/api/layout"
)

// Size limits of what a source may answer. A larger answer is a
// *[SourceError], never read past its limit.
const (
	// MaxCheckpointBytes bounds a checkpoint (its body and every
	// signature line).
	MaxCheckpointBytes = 1 << 16
	// MaxTileBytes is a full hash tile: 256 hashes of 32 bytes.
	MaxTileBytes = layout.TileWidth * 32
	// MaxEntryBundleBytes bounds an entry bundle: 256 entries of up to
	// [MaxEntryBytes] and their length prefixes fit well under it.
	MaxEntryBundleBytes = 1 << 20
)

// A CheckpointSource is a place that holds a signed checkpoint of the
// log: every [Source], and on its own a place that serves no tiles — a
// witness's copy of what it cosigned, a distributor's, the checkpoint a
// consumer saw ([OpenCheckpoint], Config.Checkpoints). Nothing it
// answers is trusted before it is verified.
type CheckpointSource interface {
	// Name says where the source reads, for alerts: a URL, a directory
	// or a file.
	Name() string
	// ReadCheckpoint returns the signed checkpoint.
	ReadCheckpoint(ctx context.Context) ([]byte, error)
}

// A Source is one place a log is read from: its tlog-tiles resources
// (C2SP tlog-tiles: "checkpoint", "tile/L/N[.p/W]",
// "tile/entries/N[.p/W]"). Nothing a source answers is trusted: the
// monitor verifies every byte against the log key and the tree.
type Source interface {
	CheckpointSource
	// ReadTile returns hash tile (level, index) of width p (0: full).
	ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error)
	// ReadEntryBundle returns entry bundle index of width p (0: full).
	ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error)
}

// A SourceError is a resource a source could not give: missing, too
// large, a redirect, an HTTP error or a timeout.
type SourceError struct {
	Source, Resource string
	Err              error
}

func (e *SourceError) Error() string {
	return fmt.Sprintf("%s: reading %s: %v", e.Source, e.Resource, e.Err)
}

func (e *SourceError) Unwrap() error { return e.Err }

// ErrTooLarge is matched by the error for an answer larger than its limit.
var ErrTooLarge = errors.New("larger than allowed")

// OpenSource returns an HTTP source for an http:// or https:// URL and a
// directory source for anything else.
func OpenSource(s string, timeout time.Duration) (Source, error) {
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		return NewHTTPSource(s, timeout)
	}
	return NewDirSource(s)
}

// httpSource reads a log over HTTP.
type httpSource struct {
	base   *url.URL
	client *http.Client
}

// NewHTTPSource returns a source reading the tlog-tiles resources below
// base (an http or https URL; a path without a final "/" gets one). Each
// request is bounded by timeout (0: 30 s) and its answer's size limit;
// redirects are never followed (a 3xx answer is an error naming where it
// pointed), no credential is ever sent, and proxies of the environment
// are not used.
func NewHTTPSource(base string, timeout time.Duration) (Source, error) {
	u, err := parseHTTPURL("log URL", base)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return newHTTPSource(u, timeout), nil
}

// parseHTTPURL accepts http(s)://HOST[/PATH] with no user, query or
// fragment: what a source reads, with nothing to send but the path.
func parseHTTPURL(what, s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v", what, s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s %q: want http(s)://HOST[/PATH] with no user, query or fragment", what, s)
	}
	return u, nil
}

// newHTTPSource is the client of every HTTP source: a timeout per
// request, no redirect, no proxy.
func newHTTPSource(base *url.URL, timeout time.Duration) *httpSource {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: timeout}).DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       time.Minute,
	}
	return &httpSource{base: base, client: &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

func (s *httpSource) Name() string { return s.base.String() }

func (s *httpSource) get(ctx context.Context, p string, limit int64) ([]byte, error) {
	return s.fetch(ctx, s.base.JoinPath(p), p, limit)
}

// fetch reads u, the resource named so in errors, within limit bytes.
func (s *httpSource) fetch(ctx context.Context, u *url.URL, resource string, limit int64) ([]byte, error) {
	fail := func(err error) ([]byte, error) {
		return nil, &SourceError{Source: s.Name(), Resource: resource, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail(err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusNotFound:
		return fail(fs.ErrNotExist)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return fail(fmt.Errorf("redirect (%s) to %q refused: a log source is read where it is, never followed", resp.Status, resp.Header.Get("Location")))
	default:
		return fail(fmt.Errorf("HTTP %s", resp.Status))
	}
	if resp.ContentLength > limit {
		return fail(fmt.Errorf("%w: Content-Length %d, at most %d", ErrTooLarge, resp.ContentLength, limit))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fail(err)
	}
	if int64(len(b)) > limit {
		return fail(fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit))
	}
	return b, nil
}

func (s *httpSource) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	return s.get(ctx, layout.CheckpointPath, MaxCheckpointBytes)
}

func (s *httpSource) ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	return partialOrFull(p, func(p uint8) ([]byte, error) {
		return s.get(ctx, layout.TilePath(level, index, p), MaxTileBytes)
	})
}

func (s *httpSource) ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error) {
	return partialOrFull(p, func(p uint8) ([]byte, error) {
		return s.get(ctx, layout.EntriesPath(index, p), MaxEntryBundleBytes)
	})
}

// partialOrFull reads a partial resource, or the full one when the
// partial is gone (a log deletes partial tiles once they are full), as
// tessera's client does. The caller takes the prefix it needs.
func partialOrFull(p uint8, read func(uint8) ([]byte, error)) ([]byte, error) {
	b, err := read(p)
	if p > 0 && errors.Is(err, fs.ErrNotExist) {
		return read(0)
	}
	return b, err
}

// dirSource reads a log directory (`mcpres log add --dir`, or any copy of
// a tlog-tiles tree) through an os.Root: no path leaves the directory.
type dirSource struct {
	dir  string
	root *os.Root
}

// NewDirSource returns a source reading the log directory dir. Only
// regular files are read, each within its size limit.
func NewDirSource(dir string) (Source, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("log directory: %w", err)
	}
	return &dirSource{dir: dir, root: root}, nil
}

func (s *dirSource) Name() string { return s.dir }

func (s *dirSource) read(p string, limit int64) ([]byte, error) {
	fail := func(err error) ([]byte, error) { return nil, &SourceError{Source: s.dir, Resource: p, Err: err} }
	name := filepath.FromSlash(p)
	fi, err := s.root.Lstat(name)
	if err != nil {
		return fail(err)
	}
	if !fi.Mode().IsRegular() {
		return fail(fmt.Errorf("not a regular file (%v)", fi.Mode().Type()))
	}
	if fi.Size() > limit {
		return fail(fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, fi.Size(), limit))
	}
	f, err := s.root.Open(name)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return fail(err)
	}
	if int64(len(b)) > limit {
		return fail(fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit))
	}
	return b, nil
}

func (s *dirSource) ReadCheckpoint(context.Context) ([]byte, error) {
	return s.read(layout.CheckpointPath, MaxCheckpointBytes)
}

func (s *dirSource) ReadTile(_ context.Context, level, index uint64, p uint8) ([]byte, error) {
	return partialOrFull(p, func(p uint8) ([]byte, error) { return s.read(layout.TilePath(level, index, p), MaxTileBytes) })
}

func (s *dirSource) ReadEntryBundle(_ context.Context, index uint64, p uint8) ([]byte, error) {
	return partialOrFull(p, func(p uint8) ([]byte, error) {
		return s.read(layout.EntriesPath(index, p), MaxEntryBundleBytes)
	})
}

// OpenCheckpoint returns a checkpoint-only source: an http:// or https://
// URL is the checkpoint's own, fetched as a log source's checkpoint is
// (within the timeout, no redirect followed, no proxy, no credential);
// anything else is a file, read as a file of a log directory is (a
// regular file, not a symbolic link). What it answers is a checkpoint,
// or a tlog-proof or transparency reference carrying one
// ([HeldCheckpoint]), within [MaxHeldBytes].
func OpenCheckpoint(s string, timeout time.Duration) (CheckpointSource, error) {
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		u, err := parseHTTPURL("checkpoint URL", s)
		if err != nil {
			return nil, err
		}
		return checkpointURL{newHTTPSource(u, timeout)}, nil
	}
	dir, file := filepath.Split(s)
	if file == "" {
		return nil, fmt.Errorf("checkpoint file %q: want a file, not a directory", s)
	}
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint file %q: %w", s, err)
	}
	return checkpointFile{path: s, dir: &dirSource{dir: dir, root: root}, file: file}, nil
}

// checkpointURL reads the checkpoint at its URL.
type checkpointURL struct{ src *httpSource }

func (c checkpointURL) Name() string { return c.src.Name() }

func (c checkpointURL) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	return c.src.fetch(ctx, c.src.base, "the checkpoint", MaxHeldBytes)
}

// checkpointFile reads a checkpoint file through its directory's os.Root.
type checkpointFile struct {
	path, file string
	dir        *dirSource
}

func (c checkpointFile) Name() string { return c.path }

func (c checkpointFile) ReadCheckpoint(context.Context) ([]byte, error) {
	b, err := c.dir.read(c.file, MaxHeldBytes)
	if se := (*SourceError)(nil); errors.As(err, &se) {
		se.Source, se.Resource = c.path, "the checkpoint"
	}
	return b, err
}
