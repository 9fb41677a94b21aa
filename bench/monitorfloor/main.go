// Command monitorfloor is the floor of the monitor's catch-up (`mcpres log
// monitor --once` from an empty state): it reads a tlog-tiles log from the
// same source, verifies the checkpoint's signature with the log key,
// fetches every entry bundle under it, one at a time, hashes every leaf
// (RFC 6962) into a compact range and checks that the range's root is the
// checkpoint's. Nothing else: no entry is decoded, no state is kept, no
// hash tile is read (a range built from leaf 0 needs none), nothing is
// judged.
//
//	monitorfloor --log URL|DIR --log-key VKEY
//
// It prints "N entries verified".
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
	"golang.org/x/mod/sumdb/note"
)

// Answers are read up to the monitor's limits (tlog/monitor).
const (
	maxCheckpoint = 1 << 16
	maxBundle     = 1 << 20
)

func main() {
	src := flag.String("log", "", "the log: an http(s) URL or a directory")
	keyPath := flag.String("log-key", "", "the log's verifier key file")
	flag.Parse()
	if *src == "" || *keyPath == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: monitorfloor --log URL|DIR --log-key VKEY")
		os.Exit(2)
	}
	n, err := run(*src, *keyPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "monitorfloor:", err)
		os.Exit(1)
	}
	fmt.Printf("%d entries verified\n", n)
}

func run(src, keyPath string) (uint64, error) {
	vkey, err := os.ReadFile(keyPath)
	if err != nil {
		return 0, err
	}
	v, err := note.NewVerifier(strings.TrimSpace(string(vkey)))
	if err != nil {
		return 0, fmt.Errorf("log key: %v", err)
	}
	get := fileGetter(src)
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		get = httpGetter(strings.TrimSuffix(src, "/") + "/")
	}
	raw, err := get(layout.CheckpointPath, maxCheckpoint)
	if err != nil {
		return 0, err
	}
	n, err := note.Open(raw, note.VerifierList(v))
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %v", err)
	}
	var cp log.Checkpoint
	if _, err := cp.Unmarshal([]byte(n.Text)); err != nil {
		return 0, fmt.Errorf("checkpoint: %v", err)
	}
	if cp.Origin != v.Name() {
		return 0, fmt.Errorf("checkpoint of %q, want %q", cp.Origin, v.Name())
	}
	rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	rng := rf.NewEmptyRange(0)
	for idx := uint64(0); idx*layout.EntryBundleWidth < cp.Size; idx++ {
		p := layout.PartialTileSize(0, idx, cp.Size)
		data, err := get(layout.EntriesPath(idx, p), maxBundle)
		if err != nil {
			return 0, err
		}
		want := int(p)
		if want == 0 {
			want = layout.EntryBundleWidth
		}
		for i := 0; i < want; i++ {
			if len(data) < 2 || len(data) < 2+int(binary.BigEndian.Uint16(data)) {
				return 0, fmt.Errorf("entry bundle %d: truncated at entry %d", idx, i)
			}
			size := int(binary.BigEndian.Uint16(data))
			if err := rng.Append(rfc6962.DefaultHasher.HashLeaf(data[2:2+size]), nil); err != nil {
				return 0, err
			}
			data = data[2+size:]
		}
	}
	root, err := rng.GetRootHash(nil)
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(root, cp.Hash) {
		return 0, fmt.Errorf("the entries hash to %x, the checkpoint says %x", root, cp.Hash)
	}
	return rng.End(), nil
}

type getter func(path string, limit int64) ([]byte, error)

func httpGetter(base string) getter {
	c := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return func(p string, limit int64) ([]byte, error) {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, base+p, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %s", p, resp.Status)
		}
		return readLimited(resp.Body, p, limit)
	}
}

func fileGetter(dir string) getter {
	return func(p string, limit int64) ([]byte, error) {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readLimited(f, p, limit)
	}
}

func readLimited(r io.Reader, p string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errors.New(p + ": too large")
	}
	return b, nil
}
