package canonjson_test

import (
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
)

// Parse is strict where encoding/json is lenient: a duplicate key, a lone
// surrogate, a float or trailing data is a *SyntaxError with its byte
// offset. What it accepts reads as a tree.
func ExampleParse() {
	doc, err := canonjson.Parse([]byte(`{"subject": {"name": "ledger-notes-server", "version": "3.4.1"}, "trials": 12}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(doc.Path("subject", "name").Str, doc.Get("trials").Int, doc.Get("absent") == nil)

	for _, bad := range []string{`{"a": 1, "a": 2}`, `{"a": 1.5}`, `{"a": "\ud800"}`, `{} {}`} {
		_, err := canonjson.Parse([]byte(bad))
		fmt.Println(err)
	}
	// Output:
	// ledger-notes-server 12 true
	// duplicate key "a" at byte 9
	// number with a fraction or exponent (only integers are allowed) at byte 6
	// unpaired surrogate escape at byte 7
	// unexpected data after the JSON value at byte 3
}

// Canonical is the mcp-res-json-utf16-v1 encoding every MCP-RES digest is
// computed over: members sorted by UTF-16 code units (so U+1F600, a
// surrogate pair, sorts before U+FF5A, unlike in UTF-8 byte order), no
// whitespace.
// Digest is its SHA-256 and length; Pretty is the layout of written files,
// in the stored member order.
func ExampleCanonical() {
	doc, err := canonjson.Parse([]byte(`{"b": [1, 2], "a": "x", "\uff5a": null, "\ud83d\ude00": true}`))
	if err != nil {
		panic(err)
	}
	c, _ := canonjson.Canonical(doc)
	fmt.Println(string(c))
	digest, n, _ := canonjson.Digest(doc)
	fmt.Println(digest, n)
	doc.Set("a", canonjson.NewInt(7))
	p, _ := canonjson.Pretty(doc)
	fmt.Print(string(p))
	// Output:
	// {"a":"x","b":[1,2],"😀":true,"ｚ":null}
	// b96c1b3267a6c36300269f7eedad01688444ccff4a99cfec76e500d2e0fd32b3 42
	// {
	//   "b": [
	//     1,
	//     2
	//   ],
	//   "a": 7,
	//   "ｚ": null,
	//   "😀": true
	// }
}

// An Arena reads a batch's documents one after another into the memory of
// the one before: after Reset the earlier trees are gone, so what must
// outlive them is taken with Keep first. Strings are never reused: a
// string read from a tree stays valid after Reset.
func ExampleArena() {
	var a canonjson.Arena
	var kept []*canonjson.Value
	var names []string
	for _, doc := range []string{
		`{"subject": {"name": "ledger-notes-server"}, "result": "PASS"}`,
		`{"subject": {"name": "calendar-server"}, "result": "FAIL"}`,
	} {
		v, err := a.Parse([]byte(doc))
		if err != nil {
			panic(err)
		}
		names = append(names, v.Path("subject", "name").Str)
		kept = append(kept, a.Keep(v.Get("subject")))
		a.Reset()
	}
	for i, v := range kept {
		c, _ := canonjson.Canonical(v)
		fmt.Println(names[i], string(c))
	}
	// Output:
	// ledger-notes-server {"name":"ledger-notes-server"}
	// calendar-server {"name":"calendar-server"}
}
