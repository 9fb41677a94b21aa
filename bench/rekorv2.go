package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/tlog"
	tlogserver "github.com/mcpres/mcpres/tlog/server"
)

// The peer of log serve --dir (issue 37): Rekor v2, rekor-tiles' server
// on its POSIX backend, built by the bench from the module proxy at a
// pinned version (a program of the bench only: rekor-tiles is not in
// go.mod). rekorSum is the module's go.sum hash (sum.golang.org), checked
// in the built binary's build information with its path and version.
const (
	rekorModule  = "github.com/sigstore/rekor-tiles/v2"
	rekorVersion = "v2.3.0"
	rekorPkg     = rekorModule + "/cmd/rekor-server/posix"
	rekorSum     = "h1:HhMgH61UP0t899V8Fjt7pz1YdgOBptbaQdnCF+79cdc="
	// rekorToolchain builds rekor-tiles when this Go cannot (a newer
	// rekor-tiles needs Go 1.27; v2.3.0 builds with Go 1.26).
	rekorToolchain = "go1.27.3"
	// rekorOrigin is the checkpoint origin (--hostname) of the bench's
	// Rekor v2 logs.
	rekorOrigin = "bench.example/rekor-v2"
	// rekorGoal: log serve takes at least as many submissions a second
	// as Rekor v2, at a p99 no worse.
	rekorGoal = 1.0
	// rekorPoll is how often rekor-tiles v2.3.0 reads the checkpoint while
	// a submission waits for it (internal/tessera.NewStorage's publication
	// awaiter; no flag sets it).
	rekorPoll = time.Second
)

// rekorReady is the line rekor-server logs when its HTTP gateway listens.
var rekorReady = regexp.MustCompile(`msg="starting HTTP proxy" address=(127\.0\.0\.1:\d+)`)

// rekorTuning is the flags that set Rekor v2's batching and checkpoint
// interval to log serve's (tlog/server.AppenderOptions, tlog's
// checkpoint interval); Tessera's default pushback (4,096 entries in
// flight) is both servers'.
func rekorTuning() []string {
	o := tlogserver.AppenderOptions()
	return []string{"--batch-max-size", strconv.FormatUint(uint64(o.BatchSize), 10), "--batch-max-age", o.BatchMaxAge.String(),
		"--checkpoint-interval", tlog.CheckpointInterval.String()}
}

// logRekor: log serve --dir and Rekor v2 with the same load generator
// (mcpres-loadgen, --rekor-v2 for Rekor v2), clients and duration,
// interleaved, in one row. The server is built from the module proxy
// (cached in the user's cache directory, checked by its build
// information); --quick does not build it but takes a cached one, and a
// server that cannot be built is a row that says why.
func (b *bench) logRekor() error {
	workload := fmt.Sprintf("`mcpres log serve --dir` beside Rekor v2 (rekor-tiles %s `cmd/rekor-server/posix`), %d clients each, %v", rekorVersion, b.c.posixC, b.c.duration)
	bin, how, err := b.rekorServer()
	if err != nil {
		b.unavailable(workload, err.Error())
		return nil
	}
	b.bin["rekor-server"] = bin
	signer, err := b.rekorKey()
	if err != nil {
		return err
	}
	key, err := b.logKeys()
	if err != nil {
		return err
	}
	size, err := b.entrySize()
	if err != nil {
		return err
	}
	var serve, rekor []load
	loadMax := 0.0
	for n := range b.logRuns() {
		loadMax = max(loadMax, b.settledLoad())
		dir := b.path(fmt.Sprintf("rekor-mcpres-%d", n))
		if _, err := b.run("mcpres", []string{"log", "init", "--dir", dir, "--key", key}); err != nil {
			return err
		}
		l, err := b.serveLoad("mcpres", []string{"log", "serve", "--dir", dir, "--key", key, "--listen", "127.0.0.1:0"}, nil, b.c.posixC, posixPrepare)
		if err != nil {
			return fmt.Errorf("log serve: %v", err)
		}
		serve = append(serve, l)
		os.RemoveAll(dir)

		loadMax = max(loadMax, b.settledLoad())
		rdir := b.path(fmt.Sprintf("rekor-%d", n))
		l, err = b.rekorLoad(signer, rdir)
		if err != nil {
			return fmt.Errorf("rekor v2: %v", err)
		}
		rekor = append(rekor, l)
		os.RemoveAll(rdir)
	}
	bs, br := bestLoad(serve), bestLoad(rekor)
	ratio := bs.rate / br.rate
	verdict := "met"
	if ratio < rekorGoal || bs.p99 > br.p99 {
		verdict = "not met"
	}
	antispam := "in memory (its default)"
	if b.c.rekorAntispam {
		antispam = "persistent (`--persistent-antispam`, as log serve's deduplication index)"
	}
	b.row(fmt.Sprintf("%s (server %s), interleaved", workload, how),
		fmt.Sprintf("log serve, 16 KB bundles (entries of %d B): %s", size, loadText2(serve)),
		fmt.Sprintf("Rekor v2, hashedrekord v0.0.2 entries (ECDSA P-256, a distinct digest each, `mcpres-loadgen --rekor-v2`), set to log serve's batching and checkpoint interval (`%s`), antispam %s, Tessera's pushback (4,096) in both; it polls for its checkpoint every %v (fixed; log serve: %v): %s",
			strings.Join(rekorTuning(), " "), antispam, rekorPoll, tlog.PollInterval, loadText2(rekor)),
		fmt.Sprintf("**%.2f×** (best runs); p99 %s vs %s", ratio, seconds(bs.p99), seconds(br.p99)),
		fmt.Sprintf("≥ %.1f× at a p99 no worse (%s)", rekorGoal, verdict), loadMax)
	return nil
}

