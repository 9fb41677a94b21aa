package monitor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/tlog/monitor"
)

func testAlert() *monitor.Alert {
	return &monitor.Alert{SchemaVersion: monitor.AlertSchema, Kind: monitor.KindUnauthorisedEntry, Log: origin,
		Source: "/srv/log", Time: "2027-01-15T08:00:00Z", Message: "not one of ours",
		Entry: &monitor.EntryInfo{Index: 7, LeafHash: digest('a'), Subject: "acme/a", SubjectSha256: digest('b'), EvidenceBundleDigest: "sha256:" + digest('c')}}
}

// Text names the kind, the log, the source and the entry; JSON is one
// line that decodes to the same alert.
func TestAlertText(t *testing.T) {
	a := testAlert()
	const want = `ALERT unauthorised-entry: log log.example.org/monitor (/srv/log): not one of ours [entry 7 subject "acme/a" sha256:`
	if got := a.Text(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "bundle sha256:"+digest('c')+"]") {
		t.Errorf("Text: %s", got)
	}
	b := monitor.Alert{Kind: monitor.KindRollback, Log: origin, Message: "smaller"}
	if got := b.Text(); got != "ALERT rollback: log log.example.org/monitor: smaller" {
		t.Errorf("Text without source or entry: %s", got)
	}
	line := a.JSON()
	var back monitor.Alert
	if bytes.ContainsRune(line, '\n') || json.Unmarshal(line, &back) != nil || back.Entry == nil || back.Entry.Index != 7 || back.Source != a.Source {
		t.Errorf("JSON: %s", line)
	}
}

// NewWebhookHook refuses what is not https (plain http only to a loopback
// address: alerts name subjects), a URL with a user or no host; the
// controls are https to any host and http to 127.0.0.1 and ::1.
func TestWebhookURLRefuses(t *testing.T) {
	for _, u := range []string{
		"http://alerts.example.org/hook", "http://10.0.0.1/hook", "http://localhost/hook",
		"ftp://127.0.0.1/hook", "https://user:pw@alerts.example.org/", "https:///hook", "://", "alerts.example.org",
	} {
		if h, err := monitor.NewWebhookHook(u, 0); err == nil || h != nil || !strings.Contains(err.Error(), "--webhook") {
			t.Errorf("NewWebhookHook(%q): %v", u, err)
		}
	}
	for _, u := range []string{"https://alerts.example.org/hook", "http://127.0.0.1:8080/hook", "http://[::1]/hook"} {
		if _, err := monitor.NewWebhookHook(u, time.Second); err != nil {
			t.Errorf("control %q: %v", u, err)
		}
	}
}

