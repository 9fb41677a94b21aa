package validator

import (
	"strings"

	"github.com/mcpres/mcpres/canonjson"
)

// selfAssertedNamesJS are the member names whose presence anywhere inside
// evidence the JavaScript reference treats as a self-asserted claim.
var selfAssertedNamesJS = [...]string{"actualRuntime", "protocolMessagesExchanged", "privacyScanPassed", "cleanupCompleted"}

// minSelfAssertedJS is the length of the shortest of selfAssertedNamesJS:
// a shorter key matches none.
var minSelfAssertedJS = func() int {
	n := len(selfAssertedNamesJS[0])
	for _, name := range selfAssertedNamesJS {
		n = min(n, len(name))
	}
	return n
}()

// selfAssertedExecutionPy are the evidence.execution members the Python
// reference treats as self-asserted claims.
var selfAssertedExecutionPy = [...]string{"actualRuntime", "protocolMessagesExchanged", "installationExecuted", "regressionExecuted"}

// selfAsserted implements P1 (REFERENCE §5.1): the union of both upstream
// rules. The JavaScript rule is a text search for `"<name>":` in the compact
// serialization of evidence; because a quote inside a key is serialized as
// \", that search matches a key equal to the name or ending in `"` + name.
func selfAsserted(evidence *canonjson.Value) (bool, string) {
	if evidence == nil {
		return false, ""
	}
	if key, ok := selfAssertedKey(evidence); ok {
		return true, "evidence carries the producer-asserted member " + key
	}
	if evidence.Kind != canonjson.Object {
		return false, ""
	}
	if exec := evidence.Get("execution"); exec.Is(canonjson.Object) {
		for _, name := range selfAssertedExecutionPy {
			if exec.Has(name) {
				return true, "evidence.execution." + name + " is a producer-asserted boolean"
			}
		}
	}
	if p := evidence.Get("privacy"); p.Is(canonjson.Object) && p.Has("scanPassed") {
		return true, "evidence.privacy.scanPassed is a producer-asserted boolean"
	}
	if c := evidence.Get("cleanup"); c.Is(canonjson.Object) && c.Has("complete") {
		return true, "evidence.cleanup.complete is a producer-asserted boolean"
	}
	return false, ""
}

func selfAssertedKey(v *canonjson.Value) (string, bool) {
	// Iterative walk: evidence can hold hundreds of thousands of values.
	stack := make([]*canonjson.Value, 1, 64)
	stack[0] = v
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x.Kind {
		case canonjson.Array:
			stack = append(stack, x.Items...)
		case canonjson.Object:
			for _, m := range x.Members {
				if k := m.Key; len(k) >= minSelfAssertedJS {
					for _, name := range selfAssertedNamesJS {
						// m.Key == name, or m.Key ends in `"` + name.
						if strings.HasSuffix(k, name) && (len(k) == len(name) || k[len(k)-len(name)-1] == '"') {
							return name, true
						}
					}
				}
				stack = append(stack, m.Value)
			}
		}
	}
	return "", false
}

// negativeControls implements P2 and P3 (REFERENCE §5.1) on the raw parsed
// input, before the schema check. It returns a failing Result, or ok, or an
// InputError for the shapes on which both upstream implementations abort.
func negativeControls(doc *canonjson.Value) (Result, bool, error) {
	evidence := doc.Get("evidence")
	ops := evidence.Get("operations")
	var controls []*canonjson.Value
	switch {
	case ops == nil || ops.Kind == canonjson.Null:
	case ops.Kind == canonjson.Object && len(ops.Members) == 0:
	case ops.Kind == canonjson.String && ops.Str == "":
	case ops.Kind == canonjson.Array:
		for _, op := range ops.Items {
			if op.Kind == canonjson.Null {
				return Result{}, false, &InputError{Reason: "evidence.operations holds a null element"}
			}
		}
		for _, op := range ops.Items {
			if op.Kind == canonjson.Object && op.Get("kind").Is(canonjson.String) && op.Get("kind").Str == "NEGATIVE_CONTROL" {
				controls = append(controls, op)
			}
		}
	default:
		return Result{}, false, &InputError{Reason: "evidence.operations is a " + ops.Kind.String() + ", not an array"}
	}
	if len(controls) == 0 {
		return Fail(CodeVacuousNegativeControl, "no NEGATIVE_CONTROL operation"), false, nil
	}
	for _, op := range controls {
		if r, ok := negativeControl(op); !ok {
			return r, false, nil
		}
	}
	return Result{}, true, nil
}

func negativeControl(op *canonjson.Value) (Result, bool) {
	id := "?"
	if s := op.Get("operationId"); s.Is(canonjson.String) {
		id = s.Str
	}
	where := "negative control " + id + ": "
	no := op.Get("negativeObservation")
	if !no.Truthy() || (no.Kind == canonjson.Object && len(no.Members) == 0) || (no.Kind == canonjson.Array && len(no.Items) == 0) {
		return Fail(CodeVacuousNegativeControl, where+"negativeObservation is missing or empty"), false
	}
	if pr := no.Get("prerequisitesReached"); !pr.Is(canonjson.Array) || len(pr.Items) == 0 {
		return Fail(CodeNegativePrerequisiteMissing, where+"prerequisitesReached is not a non-empty array"), false
	}
	if reached := no.Get("propertyReached"); !reached.Is(canonjson.Bool) || !reached.Bool {
		return Fail(CodePropertyNotReached, where+"propertyReached is not true"), false
	}
	if !canonjson.Equal(no.Get("expectedVerdict"), no.Get("observedVerdict")) {
		return Fail(CodeVacuousNegativeControl, where+"observedVerdict differs from expectedVerdict"), false
	}
	if !canonjson.Equal(no.Get("expectedStopReason"), no.Get("observedStopReason")) {
		return Fail(CodeWrongStopReason, where+"observedStopReason differs from expectedStopReason"), false
	}
	if no.Get("mutantId").Truthy() {
		if k := no.Get("mutantKilled"); !k.Is(canonjson.Bool) || !k.Bool {
			return Fail(CodeNegativeMutantSurvived, where+"declared mutant was not killed"), false
		}
	}
	return Result{}, true
}
