package report_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The browser tests load reports in headless Chromium (Debian's chromium
// package, which .ci/run installs when it is missing; set $MCPRES_CHROMIUM
// to use another binary). They skip, saying why, where none can be found.

func chromiumBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPRES_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("headless Chromium not found (/usr/bin/chromium; apt-get install chromium, or set $MCPRES_CHROMIUM): browser checks of the report skipped")
	return ""
}

// chromium runs one headless Chromium with a fresh profile and no
// background traffic, bounded to a minute.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--disable-default-apps", "--no-default-browser-check", "--hide-scrollbars", "--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// recorder is a 127.0.0.1 server that every URL in the hostile documents
// points at; it records each request it gets.
type recorder struct {
	mu   sync.Mutex
	hits []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.hits = append(r.hits, req.URL.Path)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "image/gif")
	w.Write([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.hits
	r.hits = nil
	sort.Strings(h)
	return h
}

// sentinel is what any payload script would add to the DOM. It cannot
// appear in a dump as escaped text: the DOM serializer writes text "<" as
// "&lt;".
const sentinel = "<mcpres-pwned"

// loaded is in every report; its presence in the dump shows the page
// rendered to the end.
const loaded = `id="limits"`

func dumpDOM(t *testing.T, bin, dir, name string, page []byte) string {
	t.Helper()
	path := filepath.Join(dir, name+".html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	return string(chromium(t, bin, "--dump-dom", "file://"+path))
}

// TestBrowserHostileReports loads every hostile report in Chromium (two at
// a time): no script runs and no request leaves the page. Two controls
// show the test can fail: the same payloads pasted raw into a report
// without its CSP do run and do fetch; pasted raw into a report with its
// CSP they do neither, so the CSP holds even if escaping ever failed. Each
// page's payloads point at their own path on the server, so every request
// names the page that made it.
func TestBrowserHostileReports(t *testing.T) {
	bin := chromiumBinary(t)
	rec := &recorder{}
	srv := httptest.NewServer(rec) // binds 127.0.0.1
	defer srv.Close()
	dir := t.TempDir()

	names := []string{}
	for name := range hostileInputs(t, srv.URL) {
		names = append(names, name)
	}
	sort.Strings(names)
	raw := func(page string) []byte {
		p := hostilePayloads(srv.URL + "/" + page)
		html := "<div>" + p[0] + p[3] + `<img src="` + srv.URL + "/" + page + `/plain-img"/>` + "</div>"
		return bytes.Replace(render(t, exampleInput(t)), []byte("<main>"), []byte("<main>"+html), 1)
	}
	noCSP := bytes.Replace(raw("control-no-csp"), []byte(`<meta http-equiv="Content-Security-Policy" content="`+csp+`"/>`), nil, 1)
	if bytes.Contains(noCSP, []byte("Content-Security-Policy")) {
		t.Fatal("control: the CSP meta was not found to remove")
	}
	doms := map[string]string{}
	var mu sync.Mutex
	t.Run("load", func(t *testing.T) {
		load := func(name string, page func() []byte) {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dom := dumpDOM(t, bin, dir, name, page())
				mu.Lock()
				doms[name] = dom
				mu.Unlock()
			})
		}
		for _, name := range names {
			load(name, func() []byte { return render(t, hostileInputs(t, srv.URL+"/"+name)[name]) })
		}
		load("control-no-csp", func() []byte { return noCSP })
		load("control-csp", func() []byte { return raw("control-csp") })
	})
	hits := map[string][]string{}
	for _, h := range rec.take() {
		page, _, _ := strings.Cut(strings.TrimPrefix(h, "/"), "/")
		hits[page] = append(hits[page], h)
	}
	for _, name := range append(names, "control-csp") {
		dom := doms[name]
		if !strings.Contains(dom, loaded) {
			t.Errorf("%s: the report did not load to the end:\n%.2000s", name, dom)
		}
		if strings.Contains(dom, sentinel) {
			t.Errorf("%s: a script from the document ran", name)
		}
		if len(hits[name]) > 0 {
			t.Errorf("%s: the page made requests %v", name, hits[name])
		}
	}
	if !strings.Contains(doms["control-no-csp"], sentinel) {
		t.Errorf("control: a raw script in a page without CSP did not run, so the sentinel check proves nothing:\n%.2000s", doms["control-no-csp"])
	}
	if len(hits["control-no-csp"]) == 0 {
		t.Error("control: a raw image in a page without CSP made no request, so the request check proves nothing")
	}
	for page := range hits {
		if !slices.Contains(names, page) && page != "control-csp" && page != "control-no-csp" {
			t.Errorf("a request from no known page: %v", hits[page])
		}
	}
}

// TestBrowserScreenshots renders the witnessed attested report (every
// section) as a desktop and a phone screenshot and prints it to PDF, and
// screenshots a report with a larger operation graph (richGraph). They
// are kept in $MCPRES_TEST_ARTIFACTS when set (otherwise a temporary
// directory): look at them after a change to the page.
func TestBrowserScreenshots(t *testing.T) {
	bin := chromiumBinary(t)
	out := artifactDir(t)
	in := witnessedInput(t)
	in.Name, in.PolicyName = "testdata/attestation/witnessed.json", "testdata/attestation/witnessed.trust-policy.json"
	page := render(t, in)
	src := filepath.Join(out, "report-witnessed.html")
	if err := os.WriteFile(src, page, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, flag string }{
		{"report-desktop.png", "--window-size=1280,4200"},
		{"report-phone.png", "--window-size=390,5200"},
	} {
		dst := filepath.Join(out, c.file)
		chromium(t, bin, "--screenshot="+dst, c.flag, "file://"+src)
		checkMagic(t, dst, "\x89PNG\r\n\x1a\n")
	}
	graph := render(t, validate(t, richGraph(t)))
	graphSrc := filepath.Join(out, "report-graph.html")
	if err := os.WriteFile(graphSrc, graph, 0o644); err != nil {
		t.Fatal(err)
	}
	chromium(t, bin, "--screenshot="+filepath.Join(out, "report-graph.png"), "--window-size=1280,3600", "file://"+graphSrc)
	checkMagic(t, filepath.Join(out, "report-graph.png"), "\x89PNG\r\n\x1a\n")
	pdf := filepath.Join(out, "report-print.pdf")
	chromium(t, bin, "--print-to-pdf="+pdf, "--no-pdf-header-footer", "file://"+src)
	checkMagic(t, pdf, "%PDF-")
	t.Logf("screenshots and PDF in %s", out)
}

func checkMagic(t *testing.T, path, magic string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 1000 || !bytes.HasPrefix(b, []byte(magic)) {
		t.Fatalf("%s: %d bytes, not a %q file", path, len(b), magic)
	}
}
