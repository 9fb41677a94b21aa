// Package witnessclient is the log's side of C2SP tlog-witness: it sends
// each new checkpoint of an mcpres log to the witnesses of a tlog policy
// (the "witness NAME VKEY URL" lines, parsed by package trustpolicy) and
// collects their cosignatures.
//
// Each witness gets a POST URL/add-checkpoint with the consistency proof
// from the size it last cosigned, as this client knows it (or, before it
// has heard from the witness, from a hint: the log's previous size). A 409
// Conflict answer (text/x.tlog.size) gives the witness's size, and the
// request is sent again once with a proof from that size. The witnesses are
// asked in parallel, each with its own deadline ([Options.Timeout]), so a
// witness that is down delays the log by at most that deadline; whatever
// was obtained is attached, and the verifier's quorum decides whether it
// is enough (a log never fails because a witness does not answer).
//
// Every cosignature line a witness returns is ignored unless it is by that
// witness's key and verifies against the checkpoint (C2SP tlog-witness:
// the client MUST ignore cosignatures from unknown keys). A cosignature
// that verifies must also count when the answer arrives, under the time
// rule every verifier applies (signednote.JudgeCosignature at
// [Options.Now], no maximum age): one dated after that (a witness whose
// clock runs ahead, or that lies) is not attached, and the witness is a
// [Failure] whose error is the *signednote.UncountedCosignature, naming
// the witness, the cosignature's date and the time it was judged at. It
// would otherwise be counted by nobody until its date, and its presence
// would keep the witness from being asked again.
//
// A [Witnessing] is the one witnessing round of mcpres built on this
// client: the witnesses of a tlog policy (trustpolicy.TLogPolicy) asked,
// their cosignatures attached, what each did logged. `log add --dir` and
// `log proof` run it once; `log serve` has it as an option of its appender
// (as Tessera keeps witnessing on its appender, tessera.WithWitnesses).
//
// Tessera v1.0.4 has a witness client too (tessera.WithWitnesses and
// tessera.NewWitnessGroupFromPolicy, over its internal witness gateway).
// It is not used for sending: its policy parser counts a witness reachable
// through two group members twice, needs a URL on every witness line, and
// its gateway stops asking witnesses once its own (mis)count of the policy
// is satisfied. Its proof builder (tessera/client.ProofBuilder) is used for
// the consistency proofs ([TileProofs]).
package witnessclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/note"
)

// DefaultTimeout is the default deadline of one witness, 409 retry
// included.
const DefaultTimeout = 5 * time.Second

// maxResponseBytes bounds a witness's answer.
const maxResponseBytes = 64 << 10

// maxAttempts is how many requests one witness gets per checkpoint: the
// first, and one after a 409 that gave its size.
const maxAttempts = 2

// A Witness is a witness to ask.
type Witness struct {
	// Name is the tlog policy's name for it.
	Name string
	// Key is its cosignature/v1 verifier key.
	Key *signednote.Verifier
	// URL is its submission prefix: requests go to URL/add-checkpoint.
	URL string
}

// A ProofFunc returns the RFC 6962 consistency proof from tree size from
// to tree size to of the log (0 < from < to).
type ProofFunc func(ctx context.Context, from, to uint64) ([][]byte, error)

// TileProofs returns a ProofFunc that builds proofs from the log's hash
// tiles with Tessera's client.ProofBuilder (tlog.Storage.ReadTile is a
// client.TileFetcherFunc).
func TileProofs(readTile client.TileFetcherFunc) ProofFunc {
	return func(ctx context.Context, from, to uint64) ([][]byte, error) {
		pb, err := client.NewProofBuilder(ctx, to, readTile)
		if err != nil {
			return nil, err
		}
		return pb.ConsistencyProof(ctx, from, to)
	}
}

// Options configure a Client.
type Options struct {
	// HTTPClient sends the requests; nil: a client with no overall
	// timeout (the per-witness deadline applies).
	HTTPClient *http.Client
	// Timeout is the deadline of each witness per checkpoint; 0:
	// DefaultTimeout.
	Timeout time.Duration
	// Now is the clock a cosignature is judged by when it arrives; nil
	// means time.Now.
	Now func() time.Time
}

