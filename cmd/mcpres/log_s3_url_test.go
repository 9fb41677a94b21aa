//go:build mcpres_s3

package main

import (
	"bytes"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/tlog/aws/awstest"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// serveDir serves dir with a plain static file server on 127.0.0.1 (no
// mcpres code), stopped when the test ends, and returns its URL.
func serveDir(t *testing.T, dir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir))}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// TestCLILogAddS3: 'log add --s3' appends to a log on object storage with
// no server, beside a running 'log serve --s3' of the same log: a bundle
// the frontend logged is answered with its entry ("already logged"), a
// new one gets the next entry, and the frontend then answers that bundle
// with that entry (one database deduplicates for both). Refusals: --s3
// with --dir, another log's key.
func TestCLILogAddS3(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	srv := awstest.Start(t)
	srv.SetEnv(t)
	bin := buildBinary(t)
	e := newLogEnv(t)
	conf, _ := writeS3Config(t, e, srv, dsn, "s3.json")
	e.run("log", "init", "--s3", conf, "--key", e.p("log.key"))
	b1, b2 := exampleBundleFile(t, e.dir), variantBundleFile(t, e.dir)
	fe := startServe(t, bin, "--s3", conf, "--key", e.p("log.key"))
	e.run("log", "add", "--server", fe.url, "--log-key", e.p("log.vkey"), b1, "-o", e.p("srv1.ref.json"))
	_, stderr := e.run("log", "add", "--s3", conf, "--key", e.p("log.key"), b1, "-o", e.p("local1.ref.json"))
	if !strings.Contains(stderr, "already logged as entry 0") {
		t.Fatalf("log add --s3 of a bundle the frontend logged: %s", stderr)
	}
	_, stderr = e.run("log", "add", "--s3", conf, "--key", e.p("log.key"), b2, "-o", e.p("local2.ref.json"))
	if !strings.Contains(stderr, "logged as entry 1 ") {
		t.Fatalf("log add --s3 of a new bundle: %s", stderr)
	}
	checkReference(t, e.p("local2.ref.json"), b2, e.vkey("log"), 1, 2)
	_, stderr = e.run("log", "add", "--server", fe.url, "--log-key", e.p("log.vkey"), b2, "-o", e.p("srv2.ref.json"))
	if !strings.Contains(stderr, "already logged as entry 1") {
		t.Fatalf("the frontend, for the bundle log add --s3 logged: %s", stderr)
	}
	e.fail(exitInput, "give one of --dir (a local log), --s3 (a log on object storage) and --server", "log", "add", "--s3", conf, "--dir", e.p("d"), "--key", e.p("log.key"), b2, "-o", e.p("x.json"))
	e.fail(exitInput, "is not the key of the log", "log", "add", "--s3", conf, "--key", e.p("other-log.key"), b2, "-o", e.p("x.json"))
}

// TestCLILogProofURLS3: readers read a log on object storage from the
// bucket's public URL, with no 'log serve' and no database: 'log proof
// --url' gives byte for byte the reference 'log proof --s3' gives, which
// verifies offline, from the gateway's anonymous reads and from a plain
// static file server over the bucket's folder; 'log monitor' verifies
// the log's growth from the same URL. Controls: the bucket before it is
// made public (anonymous reads refused: the reader sends no credential),
// another log's key, and the usage errors of --url.
func TestCLILogProofURLS3(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	srv := awstest.Start(t)
	srv.SetEnv(t)
	e := newLogEnv(t)
	conf, cfg := writeS3Config(t, e, srv, dsn, "s3.json")
	e.run("log", "init", "--s3", conf, "--key", e.p("log.key"))
	b1, b2 := exampleBundleFile(t, e.dir), variantBundleFile(t, e.dir)
	e.run("log", "add", "--s3", conf, "--key", e.p("log.key"), b1, "-o", e.p("b1.ref.json"))
	e.run("log", "add", "--s3", conf, "--key", e.p("log.key"), b2, "-o", e.p("b2.ref.json"))
	private := srv.Endpoint + "/" + cfg.Bucket + "/"
	stderr := e.fail(exitInput, "403 Forbidden", "log", "proof", "--url", private, "--log-key", e.p("log.vkey"), "--index", "0")
	if strings.Contains(stderr, awstest.SecretKey) {
		t.Fatalf("a credential printed: %s", stderr)
	}
	public := srv.PublicRead(t, cfg.Bucket)
	static := serveDir(t, filepath.Join(srv.Dir, cfg.Bucket))
	want, _ := e.run("log", "proof", "--s3", conf, "--index", "0")
	for _, u := range []string{public, static} {
		got, stderr := e.run("log", "proof", "--url", u, "--log-key", e.p("log.vkey"), "--index", "0", "-o", e.p("url.ref.json"), "--force")
		if ref := mustRead(t, e.p("url.ref.json")); !bytes.Equal(ref, []byte(want)) {
			t.Fatalf("log proof --url %s: %s%s\n%s\nwant %s", u, got, stderr, ref, want)
		}
		checkReference(t, e.p("url.ref.json"), b1, e.vkey("log"), 0, 2)
		e.fail(exitInput, "published checkpoint", "log", "proof", "--url", u, "--log-key", e.p("other-log.vkey"), "--index", "0")
	}

	// The monitor follows the log from the public URL.
	monitor := []string{"log", "monitor", "--once", "--log", public, "--log-key", e.p("log.vkey"), "--state", e.p("state")}
	_, stderr = e.run(monitor...)
	if !strings.Contains(stderr, "verified tree size 2") {
		t.Fatalf("log monitor --log %s: %s", public, stderr)
	}
	e.run("log", "add", "--s3", conf, "--key", e.p("log.key"), osVariantBundleFile(t, e.dir, "netbsd"), "-o", e.p("b3.ref.json"))
	_, stderr = e.run(monitor...)
	if !strings.Contains(stderr, "verified tree size 3") {
		t.Fatalf("log monitor --log %s after an entry: %s", public, stderr)
	}

	e.fail(exitInput, "--log-key is required with --url", "log", "proof", "--url", public, "--index", "0")
	e.fail(exitInput, "give one of --dir, --s3, --mysql and --url", "log", "proof", "--url", public, "--s3", conf, "--log-key", e.p("log.vkey"), "--index", "0")
	e.fail(exitInput, "--witness-policy cannot go with --url", "log", "proof", "--url", public, "--log-key", e.p("log.vkey"), "--witness-policy", e.p("wp.txt"), "--index", "0")
	e.fail(exitInput, "--url", "log", "proof", "--url", "ftp://127.0.0.1/", "--log-key", e.p("log.vkey"), "--index", "0")
}
