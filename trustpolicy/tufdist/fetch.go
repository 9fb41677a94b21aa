package tufdist

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/fetcher"
)

// dirBase is the URL that stands for a local repository directory in the
// updater's configuration. go-tuf builds every file's "URL" by appending to
// it; dirFetcher strips it again, so the real directory path never has to
// survive URL parsing.
const dirBase = "file:///tufdist-repository"

// dirFetcher implements go-tuf's fetcher.Fetcher for a repository in a
// local directory: no network, and no file outside the directory is ever
// opened (os.Root refuses ".." and symbolic links that leave it).
type dirFetcher struct {
	root *os.Root
	dir  string // for messages
}

// DownloadFile reads the repository file that urlPath names. A missing file
// is reported as an HTTP 404 (*metadata.ErrDownloadHTTP), which is how the
// updater learns that no newer root version exists; a file larger than
// maxLength fails with *metadata.ErrDownloadLengthMismatch before it is
// read.
func (f *dirFetcher) DownloadFile(urlPath string, maxLength int64, _ time.Duration) ([]byte, error) {
	rel, ok := strings.CutPrefix(urlPath, dirBase+"/")
	if !ok || !fs.ValidPath(rel) {
		return nil, &metadata.ErrDownload{Msg: fmt.Sprintf("%q is not a file of the repository directory", urlPath)}
	}
	file, err := regularfile.OpenIn(f.root, rel) // never blocks on a FIFO
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &metadata.ErrDownloadHTTP{StatusCode: http.StatusNotFound, URL: path.Join(f.dir, rel)}
	}
	var nr *regularfile.NotRegularError
	if errors.As(err, &nr) {
		return nil, &metadata.ErrDownload{Msg: fmt.Sprintf("%s is %s, not a regular file", path.Join(f.dir, rel), nr.Kind)}
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxLength {
		return nil, &metadata.ErrDownloadLengthMismatch{Msg: fmt.Sprintf("%s is %d bytes, more than the %d expected", path.Join(f.dir, rel), st.Size(), maxLength)}
	}
	data, err := io.ReadAll(io.LimitReader(file, maxLength+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxLength {
		return nil, &metadata.ErrDownloadLengthMismatch{Msg: fmt.Sprintf("%s grew past the %d bytes expected", path.Join(f.dir, rel), maxLength)}
	}
	return data, nil
}

// recorder wraps the fetcher the updater uses. It remembers which role the
// last download was for (go-tuf's errors do not always say), keeps the
// bytes of every root version downloaded (the updater verifies them in
// sequence, and those it accepted go into the cache's root history), and
// marks every fetcher error as a transport error.
type recorder struct {
	inner       fetcher.Fetcher
	metaBase    string // ends with "/"
	targetsBase string // ends with "/"
	lastRole    string
	lastData    []byte
	roots       map[int64][]byte
}

func (r *recorder) DownloadFile(urlPath string, maxLength int64, timeout time.Duration) ([]byte, error) {
	name := urlPath
	role := ""
	var rootVersion int64
	if rel, ok := strings.CutPrefix(urlPath, r.targetsBase); ok {
		name, role = "targets/"+rel, RoleTargetFile
	} else if rel, ok := strings.CutPrefix(urlPath, r.metaBase); ok {
		name = rel
		role, rootVersion = metadataRole(rel)
	}
	r.lastRole, r.lastData = role, nil
	data, err := r.inner.DownloadFile(urlPath, maxLength, timeout)
	if err != nil {
		return nil, &fetchError{name: name, err: err}
	}
	r.lastData = data
	if rootVersion > 0 {
		r.roots[rootVersion] = data
	}
	return data, nil
}

// metadataRole returns the role of a metadata file name ("timestamp.json",
// "3.snapshot.json", "2.root.json"...) and, for root, its version.
func metadataRole(name string) (string, int64) {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return "", 0
	}
	if v, role, ok := strings.Cut(base, "."); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err == nil && n > 0 {
			if role == RoleRoot {
				return role, n
			}
			return role, 0
		}
	}
	return base, 0
}
