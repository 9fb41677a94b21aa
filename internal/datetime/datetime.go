// Package datetime parses MCP-RES date-time strings into exact instants.
//
// # Accepted syntax (REFERENCE §1.7, an mcpres decision)
//
// A value is valid iff it matches the RFC 3339 §5.6 date-time production,
// widened only by the forms both upstream validators accept, and names a
// real instant:
//
//	YYYY-MM-DD sep hh:mm:ss [ "." 1*DIGIT ] offset
//
// where
//
//   - sep is "T", "t" or exactly one character of the ECMAScript \s class:
//     space, TAB, LF, VT, FF, CR, U+00A0, U+1680, U+2000–U+200A, U+2028,
//     U+2029, U+202F, U+205F, U+3000 or U+FEFF;
//   - offset is "Z", "z", ±hh:mm, ±hhmm or ±hh (-00:00 means UTC);
//   - the date exists in the proleptic Gregorian calendar (year 0000–9999,
//     leap years included), hour is 00–23, minute 00–59 and second 00–59: a
//     leap second (60) is rejected; the offset hour is 00–23 and the offset
//     minute 00–59.
//
// Nothing else is accepted: no basic format (20260827T120000Z), no week or
// ordinal dates, no "," fractions, no omitted seconds, no surrounding or
// trailing characters (a trailing LF included).
//
// # Instants
//
// An Instant is the local time minus the offset, as an exact integer count
// of microseconds since 1970-01-01T00:00:00Z. Fraction digits beyond the
// sixth are truncated, never rounded, so "…00.0000005Z" and "…00.0000001Z"
// are the same instant, as they are for both upstream validators.
package datetime

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// An Instant is a point in time in microseconds since the Unix epoch
// (1970-01-01T00:00:00Z). Every value Parse accepts fits: years 0000–9999
// with any offset are within ±2^63 microseconds.
type Instant int64

// Micros returns t as microseconds since the Unix epoch.
func (t Instant) Micros() int64 { return int64(t) }

// Compare returns -1 if t is before u, 0 if they are the same instant and +1
// if t is after u.
func (t Instant) Compare(u Instant) int {
	switch {
	case t < u:
		return -1
	case t > u:
		return 1
	}
	return 0
}

// Sub returns t − u in microseconds. It is exact for every pair of parsed
// instants (the difference of two years in 0000–9999 fits in int64).
func (t Instant) Sub(u Instant) int64 { return int64(t) - int64(u) }

// Time returns t as a time.Time in UTC.
func (t Instant) Time() time.Time { return time.UnixMicro(int64(t)).UTC() }

// FromTime returns the instant of tm, truncated to whole microseconds
// (toward the past for instants before the epoch). It is exact for every
// Instant's Time. A time too far from the epoch for an Instant (beyond
// about ±292,000 years) saturates to the earliest or latest Instant rather
// than wrapping around, so it stays before or after every parsed instant.
func FromTime(tm time.Time) Instant {
	const maxSec = math.MaxInt64/microsPerSecond - 1
	switch sec := tm.Unix(); {
	case sec > maxSec:
		return math.MaxInt64
	case sec < -maxSec:
		return math.MinInt64
	default:
		return Instant(sec*microsPerSecond + int64(tm.Nanosecond()/1000))
	}
}

// String formats t as RFC 3339 in UTC with microsecond precision,
// e.g. "2026-08-27T12:00:00.000000Z". It is for messages, not for digests.
func (t Instant) String() string { return t.Time().Format("2006-01-02T15:04:05.000000Z07:00") }

// A ParseError reports a string that is not a valid MCP-RES date-time.
// Reason names the failing rule.
type ParseError struct {
	Value  string
	Reason string
}

func (e *ParseError) Error() string {
	return "invalid date-time " + strconv.Quote(e.Value) + ": " + e.Reason
}

// Valid reports whether s is a valid MCP-RES date-time.
func Valid(s string) bool {
	_, err := Parse(s)
	return err == nil
}

// Parse parses s per REFERENCE §1.7 and returns its instant. On failure it
// returns 0 and a *ParseError naming the violated rule. Parse does not
// allocate when s is valid.
func Parse(s string) (Instant, error) {
	p := parser{s: s}
	t, reason := p.parse()
	if reason != "" {
		return 0, &ParseError{Value: s, Reason: reason}
	}
	return t, nil
}

const (
	microsPerSecond = 1_000_000
	secondsPerDay   = 86_400
)

type parser struct {
	s   string
	pos int
}

// parse returns the instant, or a non-empty reason.
func (p *parser) parse() (Instant, string) {
	year, month, day, reason := p.date()
	if reason != "" {
		return 0, reason
	}
	if reason := p.separator(); reason != "" {
		return 0, reason
	}
	secs, reason := p.clock()
	if reason != "" {
		return 0, reason
	}
	frac, reason := p.fraction()
	if reason != "" {
		return 0, reason
	}
	offset, reason := p.offset()
	if reason != "" {
		return 0, reason
	}
	if p.pos != len(p.s) {
		return 0, "unexpected characters after the offset"
	}
	local := (daysFromCivil(year, month, day)*secondsPerDay+secs)*microsPerSecond + frac
	return Instant(local - offset*microsPerSecond), ""
}