// A webhook that answers other than 2xx (a redirect included: never
// followed), or is not there, fails the delivery naming why; the control
// posts the alert's JSON and takes a 204.
func TestWebhookDeliverRefuses(t *testing.T) {
	var got []byte
	var followed bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			got, _ = io.ReadAll(r.Body)
			if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "want a JSON POST", http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		case "/redirect":
			http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect)
		case "/followed":
			followed = true
		default:
			http.Error(w, "no", http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for path, want := range map[string]string{
		"/broken":   "--webhook answered 500 Internal Server Error (redirects are not followed)",
		"/redirect": "--webhook answered 307 Temporary Redirect (redirects are not followed)",
	} {
		h, err := monitor.NewWebhookHook(srv.URL+path, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Deliver(ctx, testAlert()); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if got != nil || followed {
		t.Error("the redirect was followed")
	}
	h, _ := monitor.NewWebhookHook(srv.URL+"/ok", 5*time.Second)
	if err := h.Deliver(ctx, testAlert()); err != nil || !bytes.Equal(got, testAlert().JSON()) {
		t.Errorf("control: %v, posted %s", err, got)
	}

	// Nobody listening: the dial error.
	l := httptest.NewServer(http.NotFoundHandler())
	gone := l.URL
	l.Close()
	h, _ = monitor.NewWebhookHook(gone+"/hook", 5*time.Second)
	if err := h.Deliver(ctx, testAlert()); err == nil || !strings.HasPrefix(err.Error(), "--webhook: ") {
		t.Errorf("nobody listening: %v", err)
	}
}

// A webhook that does not answer within the hook's timeout fails the
// delivery saying so.
func TestWebhookTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	h, err := monitor.NewWebhookHook(srv.URL, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Deliver(context.Background(), testAlert()); err == nil || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("a webhook that does not answer: %v", err)
	}
}

// An exec hook that exits other than 0, or cannot be started, fails the
// delivery naming the program; the control reads the alert's JSON line on
// its standard input.
func TestExecHookRefuses(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	ctx := context.Background()
	var out bytes.Buffer
	fail := &monitor.ExecHook{Program: sh, Args: []string{"-c", "cat >/dev/null; exit 3"}, Output: &out}
	if err := fail.Deliver(ctx, testAlert()); err == nil || !strings.Contains(err.Error(), "--exec "+sh+": exit status 3") {
		t.Errorf("a hook that exits 3: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-hook")
	if err := (&monitor.ExecHook{Program: missing}).Deliver(ctx, testAlert()); err == nil || !strings.Contains(err.Error(), "--exec "+missing) {
		t.Errorf("a hook that is not there: %v", err)
	}
	out.Reset()
	cat := &monitor.ExecHook{Program: sh, Args: []string{"-c", "cat"}, Output: &out}
	if err := cat.Deliver(ctx, testAlert()); err != nil || out.String() != string(testAlert().JSON())+"\n" {
		t.Errorf("control: %v, the hook read %q", err, out.String())
	}
}

// An exec hook that outlives its timeout is ended and the delivery fails
// saying so.
func TestExecHookTimeout(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	h := &monitor.ExecHook{Program: sh, Args: []string{"-c", "exec sleep 30"}, Timeout: 50 * time.Millisecond}
	if err := h.Deliver(context.Background(), testAlert()); err == nil || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("a hook that does not end: %v", err)
	}
}

// The HTTP source refuses a URL that is not http(s)://HOST[/PATH] without
// user, query or fragment; OpenSource takes anything else as a directory,
// which must exist.
func TestSourceURLRefuses(t *testing.T) {
	for _, u := range []string{"http://", "https://u@log.example.org/", "https://log.example.org/?x=1", "https://log.example.org/#f", "http://[::1"} {
		if s, err := monitor.OpenSource(u, 0); err == nil || s != nil {
			t.Errorf("OpenSource(%q): %v", u, err)
		}
	}
	if _, err := monitor.OpenSource(filepath.Join(t.TempDir(), "none"), 0); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "log directory") {
		t.Errorf("a missing directory: %v", err)
	}
	s, err := monitor.OpenSource("https://log.example.org/v1", 0)
	if err != nil || s.Name() != "https://log.example.org/v1/" {
		t.Errorf("control: %v, %v", s, err)
	}
	d := t.TempDir()
	if s, err := monitor.OpenSource(d, 0); err != nil || s.Name() != d {
		t.Errorf("control, a directory: %v, %v", s, err)
	}
}

