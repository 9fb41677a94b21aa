package offline

import (
	"fmt"
	"time"

	"github.com/mcpres/mcpres/signednote"
)

// Trust is what a verification trusts: logs by key, and the witness policy
// their checkpoints must satisfy. It mirrors a tlog-policy text
// (trustpolicy.TLogPolicy.Trust builds one) and is checked again by every
// verification: a key twice, a malformed key, a bad group or an unknown
// quorum is a *[TrustError]. Its keys are parsed (signednote.ParseVerifier) by whoever
// builds it, once: a verification does not parse them again.
type Trust struct {
	Logs      []Log
	Witnesses []Witness
	// Groups are in definition order: a member is a witness or an earlier
	// group.
	Groups []Group
	// Quorum names the witness or group that must be satisfied; "" or
	// "none" requires no cosignature.
	Quorum string
	// EvaluatedAt, when not zero, is the evaluation time: a cosignature
	// dated after it is not counted (signednote.JudgeCosignature). Verify
	// judges no time without it; Witnessed requires it.
	EvaluatedAt time.Time
	// MaxCosignatureAge, when not zero, is the oldest a counted
	// cosignature may be at EvaluatedAt (which it then requires).
	MaxCosignatureAge time.Duration
}

// A Log is a log whose checkpoints are trusted when its key signed them.
type Log struct {
	// Origin is the checkpoint origin line the log uses.
	Origin string
	// Key is the log's signed-note verifier key: type 0x01 (Ed25519) for
	// tlog-proofs, 0x02 (ECDSA) for Rekor v1 entries (package
	// offline/rekor).
	Key *signednote.Verifier
}

// A Witness is a cosigner whose cosignature/v1 signatures count toward the
// quorum, by key fingerprint.
type Witness struct {
	Name string               // the policy's name for it, used in reports
	Key  *signednote.Verifier // type 0x04 (cosignature/v1)
}

// A Group is satisfied when Threshold of its Members are.
type Group struct {
	Name      string
	Threshold int
	Members   []string
}

type trustedLog struct {
	Log
	v *signednote.Verifier // Key, or nil for an ECDSA log
}

type trustedWitness struct {
	Witness
	fp string // Key.Fingerprint()
}

// trustSet is a checked Trust.
type trustSet struct {
	logs      []trustedLog
	witnesses []trustedWitness
	groups    map[string]*Group
	isWitness map[string]int // name → index in witnesses
	quorum    string
	times     cosignatureTimes
}