// date parses YYYY-MM-DD and checks that the day exists.
func (p *parser) date() (year, month, day int64, reason string) {
	var ok bool
	if year, ok = p.digits(4); !ok {
		return 0, 0, 0, "want a four-digit year"
	}
	if !p.literal('-') {
		return 0, 0, 0, "want '-' after the year (extended format)"
	}
	if month, ok = p.digits(2); !ok {
		return 0, 0, 0, "want a two-digit month"
	}
	if !p.literal('-') {
		return 0, 0, 0, "want '-' after the month"
	}
	if day, ok = p.digits(2); !ok {
		return 0, 0, 0, "want a two-digit day"
	}
	if month < 1 || month > 12 {
		return 0, 0, 0, "month " + pad2(month) + " is not in 01–12"
	}
	if day < 1 || day > daysIn(year, month) {
		return 0, 0, 0, "day " + pad2(day) + " does not exist in " + pad4(year) + "-" + pad2(month)
	}
	return year, month, day, ""
}

// separator accepts T, t or one ECMAScript whitespace character.
func (p *parser) separator() string {
	if p.pos >= len(p.s) {
		return "want a date/time separator"
	}
	r, n := utf8.DecodeRuneInString(p.s[p.pos:])
	if r == 'T' || r == 't' || isECMASpace(r) {
		p.pos += n
		return ""
	}
	return "date/time separator " + strconv.QuoteRune(r) + " is not T, t or a whitespace character"
}

// clock parses hh:mm:ss and returns the seconds since midnight.
func (p *parser) clock() (int64, string) {
	h, ok := p.digits(2)
	if !ok {
		return 0, "want a two-digit hour"
	}
	if !p.literal(':') {
		return 0, "want ':' after the hour"
	}
	m, ok := p.digits(2)
	if !ok {
		return 0, "want a two-digit minute"
	}
	if !p.literal(':') {
		return 0, "want ':' and seconds after the minute"
	}
	s, ok := p.digits(2)
	if !ok {
		return 0, "want two-digit seconds"
	}
	switch {
	case h > 23:
		return 0, "hour " + pad2(h) + " is not in 00–23"
	case m > 59:
		return 0, "minute " + pad2(m) + " is not in 00–59"
	case s == 60:
		return 0, "second 60 (a leap second) is not accepted"
	case s > 59:
		return 0, "second " + pad2(s) + " is not in 00–59"
	}
	return h*3600 + m*60 + s, ""
}

// fraction parses an optional "." 1*DIGIT and returns the microseconds it
// denotes, truncating digits beyond the sixth.
func (p *parser) fraction() (int64, string) {
	if !p.literal('.') {
		return 0, ""
	}
	var us int64
	n := 0
	for p.pos < len(p.s) && isDigit(p.s[p.pos]) {
		if n < 6 {
			us = us*10 + int64(p.s[p.pos]-'0')
		}
		n++
		p.pos++
	}
	if n == 0 {
		return 0, "want at least one digit after '.'"
	}
	for ; n < 6; n++ {
		us *= 10
	}
	return us, ""
}

// offset parses Z, z, ±hh:mm, ±hhmm or ±hh and returns it in seconds east
// of UTC.
func (p *parser) offset() (int64, string) {
	if p.pos >= len(p.s) {
		return 0, "want an offset (Z, z, ±hh:mm, ±hhmm or ±hh)"
	}
	var sign int64
	switch p.s[p.pos] {
	case 'Z', 'z':
		p.pos++
		return 0, ""
	case '+':
		sign = 1
	case '-':
		sign = -1
	default:
		return 0, "want an offset (Z, z, ±hh:mm, ±hhmm or ±hh)"
	}
	p.pos++
	h, ok := p.digits(2)
	if !ok {
		return 0, "want a two-digit offset hour"
	}
	var m int64
	if p.literal(':') {
		if m, ok = p.digits(2); !ok {
			return 0, "want a two-digit offset minute after ':'"
		}
	} else if p.pos < len(p.s) && isDigit(p.s[p.pos]) {
		if m, ok = p.digits(2); !ok {
			return 0, "want a two-digit offset minute"
		}
	}
	if h > 23 {
		return 0, "offset hour " + pad2(h) + " is not in 00–23"
	}
	if m > 59 {
		return 0, "offset minute " + pad2(m) + " is not in 00–59"
	}
	return sign * (h*3600 + m*60), ""
}

func (p *parser) digits(n int) (int64, bool) {
	if len(p.s)-p.pos < n {
		return 0, false
	}
	var v int64
	for i := 0; i < n; i++ {
		c := p.s[p.pos+i]
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	p.pos += n
	return v, true
}

func (p *parser) literal(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isECMASpace reports membership in the ECMAScript \s class (WhiteSpace and
// LineTerminator).
func isECMASpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r',
		0x00A0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (H. Hinnant's algorithm; y ≥ 0).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func pad2(v int64) string {
	s := strconv.FormatInt(v, 10)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

func pad4(v int64) string {
	s := strconv.FormatInt(v, 10)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

// Millis formats tm as an MCP-RES date-time in UTC with milliseconds,
// e.g. "2026-08-27T12:00:00.000Z": how mcpres writes the times it reads
// from the clock (signing times, evaluation times).
func Millis(tm time.Time) string {
	return tm.UTC().Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z")
}
