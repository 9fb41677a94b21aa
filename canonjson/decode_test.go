package canonjson

import "testing"

// Unmarshal's errors name the JSON pointer of the offending value; the
// pointer is built only on failure, so check its exact form.
func TestUnmarshalErrorPointers(t *testing.T) {
	type inner struct {
		N  int      `json:"n"`
		U  uint8    `json:"u"`
		S  []string `json:"s"`
		P  *string  `json:"p"`
		Fl float64  `json:"fl"`
	}
	type outer struct {
		Name  string  `json:"name"`
		Items []inner `json:"a/b~c"`
		Flag  bool    `json:"flag"`
	}
	tests := []struct{ in, want string }{
		{`[]`, "canonjson: (root): got array, want struct"},
		{`{"name":1}`, "canonjson: /name: got integer, want string"},
		{`{"flag":"x"}`, "canonjson: /flag: got string, want bool"},
		{`{"extra":1}`, `canonjson: (root): unknown member "extra"`},
		{`{"a/b~c":[{"n":1},{"x":2}]}`, `canonjson: /a~1b~0c/1: unknown member "x"`},
		{`{"a/b~c":[{},{"s":["a","b",3]}]}`, "canonjson: /a~1b~0c/1/s/2: got integer, want string"},
		{`{"a/b~c":[{"u":300}]}`, "canonjson: /a~1b~0c/0/u: got integer, want uint8"},
		{`{"a/b~c":[{"u":-1}]}`, "canonjson: /a~1b~0c/0/u: got integer, want uint8"},
		{`{"a/b~c":[{"p":true}]}`, "canonjson: /a~1b~0c/0/p: got boolean, want string"},
		{`{"a/b~c":[{"fl":1}]}`, "canonjson: /a~1b~0c/0/fl: unsupported Go type float64"},
		{`{"name":"x","a/b~c":[{"n":1,"s":[]}],"flag":true}`, ""},
	}
	for _, tt := range tests {
		v, err := Parse([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		var o outer
		err = Unmarshal(v, &o)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Unmarshal(%s) error = %q, want %q", tt.in, got, tt.want)
		}
	}
	type small struct {
		I int8 `json:"i"`
	}
	v, _ := Parse([]byte(`{"i":200}`))
	if err := Unmarshal(v, &small{}); err == nil || err.Error() != "canonjson: /i: 200 overflows int8" {
		t.Errorf("overflow error = %v", err)
	}
}

// Unmarshal tries the field after the previous member's first: members
// in field order, out of it, or some absent, must all land where their
// names say.
func TestUnmarshalMemberOrder(t *testing.T) {
	type rec struct {
		A string `json:"a"`
		B int    `json:"b"`
		C bool   `json:"c"`
		D string `json:"d"`
	}
	tests := []struct {
		in   string
		want rec
	}{
		{`{"a":"x","b":1,"c":true,"d":"y"}`, rec{A: "x", B: 1, C: true, D: "y"}},
		{`{"d":"y","c":true,"b":1,"a":"x"}`, rec{A: "x", B: 1, C: true, D: "y"}},
		{`{"b":2,"a":"x","d":"y"}`, rec{A: "x", B: 2, D: "y"}},
		{`{"c":true,"a":"x"}`, rec{A: "x", C: true}},
		{`{}`, rec{}},
	}
	for _, tt := range tests {
		v, err := Parse([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		var got rec
		if err := Unmarshal(v, &got); err != nil {
			t.Fatalf("Unmarshal(%s): %v", tt.in, err)
		}
		if got != tt.want {
			t.Errorf("Unmarshal(%s) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// Unmarshal tracks no path while it decodes (a failure's JSON pointer is
// built as it returns, TestUnmarshalErrorPointers): decoding into strings,
// integers, booleans and nested structs allocates nothing.
func TestUnmarshalTracksNoPath(t *testing.T) {
	var dst struct {
		Name  string `json:"name"`
		N     int    `json:"n"`
		Inner struct {
			B    bool               `json:"b"`
			Deep struct{ S string } `json:"deep"`
		} `json:"inner"`
	}
	v, err := Parse([]byte(`{"name":"x","n":3,"inner":{"b":true,"deep":{"S":"y"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal(v, &dst); err != nil || dst.Inner.Deep.S != "y" || !dst.Inner.B || dst.N != 3 {
		t.Fatalf("%v %+v", err, dst)
	}
	if n := testing.AllocsPerRun(100, func() { Unmarshal(v, &dst) }); n != 0 {
		t.Errorf("Unmarshal allocates %v times, want 0", n)
	}
}

// A decoded array is a new slice of exactly its items (length and capacity,
// so an append to it never writes into another's array), an empty array an
// empty slice, not nil (FromGo writes nil as null), whatever the slice held
// before; and a slice costs one allocation, its array.
func TestUnmarshalSlices(t *testing.T) {
	type item struct {
		S string `json:"s"`
	}
	var dst struct {
		Items []item   `json:"items"`
		Empty []string `json:"empty"`
		Names []string `json:"names"`
	}
	old := []string{"x", "y", "z", "w"}
	dst.Names = old[:1]
	v, err := Parse([]byte(`{"items":[{"s":"a"},{"s":"b"},{"s":"c"}],"empty":[],"names":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal(v, &dst); err != nil {
		t.Fatal(err)
	}
	if len(dst.Items) != 3 || cap(dst.Items) != 3 || dst.Items[2].S != "c" {
		t.Errorf("items %+v (cap %d)", dst.Items, cap(dst.Items))
	}
	if dst.Empty == nil || len(dst.Empty) != 0 {
		t.Errorf("empty: %#v, want an empty slice", dst.Empty)
	}
	if len(dst.Names) != 1 || cap(dst.Names) != 1 || dst.Names[0] != "n" || old[0] != "x" {
		t.Errorf("names %q (cap %d), the earlier array %q", dst.Names, cap(dst.Names), old)
	}
	back, err := FromGo(dst)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Compact(back); string(b) != `{"items":[{"s":"a"},{"s":"b"},{"s":"c"}],"empty":[],"names":["n"]}` {
		t.Errorf("FromGo of the decoded value: %s", b)
	}
	if n := testing.AllocsPerRun(100, func() { Unmarshal(v, &dst) }); n != 3 {
		t.Errorf("Unmarshal allocates %v times, want 3 (one array per non-empty slice, one empty slice)", n)
	}
}