func (t Trust) check() (*trustSet, error) {
	s := &trustSet{groups: map[string]*Group{}, isWitness: map[string]int{}, quorum: t.Quorum}
	if err := s.setTimes(t); err != nil {
		return nil, err
	}
	keys := map[string]string{} // key fingerprint → who
	claim := func(k *signednote.Verifier, who string) error {
		fp := k.Fingerprint()
		if prev, dup := keys[fp]; dup {
			return &TrustError{Msg: fmt.Sprintf("%s has the same key as %s: one key counts once", who, prev)}
		}
		keys[fp] = who
		return nil
	}
	for i, l := range t.Logs {
		k := l.Key
		if k == nil {
			return nil, &TrustError{Msg: fmt.Sprintf("log %d: no key", i)}
		}
		if l.Origin == "" {
			return nil, &TrustError{Msg: fmt.Sprintf("log %d (%s): empty origin", i, k.Name())}
		}
		tl := trustedLog{Log: l}
		switch k.Type() {
		case signednote.TypeEd25519:
			tl.v = k
		case signednote.TypeECDSA:
		default:
			return nil, &TrustError{Msg: fmt.Sprintf("log %s: key type 0x%02x is not a log key type (0x01 or 0x02)", k.Name(), k.Type())}
		}
		if err := claim(k, "log "+k.Name()); err != nil {
			return nil, err
		}
		s.logs = append(s.logs, tl)
	}
	defined := map[string]bool{}
	for _, w := range t.Witnesses {
		k := w.Key
		if k == nil {
			return nil, &TrustError{Msg: fmt.Sprintf("witness %q: no key", w.Name)}
		}
		if k.Type() != signednote.TypeCosignatureV1 {
			return nil, &TrustError{Msg: fmt.Sprintf("witness %q: key type 0x%02x, want 0x04 (cosignature/v1)", w.Name, k.Type())}
		}
		if w.Name == "" || defined[w.Name] {
			return nil, &TrustError{Msg: fmt.Sprintf("witness name %q is empty or defined twice", w.Name)}
		}
		if err := claim(k, fmt.Sprintf("witness %q", w.Name)); err != nil {
			return nil, err
		}
		defined[w.Name] = true
		s.isWitness[w.Name] = len(s.witnesses)
		s.witnesses = append(s.witnesses, trustedWitness{Witness: w, fp: k.Fingerprint()})
	}
	reach := map[string][]string{}
	for _, w := range t.Witnesses {
		reach[w.Name] = []string{w.Name}
	}
	for i := range t.Groups {
		g := &t.Groups[i]
		if g.Name == "" || defined[g.Name] {
			return nil, &TrustError{Msg: fmt.Sprintf("group name %q is empty or defined twice", g.Name)}
		}
		if g.Threshold < 1 || g.Threshold > len(g.Members) {
			return nil, &TrustError{Msg: fmt.Sprintf("group %q: threshold %d is outside 1..%d", g.Name, g.Threshold, len(g.Members))}
		}
		from := map[string]string{}
		for _, m := range g.Members {
			r, ok := reach[m]
			if !ok {
				return nil, &TrustError{Msg: fmt.Sprintf("group %q: member %q is not a witness or an earlier group", g.Name, m)}
			}
			for _, w := range r {
				if other, dup := from[w]; dup {
					return nil, &TrustError{Msg: fmt.Sprintf("group %q: witness %q is reachable through %q and %q and would count twice", g.Name, w, other, m)}
				}
				from[w] = m
				reach[g.Name] = append(reach[g.Name], w)
			}
		}
		defined[g.Name] = true
		s.groups[g.Name] = g
	}
	if q := t.Quorum; q != "" && q != "none" && !defined[q] {
		return nil, &TrustError{Msg: fmt.Sprintf("quorum names unknown witness or group %q", q)}
	}
	return s, nil
}

// witnessKeys returns the key of every witness.
func (s *trustSet) witnessKeys() []*signednote.Verifier {
	vs := make([]*signednote.Verifier, len(s.witnesses))
	for i := range s.witnesses {
		vs[i] = s.witnesses[i].Key
	}
	return vs
}

// satisfied reports whether a witness or group is satisfied by the counted
// witnesses.
func (s *trustSet) satisfied(name string, counted map[string]bool) bool {
	if _, ok := s.isWitness[name]; ok {
		return counted[name]
	}
	g := s.groups[name]
	n := 0
	for _, m := range g.Members {
		if s.satisfied(m, counted) {
			n++
		}
	}
	return n >= g.Threshold
}

// evaluate applies the quorum rule; it returns nil or a *QuorumError
// without Repeated and Ignored.
func (s *trustSet) evaluate(counted map[string]bool) *QuorumError {
	q := s.quorum
	if q == "" || q == "none" {
		return nil
	}
	if _, ok := s.isWitness[q]; ok {
		if counted[q] {
			return nil
		}
		return &QuorumError{Quorum: q, Counted: 0, Required: 1, Missing: []string{q}}
	}
	g := s.groups[q]
	e := &QuorumError{Quorum: q, Required: g.Threshold}
	for _, m := range g.Members {
		if s.satisfied(m, counted) {
			e.Counted++
		} else {
			e.Missing = append(e.Missing, m)
		}
	}
	if e.Counted >= e.Required {
		return nil
	}
	return e
}
