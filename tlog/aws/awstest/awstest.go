// Package awstest gives tests a real S3-compatible server on 127.0.0.1:
// Versity's S3 gateway (github.com/versity/versitygw, v1.8.0) serving a
// POSIX folder in the test's temporary directory, with test-only
// credentials. It was chosen because it enforces conditional writes
// (If-None-Match: *) under concurrency, which Tessera's AWS driver relies
// on (tlog/aws probes it). The program is found on PATH, in $GOBIN or in
// $GOPATH/bin (`go install` puts it there; .ci/run does); tests skip with a
// message naming the install command when it is absent.
package awstest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"

	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Module is what `go install` takes to provide the server.
const Module = "github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// Test-only credentials of every server started here.
const (
	AccessKey = "mcpres-test-access"
	SecretKey = "mcpres-test-only-secret"
	Region    = "us-east-1"
)

// A Server is a running S3-compatible server.
type Server struct {
	// Endpoint is http://127.0.0.1:PORT.
	Endpoint string
	// Dir is the folder it serves (a bucket is a folder in it).
	Dir string
}

// Start starts the gateway on 127.0.0.1 serving a folder in the test's
// temporary directory, stopped when the test ends. It skips the test when
// the program is absent.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, ok := find("versitygw")
	if !ok {
		t.Skipf("versitygw is not on PATH nor in $GOBIN or $GOPATH/bin: `go install %s` provides it (.ci/run installs it)", Module)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var out bytes.Buffer
	cmd := exec.Command(bin, "--port", addr, "posix", data)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+AccessKey, "ROOT_SECRET_KEY="+SecretKey)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	s := &Server{Endpoint: "http://" + addr, Dir: data}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return s
		}
		select {
		case <-done:
			t.Fatalf("%s exited before serving:\n%s", bin, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer on %s within 30 s:\n%s", bin, addr, out.String())
		}
	}
}

// Client is an S3 client of the server with its credentials (path-style
// addressing).
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: sdkaws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
}

// Bucket creates a bucket with a random name and returns its name.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "mcpres-test-" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: sdkaws.String(name)}); err != nil {
		t.Fatalf("creating bucket %s: %v", name, err)
	}
	return name
}

// Env is the environment that gives a process the server's credentials
// through the standard AWS variables.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey, "AWS_REGION=" + Region}
}

// SetEnv sets Env in the test's environment (t.Setenv).
func (s *Server) SetEnv(t *testing.T) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	t.Setenv("AWS_REGION", Region)
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
}

// find is the path of program name: on PATH, in $GOBIN, or in
// $GOPATH/bin.
func find(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, d := range filepath.SplitList(gopath) {
		if d != "" {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// PublicRead lets anyone read the objects of bucket without credentials
// (a bucket policy granting s3:GetObject to every principal, as a public
// log's bucket has), and returns the bucket's public URL in path style:
// ENDPOINT/BUCKET/, below which the log's checkpoint and tiles are.
func (s *Server) PublicRead(t testing.TB, bucket string) string {
	t.Helper()
	policy := `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::` + bucket + `/*"}]}`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Client().PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: sdkaws.String(bucket), Policy: sdkaws.String(policy)}); err != nil {
		t.Fatalf("making bucket %s publicly readable: %v", bucket, err)
	}
	return s.Endpoint + "/" + bucket + "/"
}
