package validator_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// A precheckCase is a raw document for stage P (REFERENCE §5.1 P1–P3 and
// its ill-typed-shape table). No schema or digest is involved: a document
// that passes stage P ends in MCP_RES_SCHEMA_INVALID, which is how the
// rows below show that P passed.
type precheckCase struct {
	name     string
	doc      string
	want     []string // exact diagnostics, when the input is evaluated
	inputErr bool     // the input must abort with *InputError instead
	notCode  string   // wrong-reason control: must not give this code
}

// baseNegObs is a negativeObservation that passes P3a–P3f.
const baseNegObs = `{"propertyUnderTest":"p","propertyReached":true,"expectedVerdict":"REJECT","observedVerdict":"REJECT",` +
	`"expectedStopReason":"STOP_A","observedStopReason":"STOP_A","oracleEvidenceRef":"o.json","prerequisitesReached":["A"]}`

// negObs returns baseNegObs with edits applied: "key=<json>" sets a member,
// "-key" deletes it.
func negObs(edits ...string) string {
	v, err := canonjson.Parse([]byte(baseNegObs))
	if err != nil {
		panic(err)
	}
	for _, e := range edits {
		if key, ok := strings.CutPrefix(e, "-"); ok {
			v.Delete(key)
			continue
		}
		key, text, _ := strings.Cut(e, "=")
		val, err := canonjson.Parse([]byte(text))
		if err != nil {
			panic(e + ": " + err.Error())
		}
		v.Set(key, val)
	}
	b, err := canonjson.Compact(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// control returns a NEGATIVE_CONTROL operation with the given
// negativeObservation JSON ("" for none).
func control(no string) string {
	if no == "" {
		return `{"kind":"NEGATIVE_CONTROL"}`
	}
	return `{"kind":"NEGATIVE_CONTROL","negativeObservation":` + no + `}`
}

// withOps returns a document whose evidence.operations is ops (JSON).
func withOps(ops string) string { return `{"evidence":{"operations":` + ops + `}}` }

// withNegObs returns a document with one negative control.
func withNegObs(no string) string { return withOps(`[` + control(no) + `]`) }

func precheckCases() []precheckCase {
	vac, prereq, prop, stop, mutant, schema, self := one(cVacuous), one(cPrereq), one(cProperty), one(cStop), one(cMutant), one(cSchema), one(cSelf)
	rows := []precheckCase{
		// Root and evidence shapes.
		{name: "root array", doc: `[]`, want: vac},
		{name: "root string", doc: `"evidence"`, want: vac},
		{name: "root null", doc: `null`, want: vac},
		{name: "root number", doc: `1`, want: vac},
		{name: "root object without evidence", doc: `{}`, want: vac},
		{name: "evidence null", doc: `{"evidence":null}`, want: vac},
		{name: "evidence array", doc: `{"evidence":[]}`, want: vac},
		{name: "evidence string", doc: `{"evidence":"x"}`, want: vac},
		{name: "evidence number", doc: `{"evidence":7}`, want: vac},
		{name: "evidence true", doc: `{"evidence":true}`, want: vac},
		{name: "evidence false", doc: `{"evidence":false}`, want: vac},
		{name: "evidence empty object", doc: `{"evidence":{}}`, want: vac},
		{name: "evidence array: the key scan still runs", doc: `{"evidence":[{"actualRuntime":true}]}`, want: self, notCode: cVacuous},
		{name: "evidence nested arrays: the key scan still runs", doc: `{"evidence":[[{"x":{"cleanupCompleted":0}}]]}`, want: self, notCode: cVacuous},
		{name: "evidence string holding the key text", doc: `{"evidence":"\"actualRuntime\":true"}`, want: vac, notCode: cSelf},
		{name: "execution string is ignored", doc: `{"evidence":{"execution":"actualRuntime installationExecuted"}}`, want: vac, notCode: cSelf},
		{name: "execution array is ignored", doc: `{"evidence":{"execution":["installationExecuted"]}}`, want: vac, notCode: cSelf},
		{name: "execution number is ignored", doc: `{"evidence":{"execution":1}}`, want: vac, notCode: cSelf},
		{name: "privacy array is ignored", doc: `{"evidence":{"privacy":["scanPassed"]}}`, want: vac, notCode: cSelf},
		{name: "cleanup string is ignored", doc: `{"evidence":{"cleanup":"complete"}}`, want: vac, notCode: cSelf},
		{name: "P1 before the operations abort", doc: `{"evidence":{"cleanup":{"complete":1},"operations":[null]}}`, want: self},
		{name: "P1 Python rule on a raw document", doc: `{"evidence":{"execution":{"regressionExecuted":false},"operations":7}}`, want: self},

		// evidence.operations shapes.
		{name: "operations absent", doc: `{"evidence":{"x":1}}`, want: vac},
		{name: "operations null", doc: withOps(`null`), want: vac},
		{name: "operations empty object", doc: withOps(`{}`), want: vac},
		{name: "operations empty string", doc: withOps(`""`), want: vac},
		{name: "operations empty array", doc: withOps(`[]`), want: vac},
		{name: "operations non-empty object", doc: withOps(`{"0":` + control(baseNegObs) + `}`), inputErr: true},
		{name: "operations non-empty string", doc: withOps(`"NEGATIVE_CONTROL"`), inputErr: true},
		{name: "operations zero", doc: withOps(`0`), inputErr: true},
		{name: "operations number", doc: withOps(`3`), inputErr: true},
		{name: "operations true", doc: withOps(`true`), inputErr: true},
		{name: "operations false", doc: withOps(`false`), inputErr: true},
		{name: "null element alone", doc: withOps(`[null]`), inputErr: true},
		{name: "null element after a good control", doc: withOps(`[` + control(baseNegObs) + `,null]`), inputErr: true},
		{name: "null element after a failing control", doc: withOps(`[` + control(negObs(`observedVerdict="PASS"`)) + `,null]`), inputErr: true},
		{name: "null element before non-objects", doc: withOps(`[null,1,"x"]`), inputErr: true},
		{name: "non-object elements only", doc: withOps(`[1,"x",true,false,0,[],{}]`), want: vac},
		{name: "non-object elements are skipped", doc: withOps(`[1,"NEGATIVE_CONTROL",["NEGATIVE_CONTROL"],` + control(negObs(`prerequisitesReached=[]`)) + `]`), want: prereq},
		{name: "control nested in an array is not a control", doc: withOps(`[[` + control(negObs(`prerequisitesReached=[]`)) + `]]`), want: vac, notCode: cPrereq},
		{name: "kind must be the string NEGATIVE_CONTROL", doc: withOps(`[{"kind":["NEGATIVE_CONTROL"],"negativeObservation":` + negObs(`prerequisitesReached=[]`) + `}]`), want: vac, notCode: cPrereq},

		// P3a: negativeObservation shapes.
		{name: "negativeObservation absent", doc: withNegObs(""), want: vac},
		{name: "negativeObservation null", doc: withNegObs(`null`), want: vac},
		{name: "negativeObservation false", doc: withNegObs(`false`), want: vac},
		{name: "negativeObservation zero", doc: withNegObs(`0`), want: vac},
		{name: "negativeObservation empty string", doc: withNegObs(`""`), want: vac},
		{name: "negativeObservation {}", doc: withNegObs(`{}`), want: vac, notCode: cPrereq},
		{name: "negativeObservation []", doc: withNegObs(`[]`), want: vac, notCode: cPrereq},
		{name: "negativeObservation string", doc: withNegObs(`"observed"`), want: prereq, notCode: cVacuous},
		{name: "negativeObservation number", doc: withNegObs(`1`), want: prereq, notCode: cVacuous},
		{name: "negativeObservation true", doc: withNegObs(`true`), want: prereq, notCode: cVacuous},
		{name: "negativeObservation non-empty array", doc: withNegObs(`[1]`), want: prereq, notCode: cVacuous},
		{name: "negativeObservation array holding it", doc: withNegObs(`[` + baseNegObs + `]`), want: prereq, notCode: cVacuous},

		// P3b: prerequisitesReached.
		{name: "prerequisites absent", doc: withNegObs(negObs(`-prerequisitesReached`)), want: prereq},
		{name: "prerequisites null", doc: withNegObs(negObs(`prerequisitesReached=null`)), want: prereq},
		{name: "prerequisites empty", doc: withNegObs(negObs(`prerequisitesReached=[]`)), want: prereq},
		{name: "prerequisites empty string", doc: withNegObs(negObs(`prerequisitesReached=""`)), want: prereq},
		{name: "prerequisites truthy string", doc: withNegObs(negObs(`prerequisitesReached="A"`)), want: prereq, notCode: cSchema},
		{name: "prerequisites truthy number", doc: withNegObs(negObs(`prerequisitesReached=1`)), want: prereq, notCode: cSchema},
		{name: "prerequisites true", doc: withNegObs(negObs(`prerequisitesReached=true`)), want: prereq, notCode: cSchema},
		{name: "prerequisites object", doc: withNegObs(negObs(`prerequisitesReached={"0":"A"}`)), want: prereq, notCode: cSchema},
		{name: "prerequisites empty object", doc: withNegObs(negObs(`prerequisitesReached={}`)), want: prereq, notCode: cSchema},
		{name: "prerequisites [null] is a non-empty array", doc: withNegObs(negObs(`prerequisitesReached=[null]`)), want: schema, notCode: cPrereq},

		// P3c: propertyReached must be exactly true.
		{name: "property false", doc: withNegObs(negObs(`propertyReached=false`)), want: prop},
		{name: "property UNKNOWN", doc: withNegObs(negObs(`propertyReached="UNKNOWN"`)), want: prop},
		{name: "property absent", doc: withNegObs(negObs(`-propertyReached`)), want: prop},
		{name: "property null", doc: withNegObs(negObs(`propertyReached=null`)), want: prop},
		{name: "property 1", doc: withNegObs(negObs(`propertyReached=1`)), want: prop},
		{name: "property string true", doc: withNegObs(negObs(`propertyReached="true"`)), want: prop},
		{name: "property [true]", doc: withNegObs(negObs(`propertyReached=[true]`)), want: prop},
		{name: "property {}", doc: withNegObs(negObs(`propertyReached={}`)), want: prop},

		// P3d: verdict equality is JSON-value equality.
		{name: "verdicts both absent are equal", doc: withNegObs(negObs(`-expectedVerdict`, `-observedVerdict`)), want: schema, notCode: cVacuous},
		{name: "verdicts both null are equal", doc: withNegObs(negObs(`expectedVerdict=null`, `observedVerdict=null`)), want: schema, notCode: cVacuous},
		{name: "verdict absent vs null", doc: withNegObs(negObs(`-expectedVerdict`, `observedVerdict=null`)), want: vac},
		{name: "verdict null vs absent", doc: withNegObs(negObs(`expectedVerdict=null`, `-observedVerdict`)), want: vac},
		{name: "verdict true vs 1", doc: withNegObs(negObs(`expectedVerdict=true`, `observedVerdict=1`)), want: vac},
		{name: "verdict 0 vs false", doc: withNegObs(negObs(`expectedVerdict=0`, `observedVerdict=false`)), want: vac},
		{name: `verdict "1" vs 1`, doc: withNegObs(negObs(`expectedVerdict="1"`, `observedVerdict=1`)), want: vac},
		{name: "verdict case differs", doc: withNegObs(negObs(`observedVerdict="reject"`)), want: vac},
		{name: "verdict objects equal in another member order", doc: withNegObs(negObs(`expectedVerdict={"a":1,"b":[1,2]}`, `observedVerdict={"b":[1,2],"a":1}`)), want: schema, notCode: cVacuous},
		{name: "verdict arrays in another order", doc: withNegObs(negObs(`expectedVerdict=[1,2]`, `observedVerdict=[2,1]`)), want: vac},
		{name: "verdict mismatch before the stop reason", doc: withNegObs(negObs(`observedVerdict="PASS"`, `observedStopReason="STOP_B"`)), want: vac, notCode: cStop},

		// P3e: stop-reason equality, same rules.
		{name: "stop reasons both absent are equal", doc: withNegObs(negObs(`-expectedStopReason`, `-observedStopReason`)), want: schema, notCode: cStop},
		{name: "stop reason null vs absent", doc: withNegObs(negObs(`expectedStopReason=null`, `-observedStopReason`)), want: stop},
		{name: "stop reason 1 vs true", doc: withNegObs(negObs(`expectedStopReason=1`, `observedStopReason=true`)), want: stop},
		{name: "stop reason objects equal", doc: withNegObs(negObs(`expectedStopReason={"r":[{"x":null}]}`, `observedStopReason={"r":[{"x":null}]}`)), want: schema, notCode: cStop},
		{name: "stop reason differs", doc: withNegObs(negObs(`observedStopReason="STOP_B"`)), want: stop},

		// P3f: mutantId truthy (JS truthiness) and mutantKilled exactly true.
		{name: "mutantId {} is truthy", doc: withNegObs(negObs(`mutantId={}`, `mutantKilled=false`)), want: mutant},
		{name: "mutantId [] is truthy", doc: withNegObs(negObs(`mutantId=[]`)), want: mutant},
		{name: "mutantId number", doc: withNegObs(negObs(`mutantId=1`)), want: mutant},
		{name: `mutantKilled "true"`, doc: withNegObs(negObs(`mutantId="m"`, `mutantKilled="true"`)), want: mutant},
		{name: "mutantKilled 1", doc: withNegObs(negObs(`mutantId="m"`, `mutantKilled=1`)), want: mutant},
		{name: "mutantKilled null", doc: withNegObs(negObs(`mutantId="m"`, `mutantKilled=null`)), want: mutant},
		{name: "mutantKilled true", doc: withNegObs(negObs(`mutantId="m"`, `mutantKilled=true`)), want: schema, notCode: cMutant},
		{name: "mutantId empty string is falsy", doc: withNegObs(negObs(`mutantId=""`, `mutantKilled=false`)), want: schema, notCode: cMutant},
		{name: "mutantId 0 is falsy", doc: withNegObs(negObs(`mutantId=0`, `mutantKilled=false`)), want: schema, notCode: cMutant},
		{name: "mutantId null is falsy", doc: withNegObs(negObs(`mutantId=null`, `mutantKilled=false`)), want: schema, notCode: cMutant},
		{name: "mutantId false is falsy", doc: withNegObs(negObs(`mutantId=false`)), want: schema, notCode: cMutant},

		// Several controls: each runs P3a–P3f before the next.
		{name: "second control vacuous", doc: withOps(`[` + control(baseNegObs) + `,` + control(negObs(`observedVerdict="PASS"`)) + `]`), want: vac},
		{name: "first control's stop reason before second control's absence", doc: withOps(`[` + control(negObs(`observedStopReason="STOP_B"`)) + `,` + control("") + `]`), want: stop, notCode: cVacuous},
		{name: "first control's mutant before second control's prerequisites", doc: withOps(`[` + control(negObs(`mutantId="m"`)) + `,` + control(negObs(`prerequisitesReached=[]`)) + `]`), want: mutant, notCode: cPrereq},
	}
	return rows
}

// TestPrecheckIllTyped runs the raw documents of precheckCases.
func TestPrecheckIllTyped(t *testing.T) {
	val := validator.New()
	for _, c := range precheckCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.notCode != "" && slices.Contains(c.want, c.notCode) {
				t.Fatalf("table error: control for %s expects %s", c.notCode, c.want)
			}
			doc := lit(t, c.doc)
			r, err := val.Bundle(doc)
			if c.inputErr {
				checkInputError(t, r, err)
				return
			}
			if err != nil {
				t.Fatalf("aborted with %v, want %q", err, c.want)
			}
			if r.Valid || !slices.Equal(r.Diagnostics, c.want) {
				t.Fatalf("got valid=%t %q (%s), want %q", r.Valid, r.Diagnostics, r.Detail, c.want)
			}
			if gotSchema := len(r.SchemaErrors) > 0; gotSchema != slices.Equal(c.want, one(cSchema)) {
				t.Errorf("%d schema errors with diagnostics %q", len(r.SchemaErrors), r.Diagnostics)
			}
		})
	}
}
