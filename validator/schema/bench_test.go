package schema

import (
	"strconv"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// largeOperations is how many operations the generated bundle carries:
// with 10,000 seeds and 10,000 outcome hashes it stays just under the
// reader's 250,000 values-and-keys limit.
const largeOperations = 7_200

// largeBundle clones the base vector's two operations until the bundle has
// n operations (unique ids), and fills the trial summary with 10,000 unique
// seeds and outcome hashes so that uniqueItems takes its hashing path.
func largeBundle(t testing.TB, n int) *canonjson.Value {
	t.Helper()
	b := readVector(t, baseVector)
	ev := b.Get("evidence")
	ops := ev.Get("operations")
	templates := ops.Items
	items := make([]*canonjson.Value, 0, n)
	for i := 0; i < n; i++ {
		op := templates[i%len(templates)].Clone()
		op.Set("operationId", canonjson.NewString("op-"+strconv.Itoa(i)))
		items = append(items, op)
	}
	ops.Items = items
	ts := ev.Get("trialSummary")
	seeds := make([]*canonjson.Value, 10_000)
	hashes := make([]*canonjson.Value, 10_000)
	for i := range seeds {
		seeds[i] = canonjson.NewInt(int64(i) * 7919)
		h := []byte(hex64)
		copy(h[56:], []byte(strconv.FormatInt(int64(10_000_000+i), 16)))
		hashes[i] = canonjson.NewString(string(h))
	}
	ts.Set("seeds", canonjson.NewArray(seeds...))
	ts.Set("distinctOutcomeHashes", canonjson.NewArray(hashes...))
	return b
}

// countNodes counts values and object keys, as the strict reader does.
func countNodes(v *canonjson.Value) int {
	n := 1
	for _, it := range v.Items {
		n += countNodes(it)
	}
	for _, m := range v.Members {
		n += 1 + countNodes(m.Value)
	}
	return n
}

func TestLargeBundle(t *testing.T) {
	s := loadEmbedded(t)
	b := largeBundle(t, largeOperations)
	nodes := countNodes(b)
	if nodes > canonjson.MaxNodes || nodes < canonjson.MaxNodes*9/10 {
		t.Fatalf("generated bundle has %d nodes, want just under %d", nodes, canonjson.MaxNodes)
	}
	checkErrors(t, s.Validate(ConformanceBundle, b), nil)
	// One bad operation deep inside is found, at its exact path.
	b.Path("evidence", "operations").Items[6000].Set("attempt", canonjson.NewInt(99))
	checkErrors(t, s.Validate(ConformanceBundle, b), []want{{"/evidence/operations/6000/attempt", "maximum"}})
}

func BenchmarkValidateBundle(b *testing.B) {
	s := loadEmbedded(b)
	v := readVector(b, baseVector)
	sch := s.Schema(ConformanceBundle)
	b.ReportAllocs()
	for b.Loop() {
		if errs := sch.Validate(v); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkValidateLargeBundle(b *testing.B) {
	s := loadEmbedded(b)
	v := largeBundle(b, largeOperations)
	b.ReportMetric(float64(countNodes(v)), "nodes")
	sch := s.Schema(ConformanceBundle)
	b.ReportAllocs()
	for b.Loop() {
		if errs := sch.Validate(v); errs != nil {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidateLargeBundleParsed includes the strict reader, i.e. the
// whole work of the schema stage from bytes.
func BenchmarkValidateLargeBundleParsed(b *testing.B) {
	s := loadEmbedded(b)
	data, err := canonjson.Compact(largeBundle(b, largeOperations))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	sch := s.Schema(ConformanceBundle)
	for b.Loop() {
		v, err := canonjson.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if errs := sch.Validate(v); errs != nil {
			b.Fatal(errs)
		}
	}
}

// BenchmarkLoad is the one-time cost a CLI run pays to compile the
// embedded schemas.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}
