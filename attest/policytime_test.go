package attest_test

import (
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/trustpolicy"
)

// timeRecorder is a TrustPolicy as outside code writes one: it wraps the
// built-in policy and records the times Verify gives it.
type timeRecorder struct {
	attest.TrustPolicy
	inForce, envelope, signed, evaluated []time.Time
}

func (r *timeRecorder) InForce(at time.Time, atText string) *attest.Failure {
	r.inForce = append(r.inForce, at)
	return r.TrustPolicy.InForce(at, atText)
}

func (r *timeRecorder) Envelope(f *attest.EnvelopeFacts, at time.Time, ev *attest.EnvelopeEvaluation) *attest.Failure {
	r.envelope = append(r.envelope, at)
	r.signed = append(r.signed, f.SigningTime)
	r.evaluated = append(r.evaluated, f.EvaluatedAt)
	return r.TrustPolicy.Envelope(f, at, ev)
}

// A trust policy gets the evaluation and signing times as exact UTC
// instants at microsecond precision: an offset is applied and fraction
// digits beyond the sixth are truncated (REFERENCE §1.7), so the policy
// compares what the strings name.
func TestTrustPolicyTimes(t *testing.T) {
	w, policy, want := benchWrapper(t, bundletest.Example(t), 2)
	for _, tc := range []struct {
		at   string
		want time.Time
	}{
		{attesttest.EvaluatedAt, time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC)},
		{"2026-08-27T20:05:00.0000019+02:00", time.Date(2026, 8, 27, 18, 5, 0, 1000, time.UTC)},
	} {
		rec := &timeRecorder{}
		p, errs, err := trustpolicy.Open(policy, trustpolicy.OpenOptions{}).Policy()
		if err != nil || len(errs) > 0 {
			t.Fatal(err, errs)
		}
		rec.TrustPolicy = p
		r, err := attest.Verify(w, attest.Options{Policy: attest.NewLoadedPolicy(rec, nil, nil), EvaluatedAt: tc.at})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Valid || r.Level != want {
			t.Fatalf("at %s: valid %t level %s %v", tc.at, r.Valid, r.Level, r.Diagnostics)
		}
		signed := time.Date(2026, 8, 27, 18, 0, 0, 0, time.UTC) // attesttest.SigningTime
		exact := func(what string, got []time.Time, n int, want time.Time) {
			if len(got) != n {
				t.Fatalf("at %s: %s called %d times, want %d", tc.at, what, len(got), n)
			}
			for _, g := range got {
				if !g.Equal(want) || g.Location() != time.UTC {
					t.Errorf("at %s: %s got %v (%s), want exactly %v", tc.at, what, g, g.Location(), want)
				}
			}
		}
		exact("InForce", rec.inForce, 1, tc.want)
		exact("Envelope", rec.envelope, 2, tc.want)
		exact("EnvelopeFacts.EvaluatedAt", rec.evaluated, 2, tc.want)
		exact("EnvelopeFacts.SigningTime", rec.signed, 2, signed)
	}
}