// The HTTP source refuses an answer over its limit (by its Content-Length
// or by what it sends), a server error, and reports a missing resource as
// fs.ErrNotExist; a missing partial tile falls back to the full one.
func TestHTTPSourceRefuses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big/checkpoint":
			w.Header().Set("Content-Length", strconv.Itoa(monitor.MaxCheckpointBytes+1))
			w.Write(make([]byte, monitor.MaxCheckpointBytes+1))
		case "/error/checkpoint":
			http.Error(w, "down", http.StatusBadGateway)
		case "/ok/checkpoint":
			w.Write([]byte("cp"))
		case "/ok/tile/0/000":
			w.Write([]byte("full tile"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	open := func(p string) monitor.Source {
		s, err := monitor.NewHTTPSource(srv.URL+p, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var se *monitor.SourceError
	if _, err := open("/big").ReadCheckpoint(ctx); !errors.Is(err, monitor.ErrTooLarge) || !errors.As(err, &se) || se.Resource != "checkpoint" {
		t.Errorf("a checkpoint over the limit: %v", err)
	}
	if _, err := open("/error").ReadCheckpoint(ctx); err == nil || !strings.Contains(err.Error(), "HTTP 502") {
		t.Errorf("a server error: %v", err)
	}
	if _, err := open("/none").ReadCheckpoint(ctx); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no checkpoint: %v", err)
	}
	if _, err := open("/none").ReadEntryBundle(ctx, 0, 3); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no entry bundle: %v", err)
	}
	if b, err := open("/ok").ReadCheckpoint(ctx); err != nil || string(b) != "cp" {
		t.Errorf("control: %q, %v", b, err)
	}
	if b, err := open("/ok").ReadTile(ctx, 0, 0, 5); err != nil || string(b) != "full tile" {
		t.Errorf("control, a partial tile gone: %q, %v", b, err)
	}
}

// The directory source refuses what is not a regular file (a symbolic
// link, even to a file inside, a directory) and a file over its limit.
func TestDirSourceRefuses(t *testing.T) {
	d := t.TempDir()
	ctx := context.Background()
	s, err := monitor.NewDirSource(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "real"), []byte("cp"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(d, "checkpoint")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadCheckpoint(ctx); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a symbolic link: %v", err)
	}
	os.Remove(filepath.Join(d, "checkpoint"))
	os.Mkdir(filepath.Join(d, "checkpoint"), 0o755)
	if _, err := s.ReadCheckpoint(ctx); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	os.Remove(filepath.Join(d, "checkpoint"))
	os.WriteFile(filepath.Join(d, "checkpoint"), make([]byte, monitor.MaxCheckpointBytes+1), 0o644)
	if _, err := s.ReadCheckpoint(ctx); !errors.Is(err, monitor.ErrTooLarge) {
		t.Errorf("a checkpoint over the limit: %v", err)
	}
	os.WriteFile(filepath.Join(d, "checkpoint"), []byte("cp"), 0o644)
	if b, err := s.ReadCheckpoint(ctx); err != nil || string(b) != "cp" {
		t.Errorf("control: %q, %v", b, err)
	}
}

// A state file that is not what the monitor wrote is refused, naming
// what is wrong, and left as it is: malformed JSON, an unknown member,
// another schema, an entry position past the tree, a range hash or a root
// hash that is not base64 of 32 bytes. The control runs on the state the
// monitor wrote.
func TestCorruptStateRefused(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/a", digest('1')))
	h := newHarness(t, l.key)
	h.run(t, dir(t, l))
	good := h.stateFile(t)
	var st map[string]any
	if err := json.Unmarshal(good, &st); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.cfg.StateDir, monitor.StateName(l.key.Name(), l.key.KeyHash())+".json")
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(good, &m)
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	for _, c := range []struct {
		name  string
		state []byte
		want  string
	}{
		{"malformed", []byte("{"), "unexpected EOF"},
		{"unknown member", edit(func(m map[string]any) { m["extra"] = 1 }), `unknown field "extra"`},
		{"another schema", edit(func(m map[string]any) { m["schemaVersion"] = "other/v9" }), `schemaVersion "other/v9"`},
		{"position past the tree", edit(func(m map[string]any) { m["next"] = 99 }), "entry position 99 past the tree size"},
		{"range hash", edit(func(m map[string]any) { m["range"] = []string{"AAAA"} }), "range hash 0 is not 32 bytes"},
		{"root hash", edit(func(m map[string]any) { m["tree"].(map[string]any)["rootHash"] = "!!" }), "root hash"},
	} {
		if err := os.WriteFile(path, c.state, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := monitor.Run(context.Background(), h.cfg, []monitor.Source{dir(t, l)}, func(*monitor.Alert) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, c.state) {
			t.Errorf("%s: the state file was changed", c.name)
		}
	}
	os.WriteFile(path, good, 0o600)
	_, as := h.run(t, dir(t, l))
	wantKinds(t, as, "")
}

// ParseDigest refuses what is not sha256: and 64 hex digits, and
// DecodeEntry an entry over MaxEntryBytes.
func TestParseDigestAndEntryRefuse(t *testing.T) {
	for _, s := range []string{digest('a'), "sha256:" + digest('a')[:63], "sha512:" + digest('a'), "sha256:" + strings.Repeat("g", 64)} {
		if _, err := monitor.ParseDigest(s); err == nil {
			t.Errorf("ParseDigest(%q) passed", s)
		}
	}
	if h, err := monitor.ParseDigest("sha256:" + strings.Repeat("AB", 32)); err != nil || h != strings.Repeat("ab", 32) {
		t.Errorf("control: %q, %v", h, err)
	}
	if _, err := monitor.DecodeEntry(make([]byte, monitor.MaxEntryBytes+1)); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("an oversized entry: %v", err)
	}
	if e, err := monitor.DecodeEntry(entry(t, "acme/a", digest('1'))); err != nil || e.Subject.Name != "acme/a" {
		t.Errorf("control: %v", err)
	}
}
