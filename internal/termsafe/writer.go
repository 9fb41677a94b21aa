package termsafe

import (
	"io"
	"sync"
	"unicode/utf8"
)

// A Writer applies the rule of [String] to everything written through it
// and writes the result to the writer under it. A character whose UTF-8
// bytes are split across two calls of Write (a buffered writer flushing
// in the middle of one) is held until the next call completes it, so it
// is kept as the character it is; [Writer.Flush] writes a held incomplete
// sequence as the invalid bytes it then is. A Writer may be used by
// several goroutines at once: each Write reaches the writer under it as
// one call.
type Writer struct {
	w io.Writer

	mu      sync.Mutex
	held    [utf8.UTFMax - 1]byte // the start of a character split across calls
	nheld   int
	scratch []byte // escaped output, and the held bytes joined to the next call
}

// NewWriter returns a Writer that writes to w; when w is a *Writer
// already, it is returned as it is (the rule applied twice is the rule
// applied once, so a second one would only cost time).
func NewWriter(w io.Writer) *Writer {
	if s, ok := w.(*Writer); ok {
		return s
	}
	return &Writer{w: w}
}

// Unwrap returns the writer under w when w is a *Writer, else w: for the
// program's own control sequences (a progress line erased with CR and
// ESC [K), a terminal test of the stream underneath, and a companion
// process, which writes its own output through its own Writer (and a
// document to standard output unchanged).
func Unwrap(w io.Writer) io.Writer {
	if s, ok := w.(*Writer); ok {
		return s.w
	}
	return w
}

// maxScratch is the largest buffer a Writer keeps between calls.
const maxScratch = 64 << 10

// Write writes p under the rule. It returns len(p) when the writer under
// it took everything, else 0 and its error.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	data := p
	joined := false
	if w.nheld > 0 {
		w.scratch = append(append(w.scratch[:0], w.held[:w.nheld]...), p...)
		data, joined = w.scratch, true
	}
	// Hold an incomplete last character: up to three bytes from a start
	// byte to the end that begin a valid encoding but are not a whole one.
	end := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(data[i]) {
			if data[i] >= utf8.RuneSelf && !utf8.FullRune(data[i:]) {
				end = i
			}
			break
		}
	}
	w.nheld = copy(w.held[:], data[end:])
	data = data[:end]
	out := data
	if n := clean(data, false, utf8.DecodeRune); n < len(data) {
		// The escaped text goes into scratch, after the joined input when
		// that is there.
		base := 0
		if joined {
			base = len(w.scratch)
		}
		w.scratch = appendEscaped(w.scratch[:base], data, false, utf8.DecodeRune)
		out = w.scratch[base:]
	}
	var err error
	if len(out) > 0 {
		_, err = w.w.Write(out)
	}
	if cap(w.scratch) > maxScratch {
		w.scratch = nil
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes the bytes of an incomplete character held from the last
// Write, escaped as the invalid bytes they are. The binaries flush their
// streams when a command line is done (internal/cli.Run).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.nheld == 0 {
		return nil
	}
	out := appendEscaped(nil, w.held[:w.nheld], false, utf8.DecodeRune)
	w.nheld = 0
	_, err := w.w.Write(out)
	return err
}
