// Package server is the HTTP service of a tlog log (mcpres log serve): the
// C2SP tlog-tiles read API over any tlog.Storage, and submissions
// (POST /add) appended through one tlog.Appender.
//
// # Endpoints
//
//	GET  /checkpoint             the signed checkpoint, text/plain; never cached
//	GET  /tile/L/N[.p/W]         hash tiles, application/octet-stream
//	GET  /tile/entries/N[.p/W]   entry bundles, application/octet-stream
//	POST /add                    a submission: the body is admitted (read strictly
//	                             and validated by Config.Admit: AdmitEvidence in
//	                             the log service), appended or found in the log,
//	                             and answered with its transparency reference;
//	                             headers Mcpres-Entry-Index (the leaf index) and
//	                             Mcpres-Existing ("true" for an entry already
//	                             logged, whose proof Config.Refresh may renew)
//	GET  /healthz                200 when the published checkpoint verifies (and
//	                             the key can sign: Config.KeyReady)
//
// Full tiles and bundles never change: they are served with
// "Cache-Control: public, max-age=31536000, immutable". A partial tile of a
// given width never changes either but is garbage collected once its tile
// is full, so it is served from the full tile's prefix when it is gone (the
// bytes are the same) and cached for an hour. The checkpoint changes with
// every append: "no-store".
//
// # Limits
//
// With Config.Token, submissions need "Authorization: Bearer TOKEN",
// checked before the body is read; reads stay public. A body over
// Config.MaxBody (16 MiB by default) is refused with 413 before it is
// read further.
//
// Memory: the submissions being read and admitted share a budget of
// Config.MaxMemory bytes (256 MiB by default). A body holds Config.Cost(n)
// of it for the n bytes read so far (the body, its parse and its
// admission, package tlog/admit's Cost in the log service), reserved as
// the bytes arrive, so a slow client holds only what it has sent; the
// admission's fixed share is reserved once the body is complete, and all
// of it is released when Admit returns. A submission whose next bytes do
// not fit is answered 503 with Retry-After at once — nothing waits for
// memory, so partly read bodies never hold each other up — and a body past
// its first 64 KiB may only use three quarters of the budget: the last
// quarter stays free for small bodies, so honest small submissions go
// through while large ones fill the rest. MaxMemory is raised, if need
// be, to what one body of MaxBody needs ([MinMemory]).
//
// Concurrency: a body is read completely before the submission takes one
// of Config.MaxConcurrent slots (2048 by default), so slow bodies hold no
// slot; beyond them the answer is 429 with Retry-After. A slot is held
// while the entry is admitted and until its checkpoint is published.
// Tessera's pushback is answered 503. A submission is answered only once a
// published checkpoint covers its entry, so an acknowledged entry is
// durable.
package server

import (
	"context"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/tlog"
	"github.com/transparency-dev/tessera/api/layout"
)

// Defaults of Config.
const (
	DefaultMaxBody       = canonjson.MaxInputBytes // the most the strict reader takes
	DefaultMaxConcurrent = 2048
	DefaultMaxMemory     = 256 << 20
	// DefaultAddTimeout bounds how long one submission waits for its
	// checkpoint.
	DefaultAddTimeout = 30 * time.Second
)

// HTTP server timeouts: a slow client cannot hold a connection.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second
	WriteTimeout      = DefaultAddTimeout + 15*time.Second
	IdleTimeout       = 60 * time.Second
	MaxHeaderBytes    = 16 << 10
)

// A Rejection is an admission refusal: the HTTP status (4xx) and the
// diagnostic JSON answered.
type Rejection struct {
	Status int
	JSON   []byte
}