// unavailable prints a row that is no figure: the workload could not
// run, and why.
func (b *bench) unavailable(workload, why string) {
	fmt.Fprintf(b.log, "bench: rekor: %s\n", why)
	fmt.Fprintf(b.out, "| %s | unavailable: %s | – | – | – | – |\n", workload, strings.ReplaceAll(why, "|", "/"))
}

// rekorLoad starts Rekor v2 on a new log in dir, drives it with the load
// generator's Rekor v2 mode and stops it.
func (b *bench) rekorLoad(signer, dir string) (load, error) {
	ports, err := freePorts(2)
	if err != nil {
		return load{}, err
	}
	args := append([]string{"serve", "--hostname", rekorOrigin, "--storage-dir", dir, "--signer-filepath", signer,
		"--http-address", "127.0.0.1", "--http-port", strconv.Itoa(ports[0]),
		"--grpc-address", "127.0.0.1", "--grpc-port", strconv.Itoa(ports[1]),
		// the metrics listener takes the HTTP address: 127.0.0.1, any port
		"--http-metrics-port", "0",
		"--persistent-antispam=" + strconv.FormatBool(b.c.rekorAntispam)}, rekorTuning()...)
	srv, err := b.start("rekor-server", args, nil, rekorReady)
	if err != nil {
		return load{}, err
	}
	prepare := min(int(b.c.duration.Seconds()*posixPrepare), maxPrepare)
	s, err := b.run("mcpres-loadgen", []string{"--url", "http://" + srv.url, "--rekor-v2", "--clients", strconv.Itoa(b.c.posixC),
		"--duration", b.c.duration.String(), "--prepare", strconv.Itoa(prepare)})
	lerr := rekorOnLoopback(srv.log())
	if serr := srv.stop(); err == nil && serr != nil {
		err = serr
	}
	if err = errors.Join(err, lerr); err != nil {
		return load{}, err
	}
	return parseLoad(s.stdout)
}

// rekorListenerLine is a listener rekor-server logs that it starts.
var rekorListenerLine = regexp.MustCompile(`msg="(?i:starting) (HTTP proxy|gRPC server|http metrics)" address=(\S+)`)

// rekorOnLoopback checks, by rekor-server's log, that its three
// listeners (HTTP gateway, gRPC, metrics) are on 127.0.0.1.
func rekorOnLoopback(log string) error {
	seen := map[string]bool{}
	for _, m := range rekorListenerLine.FindAllStringSubmatch(log, -1) {
		if !strings.HasPrefix(m[2], "127.0.0.1:") {
			return fmt.Errorf("rekor-server's %s listens on %s, not 127.0.0.1", m[1], m[2])
		}
		seen[m[1]] = true
	}
	if len(seen) != 3 {
		return fmt.Errorf("rekor-server logged %d of its 3 listeners (HTTP proxy, gRPC server, http metrics)", len(seen))
	}
	return nil
}

// freePorts returns n distinct ports free on 127.0.0.1 now (rekor-server
// takes no port 0 for its HTTP and gRPC listeners).
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// rekorKey writes Rekor v2's checkpoint key: a throwaway Ed25519 key (as
// log serve's), PKCS#8 PEM, made for this bench run.
func (b *bench) rekorKey() (string, error) {
	path := b.path("rekor-test-only.key")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
}

