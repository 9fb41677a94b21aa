package attest

import (
	"errors"
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/validator"
)

// VerifierOptions configure a [Verifier]: one trust policy, one
// evaluation time and one [Gate] for every attested bundle it is given.
type VerifierOptions struct {
	// Policy is the trust policy (trustpolicy.Open), the same for every
	// bundle.
	Policy *LoadedPolicy
	// PolicyFor, when set instead of Policy, gives the policy of each
	// bundle: an ad-hoc policy bound to the trustPolicyId the bundle was
	// signed for (trustpolicy.AdHoc.ForBundle).
	PolicyFor func(wrapper *canonjson.Value) *LoadedPolicy
	// NoPolicyUnsafe verifies with no trust policy at all: nothing is
	// trusted, at most SIGNED is derived, and the Gate passes only what it
	// accepts below SIGNED_WITH_IDENTITY by name (Gate.BelowIdentityUnsafe).
	// A Verifier without a policy must say so here.
	NoPolicyUnsafe bool
	// EvaluatedAt is the evaluation time, a date-time echoed in every
	// result (REFERENCE §1.7, §6.9); nothing reads a clock.
	EvaluatedAt string
	// Validator validates bundles and schemas; nil means a new one.
	Validator *validator.Validator
	// Gate is what a bundle must be to pass; its zero value is the safe
	// one (a PASS result, a trusted signer, bound to a subject).
	Gate Gate
}

// A Verifier is constructed once and applied to many attested bundles
// (sigstore-go's verify.NewVerifier habit): every check that does not
// depend on the bundle (the evaluation time, the gate, that a policy or
// its absence was chosen) is made when it is built. It is immutable and
// safe for concurrent use.
type Verifier struct {
	o VerifierOptions
}

// NewVerifier checks o and returns its Verifier. Exactly one of Policy,
// PolicyFor and NoPolicyUnsafe must be given: no policy is never a
// default.
func NewVerifier(o VerifierOptions) (*Verifier, error) {
	n := 0
	for _, given := range []bool{o.Policy != nil, o.PolicyFor != nil, o.NoPolicyUnsafe} {
		if given {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, errors.New("attest: a Verifier needs a trust policy (Policy or PolicyFor), or NoPolicyUnsafe said by name")
	case n > 1:
		return nil, errors.New("attest: a Verifier takes one of Policy, PolicyFor and NoPolicyUnsafe")
	case !datetime.Valid(o.EvaluatedAt):
		return nil, fmt.Errorf("attest: evaluation time %q is not an RFC 3339 date-time (leap seconds are rejected)", o.EvaluatedAt)
	}
	if err := o.Gate.Check(); err != nil {
		return nil, fmt.Errorf("attest: gate: %w", err)
	}
	if o.Validator == nil {
		o.Validator = validator.New()
	}
	return &Verifier{o: o}, nil
}

// Gate is the verifier's gate.
func (v *Verifier) Gate() Gate { return v.o.Gate }

// WithGate returns a Verifier that judges with g instead (the same policy,
// time and validator): the gate of attest verify --oci, bound to the
// image digest once it is resolved.
func (v *Verifier) WithGate(g Gate) (*Verifier, error) {
	if err := g.Check(); err != nil {
		return nil, fmt.Errorf("attest: gate: %w", err)
	}
	c := *v
	c.o.Gate = g
	return &c, nil
}

// Check verifies one attested bundle ([Verify]) with the verifier's
// policy and time, without judging it: the result the reference reports.
func (v *Verifier) Check(wrapper *canonjson.Value) (Result, error) {
	o := Options{Policy: v.o.Policy, EvaluatedAt: v.o.EvaluatedAt, Validator: v.o.Validator}
	if v.o.PolicyFor != nil {
		o.Policy = v.o.PolicyFor(wrapper)
	}
	return Verify(wrapper, o)
}

// Verify verifies one attested bundle and judges it with the gate. A
// non-nil error is Verify's (an *validator.InputError).
func (v *Verifier) Verify(wrapper *canonjson.Value) (Result, Verdict, error) {
	r, err := v.Check(wrapper)
	if err != nil {
		return Result{}, Verdict{}, err
	}
	return r, v.o.Gate.Evaluate(r), nil
}
