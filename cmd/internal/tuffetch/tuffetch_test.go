package tuffetch_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/tuffetch"
)

func valid() *tuffetch.Result {
	data := []byte("{\"policy\":true}\n")
	sum := sha256.Sum256(data)
	day := func(d int) time.Time { return time.Date(2026, 9, d, 0, 0, 0, 0, time.UTC) }
	return &tuffetch.Result{
		Valid: true, Target: "policy.json", Repository: "https://tuf.example/",
		Data: data, SHA256: hex.EncodeToString(sum[:]),
		EvaluatedAt: time.Date(2026, 8, 27, 18, 5, 0, 123000000, time.UTC), ValidUntil: day(2),
		FromCache: true, FetchError: "connection refused",
		Root: tuffetch.Role{Version: 1, Expires: day(30)}, Timestamp: tuffetch.Role{Version: 7, Expires: day(2)},
		Snapshot: tuffetch.Role{Version: 3, Expires: day(9)}, Targets: tuffetch.Role{Version: 2, Expires: day(20)},
	}
}

func compact(t testing.TB, v *canonjson.Value) string {
	t.Helper()
	b, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantValid and wantFailure are the objects mcpres-tuf wrote before the
// schema moved here, member for member: the schema is unchanged.
const (
	wantValid = `{"schemaVersion":"mcpres.tuf-fetch-result/v1","valid":true,"target":"policy.json","repository":"https://tuf.example/",` +
		`"length":16,"sha256":"` + "%SUM%" + `","evaluatedAt":"2026-08-27T18:05:00.123Z","validUntil":"2026-09-02T00:00:00Z","fromCache":true,"fetchError":"connection refused",` +
		`"root":{"version":1,"expires":"2026-09-30T00:00:00Z"},"timestamp":{"version":7,"expires":"2026-09-02T00:00:00Z"},` +
		`"snapshot":{"version":3,"expires":"2026-09-09T00:00:00Z"},"targets":{"version":2,"expires":"2026-09-20T00:00:00Z"},` +
		`"dataBase64":"eyJwb2xpY3kiOnRydWV9Cg=="}`
	wantFailure = `{"schemaVersion":"mcpres.tuf-fetch-result/v1","valid":false,"target":"policy.json","repository":"repo","error":"timestamp expired","role":"timestamp","check":"expiry"}`
)

// TestJSON: the objects of a valid result and of a failure, members in
// the schema's order, null for what is absent; each parses back to the
// result it was written from.
func TestJSON(t *testing.T) {
	r := valid()
	want := strings.Replace(wantValid, "%SUM%", r.SHA256, 1)
	if got := compact(t, r.JSON()); got != want {
		t.Errorf("valid:\n got %s\nwant %s", got, want)
	}
	back, err := tuffetch.Parse([]byte(want))
	if err != nil || compact(t, back.JSON()) != want || !bytes.Equal(back.Data, r.Data) || !back.EvaluatedAt.Equal(r.EvaluatedAt) || back.Targets.Version != 2 {
		t.Errorf("valid parsed back: %+v, %v", back, err)
	}
	f := &tuffetch.Result{Target: "policy.json", Repository: "repo", Error: "timestamp expired", Role: "timestamp", Check: "expiry"}
	if got := compact(t, f.JSON()); got != wantFailure {
		t.Errorf("failure:\n got %s\nwant %s", got, wantFailure)
	}
	back, err = tuffetch.Parse([]byte(wantFailure))
	if err != nil || back.Valid || back.Error != "timestamp expired" || back.Role != "timestamp" || back.Check != "expiry" {
		t.Errorf("failure parsed back: %+v, %v", back, err)
	}
	noRole := &tuffetch.Result{Target: "t", Repository: "r", Error: "e"}
	if got := compact(t, noRole.JSON()); !strings.HasSuffix(got, `"error":"e","role":null,"check":null}`) {
		t.Errorf("failure without a role: %s", got)
	}
	r.FetchError = ""
	if got := compact(t, r.JSON()); !strings.Contains(got, `"fetchError":null`) {
		t.Errorf("read from the repository: %s", got)
	}
}

// TestParseRefuses: what is not a result of this schema, and a valid
// result whose bytes are not the ones it says it verified
// (ErrInconsistent). Control: a member the schema does not know is
// ignored.
func TestParseRefuses(t *testing.T) {
	r := valid()
	good := strings.Replace(wantValid, "%SUM%", r.SHA256, 1)
	for name, c := range map[string]struct {
		text         string
		inconsistent bool
	}{
		"not JSON":          {text: "mcpres-tuf: error: oops"},
		"an array":          {text: "[]"},
		"another schema":    {text: strings.Replace(good, "tuf-fetch-result/v1", "tuf-fetch-result/v2", 1)},
		"valid as a string": {text: strings.Replace(good, `"valid":true`, `"valid":"true"`, 1)},
		"no targets":        {text: strings.Replace(good, `"targets":{"version":2,"expires":"2026-09-20T00:00:00Z"},`, "", 1)},
		"a version string":  {text: strings.Replace(good, `"version":2,`, `"version":"2",`, 1)},
		"a date, no time":   {text: strings.Replace(good, `"validUntil":"2026-09-02T00:00:00Z"`, `"validUntil":"2026-09-02"`, 1)},
		"a failure, no err": {text: strings.Replace(wantFailure, `"error":"timestamp expired",`, "", 1)},
		"another sha256":    {text: strings.Replace(good, r.SHA256, strings.Repeat("0", 64), 1), inconsistent: true},
		"another length":    {text: strings.Replace(good, `"length":16`, `"length":15`, 1), inconsistent: true},
		"loose base64":      {text: strings.Replace(good, `Cg=="`, `Cg="`, 1), inconsistent: true},
	} {
		_, err := tuffetch.Parse([]byte(c.text))
		if err == nil || errors.Is(err, tuffetch.ErrInconsistent) != c.inconsistent {
			t.Errorf("%s: %v (inconsistent wanted: %v)", name, err, c.inconsistent)
		}
	}
	extra := strings.Replace(good, `"valid":true`, `"valid":true,"note":"added later"`, 1)
	if res, err := tuffetch.Parse([]byte(extra)); err != nil || !res.Valid {
		t.Errorf("control, an unknown member: %v", err)
	}
}

// FuzzParse: Parse never panics, and a result it accepts is written and
// read back to the same object.
func FuzzParse(f *testing.F) {
	r := valid()
	f.Add([]byte(strings.Replace(wantValid, "%SUM%", r.SHA256, 1)))
	f.Add([]byte(wantFailure))
	f.Add([]byte(`{"schemaVersion":"mcpres.tuf-fetch-result/v1","valid":false,"target":"","repository":"","error":"","role":null,"check":null}`))
	f.Add([]byte(`{"schemaVersion":"mcpres.tuf-fetch-result/v1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := tuffetch.Parse(data)
		if err != nil {
			return
		}
		out, err := canonjson.Compact(res.JSON())
		if err != nil {
			t.Fatalf("an accepted result does not encode: %v", err)
		}
		again, err := tuffetch.Parse(out)
		if err != nil {
			t.Fatalf("%s: written back, refused: %v", out, err)
		}
		if out2, _ := canonjson.Compact(again.JSON()); !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}