// Config configures a Handler.
type Config struct {
	// Log is the log, for the checkpoint in /healthz.
	Log *tlog.Log
	// Storage serves the tlog-tiles reads.
	Storage tlog.Storage
	// Appender appends submissions; nil serves reads only.
	Appender *tlog.Appender
	// Admit turns a submission body into the log entry, or refuses it.
	// Nothing is appended for a refused body.
	Admit func(body []byte) ([]byte, *Rejection)
	// Refresh, when set, is given the proof of a submission whose entry
	// was already in the log (a retry, or a re-submission to get a fresh
	// proof) and returns the proof to answer instead; the log service
	// asks the witnesses missing from its checkpoint again
	// ([Service.Run]). An error is logged and the first proof answered.
	Refresh func(ctx context.Context, p *tlog.Proof) (*tlog.Proof, error)
	// Reference encodes the answer to an accepted submission; nil means
	// its transparency reference (tlog.Proof.Reference), byte for byte
	// what `mcpres log add -o` writes.
	Reference func(p *tlog.Proof) ([]byte, error)
	// Token, if not empty, is the bearer token submissions must carry.
	Token string
	// MaxBody, MaxConcurrent, MaxMemory and AddTimeout default to the
	// constants; MaxMemory is at least MinMemory(MaxBody, Cost).
	MaxBody       int64
	MaxConcurrent int
	MaxMemory     int64
	AddTimeout    time.Duration
	// Cost is the memory that reading a body of n bytes and admitting it
	// take together, body included (see the package documentation); it
	// must be non-decreasing. The default, n, counts the body alone.
	Cost func(n int64) int64
	// Logf, if set, receives one line per failed request (server side).
	Logf func(format string, args ...any)
	// KeyReady, if set, says whether the log's key can sign (nil) or not:
	// while it cannot (a token or an agent that is gone), submissions are
	// answered 503 with Retry-After at once, before their bodies are read,
	// and /healthz answers 503 ([KeyHealth.Ready]).
	KeyReady func() error
}

// Handler serves the endpoints of the package documentation.
type Handler struct {
	cfg Config
	sem chan struct{}
	mem budget
	mux *http.ServeMux
}

// smallBody is the size up to which a body may use the part of the memory
// budget kept for small bodies.
const smallBody = 64 << 10

// MinMemory is the smallest Config.MaxMemory with which a body of maxBody
// bytes can be admitted: the part of the budget a large body may use
// (three quarters) must hold its cost.
func MinMemory(maxBody int64, cost func(int64) int64) int64 {
	return (cost(maxBody)*4 + 2) / 3
}

