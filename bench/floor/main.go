// Command floor is the floor of batch verification: on the *.json files of
// a directory, on all cores, only the work that verifying them cannot
// avoid. Per file: open and read it as mcpres's strict reader does (a
// non-regular file refused), scan its syntax once (encoding/json.Valid),
// hash it four times with SHA-256 and verify two Ed25519 signatures. The
// signatures are those of the first file's first two DSSE envelopes,
// prepared once (the bench gives it copies of one bundle), so the floor
// pays neither base64 nor a parse per file.
//
//	floor DIR
//
// It prints the number of files checked. It links only the standard
// library: its start-up is Go's own.
package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// maxInput is the strict reader's input limit (canonjson.MaxInputBytes).
const maxInput = 16 << 20

type signature struct {
	pub      ed25519.PublicKey
	pae, sig []byte
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor DIR")
		os.Exit(2)
	}
	n, err := run(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Println(n)
}

func run(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(paths)
	if len(paths) == 0 {
		return 0, fmt.Errorf("%s holds no .json files", dir)
	}
	first, err := readFile(paths[0])
	if err != nil {
		return 0, err
	}
	sigs, err := signatures(first)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", paths[0], err)
	}
	jobs := make(chan string)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for p := range jobs {
				if err := check(p, sigs); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for _, p := range paths {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return len(paths), nil
}

func check(path string, sigs []signature) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	if !json.Valid(data) {
		return fmt.Errorf("%s: not JSON", path)
	}
	for range 4 {
		sha256.Sum256(data)
	}
	for _, s := range sigs {
		if !ed25519.Verify(s.pub, s.pae, s.sig) {
			return fmt.Errorf("%s: signature does not verify", path)
		}
	}
	return nil
}

// readFile reads path as mcpres's strict reader does on Linux
// (canonjson's fast path): open without following a final symbolic link
// and without blocking on a FIFO, refuse what fstat says is not a regular
// file, read at most maxInput+1 bytes, close. Raw system calls, so the
// floor pays no more for a file than mcpres does.
func readFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	data := make([]byte, 0, min(max(st.Size, 0), maxInput)+1)
	for len(data) <= maxInput {
		if len(data) == cap(data) {
			data = slices.Grow(data, 4096)
		}
		n, err := syscall.Read(fd, data[len(data):min(cap(data), maxInput+1)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break
		}
		data = data[:len(data)+n]
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxInput)
	}
	return data, nil
}

// signatures extracts the first two envelopes' signature checks (public
// key, DSSE pre-authentication encoding, signature) of an attested bundle
// and checks that they verify.
func signatures(src []byte) ([]signature, error) {
	var doc struct {
		Authenticity struct {
			Envelopes []struct {
				Payload     string `json:"payload"`
				PayloadType string `json:"payloadType"`
				Signatures  []struct {
					Key string `json:"publicKeySpkiBase64"`
					Sig string `json:"sig"`
				} `json:"signatures"`
			} `json:"envelopes"`
		} `json:"authenticity"`
	}
	if err := json.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	var out []signature
	for _, env := range doc.Authenticity.Envelopes {
		if len(env.Signatures) == 0 {
			continue
		}
		payload, err := base64.StdEncoding.DecodeString(env.Payload)
		if err != nil {
			return nil, err
		}
		der, err := base64.StdEncoding.DecodeString(env.Signatures[0].Key)
		if err != nil {
			return nil, err
		}
		key, err := x509.ParsePKIXPublicKey(der)
		if err != nil {
			return nil, err
		}
		pub, ok := key.(ed25519.PublicKey)
		if !ok {
			return nil, errors.New("not an Ed25519 key")
		}
		sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
		if err != nil {
			return nil, err
		}
		typ := env.PayloadType
		pae := []byte("DSSEv1 " + strconv.Itoa(len(typ)) + " " + typ + " " + strconv.Itoa(len(payload)) + " " + string(payload))
		if !ed25519.Verify(pub, pae, sig) {
			return nil, errors.New("an envelope's signature does not verify")
		}
		out = append(out, signature{pub: pub, pae: pae, sig: sig})
		if len(out) == 2 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%d signed envelopes, want 2", len(out))
}
