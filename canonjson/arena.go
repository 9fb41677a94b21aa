package canonjson

import "unsafe"

// An Arena is memory for parse trees that one caller uses again, tree
// after tree. A batch reads thousands of documents of the same shape one
// at a time; parsing each into the memory of the one before keeps that
// memory in the processor's cache and away from the collector, where a
// fresh tree per document was half of what a batch verification
// allocated and most of the cache lines it wrote.
//
// Arena.Parse and Arena.ParseLenient read exactly as Parse and
// ParseLenient do. The Values of what they return, and the Members and
// Items slices of its objects and arrays, belong to the arena until
// Reset, which hands them to the next parse: whatever the caller keeps of
// a tree past Reset it takes with Keep. Strings are never reused, so a
// string read from a tree stays valid for good (so do the Go values
// Unmarshal decodes, except *Value fields).
//
// The zero Arena is ready to use. An Arena is used by one goroutine at a
// time.
type Arena struct {
	values  slabs[Value]
	members slabs[Member]
	items   slabs[*Value]
	// The parser's scratch stacks (parser.items and parser.members), kept
	// with their capacity from one parse to the next.
	stackItems   []*Value
	stackMembers []Member
}

// maxArenaBytes bounds what an Arena keeps through Reset: one very large
// document does not make every later parse of a batch hold its memory.
const maxArenaBytes = 1 << 20

// Parse is the package's Parse, into a.
func (a *Arena) Parse(data []byte) (*Value, error) {
	p := parser{data: data, arena: a}
	return p.parse()
}

// ParseLenient is the package's ParseLenient, into a.
func (a *Arena) ParseLenient(data []byte) (*Value, error) {
	p := parser{data: data, lenient: true, arena: a}
	return p.document()
}

// Reset gives the arena's memory to the next parse: every tree parsed
// into a since the last Reset is invalid from now on (its Values are
// zeroed). Memory beyond maxArenaBytes is let go, and so is a scratch
// stack grown past maxStackBytes.
func (a *Arena) Reset() {
	budget := maxArenaBytes
	budget = a.values.reset(budget)
	budget = a.members.reset(budget)
	a.items.reset(budget)
	a.stackItems = resetStack(a.stackItems)
	a.stackMembers = resetStack(a.stackMembers)
}

// maxStackBytes bounds a scratch stack an Arena keeps through Reset (a
// stack holds the items or members of the objects and arrays still open:
// a document's widest object or array and its ancestors').
const maxStackBytes = 64 << 10

// resetStack empties a scratch stack, or lets it go when it is large.
func resetStack[T any](stack []T) []T {
	if cap(stack)*int(unsafe.Sizeof(*new(T))) > maxStackBytes {
		return nil
	}
	clear(stack[:cap(stack)])
	return stack[:0]
}

// Keep returns v when no part of its tree is memory of a, else a Clone of
// v (a Clone shares nothing of it): what a caller keeps of a tree, or of a
// value built around parts of one, past Reset.
func (a *Arena) Keep(v *Value) *Value {
	if a.owns(v) {
		return v.Clone()
	}
	return v
}

// owns reports whether any Value, Members or Items of v's tree lies in a
// slab of a.
func (a *Arena) owns(v *Value) bool {
	if v == nil {
		return false
	}
	if a.values.holds(v) || len(v.Members) > 0 && a.members.holds(&v.Members[0]) || len(v.Items) > 0 && a.items.holds(&v.Items[0]) {
		return true
	}
	for _, it := range v.Items {
		if a.owns(it) {
			return true
		}
	}
	for _, m := range v.Members {
		if a.owns(m.Value) {
			return true
		}
	}
	return false
}

// slabs is an arena's store of one kind of element: the slabs handed out
// since the last Reset (all[:next]) and the ones waiting to be.
type slabs[T any] struct {
	all  [][]T
	next int
}

// take returns a slab of at least n elements: the next one waiting when
// it is large enough, else a new one of size elements (size ≥ n) that
// takes its place.
func (s *slabs[T]) take(n, size int) []T {
	if s.next < len(s.all) && len(s.all[s.next]) >= n {
		s.next++
		return s.all[s.next-1]
	}
	slab := make([]T, size)
	if s.next < len(s.all) {
		s.all[s.next] = slab
	} else {
		s.all = append(s.all, slab)
	}
	s.next++
	return slab
}

// reset zeroes the slabs handed out, keeps slabs while their bytes fit in
// budget, and returns what is left of it.
func (s *slabs[T]) reset(budget int) int {
	for _, slab := range s.all[:s.next] {
		clear(slab)
	}
	s.next = 0
	keep := 0
	for _, slab := range s.all {
		n := len(slab) * int(unsafe.Sizeof(slab[0]))
		if n > budget {
			break
		}
		budget -= n
		keep++
	}
	clear(s.all[keep:])
	s.all = s.all[:keep]
	return budget
}

// holds reports whether p points into one of s's slabs. (Go has no order
// on pointers: the addresses are compared as integers, which is sound
// because both point into live heap objects, which do not move.)
func (s *slabs[T]) holds(p *T) bool {
	x := uintptr(unsafe.Pointer(p))
	for _, slab := range s.all {
		if len(slab) == 0 {
			continue
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(slab)))
		if x >= start && x < start+uintptr(len(slab))*unsafe.Sizeof(slab[0]) {
			return true
		}
	}
	return false
}
