// Package pulled reads a folder written by `mcpres oci pull`: the attested
// bundles downloaded from an image's referrers and the index beside them
// (oci-pull.jsonl) that records, for each, the image it was attached to,
// that image's manifest digest and the bundle's own digest. A verifier
// that is given such a folder offline binds each bundle to the image
// digest the index records, exactly as `attest verify --oci` binds the
// bundles it downloads, and refuses a folder whose files and index
// disagree (a bundle added, removed or changed since the pull).
//
// Beside a bundle FILE the pull writes the Sigstore bundles its artifact
// carried (keyless signatures: FILE.sigstore.json, FILE.sigstore.2.json,
// …, sigstore.MaterialName), listed in the index with their digests and
// sizes; they are checked like the bundles. (This package links only
// canonjson: the names are attest/sigstore.MaterialName's, which a test
// keeps equal.)
//
// It links no network: the registry half is package oci, which writes the
// index ([IndexName], [SchemaVersion]).
package pulled

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/material"
)

const (
	// IndexName is the index `mcpres oci pull` writes beside the
	// bundles: JSON Lines, one line per referrer, so that a verifier that
	// reads a folder's *.json files reads only the bundles.
	IndexName = "oci-pull.jsonl"
	// SchemaVersion is the schemaVersion of every line of the index.
	SchemaVersion = "mcpres.oci-pull/v1"
	// MaxEntries bounds the lines of an index read (oci pull writes one
	// per referrer it examined, far fewer).
	MaxEntries = 10_000
	// MaxSigstoreBytes bounds a Sigstore bundle pulled beside a bundle
	// (1 MiB, as attest verify bounds a Sigstore bundle file).
	MaxSigstoreBytes = 1 << 20
	// MaxSigstore bounds the Sigstore bundles of one bundle: one per
	// keyless envelope (attest/sigstore.MaxMaterial, attest.MaxEnvelopes).
	MaxSigstore = 8
)

// An Entry is one line of the index: a referrer of the image and the
// bundle file it was pulled to, or why it was not pulled.
type Entry struct {
	// Referrer is the referrer manifest's digest (sha256:HEX).
	Referrer string
	// File is the bundle's file name in the folder ("" when Err).
	File string
	// BundleDigest and Size are the bundle's, as the registry's
	// descriptor gave them and the pull checked.
	BundleDigest string
	Size         int64
	// Err is why the referrer was not pulled, as the pull recorded it.
	Err string
	// Sigstore are the Sigstore bundles the referrer carried, pulled
	// beside the bundle (the index's optional member "sigstore"; none in
	// an index written before they were carried): the keyless material
	// of this referrer's bundle, to be given to attest verify with it.
	// [Folder.Sigstore] reads them, checked.
	Sigstore []Material
}

// A Material is a Sigstore bundle pulled beside a bundle: its file name
// (attest/sigstore.MaterialName of the bundle's file), digest and size as the
// registry's descriptor gave them and the pull checked.
type Material struct {
	File   string
	Digest string
	Size   int64
}

// A Folder is a pulled folder whose files agree with its index.
type Folder struct {
	Dir string
	// Image is the image reference the pull was given, Repository its
	// registry and repository, SubjectDigest its manifest digest: what
	// every bundle must be about.
	Image, Repository, SubjectDigest string
	Entries                          []Entry
}

// IsFolder reports whether dir is a folder written by oci pull: it holds
// an index (a regular file or not: Read says what is wrong with it).
func IsFolder(dir string) bool {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	_, err = os.Lstat(filepath.Join(dir, IndexName))
	return err == nil
}

// A FolderError says why a pulled folder cannot be verified.
type FolderError struct {
	Dir    string
	Reason string
}

func (e *FolderError) Error() string {
	return "pulled folder " + e.Dir + ": " + e.Reason
}