// rekorServer returns the rekor-server binary and how it was had: built
// now (seconds when Go's build cache holds it) and copied to the user's
// cache directory; --quick never builds it, and takes the copy an earlier
// run left there, if any.
func (b *bench) rekorServer() (bin, how string, err error) {
	cached := ""
	if dir, err := os.UserCacheDir(); err == nil {
		cached = filepath.Join(dir, "mcpres-bench", "rekor-server-posix-"+rekorVersion)
	}
	if b.c.quick {
		if cached != "" && checkRekorBinary(cached) == nil {
			return cached, "built by an earlier run, cached in " + cached, nil
		}
		return "", "", errors.New("--quick does not build rekor-tiles " + rekorVersion + " and no build is cached: a run without --quick (`go run ./bench --only rekor`) builds and caches it")
	}
	gobin := b.path("rekor")
	start := time.Now()
	out, err := goInstallRekor(b.tmp, gobin, "local")
	toolchain := ""
	if err != nil && bytes.Contains(out, []byte("requires go >= ")) {
		fmt.Fprintf(b.log, "bench: rekor: this Go cannot build rekor-tiles %s; trying GOTOOLCHAIN=%s\n", rekorVersion, rekorToolchain)
		toolchain = ", GOTOOLCHAIN=" + rekorToolchain
		out, err = goInstallRekor(b.tmp, gobin, rekorToolchain)
	}
	took := time.Since(start).Round(time.Second)
	if err != nil {
		return "", "", fmt.Errorf("go install %s@%s failed after %v: %v: %s", rekorPkg, rekorVersion, took, err, lastLine(out))
	}
	bin = filepath.Join(gobin, "posix")
	if err := checkRekorBinary(bin); err != nil {
		return "", "", err
	}
	fmt.Fprintf(b.log, "bench: rekor: built %s@%s in %v%s\n", rekorPkg, rekorVersion, took, toolchain)
	how = fmt.Sprintf("built by the bench in %v%s", took, toolchain)
	if cached != "" {
		if err := copyExecutable(bin, cached); err != nil {
			fmt.Fprintf(b.log, "bench: rekor: not cached: %v\n", err)
		} else {
			how += ", cached in " + cached
		}
	}
	return bin, how, nil
}

// goInstallRekor builds rekor-server into gobin from the module proxy,
// outside any module and workspace, with the given GOTOOLCHAIN.
func goInstallRekor(dir, gobin, toolchain string) ([]byte, error) {
	cmd := exec.Command("go", "install", rekorPkg+"@"+rekorVersion)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOTOOLCHAIN="+toolchain, "GOWORK=off", "GOFLAGS=")
	return cmd.CombinedOutput()
}

func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return tail(strings.TrimSpace(lines[len(lines)-1]))
}

// checkRekorBinary checks, by its build information (go version -m),
// that bin is rekor-tiles' POSIX server at the pinned version and module
// hash.
func checkRekorBinary(bin string) error {
	if _, err := os.Stat(bin); err != nil {
		return err
	}
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		return fmt.Errorf("go version -m %s: %v", bin, err)
	}
	return checkRekorBuildInfo(out)
}

// checkRekorBuildInfo checks go version -m's output: the main package is
// rekorPkg, its module rekorModule at rekorVersion with rekorSum, not
// replaced.
func checkRekorBuildInfo(out []byte) error {
	var path, mod, prev string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(strings.TrimSpace(sc.Text()), "\t")
		switch {
		case len(f) == 2 && f[0] == "path":
			path = f[1]
		case len(f) >= 2 && f[0] == "mod":
			mod = strings.Join(f[1:], " ")
		case len(f) >= 2 && f[0] == "=>" && prev == "mod":
			return fmt.Errorf("the rekor-server binary's module is replaced (%s)", strings.Join(f[1:], " "))
		}
		prev = f[0]
	}
	if want := rekorModule + " " + rekorVersion + " " + rekorSum; path != rekorPkg || mod != want {
		return fmt.Errorf("the rekor-server binary is %s of %q, want %s of %q", path, mod, rekorPkg, want)
	}
	return nil
}

// copyExecutable copies src to dst (written beside it, then renamed, so
// that a bench running at the same time never sees half of it).
func copyExecutable(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // once renamed, a no-op
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o755)
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), dst)
}
