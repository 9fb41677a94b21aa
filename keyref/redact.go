package keyref

import "regexp"

// PIN attributes in every spelling a person may type, then "=" (or %3D)
// and the value up to the next "&" or the end (redacted whole: a PIN may
// hold ";" or "?"): pin-value in any case, with nothing or up to three
// characters but letters, digits, "=" and "&" between pin and value ("-",
// "_", ".", a space), or a percent-encoded "-" or "_"; and a
// bare pin= (wherever it is: "spin=" too, a PIN may follow any byte).
var (
	pinValueRE = regexp.MustCompile(`(?i)pin(?:[^a-z0-9=&]{0,3}|%2d|%5f)value\s*(?:=|%3d)[^&]*`)
	barePINRE  = regexp.MustCompile(`(?i)pin\s*(?:=|%3d)[^&]*`)
)

// Redact returns the key reference s (or a message quoting one) with
// every PIN replaced: "pin-value=…" in any spelling becomes
// "pin-value=REDACTED", a bare "pin=…" "pin=REDACTED". Every message of
// this package and of the commands that quotes a reference, as given or
// parsed, passes it through Redact ([Ref.String] and [URI.String] do).
func Redact(s string) string {
	s = pinValueRE.ReplaceAllLiteralString(s, "pin-value=REDACTED")
	return barePINRE.ReplaceAllLiteralString(s, "pin=REDACTED")
}

// holdsPIN reports whether s holds what Redact replaces.
func holdsPIN(s string) bool { return pinValueRE.MatchString(s) || barePINRE.MatchString(s) }

// redactError is err, its message passed through [Redact] when it holds
// a PIN (a file system error quotes the path it was given); errors.Is and
// errors.As see err.
func redactError(err error) error {
	if err == nil || !holdsPIN(err.Error()) {
		return err
	}
	return redacted{err}
}

type redacted struct{ err error }

func (e redacted) Error() string { return Redact(e.err.Error()) }
func (e redacted) Unwrap() error { return e.err }
