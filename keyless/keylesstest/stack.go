package keylesstest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcpres/mcpres/internal/filelock"
)

// The programs Stack starts and the go install commands that provide them
// (.ci/run installs both).
const (
	FulcioModule = "github.com/sigstore/fulcio@v1.8.8"
	TSAModule    = "github.com/sigstore/timestamp-authority/v2/cmd/timestamp-server@v2.1.3"
)

// Stack is a Fulcio (ephemeral CA, no CT log) trusting the Issuer's two
// issuers, and a sigstore timestamp-authority (in-memory signer), each a
// process on 127.0.0.1 stopped when the test ends.
type Stack struct {
	*Issuer
	// FulcioURL is Fulcio's base URL; TSAURL the authority's RFC 3161
	// endpoint (…/api/v1/timestamp).
	FulcioURL, TSAURL string
}

// NewStack starts an Issuer, Fulcio and the timestamp authority. It skips
// the test when fulcio or timestamp-server is not installed.
//
// Both programs open a Prometheus listener on every interface that
// cannot be moved to loopback (timestamp-server's on port 2112 always),
// so stacks run one at a time on a machine: NewStack holds a lock file in
// the temporary directory until the test ends.
func NewStack(t testing.TB) *Stack {
	t.Helper()
	fulcio := tool(t, "fulcio", FulcioModule)
	tsa := tool(t, "timestamp-server", TSAModule)
	lock, err := filelock.Acquire(filepath.Join(os.TempDir(), "mcpres-keylesstest.lock"), 10*time.Minute)
	if err != nil {
		t.Fatalf("waiting for another keyless test stack: %v", err)
	}
	t.Cleanup(func() { lock.Release() })
	iss := NewIssuer(t)
	dir := t.TempDir()
	cfg := map[string]any{"OIDCIssuers": map[string]any{
		iss.EmailIssuer:  map[string]string{"IssuerURL": iss.EmailIssuer, "ClientID": "sigstore", "Type": "email"},
		iss.GitHubIssuer: map[string]string{"IssuerURL": iss.GitHubIssuer, "ClientID": "sigstore", "Type": "github-workflow"},
	}}
	cfgPath := filepath.Join(dir, "fulcio.json")
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	httpPort, grpcPort, metricsPort := freePort(t), freePort(t), freePort(t)
	// Fulcio v1.8.8's single-port mode (HTTP and gRPC on one port) crashes
	// at start: gRPC gets its own loopback port and a socket of its own.
	start(t, dir, "fulcio", fulcio, nil,
		"serve", "--ca", "ephemeralca", "--ct-log-url", "", "--config-path", cfgPath,
		"--host", "127.0.0.1", "--port", httpPort,
		"--grpc-host", "127.0.0.1", "--grpc-port", grpcPort,
		"--metrics-port", metricsPort,
		"--legacy-unix-domain-socket", filepath.Join(dir, "fulcio-legacy.sock"))
	s := &Stack{Issuer: iss, FulcioURL: "http://127.0.0.1:" + httpPort}
	waitReady(t, s.FulcioURL+"/api/v2/trustBundle", filepath.Join(dir, "fulcio.log"))
	tsaPort := freePort(t)
	// timestamp-server reads HOST and PORT from the environment over its
	// flags: set both.
	start(t, dir, "timestamp-server", tsa, []string{"HOST=127.0.0.1", "PORT=" + tsaPort},
		"serve", "--host", "127.0.0.1", "--port", tsaPort, "--timestamp-signer", "memory", "--disable-ntp-monitoring")
	s.TSAURL = "http://127.0.0.1:" + tsaPort + "/api/v1/timestamp"
	waitReady(t, s.TSAURL+"/certchain", filepath.Join(dir, "timestamp-server.log"))
	return s
}

func start(t testing.TB, dir, name, bin string, env []string, args ...string) {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		logf.Close()
	})
}

// waitReady polls url until it answers 200, failing the test with the
// program's log after a minute.
func waitReady(t testing.TB, url, logPath string) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	logData, _ := os.ReadFile(logPath)
	t.Fatalf("%s did not answer 200 within a minute; its log:\n%s", url, logData)
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// tool finds name on PATH, in $GOBIN or in $GOPATH/bin (default ~/go/bin)
// or skips the test naming the go install command.
func tool(t testing.TB, name, module string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, d := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	t.Skipf("%s is not on PATH nor in $GOBIN or $GOPATH/bin: `go install %s` provides it (.ci/run installs it)", name, module)
	return ""
}