// New returns the handler for cfg.
func New(cfg Config) *Handler {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.AddTimeout <= 0 {
		cfg.AddTimeout = DefaultAddTimeout
	}
	if cfg.Cost == nil {
		cfg.Cost = func(n int64) int64 { return n }
	}
	if cfg.Reference == nil {
		cfg.Reference = func(p *tlog.Proof) ([]byte, error) { return p.Reference().Marshal() }
	}
	if cfg.MaxMemory <= 0 {
		cfg.MaxMemory = DefaultMaxMemory
	}
	cfg.MaxMemory = max(cfg.MaxMemory, MinMemory(cfg.MaxBody, cfg.Cost))
	h := &Handler{cfg: cfg, sem: make(chan struct{}, cfg.MaxConcurrent), mem: budget{max: cfg.MaxMemory}, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /checkpoint", h.checkpoint)
	h.mux.HandleFunc("GET /tile/", h.tile)
	h.mux.HandleFunc("GET /healthz", h.healthz)
	h.mux.HandleFunc("POST /add", h.add)
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) logf(format string, args ...any) {
	if h.cfg.Logf != nil {
		h.cfg.Logf(format, args...)
	}
}

func (h *Handler) checkpoint(w http.ResponseWriter, r *http.Request) {
	data, err := h.cfg.Storage.ReadCheckpoint(r.Context())
	if err != nil {
		h.readError(w, "checkpoint", err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	serve(w, "text/plain; charset=utf-8", data)
}

func (h *Handler) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if h.cfg.KeyReady != nil {
		if err := h.cfg.KeyReady(); err != nil {
			h.logf("healthz: %v", err)
			http.Error(w, "unhealthy: the log's signing key is unavailable", http.StatusServiceUnavailable)
			return
		}
	}
	if _, err := h.cfg.Log.Checkpoint(r.Context()); err != nil {
		h.logf("healthz: %v", err)
		http.Error(w, "unhealthy: the published checkpoint does not verify", http.StatusServiceUnavailable)
		return
	}
	serve(w, "text/plain; charset=utf-8", []byte("ok\n"))
}

// tile serves /tile/L/N[.p/W] and /tile/entries/N[.p/W]. Only canonical
// paths are served (the path is rebuilt from the parsed numbers and must be
// the path asked for).
func (h *Handler) tile(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/tile/")
	level, index, ok := strings.Cut(rest, "/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	entries := level == "entries"
	var (
		l, n uint64
		p    uint8
		err  error
	)
	if entries {
		n, p, err = layout.ParseTileIndexPartial(index)
	} else {
		l, n, p, err = layout.ParseTileLevelIndexPartial(level, index)
	}
	if err != nil {
		http.NotFound(w, r)
		return
	}
	var canonical string
	if entries {
		canonical = layout.EntriesPath(n, p)
	} else {
		canonical = layout.TilePath(l, n, p)
	}
	if "/"+canonical != r.URL.Path {
		http.NotFound(w, r)
		return
	}
	var data []byte
	if entries {
		data, err = h.cfg.Storage.ReadEntryBundle(r.Context(), n, p)
		if err == nil && p > 0 {
			data, err = bundlePrefix(data, int(p))
		}
	} else {
		data, err = h.cfg.Storage.ReadTile(r.Context(), l, n, p)
		if err == nil && p > 0 {
			data, err = tilePrefix(data, int(p))
		}
	}
	if err != nil {
		h.readError(w, canonical, err)
		return
	}
	if p == 0 {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "public, max-age=3600")
	}
	serve(w, "application/octet-stream", data)
}

// tilePrefix returns the first p hashes of a hash tile: the partial tile
// of width p, also when the storage answered with the full tile.
func tilePrefix(data []byte, p int) ([]byte, error) {
	if len(data)%32 != 0 || len(data) < 32*p {
		return nil, fmt.Errorf("%w: tile of %d bytes for width %d", fs.ErrNotExist, len(data), p)
	}
	return data[:32*p], nil
}

// bundlePrefix returns the first p entries of an entry bundle (each a
// big-endian uint16 length and the data): the partial bundle of width p.
func bundlePrefix(data []byte, p int) ([]byte, error) {
	off := 0
	for range p {
		if len(data)-off < 2 {
			return nil, fmt.Errorf("%w: entry bundle with fewer than %d entries", fs.ErrNotExist, p)
		}
		n := int(binary.BigEndian.Uint16(data[off:]))
		if len(data)-off-2 < n {
			return nil, errors.New("truncated entry bundle")
		}
		off += 2 + n
	}
	return data[:off], nil
}

func (h *Handler) readError(w http.ResponseWriter, what string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	h.logf("reading %s: %v", what, err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

func serve(w http.ResponseWriter, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(data)
}

// jsonError answers a JSON error object {"error": msg}.
func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintf(w, "{\"error\":%s}\n", strconv.Quote(msg))
}

func (h *Handler) add(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Appender == nil {
		jsonError(w, http.StatusNotFound, "this log takes no submissions")
		return
	}
	if h.cfg.Token != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(h.cfg.Token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpres log"`)
			jsonError(w, http.StatusUnauthorized, "a submission needs the log's bearer token")
			return
		}
	}
	if r.ContentLength > h.cfg.MaxBody {
		jsonError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a submission is at most %d bytes", h.cfg.MaxBody))
		return
	}
	if h.cfg.KeyReady != nil {
		if err := h.cfg.KeyReady(); err != nil {
			h.logf("add: %v", err)
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Connection", "close")
			jsonError(w, http.StatusServiceUnavailable, "the log's signing key is unavailable, retry later")
			return
		}
	}
	// The body is read before a slot is taken (a slow body holds none),
	// its memory reserved as it arrives.
	res := &reservation{h: h}
	defer res.release()
	body, err := res.read(http.MaxBytesReader(w, r.Body, h.cfg.MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		jsonError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a submission is at most %d bytes", h.cfg.MaxBody))
		return
	case errors.Is(err, errNoMemory):
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		jsonError(w, http.StatusServiceUnavailable, "the log's memory for submissions is in use, retry later")
		return
	case err != nil:
		jsonError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	select {
	case h.sem <- struct{}{}:
		defer func() { <-h.sem }()
	default:
		w.Header().Set("Retry-After", "1")
		jsonError(w, http.StatusTooManyRequests, "too many submissions in flight, retry later")
		return
	}
	entry, rej := h.cfg.Admit(body)
	body = nil
	res.release() // what is left is the entry: the checkpoint may take a while
	if rej != nil {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(rej.Status)
		w.Write(rej.JSON)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.AddTimeout)
	defer cancel()
	p, err := h.cfg.Appender.Add(ctx, entry)
	switch {
	case errors.Is(err, tlog.ErrBusy):
		w.Header().Set("Retry-After", "1")
		jsonError(w, http.StatusServiceUnavailable, "the log is busy, retry later")
		return
	case err != nil:
		h.logf("add: %v", err)
		// The entry may be in the log: a retry is answered with it.
		jsonError(w, http.StatusServiceUnavailable, "the entry could not be confirmed in time, retry")
		return
	}
	if p.Existing && h.cfg.Refresh != nil {
		if np, err := h.cfg.Refresh(ctx, p); err != nil {
			h.logf("add: entry %d already logged: refreshing its proof: %v", p.Index, err)
		} else {
			p = np
		}
	}
	ref, err := h.cfg.Reference(p)
	if err != nil {
		h.logf("add: encoding the reference of entry %d: %v", p.Index, err)
		jsonError(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Mcpres-Entry-Index", p.EntryID())
	w.Header().Set("Mcpres-Existing", strconv.FormatBool(p.Existing)) // client.ExistingHeader
	w.Header().Set("Cache-Control", "no-store")
	serve(w, "application/json", ref)
}

// errNoMemory: the memory budget cannot hold the next bytes of a body.
var errNoMemory = errors.New("the memory budget for submissions is in use")

// A budget is the memory shared by the submissions being read and
// admitted.
type budget struct {
	mu        sync.Mutex
	used, max int64
}

// take reserves n bytes for a body of which read bytes have been read,
// unless that would exceed the budget (three quarters of it once read
// passes smallBody).
func (b *budget) take(n, read int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	limit := b.max
	if read > smallBody {
		limit -= b.max / 4
	}
	if b.used+n > limit {
		return false
	}
	b.used += n
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
}

// A reservation is the memory one submission holds.
type reservation struct {
	h    *Handler
	held int64
}

// read reads the body. The memory reserved follows the bytes as they
// arrive: for n bytes read into a buffer of capacity c, max(c, Cost(n) −
// Cost(0)), reserved before the buffer grows (by a quarter, at least
// 4 KiB) and after each read; once the body is complete, max(c, Cost(n)),
// which adds the admission's fixed share. A slow client thus holds about
// what it has sent. It fails with errNoMemory when a reservation does not
// fit.
func (res *reservation) read(r io.Reader) ([]byte, error) {
	cost := res.h.cfg.Cost
	var body []byte
	for {
		n := int64(len(body))
		if len(body) == cap(body) {
			c := min(max(cap(body)+cap(body)/4, 4<<10), int(res.h.cfg.MaxBody)+1)
			if err := res.reserve(max(int64(c), cost(n)-cost(0)), n); err != nil {
				return nil, err
			}
			body = append(make([]byte, 0, c), body...)
		}
		m, err := r.Read(body[len(body):cap(body)])
		body = body[:len(body)+m]
		if rerr := res.reserve(max(int64(cap(body)), cost(int64(len(body)))-cost(0)), int64(len(body))); rerr != nil {
			return nil, rerr
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := res.reserve(max(int64(cap(body)), cost(int64(len(body)))), int64(len(body))); err != nil {
		return nil, err
	}
	return body, nil
}

// reserve raises what res holds to total.
func (res *reservation) reserve(total, read int64) error {
	if total <= res.held {
		return nil
	}
	if !res.h.mem.take(total-res.held, read) {
		return errNoMemory
	}
	res.held = total
	return nil
}

func (res *reservation) release() {
	res.h.mem.give(res.held)
	res.held = 0
}

// NewHTTPServer returns an http.Server for h with this package's timeouts.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
}

// Serve serves h on ln until ctx is done, then shuts down gracefully:
// no new connections, and every request in flight (a submission waiting
// for its checkpoint) is finished, within grace.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	srv := NewHTTPServer(h)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