// A Client asks witnesses for cosignatures. It remembers, per witness, the
// size the witness last cosigned, so a long-running log (log serve) sends
// the right proof at once; it is safe for concurrent use, but checkpoints
// of one log should be sent in order.
type Client struct {
	http    *http.Client
	timeout time.Duration
	now     func() time.Time
	remotes []*remote
}

type remote struct {
	Witness
	endpoint string
	mu       sync.Mutex
	size     uint64
	known    bool
}

// New returns a client for ws. Every witness needs a key of type
// cosignature/v1, an http or https URL, and a name of its own.
func New(ws []Witness, opts Options) (*Client, error) {
	c := &Client{http: opts.HTTPClient, timeout: opts.Timeout, now: opts.Now}
	if c.now == nil {
		c.now = time.Now
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	names, keys := map[string]bool{}, map[string]string{}
	for _, w := range ws {
		if w.Key == nil {
			return nil, fmt.Errorf("witnessclient: witness %q: no key", w.Name)
		}
		if err := w.Key.CheckType(signednote.TypeCosignatureV1); err != nil {
			return nil, fmt.Errorf("witnessclient: witness %q: %w", w.Name, err)
		}
		if names[w.Name] {
			return nil, fmt.Errorf("witnessclient: witness %q is listed twice", w.Name)
		}
		names[w.Name] = true
		if prev, dup := keys[w.Key.Fingerprint()]; dup {
			return nil, fmt.Errorf("witnessclient: witnesses %q and %q have the same key", prev, w.Name)
		}
		keys[w.Key.Fingerprint()] = w.Name
		u, err := url.Parse(w.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("witnessclient: witness %q: URL %q is not an http(s) URL without credentials, query or fragment", w.Name, w.URL)
		}
		c.remotes = append(c.remotes, &remote{Witness: w, endpoint: u.JoinPath("add-checkpoint").String()})
	}
	return c, nil
}

// Hint sets the size assumed for witnesses the client has not heard from
// yet (typically the log's size before the new checkpoint): a wrong hint
// costs one 409 round trip.
func (c *Client) Hint(size uint64) {
	for _, r := range c.remotes {
		r.mu.Lock()
		if !r.known {
			r.size = size
		}
		r.mu.Unlock()
	}
}

// A Failure is a witness that gave no cosignature that counts. Err is a
// *signednote.UncountedCosignature when the witness's cosignature
// verified but does not count (it is not attached).
type Failure struct {
	Name string
	// URL is where the witness was asked: its URL followed by
	// /add-checkpoint.
	URL string
	Err error
}

// String says which witness gave no cosignature, where it was asked, and
// why: "witness NAME gave no cosignature (POST URL): ERR", or for one that
// does not count "witness NAME gave a cosignature that does not count, not
// attached (POST URL): cosignature of NAME dated T is not counted: dated
// after the evaluation time AT".
func (f Failure) String() string {
	var u *signednote.UncountedCosignature
	if errors.As(f.Err, &u) {
		return fmt.Sprintf("witness %s gave a cosignature that does not count, not attached (POST %s): %v", f.Name, f.URL, f.Err)
	}
	return fmt.Sprintf("witness %s gave no cosignature (POST %s): %v", f.Name, f.URL, f.Err)
}

// A Result is what a round of [Client.WitnessLog] obtained.
type Result struct {
	// Cosignatures are the verified cosignature lines, in witness order,
	// each "— NAME BASE64\n", as witness.CosignatureInput values (Source
	// is the witness's name) ready for witness.Attach.
	Cosignatures []witness.CosignatureInput
	// Failures are the witnesses that gave none, in witness order.
	Failures []Failure
	// Present are the witnesses that were not asked because the
	// checkpoint already carried their valid cosignature (WitnessLog), in
	// witness order.
	Present []string
}

// Summary is the account of a round for its checkpoint cp: "checkpoint of
// ORIGIN at size N: cosigned by K of M witness(es) asked (NAMES)", NAMES
// those that cosigned or "none", and "; already cosigned by NAMES" for the
// witnesses not asked. Each Failure says why it gave none.
func (r *Result) Summary(cp *signednote.Checkpoint) string {
	names := make([]string, len(r.Cosignatures))
	for i, s := range r.Cosignatures {
		names[i] = s.Source
	}
	list := strings.Join(names, ", ")
	if list == "" {
		list = "none"
	}
	s := fmt.Sprintf("checkpoint of %s at size %d: cosigned by %d of %d witness(es) asked (%s)",
		cp.Origin, cp.Size, len(r.Cosignatures), len(r.Cosignatures)+len(r.Failures), list)
	if len(r.Present) > 0 {
		s += "; already cosigned by " + strings.Join(r.Present, ", ")
	}
	return s
}

// Missing returns the names of the witnesses whose valid cosignature cp
// (a checkpoint signed by logKey) does not carry, in witness order: those
// a new round would ask. A cosignature line that does not verify counts as
// missing.
func (c *Client) Missing(cp *signednote.Checkpoint, logKey *signednote.Verifier) []string {
	var out []string
	for _, r := range c.missing(cp, logKey) {
		out = append(out, r.Name)
	}
	return out
}

func (c *Client) missing(cp *signednote.Checkpoint, logKey *signednote.Verifier) []*remote {
	var out []*remote
	for _, r := range c.remotes {
		if !hasSig(cp.Note, logKey, r.Key) {
			out = append(out, r)
		}
	}
	return out
}

// hasSig reports whether the note, which verifies with logKey and key,
// carries a verified signature by key.
func hasSig(n []byte, logKey, key *signednote.Verifier) bool {
	ck, err := signednote.Open(n, logKey, key)
	if err != nil {
		return false
	}
	for _, s := range ck.Sigs {
		if s.Name == key.Name() && s.Hash == key.KeyHash() {
			return true
		}
	}
	return false
}

// askAll sends the checkpoint note cp, which must verify with logKey, to the
// witnesses remotes in parallel and returns the cosignatures obtained. It
// fails only when cp does not verify; a witness that fails is a Failure.
func (c *Client) askAll(ctx context.Context, cp []byte, logKey *signednote.Verifier, proof ProofFunc, remotes []*remote) (*Result, error) {
	ck, err := signednote.Open(cp, logKey)
	if err != nil {
		return nil, fmt.Errorf("witnessclient: %w", err)
	}
	type out struct {
		line []byte
		err  error
	}
	outs := make([]out, len(remotes))
	var wg sync.WaitGroup
	for i, r := range remotes {
		wg.Go(func() {
			wctx, cancel := context.WithTimeout(ctx, c.timeout)
			defer cancel()
			outs[i].line, outs[i].err = c.ask(wctx, r, ck, proof)
		})
	}
	wg.Wait()
	res := &Result{}
	for i, r := range remotes {
		if outs[i].err != nil {
			res.Failures = append(res.Failures, Failure{Name: r.Name, URL: r.endpoint, Err: outs[i].err})
			continue
		}
		res.Cosignatures = append(res.Cosignatures, witness.CosignatureInput{Source: r.Name, Data: outs[i].line})
	}
	return res, nil
}

// ask obtains one witness's cosignature of ck.
func (c *Client) ask(ctx context.Context, r *remote, ck *signednote.Checkpoint, proof ProofFunc) ([]byte, error) {
	r.mu.Lock() // one checkpoint at a time per witness
	defer r.mu.Unlock()
	old := r.size
	if old > ck.Size {
		old = 0 // a stale hint; the witness's 409 will tell
	}
	for attempt := 1; ; attempt++ {
		req := &witness.AddRequest{OldSize: old, Checkpoint: ck.Note}
		if old > 0 && old < ck.Size {
			p, err := proof(ctx, old, ck.Size)
			if err != nil {
				return nil, fmt.Errorf("consistency proof from size %d to %d: %w", old, ck.Size, err)
			}
			req.Proof = p
		}
		status, ctype, body, err := c.post(ctx, r.endpoint, req.Marshal())
		if err != nil {
			return nil, err
		}
		switch status {
		case http.StatusOK:
			line, ts, err := cosignatureLine(body, r.Key, ck)
			if err != nil {
				return nil, err
			}
			r.size, r.known = ck.Size, true // it cosigned, counted or not
			if u := signednote.JudgeCosignature(signednote.CountedCosignature{Name: r.Name, Fingerprint: r.Key.Fingerprint(), Time: ts}, c.now(), 0); u != nil {
				return nil, u
			}
			return line, nil
		case http.StatusConflict:
			size, err := parseSize(ctype, body)
			if err != nil {
				return nil, fmt.Errorf("409 Conflict: %w", err)
			}
			r.size, r.known = size, true
			switch {
			case size > ck.Size:
				return nil, fmt.Errorf("409 Conflict: the witness has cosigned size %d, larger than this checkpoint's %d (has the log lost entries?)", size, ck.Size)
			case size == old:
				return nil, fmt.Errorf("409 Conflict at the size %d it reports: the witness cosigned another tree of size %d (a fork?)", size, size)
			case attempt == maxAttempts:
				return nil, fmt.Errorf("409 Conflict again: the witness now reports size %d", size)
			}
			old = size
		case http.StatusNotFound:
			// C2SP tlog-witness answers 404 for a log the witness does not
			// know; any other server answers it for a path it does not
			// serve (a URL that is not the witness's base URL). Either
			// way, waiting for the witness does not help.
			return nil, fmt.Errorf("404 Not Found: no tlog-witness endpoint at %s (is the policy's URL the witness's base URL?), or the witness does not witness log %q (has it been given the log's key?): %q",
				r.endpoint, ck.Origin, excerpt(body))
		default:
			return nil, fmt.Errorf("%d %s: %s", status, http.StatusText(status), excerpt(body))
		}
	}
}

func (c *Client) post(ctx context.Context, u string, body []byte) (int, string, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	resp, err := c.http.Do(req)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err // the Failure names the URL
	}
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return 0, "", nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(data) > maxResponseBytes {
		return 0, "", nil, fmt.Errorf("answer larger than %d bytes", maxResponseBytes)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), data, nil
}

