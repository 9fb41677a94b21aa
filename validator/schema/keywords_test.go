package schema

import (
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

const hex64 = "a9e95faa2e53a106ea91b8d7484083940cadc41f832cb61080b1e19580c778a2"

// TestKeywords fires every keyword for the right reason, each with a passing
// control, and pins (instancePath, keyword) exactly.
func TestKeywords(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		instance string
		want     []want
	}{
		// type
		{"type string control", `{"type":"string"}`, `"a"`, nil},
		{"type string vs integer", `{"type":"string"}`, `1`, []want{{"", "type"}}},
		{"type list accepts null", `{"type":["string","null"]}`, `null`, nil},
		{"type list rejects boolean", `{"type":["string","null"]}`, `true`, []want{{"", "type"}}},
		{"integer control", `{"type":"integer"}`, `-9007199254740991`, nil},
		{"boolean is not an integer", `{"type":"integer"}`, `true`, []want{{"", "type"}}},
		{"string digits are not an integer", `{"type":"integer"}`, `"1"`, []want{{"", "type"}}},
		{"number accepts integer", `{"type":"number"}`, `7`, nil},
		{"object is not array", `{"type":"array"}`, `{}`, []want{{"", "type"}}},
		{"array is not object", `{"type":"object"}`, `[]`, []want{{"", "type"}}},
		{"null is not object", `{"type":"object"}`, `null`, []want{{"", "type"}}},

		// const
		{"const string control", `{"const":"0.2.0"}`, `"0.2.0"`, nil},
		{"const string mismatch", `{"const":"0.2.0"}`, `"0.2.1"`, []want{{"", "const"}}},
		{"const true is not 1", `{"const":true}`, `1`, []want{{"", "const"}}},
		{"const 1 is not true", `{"const":1}`, `true`, []want{{"", "const"}}},
		{"const null only null", `{"const":null}`, `false`, []want{{"", "const"}}},
		{"const null control", `{"const":null}`, `null`, nil},
		{"const object ignores member order", `{"const":{"a":1,"b":[1,2]}}`, `{"b":[1,2],"a":1}`, nil},
		{"const array order matters", `{"const":[1,2]}`, `[2,1]`, []want{{"", "const"}}},

		// enum
		{"enum control", `{"enum":["PASS","FAIL"]}`, `"FAIL"`, nil},
		{"enum is case-sensitive", `{"enum":["PASS","FAIL"]}`, `"pass"`, []want{{"", "enum"}}},
		{"enum type-strict", `{"enum":[1,"1",null]}`, `true`, []want{{"", "enum"}}},
		{"enum null member", `{"enum":[1,"1",null]}`, `null`, nil},
		{"enum integer member", `{"enum":[1,"1",null]}`, `1`, nil},
		{"type and enum both fire", `{"type":"string","enum":["A"]}`, `1`, []want{{"", "type"}, {"", "enum"}}},

		// required, properties, additionalProperties
		{"required control", `{"required":["a","b"]}`, `{"b":1,"a":2}`, nil},
		{"required in schema order", `{"required":["a","b","c"],"properties":{"b":{}}}`, `{"b":1}`,
			[]want{{"", "required"}, {"", "required"}}},
		{"required ignores non-objects", `{"required":["a"]}`, `[]`, nil},
		{"additionalProperties control", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1}`, nil},
		{"additionalProperties extra", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`,
			[]want{{"", "additionalProperties"}}},
		{"__proto__ is an ordinary key", `{"properties":{"a":{}},"additionalProperties":false}`, `{"__proto__":{}}`,
			[]want{{"", "additionalProperties"}}},
		{"open object allows extras", `{"properties":{"a":{"type":"string"}}}`, `{"z":1}`, nil},
		{"property subschema path", `{"properties":{"a":{"type":"string"}}}`, `{"a":1}`, []want{{"/a", "type"}}},
		{"pointer escapes ~ and /", `{"properties":{"a/b":{"properties":{"c~d":{"type":"string"}}}}}`,
			`{"a/b":{"c~d":5}}`, []want{{"/a~1b/c~0d", "type"}}},
		{"empty key pointer", `{"properties":{"":{"type":"string"}}}`, `{"":5}`, []want{{"/", "type"}}},

		// items, minItems, maxItems, uniqueItems
		{"items control", `{"items":{"type":"integer"}}`, `[1,2,3]`, nil},
		{"items index path", `{"items":{"type":"integer"}}`, `[1,2,"3",4,null]`, []want{{"/2", "type"}, {"/4", "type"}}},
		{"minItems control", `{"minItems":2}`, `[1,2]`, nil},
		{"minItems", `{"minItems":2}`, `[1]`, []want{{"", "minItems"}}},
		{"maxItems control", `{"maxItems":2}`, `[1,2]`, nil},
		{"maxItems", `{"maxItems":2}`, `[1,2,3]`, []want{{"", "maxItems"}}},
		{"array keywords ignore strings", `{"minItems":2,"maxItems":0}`, `"abc"`, nil},
		{"uniqueItems control", `{"uniqueItems":true}`, `[1,"1",true,null,[1],{"a":1}]`, nil},
		{"uniqueItems integers", `{"uniqueItems":true}`, `[1,2,1]`, []want{{"", "uniqueItems"}}},
		{"uniqueItems deep objects", `{"uniqueItems":true}`, `[{"a":1,"b":[2]},{"b":[2],"a":1}]`, []want{{"", "uniqueItems"}}},
		{"uniqueItems 1 and true differ", `{"uniqueItems":true}`, `[1,true,0,false]`, nil},
		{"uniqueItems false allows duplicates", `{"uniqueItems":false}`, `[1,1]`, nil},

		// minLength, maxLength (code points)
		{"maxLength two emoji", `{"maxLength":2}`, `"😀😀"`, nil},
		{"maxLength three emoji", `{"maxLength":2}`, `"😀😀😀"`, []want{{"", "maxLength"}}},
		{"minLength emoji counts once", `{"minLength":2}`, `"😀"`, []want{{"", "minLength"}}},
		{"minLength escaped pair counts once", `{"minLength":2}`, `"\ud83d\ude00"`, []want{{"", "minLength"}}},
		{"minLength control", `{"minLength":1}`, `"x"`, nil},
		{"minLength empty", `{"minLength":1}`, `""`, []want{{"", "minLength"}}},
		{"maxLength non-BMP exact", `{"maxLength":128}`, `"` + strings.Repeat("😀", 128) + `"`, nil},
		{"maxLength non-BMP over", `{"maxLength":128}`, `"` + strings.Repeat("😀", 129) + `"`, []want{{"", "maxLength"}}},
		{"length ignores numbers", `{"minLength":5}`, `1`, nil},

		// pattern
		{"sha256 control", `{"pattern":"^[a-f0-9]{64}$"}`, `"` + hex64 + `"`, nil},
		{"sha256 trailing LF", `{"pattern":"^[a-f0-9]{64}$"}`, `"` + hex64 + `\n"`, []want{{"", "pattern"}}},
		{"sha256 upper case", `{"pattern":"^[a-f0-9]{64}$"}`, `"` + strings.ToUpper(hex64) + `"`, []want{{"", "pattern"}}},
		{"sha256 leading LF", `{"pattern":"^[a-f0-9]{64}$"}`, `"\n` + hex64 + `"`, []want{{"", "pattern"}}},
		{"pattern is a search", `{"pattern":"b"}`, `"abc"`, nil},
		{"dot matches a non-BMP code point", `{"pattern":"^.$"}`, `"😀"`, nil},
		{"dot rejects LF", `{"pattern":"^a.c$"}`, `"a\nc"`, []want{{"", "pattern"}}},
		{"dot rejects CR", `{"pattern":"^a.c$"}`, `"a\rc"`, []want{{"", "pattern"}}},
		{"dot rejects U+2028", `{"pattern":"^a.c$"}`, `"a\u2028c"`, []want{{"", "pattern"}}},
		{"dot rejects U+2029", `{"pattern":"^a.c$"}`, `"a\u2029c"`, []want{{"", "pattern"}}},
		{"dot accepts U+0085", `{"pattern":"^a.c$"}`, `"a\u0085c"`, nil},
		{"checkRef control", `{"pattern":"^.{1,192}:.{1,192}$"}`, `"scenario:check"`, nil},
		{"checkRef CR", `{"pattern":"^.{1,192}:.{1,192}$"}`, `"scen\rario:check"`, []want{{"", "pattern"}}},
		{"checkRef counts code points", `{"pattern":"^.{1,2}:x$"}`, `"😀😀:x"`, nil},
		{"ECMAScript \\s includes NBSP", `{"pattern":"^\\s$"}`, `"\u00a0"`, nil},
		{"ECMAScript \\s includes VT", `{"pattern":"^\\s$"}`, `"\u000b"`, nil},
		{"ECMAScript \\S excludes U+3000", `{"pattern":"^\\S$"}`, `"\u3000"`, []want{{"", "pattern"}}},
		{"literal dot in class", `{"pattern":"^[.]$"}`, `"x"`, []want{{"", "pattern"}}},
		{"escaped dot", `{"pattern":"^1\\.0$"}`, `"1x0"`, []want{{"", "pattern"}}},
		{"pattern ignores non-strings", `{"pattern":"^x$"}`, `5`, nil},

		// format
		{"date-time control", `{"format":"date-time"}`, `"2026-08-27T12:00:00.000Z"`, nil},
		{"date-time leap second", `{"format":"date-time"}`, `"2026-12-31T23:59:60Z"`, []want{{"", "format"}}},
		{"date-time trailing LF", `{"format":"date-time"}`, `"2026-08-27T12:00:00Z\n"`, []want{{"", "format"}}},
		{"date-time U+2028 separator", `{"format":"date-time"}`, `"2026-08-27\u202812:00:00Z"`, nil},
		{"date-time ignores non-strings", `{"format":"date-time"}`, `5`, nil},
		{"uri control", `{"format":"uri"}`, `"https://example.com/a/b?c=d#e"`, nil},
		{"uri without scheme", `{"format":"uri"}`, `"example.com/a"`, []want{{"", "format"}}},
		{"uri with space", `{"format":"uri"}`, `"https://example.com/a b"`, []want{{"", "format"}}},

		// minimum, maximum
		{"minimum control", `{"minimum":0}`, `0`, nil},
		{"minimum", `{"minimum":0}`, `-1`, []want{{"", "minimum"}}},
		{"maximum control", `{"maximum":4294967295}`, `4294967295`, nil},
		{"maximum", `{"maximum":4294967295}`, `4294967296`, []want{{"", "maximum"}}},
		{"bounds ignore strings", `{"minimum":5}`, `"1"`, nil},

		// oneOf
		{"oneOf boolean", `{"oneOf":[{"type":"boolean"},{"const":"UNKNOWN"}]}`, `false`, nil},
		{"oneOf UNKNOWN", `{"oneOf":[{"type":"boolean"},{"const":"UNKNOWN"}]}`, `"UNKNOWN"`, nil},
		{"oneOf none", `{"oneOf":[{"type":"boolean"},{"const":"UNKNOWN"}]}`, `"unknown"`, []want{{"", "oneOf"}}},
		{"oneOf integer 1 is not true", `{"oneOf":[{"type":"boolean"},{"const":"UNKNOWN"}]}`, `1`, []want{{"", "oneOf"}}},
		{"oneOf two match", `{"oneOf":[{"type":"integer"},{"minimum":0}]}`, `5`, []want{{"", "oneOf"}}},
		{"oneOf branch errors are not reported", `{"properties":{"p":{"oneOf":[{"type":"string"},{"type":"null"}]}}}`,
			`{"p":1}`, []want{{"/p", "oneOf"}}},

		// $ref
		{"local ref", `{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`, `{"a":1}`,
			[]want{{"/a", "type"}}},
		{"ref and sibling keywords both apply", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":1}`,
			`"ab"`, []want{{"", "maxLength"}}},

		// absent instance
		{"nil-free empty object vs closed", `{"additionalProperties":false}`, `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := inlineSet(t, map[string]string{"main": tt.schema})
			v := parse(t, tt.instance)
			errs := s.Validate("main", v)
			checkErrors(t, errs, tt.want)
			if got := s.Schema("main").Valid(v); got != (len(tt.want) == 0) {
				t.Errorf("Valid = %v, want %v", got, len(tt.want) == 0)
			}
		})
	}
}

func TestAbsentInstance(t *testing.T) {
	s := inlineSet(t, map[string]string{"main": `{"type":"object"}`})
	checkErrors(t, s.Validate("main", nil), []want{{"", "type"}})
}

func TestCrossFileRef(t *testing.T) {
	s := inlineSet(t, map[string]string{
		"defs": `{"$defs":{"hex":{"type":"string","pattern":"^[a-f0-9]{64}$"}}}`,
		"main": `{"type":"object","properties":{"d":{"$ref":"defs.schema.json#/$defs/hex"},` +
			`"abs":{"$ref":"` + testBase + `defs.schema.json#/$defs/hex"},"whole":{"$ref":"other.schema.json"}}}`,
		"other": `{"type":"integer"}`,
	})
	checkErrors(t, s.Validate("main", parse(t, `{"d":"`+hex64+`","abs":"`+hex64+`","whole":1}`)), nil)
	checkErrors(t, s.Validate("main", parse(t, `{"d":"x","abs":"`+hex64+`\n","whole":"1"}`)),
		[]want{{"/d", "pattern"}, {"/abs", "pattern"}, {"/whole", "type"}})
}

// TestErrorOrder pins document order, then keyword order.
func TestErrorOrder(t *testing.T) {
	s := inlineSet(t, map[string]string{"main": `{
		"type":"object","additionalProperties":false,
		"required":["a","b","c"],
		"properties":{
			"a":{"type":"string","minLength":3,"enum":["abc"]},
			"b":{"type":"array","maxItems":1,"items":{"type":"integer","maximum":3}}
		}}`})
	v := parse(t, `{"b":[1,"x",9],"z":1,"a":"é","y":null}`)
	checkErrors(t, s.Validate("main", v), []want{
		{"", "required"},             // c
		{"", "additionalProperties"}, // z
		{"", "additionalProperties"}, // y
		{"/b", "maxItems"},
		{"/b/1", "type"},
		{"/b/2", "maximum"},
		{"/a", "enum"},
		{"/a", "minLength"},
	})
	errs := s.Validate("main", v)
	if !strings.Contains(errs[1].Message, `"z"`) || !strings.Contains(errs[2].Message, `"y"`) {
		t.Errorf("additionalProperties messages should name z then y: %v", errs[1:3])
	}
	if !strings.Contains(errs[0].Message, `"c"`) {
		t.Errorf("required message should name c: %v", errs[0])
	}
}

func TestUniqueItemsLarge(t *testing.T) {
	s := inlineSet(t, map[string]string{"main": `{"uniqueItems":true}`})
	build := func(n int, item func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	t.Run("10000 distinct integers", func(t *testing.T) {
		checkErrors(t, s.Validate("main", parse(t, build(10000, strconv.Itoa))), nil)
	})
	t.Run("duplicate at the end", func(t *testing.T) {
		text := build(10000, func(i int) string {
			if i == 9999 {
				return "3"
			}
			return strconv.Itoa(i)
		})
		errs := s.Validate("main", parse(t, text))
		checkErrors(t, errs, []want{{"", "uniqueItems"}})
		if !strings.Contains(errs[0].Message, "items 3 and 9999") {
			t.Errorf("message = %q, want the pair 3 and 9999", errs[0].Message)
		}
	})
	t.Run("smallest second index is reported", func(t *testing.T) {
		// 100 and 50 repeat later; the first repetition (index 200, of 50)
		// is reported even though 100's repeat comes first in hash order.
		text := build(300, func(i int) string {
			switch i {
			case 200:
				return "50"
			case 250:
				return "100"
			}
			return strconv.Itoa(i)
		})
		errs := s.Validate("main", parse(t, text))
		checkErrors(t, errs, []want{{"", "uniqueItems"}})
		if !strings.Contains(errs[0].Message, "items 50 and 200") {
			t.Errorf("message = %q", errs[0].Message)
		}
	})
	t.Run("all identical strings", func(t *testing.T) {
		checkErrors(t, s.Validate("main", parse(t, build(50000, func(int) string { return `"x"` }))),
			[]want{{"", "uniqueItems"}})
	})
	t.Run("objects with reordered members", func(t *testing.T) {
		text := build(40, func(i int) string {
			if i == 39 {
				return `{"b":"v7","a":7}`
			}
			return `{"a":` + strconv.Itoa(i) + `,"b":"v` + strconv.Itoa(i) + `"}`
		})
		checkErrors(t, s.Validate("main", parse(t, text)), []want{{"", "uniqueItems"}})
	})
	t.Run("distinct mixed kinds", func(t *testing.T) {
		text := build(40, func(i int) string {
			switch i % 4 {
			case 0:
				return strconv.Itoa(i)
			case 1:
				return `"` + strconv.Itoa(i-1) + `"`
			case 2:
				return `[` + strconv.Itoa(i-2) + `]`
			}
			return `{"k":` + strconv.Itoa(i-3) + `}`
		})
		checkErrors(t, s.Validate("main", parse(t, text)), nil)
	})
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, schema, wantErr string
	}{
		{"unsupported keyword", `{"anyOf":[{"type":"string"}]}`, "anyOf: keyword not supported"},
		{"additionalProperties true", `{"additionalProperties":true}`, "only false is supported"},
		{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, "only false is supported"},
		{"unknown format", `{"format":"email"}`, `only "date-time" and "uri"`},
		{"unknown type", `{"type":"float"}`, `unknown type "float"`},
		{"fractional bound", `{"minimum":"1.5"}`, "minimum: must be an integer"},
		{"negative length", `{"minLength":-1}`, "minLength: must be a non-negative integer"},
		{"backreference", `{"pattern":"^(a)\\1$"}`, `escape "\\1" is not supported`},
		{"lookahead", `{"pattern":"^(?=a)"}`, `group "(?=" at offset 1 is not supported`},
		{"inline flag", `{"pattern":"(?i)abc"}`, "is not supported"},
		{"RE2-only escape", `{"pattern":"^a\\z"}`, `escape "\\z" is not supported`},
		{"empty class", `{"pattern":"[]"}`, "empty class"},
		{"lone brace", `{"pattern":"^a{$"}`, "bad quantifier at offset 2"},
		{"RE2 repeat limit", `{"pattern":"^(?:ab){1001}$"}`, "invalid repeat count"},
		{"unresolved local ref", `{"$ref":"#/$defs/missing"}`, `no member "$defs"`},
		{"unresolved file ref", `{"$ref":"nope.schema.json"}`, "no document with $id"},
		{"anchor ref", `{"$defs":{"a":{}},"$ref":"#a"}`, "only JSON-pointer fragments"},
		{"boolean schema", `{"items":true}`, "boolean schemas are not supported"},
		{"nested $id", `{"$id":"` + testBase + `main.schema.json","properties":{"a":{"$id":"x"}}}`, "allowed only at the document root"},
		{"self reference", `{"$ref":"#"}`, "cycle applies a schema to the same value"},
		{"oneOf cycle", `{"$defs":{"a":{"oneOf":[{"$ref":"#/$defs/b"}]},"b":{"$ref":"#/$defs/a"}}}`, "cycle"},
		{"duplicate required", `{"required":["a","a"]}`, `required lists "a" twice`},
		{"broken unreferenced def", `{"$defs":{"x":{"maxItems":"3"}}}`, "maxItems: must be a non-negative integer"},
		{"wrong dialect", `{"$schema":"http://json-schema.org/draft-07/schema#"}`, "$schema must be"},
		{"nested $defs", `{"properties":{"a":{"$defs":{}}}}`, "$defs: allowed only at the document root"},
		{"nested $schema", `{"items":{"$schema":"x"}}`, "$schema: allowed only at the document root"},
		{"$defs not an object", `{"$defs":[]}`, "$defs must be an object"},
		{"title not a string", `{"title":1}`, "title: must be a string"},
		{"empty enum", `{"enum":[]}`, "enum: must be a non-empty array"},
		{"uniqueItems not a boolean", `{"uniqueItems":"yes"}`, "uniqueItems: must be a boolean"},
		{"$ref not a string", `{"$ref":1}`, "$ref: must be a string"},
		{"absolute-path ref", `{"$ref":"/other.schema.json"}`, `$ref: unsupported reference "/other.schema.json"`},
		{"ref climbing out", `{"$ref":"../other.schema.json"}`, `$ref: unsupported reference "../other.schema.json"`},
		{"type array with a number", `{"type":["string",1]}`, "type: must be a string or an array of strings"},
		{"empty type array", `{"type":[]}`, "type: must be a string or a non-empty array of strings"},
		{"required not an array", `{"required":"a"}`, "required: must be an array of strings"},
		{"required with a number", `{"required":["a",1]}`, "required: must be an array of strings"},
		{"properties not an object", `{"properties":[]}`, "properties: must be an object"},
		{"pattern not a string", `{"pattern":1}`, "pattern: must be a string"},
		{"empty oneOf", `{"oneOf":[]}`, "oneOf: must be a non-empty array of schemas"},
		{"broken oneOf branch", `{"oneOf":[{"type":"float"}]}`, `unknown type "float"`},
		{"ref past an array", `{"$defs":{"a":[{}]},"$ref":"#/$defs/a/1"}`, `no item "1"`},
		{"ref into a scalar", `{"$defs":{"a":{"title":"t"}},"$ref":"#/$defs/a/title/x"}`, "cannot descend into a scalar"},
		{"unterminated class", `{"pattern":"[a"}`, "unterminated character class"},
		{"trailing backslash", `{"pattern":"a\\"}`, "trailing backslash"},
		{"\\S in a class", `{"pattern":"[\\S]"}`, `\S inside a class is not supported`},
		{"unterminated \\u{", `{"pattern":"\\u{41"}`, `unterminated \u{…} escape`},
		{"short \\u", `{"pattern":"\\u41"}`, `short \u escape`},
		{"\\u{} too long", `{"pattern":"\\u{0000041}"}`, "bad unicode escape"},
		{"\\u surrogate", `{"pattern":"\\uD800"}`, "is not a scalar value"},
		{"\\u{} past U+10FFFF", `{"pattern":"\\u{110000}"}`, "is not a scalar value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadFS(inlineFS(map[string]string{"main": tt.schema}))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("LoadFS error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	t.Run("missing $id", func(t *testing.T) {
		_, err := LoadFS(inlineFS(map[string]string{"main": `{"$id":"relative.json"}`}))
		if err == nil || !strings.Contains(err.Error(), "root $id must be an absolute URI") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		_, err := LoadFS(fstest.MapFS{"main" + fileSuffix: &fstest.MapFile{Data: []byte(`{"$id":`)}})
		if err == nil || !strings.HasPrefix(err.Error(), "schema: main"+fileSuffix+": ") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("not an object", func(t *testing.T) {
		_, err := LoadFS(fstest.MapFS{"main" + fileSuffix: &fstest.MapFile{Data: []byte(`[]`)}})
		if err == nil || !strings.Contains(err.Error(), "document is not an object") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("one $id twice", func(t *testing.T) {
		doc := `{"$id":"` + testBase + `same.schema.json"}`
		_, err := LoadFS(inlineFS(map[string]string{"a": doc, "b": doc}))
		if err == nil || !strings.Contains(err.Error(), "$id "+testBase+"same.schema.json already used by a"+fileSuffix) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no files", func(t *testing.T) {
		if _, err := LoadFS(inlineFS(nil)); err == nil {
			t.Fatal("want an error for an empty FS")
		}
	})
}

func TestValidateUnknownNamePanics(t *testing.T) {
	s := loadEmbedded(t)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "no-such-schema") {
			t.Fatalf("recover() = %v", r)
		}
	}()
	s.Validate("no-such-schema", parse(t, `{}`))
}

// TestConcurrentValidate: a Set is shared by goroutines, including the lazy
// RE2 compilation of a non-identifier pattern (run with -race).
func TestConcurrentValidate(t *testing.T) {
	s := inlineSet(t, map[string]string{"main": `{"items":{"type":"string","pattern":"^.{1,192}:.{1,192}$"}}`})
	v := parse(t, `["a:b","c:d",":x"]`)
	done := make(chan []Error)
	for range 8 {
		go func() { done <- s.Validate("main", v) }()
	}
	for range 8 {
		checkErrors(t, <-done, []want{{"/2", "pattern"}})
	}
}

// Valid, the first pass of every validation (most documents are valid),
// allocates nothing: its evaluator records no path and stays on the stack.
// Control: an invalid document is still reported at its exact path by the
// collecting pass.
func TestValidAllocatesNothing(t *testing.T) {
	s := inlineSet(t, map[string]string{"main": `{"type":"object","required":["a","b"],"additionalProperties":false,
		"properties":{"a":{"type":"array","minItems":1,"items":{"type":"object","properties":{"n":{"type":"integer","minimum":0},"s":{"type":"string","maxLength":8,"enum":["x","yy"]}}}},
		"b":{"type":"string","const":"b"}}}`})
	valid := parse(t, `{"a":[{"n":1,"s":"x"},{"n":2,"s":"yy"},{}],"b":"b"}`)
	sch := s.Schema("main")
	if !sch.Valid(valid) {
		t.Fatal("the valid document is not valid")
	}
	if n := testing.AllocsPerRun(100, func() { sch.Valid(valid) }); n != 0 {
		t.Errorf("Valid allocates %v times, want 0", n)
	}
	checkErrors(t, s.Validate("main", parse(t, `{"a":[{"n":1},{"n":-1,"s":"zz"}],"b":"b"}`)), []want{{"/a/1/n", "minimum"}, {"/a/1/s", "enum"}})
}
