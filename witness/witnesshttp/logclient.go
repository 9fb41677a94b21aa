package witnesshttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
	"github.com/transparency-dev/tessera/api/layout"
)

// LogTimeout bounds each request of a LogClient.
const LogTimeout = 30 * time.Second

// maxTileBytes is the size of a full tile.
const maxTileBytes = (1 << witness.TileHeight) * 32

// A LogClient reads a tlog-tiles log over HTTP for a witness that fetches
// the checkpoints it cosigns (`mcpres witness cosign --log URL`): a
// witness.LogReader. It reads a checkpoint of at most signednote.MaxBytes
// and tiles of at most a full tile, each request within LogTimeout; a 404
// is fs.ErrNotExist. What it reads is not trusted: witness.CosignCheckpoint
// authenticates it.
type LogClient struct {
	base   *url.URL
	client *http.Client
}

// NewLogClient returns the client of the log at base, an http or https URL
// with no credentials, query or fragment.
func NewLogClient(base string) (*LogClient, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q is not a log URL (http or https, no credentials, query or fragment)", base)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return &LogClient{base: u, client: &http.Client{Timeout: LogTimeout}}, nil
}

// OpenLog returns the reader of the log a witness is pointed at: an
// http(s) URL (a LogClient), or a directory (a DirLog).
func OpenLog(arg string) (witness.LogReader, error) {
	if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
		return NewLogClient(arg)
	}
	st, err := os.Stat(arg)
	if err != nil {
		return nil, fmt.Errorf("log %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("log %s is not a directory (or an http(s) URL)", arg)
	}
	return DirLog(arg), nil
}

// ReadCheckpoint fetches BASE/checkpoint.
func (h *LogClient) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	return h.get(ctx, layout.CheckpointPath, signednote.MaxBytes)
}

// ReadTile fetches a hash tile, or the full tile when the partial one is
// gone.
func (h *LogClient) ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	data, err := h.get(ctx, layout.TilePath(level, index, p), maxTileBytes)
	if errors.Is(err, fs.ErrNotExist) && p > 0 {
		// The partial tile may have been replaced by the full one.
		return h.get(ctx, layout.TilePath(level, index, 0), maxTileBytes)
	}
	return data, err
}

func (h *LogClient) get(ctx context.Context, path string, max int64) ([]byte, error) {
	u := h.base.JoinPath(path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, fmt.Errorf("GET %s: %w", u, fs.ErrNotExist)
	default:
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("GET %s: more than %d bytes", u, max)
	}
	return data, nil
}
