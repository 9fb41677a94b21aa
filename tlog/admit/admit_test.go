package admit_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/tlog/admit"
)

func signed(t *testing.T, b *canonjson.Value, claim attest.Level) *canonjson.Value {
	t.Helper()
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne), Claim: &claim})
	if err != nil {
		t.Fatal(err)
	}
	return s.Attested
}

func refused(t *testing.T, err error) *admit.Refusal {
	t.Helper()
	var r *admit.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("error %v, want a *admit.Refusal", err)
	}
	return r
}

// TestAdmit: a valid bundle is admitted as its v1 entry, its attested
// form is logged as the v2 entry naming the signers of its envelopes (its
// Entry stays the v1 entry, for Rekor); invalid evidence is refused; an
// attested bundle is refused for a
// fault of its wrapper alone (its bundle is valid): a signature that does
// not verify, a wrapper that is not schema-valid. A claim above SIGNED is
// not the log's to judge.
func TestAdmit(t *testing.T) {
	a := admit.New()
	at := attesttest.EvaluatedAt
	b := bundletest.Example(t)
	want, err := offline.EntryFor(b).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Admit(b, at)
	if err != nil || got.Kind != document.Bundle || !bytes.Equal(got.Entry, want) || got.Bundle != b {
		t.Fatalf("a valid bundle: %+v, %v", got, err)
	}
	w := signed(t, b, attest.Witnessed)
	got, err = a.Admit(w, at)
	if err != nil || got.Kind != document.AttestedBundle || !bytes.Equal(got.Entry, want) || got.Result.Attestation == nil || !got.Result.Attestation.Valid {
		t.Fatalf("an attested bundle claiming WITNESSED: %+v, %v", got, err)
	}
	o := attesttest.Options(attesttest.IdentityOne)
	wantSigned, err := offline.SignedEntryFor(b, []offline.EntrySigner{{KeyFingerprint: attesttest.KeyID(attesttest.TestOnlyKeyOne()), SignerIdentity: o.SignerIdentity, SigningTime: o.SigningTime}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.SignedEntry, wantSigned) || !bytes.Equal(got.LogEntry(), wantSigned) {
		t.Fatalf("an attested bundle's entry:\n%s\nwant\n%s", got.SignedEntry, wantSigned)
	}
	e, err := offline.ParseEntry(got.SignedEntry)
	if err != nil || e.SchemaVersion != offline.SchemaVersionEntrySigned {
		t.Fatalf("an attested bundle's entry does not parse as v2: %+v, %v", e, err)
	}
	// An attested bundle with no envelope names no signer: its bundle's
	// v1 entry.
	u := signed(t, b, attest.Signed)
	u.Path("authenticity").Set("envelopes", canonjson.NewArray())
	u.Path("authenticity").Set("claimedClassification", canonjson.NewString(attest.UnsignedIntegrityOnly.String()))
	if got, err := a.Admit(u, at); err != nil || got.SignedEntry != nil || !bytes.Equal(got.LogEntry(), want) {
		t.Fatalf("an attested bundle without envelopes: %+v, %v", got, err)
	}

	bad := b.Clone()
	bad.Path("evidence", "run", "environment").Set("os", canonjson.NewString("tampered"))
	if r := refused(t, second(a.Admit(bad, at))); r.Result.Attestation != nil || len(r.Result.Diagnostics) == 0 {
		t.Errorf("invalid evidence: %+v", r.Result)
	}
	sb := signed(t, b, attest.Signed)
	sb.Set("bundle", bad)
	if r := refused(t, second(a.Admit(sb, at))); r.Result.Diagnostics[0] != attest.CodeAttestedEvidenceInvalid {
		t.Errorf("an attested bundle of invalid evidence: %v", r.Result.Diagnostics)
	}

	garbage := w.Clone()
	sig := garbage.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
	sig.Set("sig", canonjson.NewString(strings.Repeat("A", 86)+"=="))
	r := refused(t, second(a.Admit(garbage, at)))
	if r.Result.Diagnostics[0] != attest.CodeSignatureInvalid || r.Result.Attestation == nil {
		t.Errorf("a garbage envelope signature: %v %s", r.Result.Diagnostics, r.Result.Detail)
	}
	wrapperBad := w.Clone()
	wrapperBad.Get("authenticity").Set("note", canonjson.NewString("not in the schema"))
	if r := refused(t, second(a.Admit(wrapperBad, at))); r.Result.Diagnostics[0] != attest.CodeSchemaInvalid {
		t.Errorf("a schema-invalid wrapper: %v %s", r.Result.Diagnostics, r.Result.Detail)
	}
	noBundle := w.Clone()
	noBundle.Members = noBundle.Members[:1]
	if r := refused(t, second(a.Admit(noBundle, at))); r.Result.Diagnostics[0] != attest.CodeSchemaInvalid {
		t.Errorf("an attested bundle without a bundle: %v %s", r.Result.Diagnostics, r.Result.Detail)
	}
	// Control: the bundle inside each refused wrapper is admitted alone.
	for _, x := range []*canonjson.Value{garbage, wrapperBad} {
		if _, err := a.Admit(x.Get("bundle"), at); err != nil {
			t.Errorf("the embedded bundle alone: %v", err)
		}
	}
	// An evaluation time that is not one is an error, not a refusal.
	var re *admit.Refusal
	if _, err := a.Admit(w, "yesterday"); err == nil || errors.As(err, &re) {
		t.Errorf("a bad evaluation time: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// heapObjects is the bytes of live and unswept heap objects now.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakHeap runs f with the collector at 5% and returns the largest growth
// of the heap's objects over the start that it saw, sampling every 100 µs.
func peakHeap(f func()) uint64 {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	base := heapObjects()
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			if h := heapObjects(); h > base && h-base > peak {
				peak = h - base
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak
}

// TestCost: admitting each of the costliest documents per byte found
// (parsed from a copy of the body, as a server reads it, and with the
// refusal's result object rendered) stays within Cost of its size.
func TestCost(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds documents at the reader limits")
	}
	a := admit.New()
	compact := func(v *canonjson.Value) []byte {
		b, err := canonjson.Compact(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	large := bundletest.Large(t, bundletest.MaxLargeOps)
	failing := large.Clone()
	for _, op := range failing.Path("evidence", "operations").Items {
		op.Set("outcome", canonjson.NewString("BOGUS"))
		op.Set("attempt", canonjson.NewString("x"))
	}
	var obj strings.Builder
	obj.WriteString("{")
	for i := range canonjson.MaxNodes/2 - 2 {
		fmt.Fprintf(&obj, "\"%d\":{},", i)
	}
	obj.WriteString("\"x\":1}")
	long := "[" + strings.Repeat("\""+strings.Repeat("a", canonjson.MaxStringCodePoints-1)+"\",", 15) + "1]"
	escaped := "[" + strings.Repeat("\""+strings.Repeat(`\u00e9`, canonjson.MaxStringCodePoints-1)+"\",", 2) + "1]"
	ex := compact(bundletest.Example(t))
	// Inside a bundle, where each value fails the schema: an empty object
	// for each operation (every required member missing), an empty array
	// for each fault.
	i := bytes.Index(ex, []byte(`"operations":[`)) + len(`"operations":[`)
	emptyOps := slices.Concat(ex[:i], bytes.Repeat([]byte("{},"), canonjson.MaxNodes-2000), ex[i:])
	i = bytes.Index(ex, []byte(`"faults":[`)) + len(`"faults":[`)
	emptyFaults := slices.Concat(ex[:i], bytes.Repeat([]byte("[],"), canonjson.MaxNodes-2000), ex[i:])
	// The schemas are compiled once, by the first admission: not a cost
	// of each.
	if _, err := a.Admit(bundletest.Example(t), attesttest.EvaluatedAt); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		body []byte
	}{
		{"the example bundle", ex},
		{"its attested form", compact(signed(t, bundletest.Example(t), attest.Signed))},
		{"the limit bundle", compact(large)},
		{"the limit bundle, every operation failing the schema", compact(failing)},
		{"a bundle of empty operations", emptyOps},
		{"a bundle of empty faults", emptyFaults},
		{"an array of empty arrays", []byte("[" + strings.Repeat("[],", canonjson.MaxNodes-2) + "[]]")},
		{"an object of empty objects", []byte(obj.String())},
		{"an array of numbers", []byte("[" + strings.Repeat("1,", canonjson.MaxNodes-2) + "1]")},
		{"15 longest strings", []byte(long)},
		{"escaped strings", []byte(escaped)},
		{"16 MiB of white space", append(bytes.Repeat([]byte(" "), canonjson.MaxInputBytes-len(ex)), ex...)},
	} {
		peak := peakHeap(func() {
			body := bytes.Clone(tt.body)
			doc, err := canonjson.Parse(body)
			if err != nil {
				return
			}
			_, err = a.Admit(doc, attesttest.EvaluatedAt)
			var r *admit.Refusal
			if errors.As(err, &r) {
				if _, err := canonjson.Compact(r.Result.Value()); err != nil {
					t.Error(err)
				}
			}
		})
		n := int64(len(tt.body))
		t.Logf("%s: %d bytes, peak heap %.1f MiB, Cost %.1f MiB", tt.name, n, float64(peak)/(1<<20), float64(admit.Cost(n))/(1<<20))
		if int64(peak) > admit.Cost(n) {
			t.Errorf("%s (%d bytes): peak heap %d bytes, more than Cost %d", tt.name, n, peak, admit.Cost(n))
		}
	}
	// Cost is non-decreasing, and its documented value at the limit.
	for n := int64(0); n < canonjson.MaxInputBytes; n += 4093 {
		if admit.Cost(n+4093) < admit.Cost(n) {
			t.Fatalf("Cost decreases after %d", n)
		}
	}
	if got := admit.Cost(canonjson.MaxInputBytes); got != 80<<20+256<<10 {
		t.Errorf("Cost(16 MiB) = %d", got)
	}
}
