package canonjson

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// arrayOfNodes returns an array holding n-1 zeros: n nodes in all.
func arrayOfNodes(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("0,", n-1), ",") + "]"
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name, in, reason string
		offset           int
	}{
		{"empty input", "", "unexpected end of input", 0},
		{"byte order mark", "\xEF\xBB\xBF{}", "byte order mark", 0},
		{"invalid UTF-8", "\"\xff\"", "invalid UTF-8", 1},
		{"encoded surrogate", "\"\xed\xa0\x80\"", "invalid UTF-8", 1},
		{"overlong encoding", "\"\xc0\xaf\"", "invalid UTF-8", 1},
		{"lone high surrogate escape", `{"value":"\ud800"}`, "unpaired surrogate", 10},
		{"lone low surrogate escape", `"\udc00"`, "unpaired surrogate", 1},
		{"high surrogate then BMP escape", `"\ud800\u0041"`, "unpaired surrogate", 1},
		{"reversed surrogate pair", `"\ude00\ud83d"`, "unpaired surrogate", 1},
		{"unsafe integer", `{"n":9007199254740992}`, "outside ±9007199254740991", 5},
		{"unsafe negative integer", `-9007199254740992`, "outside", 0},
		{"very long integer", `123456789012345678901234567890`, "outside", 0},
		{"fraction", `1.0`, "fraction or exponent", 0},
		{"exponent", `1e2`, "fraction or exponent", 0},
		{"negative zero fraction", `-0.0`, "fraction or exponent", 0},
		{"upper exponent", `[2E3]`, "fraction or exponent", 1},
		{"leading zero", `01`, "leading zero", 0},
		{"plus sign", `+1`, "unexpected character", 0},
		{"NaN", `NaN`, "unexpected character", 0},
		{"trailing data", `{} {}`, "after the JSON value", 3},
		{"trailing comma", `[1,]`, "unexpected character", 3},
		{"duplicate key", `{"a":1,"a":2}`, `duplicate key "a"`, 7},
		{"duplicate key after unescaping", `{"a":1,"\u0061":2}`, `duplicate key "a"`, 7},
		{"duplicate key in large object", `{` + manyKeys(40) + `,"k7":0}`, `duplicate key "k7"`, 0},
		{"control character in string", "\"a\tb\"", "unescaped control character", 2},
		{"bad escape", `"\x"`, "invalid escape", 1},
		{"short unicode escape", `"\u12"`, "invalid \\u escape", 1},
		{"unterminated string", `"abc`, "unterminated string", 0},
		{"single quotes", `'a'`, "unexpected character", 0},
		{"non-ASCII outside string", "\u00e9", "non-ASCII", 0},
		{"vertical tab whitespace", "\v1", "unexpected character", 0},
		{"depth 129", nested(130), "nesting deeper than 128", 129},
		{"key at depth 129", nested(128)[:128] + `{"k":0}` + nested(128)[128:], "nesting deeper than 128", 0},
		{"250,001 nodes", arrayOfNodes(250_001), "more than 250000", 0},
		{"250,001 nodes counting keys", `{` + manyKeys(125_000) + `}`, "more than 250000", 0},
		{"string of 1,048,577 code points", `"` + strings.Repeat("é", 1<<20+1) + `"`, "longer than 1048576 code points", 0},
		{"key of 1,048,577 code points", `{"` + strings.Repeat("a", 1<<20+1) + `":0}`, "longer than 1048576 code points", 1},
		{"escaped string of 1,048,577 code points", `"\n` + strings.Repeat("a", 1<<20) + `"`, "longer than 1048576 code points", 0},
		{"overlong string, then invalid UTF-8", `"` + strings.Repeat("a", 1<<20+1) + "\xff\"", "longer than 1048576 code points", 0},
		{"invalid UTF-8 in an overlong string", `"` + strings.Repeat("a", 1<<20-1) + "\xff" + strings.Repeat("a", 10) + `"`, "invalid UTF-8", 1 << 20},
		{"overlong string of 2-byte characters", `"` + strings.Repeat("é", 1<<20) + "é\x01\"", "longer than 1048576 code points", 0},
		// The string scanner's second phase (past the first 1 MiB, counting
		// code points) and its third (after an escape).
		{"control character past 1 MiB", `"` + strings.Repeat("a", 1<<20) + "\tb\"", "unescaped control character", 1 + 1<<20},
		{"invalid UTF-8 past 1 MiB", `"` + strings.Repeat("é", 1<<19) + "é\xff\"", "invalid UTF-8", 3 + 1<<20},
		{"control character after an escape", "\"\\n\tb\"", "unescaped control character", 3},
		{"invalid UTF-8 after an escape", "\"\\né\xff\"", "invalid UTF-8", 5},
		{"unterminated string after an escape", `"\n abc`, "unterminated string", 0},
		{"backslash at the end", `"ab\`, "unterminated escape sequence", 3},
		{"array items without a comma", `[1 2]`, "expected ',' or ']' in array", 3},
		{"object cut after a member", `{"a":1`, "unexpected end of input in object", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.in))
			if v != nil {
				t.Errorf("Parse returned a value with an error")
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%.40q) error = %v, want a *SyntaxError", tt.in, err)
			}
			if !strings.Contains(se.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", se.Reason, tt.reason)
			}
			if tt.offset != 0 && se.Offset != tt.offset {
				t.Errorf("offset = %d, want %d", se.Offset, tt.offset)
			}
		})
	}
}

// manyKeys returns n members "k0":0,... (2n nodes).
func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k`)
		b.WriteString(itoa(i))
		b.WriteString(`":0`)
	}
	return b.String()
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// Limits accept exactly their maximum (STYLE: test limits at the edge).
func TestParseAcceptsAtLimits(t *testing.T) {
	tests := []struct{ name, in string }{
		{"depth 128", nested(129)},
		{"key at depth 128", nested(127)[:127] + `{"k":0}` + nested(127)[127:]},
		{"250,000 nodes", arrayOfNodes(250_000)},
		{"string of 1,048,576 code points", `"` + strings.Repeat("😀", 1<<20) + `"`},
		{"negative zero", `-0`},
		{"largest safe integers", `[9007199254740991,-9007199254740991]`},
		{"escaped surrogate pair", `"\ud83d\ude00"`},
		{"raw non-BMP character", `"😀"`},
		{"all whitespace kinds", " \t\r\n{ \"a\" :\n[ 1 , 2 ] }\n"},
		{"__proto__ is an ordinary key", `{"__proto__":{"x":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse([]byte(tt.in)); err != nil {
				t.Fatalf("Parse: %v", err)
			}
		})
	}
	v, _ := Parse([]byte(`-0`))
	if v.Int != 0 {
		t.Errorf("-0 read as %d", v.Int)
	}
	v, _ = Parse([]byte(`"\ud83d\ude00"`))
	if v.Str != "😀" {
		t.Errorf("surrogate pair read as %q", v.Str)
	}
}

func TestReadFileRules(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(regular, []byte(`{"a":[1,2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, v, err := ReadFile(regular)
	if err != nil || string(raw) != `{"a":[1,2]}` || v.Get("a") == nil {
		t.Fatalf("ReadFile(regular) = %q, %v, %v", raw, v, err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(link); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ReadFile(symlink) error = %v, want ErrNotRegular (symbolic link)", err)
	}
	if _, _, err := ReadFile(dir); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("ReadFile(dir) error = %v, want ErrNotRegular (directory)", err)
	}
	if _, _, err := ReadFile("/dev/null"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(/dev/null) error = %v, want ErrNotRegular", err)
	}
	missing := filepath.Join(dir, "missing.json")
	if _, _, err := ReadFile(missing); !errors.Is(err, os.ErrNotExist) || err.Error() != "cannot read "+missing+": no such file" {
		t.Errorf("ReadFile(missing) error = %v, want ErrNotExist, worded without lstat", err)
	}

	// Exactly 16 MiB is accepted; one byte more is rejected.
	exact := filepath.Join(dir, "exact.json")
	big := append([]byte("0"), bytes.Repeat([]byte(" "), MaxInputBytes-1)...)
	if err := os.WriteFile(exact, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(exact); err != nil {
		t.Errorf("ReadFile(16 MiB) error = %v", err)
	}
	over := filepath.Join(dir, "over.json")
	if err := os.WriteFile(over, append(big, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	var se *SyntaxError
	if _, _, err := ReadFile(over); !errors.As(err, &se) || !strings.Contains(se.Reason, "larger than 16777216 bytes") {
		t.Errorf("ReadFile(16 MiB + 1) error = %v, want the size limit", err)
	}
}

func TestCompareKeysMatchesUTF16(t *testing.T) {
	keys := []string{"", "a", "ab", "b", "Z", "é", "\ue000", "\uffff", "😀", "😁", "\U0010FFFF", "a😀", "a\ue000"}
	for _, a := range keys {
		for _, b := range keys {
			got := sign(CompareKeys(a, b))
			want := sign(compareUTF16(a, b))
			if got != want {
				t.Errorf("CompareKeys(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func compareUTF16(a, b string) int {
	ua, ub := utf16Units(a), utf16Units(b)
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}

func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func TestCanonicalRejectsWhatHasNoCanonicalForm(t *testing.T) {
	tests := []struct {
		name string
		v    *Value
		code string
	}{
		{"unsafe integer", NewInt(MaxSafeInteger + 1), CodeNonCanonicalNumber},
		{"float token", &Value{Kind: Number, Str: "1.5"}, CodeNonCanonicalNumber},
		{"lone surrogate bytes", NewString("\xed\xa0\x80"), CodeInvalidUnicode},
		{"invalid UTF-8 key", NewObject(Member{Key: "\xff", Value: NewNull()}), CodeInvalidUnicode},
		{"absent member value", NewObject(Member{Key: "a"}), CodeUnsupportedCanonValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Canonical(tt.v)
			var ce *CanonicalError
			if !errors.As(err, &ce) || ce.Code != tt.code {
				t.Errorf("Canonical error = %v, want %s", err, tt.code)
			}
		})
	}
}

func TestPrettyLayout(t *testing.T) {
	v, err := Parse([]byte(`{"b":[1,{"c":[]}],"a":{},"s":"<&>\u2028"}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"b\": [\n    1,\n    {\n      \"c\": []\n    }\n  ],\n  \"a\": {},\n  \"s\": \"<&>\u2028\"\n}\n"
	if string(got) != want {
		t.Errorf("Pretty =\n%s\nwant\n%s", got, want)
	}
	compact, _ := Compact(v)
	if string(compact) != `{"b":[1,{"c":[]}],"a":{},"s":"<&>`+"\u2028"+`"}` {
		t.Errorf("Compact = %s", compact)
	}
}

// ParseLenient refuses data after the value, naming where it starts, as
// Parse does; the control is the same value alone.
func TestParseLenientTrailingData(t *testing.T) {
	if _, err := ParseLenient([]byte(`{"a":1.5} `)); err != nil {
		t.Fatalf("the value alone: %v", err)
	}
	_, err := ParseLenient([]byte(`{"a":1.5} {}`))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Reason != "unexpected data after the JSON value" || se.Offset != 10 {
		t.Fatalf("trailing data: %v, want a *SyntaxError at offset 10", err)
	}
}

func TestParseLenient(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		syntaxErr bool   // ParseLenient fails
		canonCode string // Canonical of the result fails with this code
		canonical string // or produces these bytes
	}{
		{"canonical statement", `{"a":1,"b":"x"}`, false, "", `{"a":1,"b":"x"}`},
		{"duplicate key, last wins", `{"x":1,"x":2}`, false, "", `{"x":2}`},
		{"unsafe integer survives", `{"x":1,"x":9007199254740993}`, false, CodeNonCanonicalNumber, ""},
		{"unsafe integer overwritten", `{"x":9007199254740993,"x":1}`, false, "", `{"x":1}`},
		{"fraction overwritten", `{"x":1.5,"x":1}`, false, "", `{"x":1}`},
		{"fraction survives", `{"x":1.0}`, false, CodeNonCanonicalNumber, ""},
		{"exponent survives", `[1e2]`, false, CodeNonCanonicalNumber, ""},
		{"lone surrogate survives", `{"x":"\ud800"}`, false, CodeInvalidUnicode, ""},
		{"lone surrogate overwritten", `{"x":"\ud800","x":1}`, false, "", `{"x":1}`},
		{"lone surrogate key", `{"\udc00":1}`, false, CodeInvalidUnicode, ""},
		{"negative zero is not canonical", `-0`, false, "", `0`},
		{"whitespace", `{ "a" : 1 }`, false, "", `{"a":1}`},
		{"syntax error wins over bad number", `{"x":1.5,}`, true, "", ""},
		{"byte order mark", "\xEF\xBB\xBF{}", true, "", ""},
		{"NaN", `NaN`, true, "", ""},
		{"raw encoded surrogate", "\"\xed\xa0\x80\"", true, "", ""},
		{"bad fraction", `1.`, true, "", ""},
		{"bad exponent", `1e+`, true, "", ""},
		{"too deep", strings.Repeat("[", 1002) + strings.Repeat("]", 1002), true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseLenient([]byte(tt.in))
			if tt.syntaxErr {
				if err == nil {
					t.Fatalf("ParseLenient accepted %q", tt.in)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLenient: %v", err)
			}
			b, err := Canonical(v)
			if tt.canonCode != "" {
				var ce *CanonicalError
				if !errors.As(err, &ce) || ce.Code != tt.canonCode {
					t.Fatalf("Canonical error = %v, want %s", err, tt.canonCode)
				}
				return
			}
			if err != nil || string(b) != tt.canonical {
				t.Fatalf("Canonical = %s, %v; want %s", b, err, tt.canonical)
			}
		})
	}
}

// ReadFileBytesInto reads into the buffer it is given when the file fits
// (one more byte than the file: the read that sees its end), else into a
// new one, and returns exactly the file's bytes either way; its rules are
// ReadFileBytes's.
func TestReadFileBytesInto(t *testing.T) {
	dir := t.TempDir()
	long, short := filepath.Join(dir, "long.json"), filepath.Join(dir, "short.json")
	if err := os.WriteFile(long, []byte(`{"a":"a longer file"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, []byte(`[1]`), 0o644); err != nil {
		t.Fatal(err)
	}
	buf, err := ReadFileBytesInto(nil, long)
	if err != nil || string(buf) != `{"a":"a longer file"}` {
		t.Fatalf("ReadFileBytesInto(nil, long) = %q, %v", buf, err)
	}
	if cap(buf) < len(buf)+1 {
		t.Fatalf("capacity %d for %d bytes", cap(buf), len(buf))
	}
	got, err := ReadFileBytesInto(buf, short)
	if err != nil || string(got) != `[1]` {
		t.Fatalf("ReadFileBytesInto(buf, short) = %q, %v", got, err)
	}
	if &got[:1][0] != &buf[:1][0] {
		t.Error("a file that fits was not read into the buffer given")
	}
	small := make([]byte, 0, 3) // [1] needs 4: a new buffer
	if got, err := ReadFileBytesInto(small, short); err != nil || string(got) != `[1]` || &got[:1][0] == &small[:1][0] {
		t.Errorf("ReadFileBytesInto(3 bytes, short) = %q, %v, same array %t", got, err, err == nil && &got[:1][0] == &small[:1][0])
	}
	if _, err := ReadFileBytesInto(buf, dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFileBytesInto(buf, dir) error = %v, want ErrNotRegular", err)
	}
}

// The reader skips whitespace eight spaces at a time (skipSpaces): runs of
// every length, alone or mixed with tabs, line feeds and carriage
// returns, between every pair of tokens, read as the compact document
// does, and a syntax error after a run is reported at its exact offset.
func TestWhitespaceRuns(t *testing.T) {
	tokens := []string{`{`, `"a"`, `:`, `[`, `1`, `,`, `true`, `,`, `{`, `"b"`, `:`, `null`, `}`, `]`, `,`, `"c"`, `:`, `"d"`, `}`}
	compact := strings.Join(tokens, "")
	want, err := Parse([]byte(compact))
	if err != nil {
		t.Fatal(err)
	}
	wantBytes, _ := Compact(want)
	for n := range 26 {
		for _, unit := range []string{" ", "\n", "\t", "\r", "\n  ", " \t", "\r\n    "} {
			ws := strings.Repeat(" ", n) + unit + strings.Repeat(" ", n%9)
			in := ws + strings.Join(tokens, ws) + ws
			got, err := Parse([]byte(in))
			if err != nil {
				t.Fatalf("run of %q: %v", ws, err)
			}
			if b, _ := Compact(got); string(b) != string(wantBytes) {
				t.Fatalf("run of %q: read %s, want %s", ws, b, wantBytes)
			}
			bad := "[" + ws + "x]"
			_, err = Parse([]byte(bad))
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset != 1+len(ws) {
				t.Fatalf("%q: %v, want a syntax error at byte %d", bad, err, 1+len(ws))
			}
			// Control: whitespace the grammar does not allow (a form feed,
			// a no-break space) ends the run and is refused where it is.
			for _, foreign := range []string{"\f", "\u00a0"} {
				bad := "[" + ws + foreign + "1]"
				if _, err := Parse([]byte(bad)); !errors.As(err, &se) || se.Offset != 1+len(ws) {
					t.Fatalf("%q: %v, want a syntax error at byte %d", bad, err, 1+len(ws))
				}
			}
		}
	}
}