// Read reads the index of dir and checks that the folder holds exactly
// the bundles it lists, each with the digest and size recorded: a *.json
// file the index does not list (added since the pull), a listed file that
// is missing or has other bytes, an index line that is not the pull's
// (another schema, another image or subject digest than the first line,
// a file name that is not the bundle's digest) are each a *FolderError.
// The Sigstore bundles listed with a bundle are checked the same way (a
// material file missing, changed or not listed refuses the folder); each
// must be named FILE.sigstore.json or FILE.sigstore.N.json (N from 2 to
// MaxSigstore) after its bundle FILE, as attest verify reads them, and
// one name listed twice must have the same digest and size.
func Read(dir string) (*Folder, error) {
	fail := func(format string, args ...any) (*Folder, error) {
		return nil, &FolderError{Dir: dir, Reason: fmt.Sprintf(format, args...)}
	}
	data, err := canonjson.ReadFileBytes(filepath.Join(dir, IndexName))
	if err != nil {
		return fail("index: %v", err)
	}
	f := &Folder{Dir: dir}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(data) == 0 {
		return fail("index %s is empty", IndexName)
	}
	if len(lines) > MaxEntries {
		return fail("index has %d lines, more than %d", len(lines), MaxEntries)
	}
	files := map[string]int{}
	material := map[string]Material{}
	for i, line := range lines {
		at := fmt.Sprintf("index line %d", i+1)
		v, err := canonjson.Parse(line)
		if err != nil {
			return fail("%s: %v", at, err)
		}
		str := func(k string) (string, bool) {
			if m := v.Get(k); m.Is(canonjson.String) {
				return m.Str, true
			}
			return "", false
		}
		sv, _ := str("schemaVersion")
		if !v.Is(canonjson.Object) || sv != SchemaVersion {
			return fail("%s is not a line of %s (schemaVersion %s)", at, IndexName, SchemaVersion)
		}
		img, ok1 := str("image")
		repo, ok2 := str("repository")
		subject, ok3 := str("subjectDigest")
		ref, ok4 := str("referrer")
		if !ok1 || !ok2 || !ok3 || !ok4 || !isDigest(subject) || !isDigest(ref) {
			return fail("%s: image, repository, subjectDigest and referrer (sha256:HEX) are required", at)
		}
		if i == 0 {
			f.Image, f.Repository, f.SubjectDigest = img, repo, subject
		} else if img != f.Image || repo != f.Repository || subject != f.SubjectDigest {
			return fail("%s is about %s (%s), line 1 about %s (%s): one pull is one image", at, img, subject, f.Image, f.SubjectDigest)
		}
		e := Entry{Referrer: ref}
		if msg, ok := str("error"); ok {
			e.Err = msg
			if v.Has("file") || v.Has("sigstore") {
				return fail("%s: a referrer that was not pulled has no file", at)
			}
			f.Entries = append(f.Entries, e)
			continue
		}
		e.File, _ = str("file")
		e.BundleDigest, _ = str("bundleDigest")
		size := v.Get("size")
		if !size.Is(canonjson.Int) || size.Int < 0 || !isDigest(e.BundleDigest) {
			return fail("%s: bundleDigest (sha256:HEX), size (a byte count) and file are required", at)
		}
		e.Size = size.Int
		if e.File != strings.TrimPrefix(e.BundleDigest, "sha256:")+".attested.json" {
			return fail("%s: file %q is not the name oci pull gives the bundle %s", at, e.File, e.BundleDigest)
		}
		if _, dup := files[e.File]; !dup {
			files[e.File] = len(f.Entries)
		}
		if e.Sigstore, err = materialsAt(v.Get("sigstore"), e.File); err != nil {
			return fail("%s: %v", at, err)
		}
		for _, m := range e.Sigstore {
			if old, dup := material[m.File]; dup && old != m {
				return fail("%s: %s is listed with another digest or size on an earlier line", at, m.File)
			}
			material[m.File] = m
		}
		f.Entries = append(f.Entries, e)
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		return fail("%v", err)
	}
	for _, d := range names {
		if d.Name() == IndexName || !strings.HasSuffix(d.Name(), ".json") {
			continue
		}
		_, isBundle := files[d.Name()]
		_, isMaterial := material[d.Name()]
		if !isBundle && !isMaterial {
			return fail("%s is not in the index: added since the pull (verify it on its own, or pull again)", d.Name())
		}
	}
	for _, i := range files {
		if _, err := f.Bundle(i); err != nil {
			return nil, err
		}
	}
	for _, m := range material {
		if _, err := f.read(m.File, m.Digest, m.Size); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// materialsAt reads the optional "sigstore" member of an index line: an
// array of 1 to MaxSigstore objects with file
// (MaterialName(bundleFile, n)), digest (sha256:HEX) and size
// (1 to MaxSigstoreBytes), no file twice; nil when absent.
func materialsAt(v *canonjson.Value, bundleFile string) ([]Material, error) {
	if v == nil {
		return nil, nil
	}
	if !v.Is(canonjson.Array) || len(v.Items) < 1 || len(v.Items) > MaxSigstore {
		return nil, fmt.Errorf("sigstore must be an array of 1 to %d Sigstore bundles", MaxSigstore)
	}
	ms := make([]Material, len(v.Items))
	for i, it := range v.Items {
		file, digest, size := it.Get("file"), it.Get("digest"), it.Get("size")
		if !it.Is(canonjson.Object) || !file.Is(canonjson.String) || !digest.Is(canonjson.String) || !isDigest(digest.Str) ||
			!size.Is(canonjson.Int) || size.Int < 1 || size.Int > MaxSigstoreBytes {
			return nil, fmt.Errorf("sigstore[%d]: file, digest (sha256:HEX) and size (1 to %d bytes) are required", i, MaxSigstoreBytes)
		}
		if !isMaterialOf(file.Str, bundleFile) {
			return nil, fmt.Errorf("sigstore[%d]: file %q is not the name of a Sigstore bundle of %s (%s, %s, …)", i, file.Str, bundleFile,
				MaterialName(bundleFile, 1), MaterialName(bundleFile, 2))
		}
		for _, m := range ms[:i] {
			if m.File == file.Str {
				return nil, fmt.Errorf("sigstore[%d]: %s is listed twice", i, file.Str)
			}
		}
		ms[i] = Material{File: file.Str, Digest: digest.Str, Size: size.Int}
	}
	return ms, nil
}

// isMaterialOf reports whether name is MaterialName(bundleFile, n) for
// some n from 1 to MaxSigstore.
func isMaterialOf(name, bundleFile string) bool {
	for n := 1; n <= MaxSigstore; n++ {
		if name == MaterialName(bundleFile, n) {
			return true
		}
	}
	return false
}

// MaterialName is the name of the nth (from 1) Sigstore bundle pulled
// beside the bundle file: FILE.sigstore.json, then FILE.sigstore.N.json
// (internal/material, the rule attest/sigstore.MaterialName re-exports).
func MaterialName(file string, n int) string { return material.Name(file, n) }

// Bundle reads the bundle of entry i and checks it against the index
// (the same size and SHA-256): a file changed or removed since the pull is
// a *FolderError.
func (f *Folder) Bundle(i int) ([]byte, error) {
	e := f.Entries[i]
	if e.Err != "" {
		return nil, errors.New(e.Err)
	}
	return f.read(e.File, e.BundleDigest, e.Size)
}

// Sigstore reads the Sigstore bundles pulled with the bundle of entry i
// (Entry.Sigstore, in order; none for a referrer that carried none) and
// checks each against the index (the same size and SHA-256): a file
// changed or removed since the pull is a *FolderError. They are the
// keyless material to verify that bundle with.
func (f *Folder) Sigstore(i int) ([][]byte, error) {
	e := f.Entries[i]
	if e.Err != "" {
		return nil, errors.New(e.Err)
	}
	out := make([][]byte, 0, len(e.Sigstore))
	for _, m := range e.Sigstore {
		data, err := f.read(m.File, m.Digest, m.Size)
		if err != nil {
			return nil, err
		}
		out = append(out, data)
	}
	return out, nil
}

// read reads the folder's file name and checks it has the size and
// digest recorded in the index.
func (f *Folder) read(name, digest string, size int64) ([]byte, error) {
	data, err := canonjson.ReadFileBytes(filepath.Join(f.Dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &FolderError{Dir: f.Dir, Reason: name + " is in the index and not in the folder: removed since the pull"}
	}
	if err != nil {
		return nil, &FolderError{Dir: f.Dir, Reason: err.Error()}
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != digest || int64(len(data)) != size {
		return nil, &FolderError{Dir: f.Dir, Reason: fmt.Sprintf("%s has changed since the pull: %d bytes, %s; the index records %d bytes, %s", name, len(data), got, size, digest)}
	}
	return data, nil
}

// Name is how entry i is named in results: the image's repository and
// the referrer's digest, as attest verify --oci names it.
func (f *Folder) Name(i int) string {
	return f.Repository + "@" + f.Entries[i].Referrer
}

func isDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	return ok && len(h) == 64 && !slices.ContainsFunc([]byte(h), func(c byte) bool { return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') })
}
