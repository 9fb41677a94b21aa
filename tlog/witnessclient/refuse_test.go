package witnessclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/witnessclient"
	"github.com/mcpres/mcpres/witness"
)

// New refuses a witness without a key, a name listed twice, and a URL
// that is not http(s) without credentials, query or fragment; the control
// takes a plain https URL.
func TestNewRefuses(t *testing.T) {
	_, v1 := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	_, v2 := cosigner(t, testOnlyWitness2Seed, "example.org/w2")
	for name, ws := range map[string][]witnessclient.Witness{
		"no key":       {{Name: "a", URL: "https://w.example/"}},
		"listed twice": {{Name: "a", Key: v1, URL: "https://w.example/"}, {Name: "a", Key: v2, URL: "https://v.example/"}},
		"ftp":          {{Name: "a", Key: v1, URL: "ftp://w.example/"}},
		"credentials":  {{Name: "a", Key: v1, URL: "https://u:p@w.example/"}},
		"query":        {{Name: "a", Key: v1, URL: "https://w.example/?x"}},
		"fragment":     {{Name: "a", Key: v1, URL: "https://w.example/#x"}},
		"no host":      {{Name: "a", Key: v1, URL: "https:///x"}},
	} {
		if c, err := witnessclient.New(ws, witnessclient.Options{}); err == nil || c != nil || !strings.Contains(err.Error(), "witnessclient: witness") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := witnessclient.New([]witnessclient.Witness{{Name: "a", Key: v1, URL: "https://w.example/base"}}, witnessclient.Options{}); err != nil {
		t.Errorf("control: %v", err)
	}
}

// A witness answer is refused, the witness a Failure and no cosignature
// attached, for each of these reasons: a 409 at the very size it was
// sent (another tree of that size: a fork?), a 409 that moves again on the
// retry, a 409 whose body is not a size, a 200 not ending in a newline, a
// 200 whose cosignature by its key does not verify, an answer larger
// than the limit, one cut short, and an error whose body is quoted only
// up to 200 characters. The control is a real witness.
func TestWitnessAnswersRefused(t *testing.T) {
	f := newLog(t)
	f.add(t, "a", "b")
	w1, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	good, _ := startWitness(t, f, w1)
	cp, err := f.log.Checkpoint(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	realLine := func(w *signednote.WitnessSigner) string {
		c, err := witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp.Note}, f.logKey, w, nil, testNow)
		if err != nil {
			t.Fatal(err)
		}
		return string(c.Line)
	}
	serve := func(h func(n int64, w http.ResponseWriter, r *http.Request)) string {
		var n atomic.Int64
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			h(n.Add(1), w, r)
		}))
		t.Cleanup(s.Close)
		return s.URL
	}
	size := func(code int, n string) func(int64, http.ResponseWriter, *http.Request) {
		return func(_ int64, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/x.tlog.size")
			w.WriteHeader(code)
			io.WriteString(w, n)
		}
	}
	type bad struct {
		name    string
		handler func(*signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request)
		want    string
	}
	cases := []bad{
		{"fork", func(*signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request) {
			return size(409, "0\n")
		}, "a fork?"},
		{"moving", func(*signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request) {
			return func(n int64, w http.ResponseWriter, r *http.Request) { size(409, fmt.Sprint(n)+"\n")(n, w, r) }
		}, "409 Conflict again"},
		{"not a size", func(*signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request) {
			return size(409, "01\n")
		}, "not a decimal size"},
		{"no newline", func(w *signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request) {
			line := strings.TrimSuffix(realLine(w), "\n")
			return func(_ int64, rw http.ResponseWriter, _ *http.Request) { io.WriteString(rw, line) }
		}, "ending in a newline"},
		{"does not verify", func(w *signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request) {
			line := realLine(w)
			b := []byte(line)
			i := len(b) - 10 // inside the Ed25519 signature, after the key hash and timestamp
			b[i] = map[bool]byte{true: 'B', false: 'A'}[b[i] == 'A']
			return func(_ int64, rw http.ResponseWriter, _ *http.Request) { rw.Write(b) }
		}, "does not verify against the checkpoint"},
		{"too large", func(w *signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request) {
			big := bytes.Repeat([]byte(realLine(w)), 1000)
			return func(_ int64, rw http.ResponseWriter, _ *http.Request) { rw.Write(big) }
		}, "answer larger than"},
		{"cut answer", func(*signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request) {
			return func(_ int64, rw http.ResponseWriter, _ *http.Request) {
				rw.Header().Set("Content-Length", "100")
				io.WriteString(rw, "— a line cut short")
			}
		}, "reading the answer: unexpected EOF"},
		{"long refusal", func(*signednote.WitnessSigner) func(int64, http.ResponseWriter, *http.Request) {
			return func(_ int64, rw http.ResponseWriter, _ *http.Request) {
				rw.WriteHeader(http.StatusInternalServerError)
				io.WriteString(rw, strings.Repeat("x", 1000))
			}
		}, "500 Internal Server Error: " + strings.Repeat("x", 200) + "…"},
	}
	ws := []witnessclient.Witness{{Name: "good", Key: w1v, URL: good.URL}}
	for i, c := range cases {
		s, v := cosigner(t, bytes.Repeat([]byte{byte(0x70 + i)}, 32), "example.org/"+strings.ReplaceAll(c.name, " ", "-"))
		ws = append(ws, witnessclient.Witness{Name: c.name, Key: v, URL: serve(c.handler(s))})
	}
	client, err := witnessclient.New(ws, witnessclient.Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	got, res := witnessLog(t, client, f)
	if len(res.Cosignatures) != 1 || res.Cosignatures[0].Source != "good" || len(cosigners(t, f, got, w1v)) != 1 {
		t.Fatalf("control: %+v", res.Cosignatures)
	}
	if len(res.Failures) != len(cases) {
		t.Fatalf("failures: %+v", res.Failures)
	}
	for i, fl := range res.Failures {
		if fl.Name != cases[i].name || !strings.Contains(fl.Err.Error(), cases[i].want) {
			t.Errorf("%s: %v, want %q", fl.Name, fl.Err, cases[i].want)
		}
	}
}

