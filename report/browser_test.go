package report_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
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

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/report"
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

// TestBrowserScreenshots renders an attested report with a transparency
// reference verified offline (transparentInput: every section) as a
// desktop and a phone screenshot and prints it to PDF, and screenshots a
// report with a larger operation graph (richGraph). They are kept in
// $MCPRES_TEST_ARTIFACTS when set (otherwise a temporary directory): look
// at them after a change to the page. The phone screenshot shows the
// report in a 412 px frame (headless windows are at least 500 px wide).
func TestBrowserScreenshots(t *testing.T) {
	bin := chromiumBinary(t)
	out := artifactDir(t)
	in := transparentInput(t)
	in.Name, in.PolicyName = "witnessed-with-tlog.json", "witnessed-with-tlog.trust-policy.json"
	page := render(t, in)
	src := filepath.Join(out, "report-witnessed.html")
	if err := os.WriteFile(src, page, 0o644); err != nil {
		t.Fatal(err)
	}
	phone := filepath.Join(out, "report-phone-frame.html")
	frame := `<!DOCTYPE html><html><body style="margin:0"><iframe width="412" height="7000" style="border:0;display:block" srcdoc="` + html.EscapeString(string(page)) + `"></iframe></body></html>`
	if err := os.WriteFile(phone, []byte(frame), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, flag, src string }{
		{"report-desktop.png", "--window-size=1280,4600", src},
		{"report-phone.png", "--window-size=412,7000", phone},
	} {
		dst := filepath.Join(out, c.file)
		chromium(t, bin, "--screenshot="+dst, c.flag, "file://"+c.src)
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

// Layout frames: a desktop, a phone and an A4 page with the print style
// sheet's 12 mm margins (186 mm at 96 px per inch). Headless Chromium
// does not make windows narrower than 500 px, so the harness lays each
// report out in frames of these widths.
var layoutFrames = []struct {
	mode  string
	width int
}{{"desktop", 1280}, {"phone", 412}, {"print", 703}}

// layoutHarness is a test-only page (not a report: it has a script) that
// holds one report in a frame per layoutFrames entry, the report's own
// CSP in force inside it. For the print frame it swaps the report's print
// and screen media rules, so the frame is laid out as the page is
// printed. It writes what it measured into <pre id="layout"> as JSON,
// which --dump-dom returns.
const layoutHarness = `<!DOCTYPE html>
<html><head><meta charset="utf-8"/><style>body{margin:0} iframe{display:block;border:0;height:1000px}</style></head><body>
%s
<pre id="layout"></pre>
<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('iframe').forEach(function (f) {
    var d = f.contentDocument, w = f.contentWindow, mode = f.dataset.mode;
    if (mode === 'print') { // print rules apply, screen rules do not
      for (var s of d.styleSheets) for (var r of s.cssRules) if (r.media) {
        r.media.mediaText = r.media.mediaText.replace(/\bscreen\b/g, '%%s').replace(/\bprint\b/g, 'screen').replace(/%%s/g, 'print');
      }
    }
    var vw = d.documentElement.clientWidth;
    var name = function (e) {
      var n = e.tagName.toLowerCase();
      if (e.id) n += '#' + e.id;
      if (typeof e.className === 'string' && e.className) n += '.' + e.className.trim().split(/\s+/).join('.');
      var sec = e.closest('section');
      if (sec && sec !== e) n = (sec.id || 'section') + ' > ' + n;
      return n + ' "' + (e.textContent || '').trim().slice(0, 40) + '"';
    };
    var wide = [], clipped = [];
    var clips = function (e) { return w.getComputedStyle(e).overflowX !== 'visible'; };
    var insideClip = function (e) {
      for (var a = e.parentElement; a && a !== d.body; a = a.parentElement) if (clips(a)) return true;
      return false;
    };
    var overflows = function (e) { return !clips(e) && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1; };
    d.querySelectorAll('body *').forEach(function (e) {
      var r = e.getBoundingClientRect(), p = e.parentElement.getBoundingClientRect();
      if (!insideClip(e)) {
        if (r.right > vw + 0.5 && p.right <= vw + 0.5) wide.push(name(e) + ' reaches ' + Math.round(r.right) + ' px');
        if (overflows(e) && !Array.prototype.some.call(e.children, overflows)) wide.push(name(e) + ' holds ' + e.scrollWidth + ' px of content in ' + e.clientWidth + ' px');
      }
      if (clips(e) && e.scrollWidth > e.clientWidth + 1) {
        clipped.push({what: name(e) + ' shows ' + e.clientWidth + ' of ' + e.scrollWidth + ' px', drawing: e.children.length === 1 && e.children[0].tagName.toLowerCase() === 'svg'});
      }
    });
    // A prose word (letters only, at most 24, and its trailing
    // punctuation) drawn on two lines was broken inside: only tokens
    // (digests, URLs, code: the mono class and code elements) may be.
    var split = [], walker = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT), node;
    while ((node = walker.nextNode())) {
      var el = node.parentElement;
      if (!el || el.closest('.mono, code, svg, style, title')) continue;
      var re = /(^|\s)([A-Za-z]{2,24})(?=[.,;:!?)]?(\s|$))/g, m;
      while ((m = re.exec(node.data))) {
        var rg = d.createRange(), at = m.index + m[1].length;
        rg.setStart(node, at); rg.setEnd(node, at + m[2].length);
        var tops = {};
        Array.prototype.forEach.call(rg.getClientRects(), function (r) { if (r.width > 0) tops[Math.round(r.top)] = true; });
        if (Object.keys(tops).length > 1) split.push(name(el) + ' breaks "' + m[2] + '"');
      }
    }
    out.push({mode: mode, width: vw, frame: f.clientWidth, scrollWidth: d.documentElement.scrollWidth, loaded: !!d.getElementById('limits'),
      printed: w.getComputedStyle(d.querySelector('main')).maxWidth === 'none', wide: wide, clipped: clipped, split: split.slice(0, 20)});
  });
  document.getElementById('layout').textContent = JSON.stringify(out);
});
</script>
</body></html>`

// frameLayout is what the harness measured of a report in one frame.
type frameLayout struct {
	Mode        string   `json:"mode"`
	Width       int      `json:"width"`       // the report's viewport
	Frame       int      `json:"frame"`       // the frame's own width
	ScrollWidth int      `json:"scrollWidth"` // the report document's
	Loaded      bool     `json:"loaded"`
	Printed     bool     `json:"printed"` // the print style sheet's rules apply
	Wide        []string `json:"wide"`    // what sticks out of the viewport
	Clipped     []struct {
		What    string `json:"what"`
		Drawing bool   `json:"drawing"` // a frame around an SVG drawing and nothing else
	} `json:"clipped"`
	Split []string `json:"split"` // prose words broken across two lines (at most 20)
}

// gateInput is the witnessed input judged by a gate bound to an artifact
// and a digest it does not carry: the verdict box's gate and subject
// tables, prose checks ("artifact") beside 64-digit digests.
func gateInput(t testing.TB) report.Input {
	in := witnessedInput(t)
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	other := "sha256:" + strings.Repeat("fedcba9876543210", 4)
	in.Subject = []attest.SubjectOutcome{
		{Check: attest.SubjectCheckArtifact, Expected: []string{digest}, Sources: []string{"dist/server-linux-amd64.tar.gz"}, Found: other, Reason: "the artifact's digest is not the subject's"},
		{Check: attest.SubjectCheckDigest, Expected: []string{digest, other}, Found: other, Passed: true},
	}
	in.Verdict = &attest.Verdict{Checks: []attest.GateCheck{
		{Check: attest.GateCheckValid, Required: "true", Found: "true", Passed: true},
		{Check: attest.GateCheckLevel, Required: "SIGNED_WITH_IDENTITY", Found: "WITNESSED", Passed: true},
		{Check: attest.GateCheckResult, Required: "PASS", Found: "PASS", Passed: true},
		{Check: attest.SubjectCheckArtifact, Required: digest, Found: other, Reason: "the artifact's digest is not the subject's", Summary: "artifact mismatch"},
		{Check: attest.SubjectCheckDigest, Required: digest + " or " + other, Found: other, Passed: true},
	}, Subject: in.Subject, Result: "PASS"}
	return in
}

// measureLayout lays page out in every layout frame and returns what the
// harness measured.
func measureLayout(t *testing.T, bin, dir, name string, page []byte) []frameLayout {
	t.Helper()
	var frames strings.Builder
	for _, f := range layoutFrames {
		fmt.Fprintf(&frames, `<iframe data-mode="%s" width="%d" srcdoc="%s"></iframe>`+"\n", f.mode, f.width, html.EscapeString(string(page)))
	}
	path := filepath.Join(dir, name+".layout.html")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(layoutHarness, frames.String())), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(chromium(t, bin, "--window-size=1400,1200", "--dump-dom", "file://"+path))
	_, rest, ok := strings.Cut(dom, `<pre id="layout">`)
	js, _, ok2 := strings.Cut(rest, "</pre>")
	if !ok || !ok2 || js == "" {
		t.Fatalf("%s: the layout harness wrote no measurement:\n%.2000s", name, dom)
	}
	var got []frameLayout
	v, err := canonjson.Parse([]byte(html.UnescapeString(js)))
	if err == nil {
		err = canonjson.Unmarshal(v, &got)
	}
	if err != nil {
		t.Fatalf("%s: layout measurement: %v\n%s", name, err, js)
	}
	if len(got) != len(layoutFrames) {
		t.Fatalf("%s: %d frames measured, want %d", name, len(got), len(layoutFrames))
	}
	for i, f := range got {
		if f.Mode != layoutFrames[i].mode || f.Width != layoutFrames[i].width || f.Frame != layoutFrames[i].width || !f.Loaded || f.Printed != (f.Mode == "print") {
			t.Fatalf("%s: frame %d measured %+v, want a loaded %s frame %d px wide", name, i, f, layoutFrames[i].mode, layoutFrames[i].width)
		}
	}
	return got
}

// layoutFaults are what a person would see as a broken layout: a page
// that scrolls sideways, anything cut off at its frame's edge, or a prose
// word broken in the middle ("artifac" / "t"). On a
// screen a drawing (the operation graph, the timeline, the trial chart)
// may scroll within its own frame; in print nothing may, and no table
// ever may.
func layoutFaults(f frameLayout) []string {
	var bad []string
	if f.ScrollWidth > f.Width {
		bad = append(bad, fmt.Sprintf("the page scrolls sideways: %d px of content in a %d px viewport; sticking out: %v", f.ScrollWidth, f.Width, f.Wide))
	}
	for _, c := range f.Clipped {
		if !c.Drawing || f.Mode == "print" {
			bad = append(bad, "cut off: "+c.What)
		}
	}
	for _, w := range f.Split {
		bad = append(bad, "a word broken across lines: "+w)
	}
	return bad
}

// TestBrowserReportLayout lays reports out at 1280 and 412 px and as printed on
// A4, and fails when a page scrolls sideways, a table is cut off or a
// prose word is broken across lines. Three controls show the measurement
// can fail: a report with a wide block scrolls sideways in every frame,
// one with a table wider than its frame is cut off in every frame, and
// one with a word in a box narrower than it, allowed to break anywhere,
// has it broken in every frame.
func TestBrowserReportLayout(t *testing.T) {
	bin := chromiumBinary(t)
	dir := t.TempDir()
	witnessed := witnessedInput(t)
	witnessed.Name, witnessed.PolicyName = "testdata/attestation/witnessed.json", "testdata/attestation/witnessed.trust-policy.json"
	pages := map[string][]byte{
		"witnessed":   render(t, witnessed),
		"transparent": render(t, transparentInput(t)),
		"example":     render(t, exampleInput(t)),
		"graph":       render(t, validate(t, richGraph(t))),
		"long":        render(t, hostileInputs(t, "http://127.0.0.1:9")["long"]),
		"gate":        render(t, gateInput(t)),
	}
	inject := func(html string) []byte {
		return bytes.Replace(pages["example"], []byte("<main>"), []byte("<main>"+html), 1)
	}
	controls := map[string][]byte{
		"control-wide-block": inject(`<div style="width:1600px">wide</div>`),
		"control-cut-table":  inject(`<div class="scroll"><table style="min-width:1600px"><tr><td>cut</td></tr></table></div>`),
		"control-split-word": inject(`<p style="width:3em;overflow-wrap:anywhere">artifacts</p>`),
	}
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, f := range measureLayout(t, bin, dir, name, page) {
				for _, fault := range layoutFaults(f) {
					t.Errorf("%s, %d px: %s", f.Mode, f.Width, fault)
				}
			}
		})
	}
	for name, page := range controls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, f := range measureLayout(t, bin, dir, name, page) {
				if len(layoutFaults(f)) == 0 {
					t.Errorf("control: %s, %d px: no fault found in %+v", f.Mode, f.Width, f)
				}
			}
		})
	}
}
