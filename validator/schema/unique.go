package schema

import (
	"cmp"
	"hash/maphash"
	"slices"

	"github.com/mcpres/mcpres/canonjson"
)

// smallArray is the size up to which uniqueItems compares pairwise.
const smallArray = 16

// duplicate reports the first pair i < j of deeply equal items, "first"
// meaning the smallest j. Small arrays are compared pairwise; larger ones
// are hashed (with the Set's random seed, so collisions cannot be forced)
// and only items of equal hash are compared, in O(n log n).
func duplicate(seed maphash.Seed, items []*canonjson.Value) (int, int, bool) {
	if len(items) <= smallArray {
		for j := 1; j < len(items); j++ {
			for i := 0; i < j; i++ {
				if canonjson.Equal(items[i], items[j]) {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	type entry struct {
		h   uint64
		idx int
	}
	entries := make([]entry, len(items))
	for i, it := range items {
		entries[i] = entry{hashValue(seed, it), i}
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return a.idx - b.idx
	})
	bestI, bestJ := 0, -1
	var reps []int
	for start := 0; start < len(entries); {
		end := start + 1
		for end < len(entries) && entries[end].h == entries[start].h {
			end++
		}
		if end-start > 1 {
			// Within a run of equal hashes (in index order), compare each
			// item with one representative of every distinct value so far.
			reps = reps[:0]
		run:
			for _, en := range entries[start:end] {
				for _, r := range reps {
					if canonjson.Equal(items[r], items[en.idx]) {
						if bestJ < 0 || en.idx < bestJ {
							bestI, bestJ = r, en.idx
						}
						break run
					}
				}
				reps = append(reps, en.idx)
			}
		}
		start = end
	}
	return bestI, bestJ, bestJ >= 0
}

// hashValue hashes v consistently with canonjson.Equal: equal values hash
// equally (object member order is ignored).
func hashValue(seed maphash.Seed, v *canonjson.Value) uint64 {
	if v == nil {
		return 0
	}
	switch v.Kind {
	case canonjson.Null:
		return mix(1)
	case canonjson.Bool:
		if v.Bool {
			return mix(2)
		}
		return mix(3)
	case canonjson.Int:
		return mix(uint64(v.Int) ^ 0x9e3779b97f4a7c15)
	case canonjson.String:
		return maphash.String(seed, v.Str)
	case canonjson.Number:
		return mix(maphash.String(seed, v.Str) ^ 5)
	case canonjson.Array:
		h := uint64(6)
		for _, it := range v.Items {
			h = mix(h ^ hashValue(seed, it))
		}
		return h
	case canonjson.Object:
		var sum uint64
		for _, m := range v.Members {
			sum += mix(maphash.String(seed, m.Key) ^ mix(hashValue(seed, m.Value)))
		}
		return mix(sum ^ 7)
	}
	return 0
}

// mix is the splitmix64 finalizer, a bijection on uint64.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
