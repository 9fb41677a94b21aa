package cli

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// Every message has the binary's prefix and its kind; Quiet drops "wrote"
// lines, never a note, a warning or an error; "-" (standard output) gets
// no "wrote" line.
func TestPrinterMessages(t *testing.T) {
	var b strings.Builder
	p := &Printer{Prog: "mcpres-x", Stderr: &b}
	p.Warnf("key %s is old", "a.key")
	p.Errorf("%s: unreadable", "b.json")
	p.Notef("logged %d", 1)
	p.Wrote("out.json", "")
	p.Wrote("ref.json", "entry %d", 7)
	p.Wrote("-", "")
	want := "mcpres-x: warning: key a.key is old\nmcpres-x: error: b.json: unreadable\nmcpres-x: logged 1\nmcpres-x: wrote out.json\nmcpres-x: wrote ref.json: entry 7\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	p.Quiet = true
	p.Wrote("out.json", "")
	p.Notef("logged")
	p.Warnf("w")
	p.Errorf("e")
	if b.String() != "mcpres-x: logged\nmcpres-x: warning: w\nmcpres-x: error: e\n" {
		t.Errorf("quiet: %q", b.String())
	}
}

// fakeTerminal answers prompts from a list and records what was shown.
type fakeTerminal struct {
	shown   *strings.Builder
	answers *[]string
}

func (f fakeTerminal) Write(b []byte) (int, error) { return f.shown.Write(b) }
func (f fakeTerminal) Close() error                { return nil }
func (f fakeTerminal) ReadPassword() ([]byte, error) {
	if len(*f.answers) == 0 {
		return nil, io.EOF
	}
	a := (*f.answers)[0]
	*f.answers = (*f.answers)[1:]
	return []byte(a), nil
}

func testPrinter(env map[string]string, answers []string, stderr *strings.Builder) (*Printer, *strings.Builder) {
	shown := &strings.Builder{}
	return &Printer{
		Prog: "mcpres", Stderr: stderr,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		OpenTerminal: func() (Terminal, error) {
			if answers == nil {
				return nil, ErrNoTerminal
			}
			return fakeTerminal{shown, &answers}, nil
		},
	}, shown
}

// $MCPRES_PASSWORD comes first, then cosign's $COSIGN_PASSWORD, then the
// terminal; an empty variable is tried as given for an existing key but
// refused for a new one; without a terminal the error says which variable
// to set. The passphrase never reaches standard error.
func TestPrinterPassphrase(t *testing.T) {
	var stderr strings.Builder
	for _, tt := range []struct {
		name    string
		env     map[string]string
		answers []string
		want    string
		err     string
	}{
		{"mcpres variable first", map[string]string{EnvPassword: "m", EnvCosignPassword: "c"}, []string{"t"}, "m", ""},
		{"cosign variable", map[string]string{EnvCosignPassword: "c"}, []string{"t"}, "c", ""},
		{"empty variable tried", map[string]string{EnvPassword: ""}, []string{"t"}, "", ""},
		{"terminal", nil, []string{"t"}, "t", ""},
		{"no terminal", nil, nil, "", "no terminal to ask for a passphrase; set $MCPRES_PASSWORD"},
	} {
		p, shown := testPrinter(tt.env, tt.answers, &stderr)
		got, err := p.Passphrase("a.key")
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || !errors.Is(err, ErrNoTerminal) {
				t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
		if tt.env == nil && shown.String() != "passphrase for a.key: \n" {
			t.Errorf("%s: prompt %q", tt.name, shown.String())
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("standard error: %q", stderr.String())
	}
}

func TestPrinterNewPassphrase(t *testing.T) {
	var stderr strings.Builder
	for _, tt := range []struct {
		name    string
		env     map[string]string
		answers []string
		want    string
		err     string
	}{
		{"variable", map[string]string{EnvCosignPassword: "c"}, nil, "c", ""},
		{"empty variable refused", map[string]string{EnvPassword: ""}, nil, "", "$MCPRES_PASSWORD is set but empty"},
		{"twice the same", nil, []string{"s3cret", "s3cret"}, "s3cret", ""},
		{"two different", nil, []string{"s3cret", "other"}, "", "the passphrases differ"},
		{"empty refused", nil, []string{"", ""}, "", "refusing an empty passphrase"},
		{"no terminal", nil, nil, "", ErrNoTerminal.Error()},
	} {
		p, _ := testPrinter(tt.env, tt.answers, &stderr)
		got, err := p.NewPassphrase()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, []byte(tt.want)) {
			t.Errorf("%s: %q, %v", tt.name, got, err)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("standard error: %q", stderr.String())
	}
}