// cosignatureLine picks from a 200 answer the line by key and verifies it
// against the checkpoint body; lines by other keys are ignored. It returns
// the line and its timestamp.
func cosignatureLine(body []byte, key *signednote.Verifier, ck *signednote.Checkpoint) ([]byte, uint64, error) {
	if len(body) == 0 || body[len(body)-1] != '\n' {
		return nil, 0, errors.New("200 answer is not signature lines ending in a newline")
	}
	for line := range bytes.SplitAfterSeq(body, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !bytes.HasPrefix(line, []byte("— ")) {
			return nil, 0, errors.New("200 answer has a line that is not a signature line")
		}
		sig, _, err := ck.VerifyLine(line, key)
		if err != nil {
			var unk *note.UnknownVerifierError
			if errors.As(err, &unk) {
				continue // another key's cosignature
			}
			return nil, 0, fmt.Errorf("cosignature does not verify against the checkpoint: %v", err)
		}
		ts, err := signednote.CosignatureTimestamp(sig)
		if err != nil { // unreachable: a type 0x04 key verified it
			return nil, 0, err
		}
		return bytes.Clone(line), ts, nil
	}
	return nil, 0, fmt.Errorf("200 answer has no cosignature by %s+%08x", key.Name(), key.KeyHash())
}

// parseSize reads a text/x.tlog.size body: a decimal size and a newline.
func parseSize(ctype string, body []byte) (uint64, error) {
	if ctype != witnessSizeType {
		return 0, fmt.Errorf("content type %q, want %s", ctype, witnessSizeType)
	}
	s, ok := strings.CutSuffix(string(body), "\n")
	n, err := strconv.ParseUint(s, 10, 64)
	if !ok || err != nil || strconv.FormatUint(n, 10) != s {
		return 0, fmt.Errorf("body %q is not a decimal size and a newline", excerpt(body))
	}
	return n, nil
}

const witnessSizeType = "text/x.tlog.size"

func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