// changingLog is a Log whose published checkpoint changes between the
// read and the update (another checkpoint was published meanwhile), or
// whose read fails.
type changingLog struct {
	*tlog.Log
	readErr error
	other   *signednote.Checkpoint
}

func (c changingLog) Checkpoint(ctx context.Context) (*signednote.Checkpoint, error) {
	if c.readErr != nil {
		return nil, c.readErr
	}
	return c.Log.Checkpoint(ctx)
}

func (c changingLog) UpdateCheckpoint(ctx context.Context, update func(*signednote.Checkpoint) ([]byte, error)) (*signednote.Checkpoint, error) {
	if _, err := update(c.other); err != nil {
		return nil, err
	}
	return c.Log.UpdateCheckpoint(ctx, update)
}

// WitnessLog refuses to attach cosignatures of one checkpoint to another
// (tlog.ErrCheckpointChanged), fails when the checkpoint cannot be read,
// and when a witness needs a proof that cannot be built (a Failure); the
// control attaches to the checkpoint it read.
func TestWitnessLogRefuses(t *testing.T) {
	f := newLog(t)
	f.add(t, "a")
	w1, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	good, _ := startWitness(t, f, w1)
	old, err := f.log.Checkpoint(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	f.add(t, "b")
	c, err := witnessclient.New([]witnessclient.Witness{{Name: "good", Key: w1v, URL: good.URL}}, witnessclient.Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	readTile := posix.New(f.dir).ReadTile
	if _, res, err := c.WitnessLog(ctx(t), changingLog{Log: f.log, other: old}, f.logKey, readTile); !errors.Is(err, tlog.ErrCheckpointChanged) || res == nil || len(res.Cosignatures) != 1 {
		t.Errorf("a checkpoint changed meanwhile: %v", err)
	}
	errRead := errors.New("checkpoint unreadable")
	if _, _, err := c.WitnessLog(ctx(t), changingLog{Log: f.log, readErr: errRead}, f.logKey, readTile); !errors.Is(err, errRead) {
		t.Errorf("an unreadable checkpoint: %v", err)
	}

	// The witness cosigned size 2; at size 3 it needs a proof from 2.
	f.add(t, "c")
	errTile := errors.New("tile unreadable")
	noTiles := func(context.Context, uint64, uint64, uint8) ([]byte, error) { return nil, errTile }
	_, res, err := c.WitnessLog(ctx(t), f.log, f.logKey, noTiles)
	if err != nil || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Err.Error(), errTile.Error()) || !strings.Contains(res.Failures[0].Err.Error(), "consistency proof from size 2 to 3") {
		t.Errorf("a proof that cannot be built: %+v, %v", res, err)
	}
	cp, res := witnessLog(t, c, f)
	if len(res.Cosignatures) != 1 || cp.Size != 3 {
		t.Errorf("control: %+v at size %d", res, cp.Size)
	}
}
