package aws

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodConfig = `{"endpoint": "http://127.0.0.1:9000", "region": "us-east-1", "bucket": "mcpres-log", "pathStyle": true, "database": "env:MCPRES_LOG_DSN"}`

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte(goodConfig))
	if err != nil {
		t.Fatalf("honest config: %v", err)
	}
	if c.Bucket != "mcpres-log" || !c.PathStyle || c.Endpoint != "http://127.0.0.1:9000" {
		t.Fatalf("parsed %+v", c)
	}
	for _, ok := range []string{
		`{"region": "eu-west-1", "bucket": "log.example.org", "database": "u:p@tcp(db:3306)/log"}`,
		`{"endpoint": "https://s3.example.org", "region": "us-east-1", "bucket": "abc", "database": "env:X"}`,
		`{"endpoint": "http://[::1]:9000/", "region": "us-east-1", "bucket": "abc", "database": "env:X"}`,
		`{"endpoint": "http://s3.internal:9000", "allowInsecureHTTP": true, "region": "us-east-1", "bucket": "abc", "database": "env:X"}`,
		`{"endpoint": "http://localhost:9000", "region": "us-east-1", "bucket": "abc", "database": "env:X"}`,
		`{"region": "us-east-1", "bucket": "xn-abc-s3", "database": "env:X"}`,
	} {
		if _, err := ParseConfig([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, tc := range []struct{ doc, want string }{
		{`{"endpoint": "http://s3.example.org", "region": "us-east-1", "bucket": "abc", "database": "env:X"}`, "plain http only to a loopback host"},
		{`{"endpoint": "https://key:secret@s3.example.org", "region": "us-east-1", "bucket": "abc", "database": "env:X"}`, "credentials are never in the endpoint"},
		{`{"endpoint": "ftp://s3.example.org", "region": "us-east-1", "bucket": "abc", "database": "env:X"}`, "the scheme is https"},
		{`{"endpoint": "https://s3.example.org/path", "region": "us-east-1", "bucket": "abc", "database": "env:X"}`, "no path, query or fragment"},
		{`{"region": "us-east-1", "bucket": "Upper", "database": "env:X"}`, "lowercase letters"},
		{`{"region": "us-east-1", "bucket": "ab", "database": "env:X"}`, "3 to 63"},
		{`{"region": "us-east-1", "bucket": "a..b", "database": "env:X"}`, "adjacent dots"},
		{`{"region": "us-east-1", "bucket": "192.168.1.1", "database": "env:X"}`, "IP address"},
		{`{"region": "us-east-1", "bucket": "-abc", "database": "env:X"}`, "starts and ends"},
		{`{"region": "", "bucket": "abc", "database": "env:X"}`, "region"},
		{`{"region": "us-east-1", "bucket": "abc"}`, "database"},
		{`{"region": "us-east-1", "bucket": "abc", "database": "u:p@tcp(db:3306)/"}`, "names no database"},
		{`{"region": "us-east-1", "bucket": "abc", "database": "env:X", "secretAccessKey": "s"}`, "credentials are never in the configuration"},
		{`{"region": "us-east-1", "bucket": "abc", "database": "env:X", "prefix": "p"}`, "prefix"},
		{`{"region": "us-east-1", "bucket": "abc", "bucket": "abd", "database": "env:X"}`, "duplicate"},
		{`[]`, "s3 config"},
		{`{"region": "us-east-1", "bucket": "xn--abc", "database": "env:X"}`, "the prefix xn-- and the suffixes -s3alias and --ol-s3 are reserved"},
		{`{"region": "us-east-1", "bucket": "abc-s3alias", "database": "env:X"}`, "the prefix xn-- and the suffixes -s3alias and --ol-s3 are reserved"},
		{`{"endpoint": "http://s3.example.org:port", "region": "us-east-1", "bucket": "abc", "database": "env:X"}`, "s3 config: endpoint: not a URL"},
		{`{"region": "us-east-1", "bucket": "abc", "database": "u:p@tcp(db:3306/log"}`, "s3 config: database: invalid DSN"},
		{`{"region": "us-east-1", "bucket": "abc", "database": "env:X"}` + strings.Repeat(" ", MaxConfigSize), "more than"},
	} {
		_, err := ParseConfig([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.doc, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") && !strings.Contains(tc.doc, "secretAccessKey") {
			t.Errorf("%s: the error repeats a credential: %v", tc.doc, err)
		}
	}
}

// ReadConfig reads a regular file and names it in a parse error; a path
// that is missing or not a regular file is refused before it is read.
func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "s3.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, []byte(goodConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"region": "us-east-1", "bucket": "ab", "database": "env:X"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := ReadConfig(good); err != nil || c.Bucket != "mcpres-log" {
		t.Fatalf("honest config: %+v, %v", c, err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.json"), "s3 config: stat " + filepath.Join(dir, "missing.json") + ": no such file"},
		{dir, "s3 config " + dir + ": not a regular file"},
		{bad, bad + ": s3 config: bucket \"ab\": a bucket name has 3 to 63 characters"},
	} {
		if _, err := ReadConfig(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadConfig(%s): %v, want an error with %q", tc.path, err, tc.want)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(goodConfig))
	f.Add([]byte(`{"region": "us-east-1", "bucket": "a..b", "database": "env:X"}`))
	f.Add([]byte(`{"endpoint": "https://k:s@h", "region": "r", "bucket": "abc", "database": "u:p@tcp(h:1)/d"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed but invalid: %v", err)
		}
		if ValidateBucket(c.Bucket) != nil {
			t.Fatal("bucket accepted twice differently")
		}
	})
}
