package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// Environment variables that supply a private key's passphrase
// non-interactively (CI), read by [Printer.Passphrase] in this order.
const (
	// EnvPassword is mcpres's own variable.
	EnvPassword = "MCPRES_PASSWORD"
	// EnvCosignPassword is cosign's variable for the same passphrase, read
	// when $MCPRES_PASSWORD is unset, so that a cosign-encrypted key works
	// in a pipeline already set up for cosign.
	EnvCosignPassword = "COSIGN_PASSWORD"
)

// ErrNoTerminal is the error when a passphrase is needed, neither
// variable is set, and there is no terminal to ask on.
var ErrNoTerminal = errors.New("no terminal to ask for a passphrase; set $" + EnvPassword)

// A Printer writes a binary's messages on standard error, the one way
// every binary does (stdout carries only data):
//
//	PROG: warning: …
//	PROG: error: …
//	PROG: wrote PATH: DETAIL
//	PROG: …              (a note: what was done, progress)
//
// and asks for passphrases ($MCPRES_PASSWORD, $COSIGN_PASSWORD, else the
// terminal). Stderr is the binary's standard error already wrapped by
// termsafe.NewWriter (every message may quote untrusted text). Its zero
// LookupEnv and OpenTerminal are the process's.
type Printer struct {
	// Prog prefixes every message: "mcpres", "mcpres-tuf", …
	Prog   string
	Stderr io.Writer
	// Quiet drops "wrote" lines (--quiet); warnings, errors and notes are
	// always printed.
	Quiet bool
	// LookupEnv reads environment variables; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// OpenTerminal opens the terminal a passphrase is asked on; nil opens
	// /dev/tty. It fails with ErrNoTerminal (wrapped) when there is none.
	OpenTerminal func() (Terminal, error)
}

// A Terminal is where a passphrase is asked: the prompt is written to it
// and the passphrase read from it without echo.
type Terminal interface {
	io.Writer
	ReadPassword() ([]byte, error)
	Close() error
}

// Warnf prints "PROG: warning: …".
func (p *Printer) Warnf(format string, args ...any) {
	fmt.Fprintf(p.Stderr, "%s: warning: %s\n", p.Prog, fmt.Sprintf(format, args...))
}

// Errorf prints "PROG: error: …": an error the command reports itself
// before it exits (one of several inputs, or with detail lines that
// follow), where returning the error would stop it.
func (p *Printer) Errorf(format string, args ...any) {
	fmt.Fprintf(p.Stderr, "%s: error: %s\n", p.Prog, fmt.Sprintf(format, args...))
}

// Notef prints "PROG: …": what a command did or found, which it reports
// whatever Quiet says (Quiet is for "wrote" lines).
func (p *Printer) Notef(format string, args ...any) {
	fmt.Fprintf(p.Stderr, "%s: %s\n", p.Prog, fmt.Sprintf(format, args...))
}

// Wrote says what a command wrote, as "PROG: wrote PATH: DETAIL" (format
// and args give DETAIL; an empty format gives none), unless Quiet or PATH
// is "-" (standard output: the document itself is the output then).
func (p *Printer) Wrote(path, format string, args ...any) {
	if p.Quiet || path == "-" {
		return
	}
	if format == "" {
		fmt.Fprintf(p.Stderr, "%s: wrote %s\n", p.Prog, path)
		return
	}
	fmt.Fprintf(p.Stderr, "%s: wrote %s: %s\n", p.Prog, path, fmt.Sprintf(format, args...))
}

func (p *Printer) lookupEnv(name string) (string, bool) {
	if p.LookupEnv != nil {
		return p.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

// password returns $MCPRES_PASSWORD, else $COSIGN_PASSWORD, and the name
// of the variable it came from.
func (p *Printer) password() (pass, name string, ok bool) {
	if v, ok := p.lookupEnv(EnvPassword); ok {
		return v, EnvPassword, true
	}
	v, ok := p.lookupEnv(EnvCosignPassword)
	return v, EnvCosignPassword, ok
}

// Passphrase returns the passphrase of the encrypted key label (a path or
// $NAME): $MCPRES_PASSWORD, else $COSIGN_PASSWORD (an empty one is tried
// as given, as cosign does), else asked on the terminal. It fits
// keyref.Options.Passphrase. The passphrase is never printed.
func (p *Printer) Passphrase(label string) ([]byte, error) {
	if v, _, ok := p.password(); ok {
		return []byte(v), nil
	}
	return p.prompt("passphrase for " + label + ": ")
}

// NewPassphrase returns the passphrase a new key is encrypted with:
// $MCPRES_PASSWORD, else $COSIGN_PASSWORD (refused when empty), else asked
// twice on the terminal (refused when the two differ or are empty).
func (p *Printer) NewPassphrase() ([]byte, error) {
	if v, name, ok := p.password(); ok {
		if v == "" {
			return nil, fmt.Errorf("$%s is set but empty", name)
		}
		return []byte(v), nil
	}
	p1, err := p.prompt("passphrase for the new key: ")
	if err != nil {
		return nil, err
	}
	p2, err := p.prompt("same passphrase again: ")
	if err != nil {
		clear(p1)
		return nil, err
	}
	defer clear(p2)
	if !bytes.Equal(p1, p2) {
		clear(p1)
		return nil, errors.New("the passphrases differ")
	}
	if len(p1) == 0 {
		return nil, errors.New("refusing an empty passphrase")
	}
	return p1, nil
}

// prompt asks msg on the terminal and reads a line without echo.
func (p *Printer) prompt(msg string) ([]byte, error) {
	open := p.OpenTerminal
	if open == nil {
		open = openTTY
	}
	tty, err := open()
	if err != nil {
		return nil, err
	}
	defer tty.Close()
	fmt.Fprint(tty, msg)
	pass, err := tty.ReadPassword()
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("reading passphrase: %w", err)
	}
	return pass, nil
}

// tty is /dev/tty.
type tty struct{ *os.File }

func (t tty) ReadPassword() ([]byte, error) { return term.ReadPassword(int(t.Fd())) }

func openTTY() (Terminal, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, ErrNoTerminal
	}
	if !term.IsTerminal(int(f.Fd())) {
		f.Close()
		return nil, ErrNoTerminal
	}
	return tty{f}, nil
}
