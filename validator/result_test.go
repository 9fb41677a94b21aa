package validator_test

import (
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// TestResultValue pins the upstream result object of REFERENCE §5.0:
// members valid, diagnostics, schemaErrors in that order, schemaErrors
// always present, and schema errors in document order (here the run,
// moved to the front of the evidence, before the profile).
func TestResultValue(t *testing.T) {
	runFirst := func(t *testing.T, v *canonjson.Value) {
		ev := at(t, v, pEvidence)
		for i, m := range ev.Members {
			if m.Key == "run" {
				ev.Members = append([]canonjson.Member{m}, append(ev.Members[:i:i], ev.Members[i+1:]...)...)
				return
			}
		}
		t.Fatal("no run")
	}
	for _, c := range []struct {
		name   string
		mutate mutator
		want   string
	}{
		{"valid", nil, `{"valid":true,"diagnostics":[],"schemaErrors":[]}`},
		{"semantic failure", set(pOpNeg+"/attempt", "1"),
			`{"valid":false,"diagnostics":["MCP_RES_RETRY_LIMIT_EXCEEDED"],"schemaErrors":[]}`},
		{"schema failure in document order",
			all(set(pEvidence+"/profile/version", `"2.0"`), set(pRun+"/monotonicDurationMs", `"2400"`), runFirst),
			`{"valid":false,"diagnostics":["MCP_RES_SCHEMA_INVALID"],"schemaErrors":[` +
				`{"instancePath":"/evidence/run/monotonicDurationMs","keyword":"type"},` +
				`{"instancePath":"/evidence/profile/version","keyword":"pattern"},` +
				`{"instancePath":"/statement/profileVersion","keyword":"pattern"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := validator.New().Bundle(build(t, c.mutate, bundle.StageSubject))
			if err != nil {
				t.Fatal(err)
			}
			out := r.Value()
			// Messages are free text (REFERENCE §1.8): compare without them.
			for _, e := range out.Get("schemaErrors").Items {
				if e.Get("message").Str == "" {
					t.Errorf("schema error %v has no message", e)
				}
				e.Delete("message")
			}
			got, err := canonjson.Compact(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("result\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestPassWith: the mode members of a kind follow schemaErrors, in order;
// Pass and Fail carry none.
func TestPassWith(t *testing.T) {
	r := validator.PassWith(canonjson.Member{Key: "importStatus", Value: canonjson.NewString("COMPLETE")}, canonjson.Member{Key: "x", Value: canonjson.NewBool(false)})
	got, err := canonjson.Compact(r.Value())
	if err != nil || string(got) != `{"valid":true,"diagnostics":[],"schemaErrors":[],"importStatus":"COMPLETE","x":false}` || !r.Valid {
		t.Errorf("PassWith = %s, %v", got, err)
	}
	if validator.Pass().Extra != nil || validator.Fail("C", "d").Extra != nil || validator.Fail("C", "d").Valid {
		t.Error("Pass or Fail carries mode members, or Fail is valid")
	}
}
