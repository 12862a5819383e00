package dedup

import (
	"math"
	"math/bits"

	"github.com/bardo-golem/bardo/textembed"
)

// # The pattern bound
//
// A prefix shares its buckets with every row that shares a phrase with
// it: on a Golem's templated texts the prefix filter alone leaves
// candidates in proportion to the rows. The pattern index is the first
// filter instead; it asks for a whole group of buckets to agree.
//
// The state of a bucket d in x is the sign of x_d: −, 0 or +. Let x̂ be
// x/‖x‖, λ_x the least |x̂_d| over x's non-zero buckets and w_x = 1/λ_x²
// (= S/min x_d²), and Δ the buckets whose state differs in x and y. Each
// d in Δ adds at least min(λ_x², λ_y²) to ‖x̂ − ŷ‖² (one of the two is 0
// there, or they have opposite signs), so
//
//	|Δ| · min(λ_x², λ_y²) ≤ ‖x̂ − ŷ‖² = 2 − 2·cos(x, y),
//
// and cos(x, y) > τ gives |Δ| < 2(1 − τ)·max(w_x, w_y). The class of x is
// c_x = ⌈2(1 − τ)·w_x⌉ (computed from above), so |Δ| < max(c_x, c_y).
//
// Lemma 3. Split the buckets into K groups, bucket d in group d mod K (K
// a power of two, so each split refines the coarser ones). The pattern of
// a group in x is the states of x over the group; n_x(K) counts x's
// non-empty groups, which never falls as K grows. If n_x(K) ≥ c_x and
// n_y(K) ≥ c_y and cos(x, y) > τ, then some group is non-empty and of the
// same pattern in x and y. Say c_x ≥ c_y: at most |Δ| < c_x ≤ n_x(K) of
// x's non-empty groups hold a bucket of Δ, so one of them holds none: its
// pattern is the same in y, and not empty.
//
// The level of x is the least K (a power of two, at most the index's top)
// with n_x(K) ≥ c_x; a row without one is not in the pattern index. A
// pair of rows of levels K_x and K_y meets at level max(K_x, K_y): lemma
// 3 holds at any K at or above both levels. So every row is listed under
// the keys of its non-empty groups' patterns at each level from its own
// to top (table "at or below": the rows of level ≤ K), and once more at
// its own level (table "exactly"). A query of level K walks its keys at
// K in the first table, and its keys at each level above K in the
// second: every row of the pattern index whose cosine can reach τ.
// Rows and queries outside the pattern index meet through the prefix
// index (textindex.go).
//
// Lemma 4. At any K, x and y share at least m = n_x(K) − max(c_x, c_y) + 1
// keys: of x's n_x(K) non-empty groups at most |Δ| < max(c_x, c_y) hold a
// bucket of Δ, and each other one has the same pattern in y. So they
// share at least s − p + 1 of any s of x's keys, p = n_x(K) − m + 1
// (pigeonhole): a query walks only the s = p + extraLists shortest of its
// lists, counts per row the keys it is found under, and compares exactly
// only the rows that reach that count. Rows that share a phrase share a
// group or two, not most of them; and the rows of one class are listed
// apart (keys per class), so that p is that class's, not the largest.
// Where lemma 4 asks for one key in common at the query's level (p = n,
// the rows of a class at or above n_x), the query meets that class at a
// finer level instead, where it asks for more: a row is listed at every
// level from its own to the top, so any level at or above both is one
// where lemma 3 holds.
//
// Tightening. Only a row at least as close as the best found so far can
// change the answer, so the floor rises to the best cosine as the search
// goes (ties still count: they may be of a lower row). At τ′ ≥ τ the
// classes are those of τ′: the query's from its weights, a row's from
// its class at τ scaled by (1 − τ′)/(1 − τ) (textsearch.go). A query
// whose content is already held (cosine 1) walks one intersection.
//
// A key is a 64-bit hash of the level, the table, the group and its
// pattern: two patterns that share a key only add candidates, which are
// compared exactly like every other.

// maxTop is the highest level a pattern index has: 16 groups of 32
// buckets. A row is listed at every level from its own to the top, up to
// 2·top keys: a higher top would cost every row for the sake of a few long
// texts, which meet others through prefixes instead.
const maxTop = 16

// classMargin inflates the class's estimate, so that the rounding errors
// of S and of the division (near 1e-15) cannot make it fall short.
const classMargin = 1e-6

// patternClass returns c_x of the doc for τ, or maxClass when it is
// above maxClass. ss is v's Σ v², not 0.
func patternClass(v sparse, ss, tau float64) int {
	least := math.Inf(1)
	for _, f := range v.val {
		least = min(least, float64(float64(f)*float64(f)))
	}
	c := math.Ceil(float64(2*(1-tau)) * (ss / least) * (1 + classMargin))
	if !(c < maxClass) {
		return maxClass
	}
	return max(1, int(c))
}

// maxClass is the highest class patternClass tells apart: a row of this
// class or more meets everything the sketch filter can tell it from.
const maxClass = 255

// nonEmpty returns n_v(k): how many of the k groups v uses.
func nonEmpty(v sparse, k int) int {
	var used [textembed.Dims / 64]uint64
	for _, b := range v.idx {
		g := int(b) % k
		used[g/64] |= 1 << (g % 64)
	}
	n := 0
	for _, w := range used {
		n += bits.OnesCount64(w)
	}
	return n
}

// patternLevel returns v's level for τ, at most top (0 when it has
// none), and its class.
func patternLevel(v sparse, ss, tau float64, top int) (level, class int) {
	c := patternClass(v, ss, tau)
	for k := 1; k <= top; k *= 2 {
		if k >= c && nonEmpty(v, k) >= c {
			return k, c
		}
	}
	return 0, c
}

// The two tables of the doc.
const (
	tableAtOrBelow = 1
	tableExactly   = 2
)

// groupHashes appends to out the key of each non-empty group of v at
// level k in table, group ascending.
func groupHashes(v sparse, k, table int, hs *[textembed.Dims]uint64, out []uint64) []uint64 {
	const prime = 0x100000001b3
	var used [textembed.Dims / 64]uint64
	for i, b := range v.idx {
		g := int(b) % k
		if used[g/64]&(1<<(g%64)) == 0 {
			used[g/64] |= 1 << (g % 64)
			hs[g] = (uint64(k)<<20 | uint64(g)) * prime
		}
		item := uint64(b)<<1 | 1
		if v.val[i] < 0 {
			item = uint64(b) << 1
		}
		hs[g] = (hs[g] ^ item) * prime
	}
	for g := range k {
		if used[g/64]&(1<<(g%64)) != 0 {
			out = append(out, tableKey(mix64(hs[g]), table))
		}
	}
	return out
}

// tableKey is the key in table of a group's key in none (table 0).
func tableKey(h uint64, table int) uint64 { return h ^ uint64(table)<<62 }

// mix64 is SplitMix64's finalizer.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// levelSlot is the index of level k (a power of two up to maxTop) in a
// table of levels.
func levelSlot(k int) int { return bits.TrailingZeros(uint(k)) }

// levelSlots is the number of levels a pattern index can have.
const levelSlots = 5 // 1, 2, 4, 8, 16

// patternTable lists text rows by key and class, and which classes each
// table and level holds.
type patternTable struct {
	at      keyTable
	entries []patternEntry
	classes [tableExactly + 1][levelSlots]uint32 // bit c: a row of class c is listed there
}

// patternEntry is the rows listed under one key, by class.
type patternEntry []classRows

type classRows struct {
	class int
	rows  []int32
}

// rows returns the rows of class c.
func (e patternEntry) rows(c int) []int32 {
	for _, cr := range e {
		if cr.class == c {
			return cr.rows
		}
	}
	return nil
}

// entry returns the rows listed under key (nil: none).
func (p *patternTable) entry(key uint64) patternEntry {
	if i, ok := p.at.find(key); ok {
		return p.entries[i]
	}
	return nil
}

func (p *patternTable) add(v sparse, r int32, k, class, top int, hs *[textembed.Dims]uint64, scratch []uint64) []uint64 {
	list := func(l, table int) {
		scratch = groupHashes(v, l, table, hs, scratch[:0])
		for _, h := range scratch {
			i := p.at.index(h, len(p.entries))
			if i == len(p.entries) {
				p.entries = append(p.entries, nil)
			}
			e := p.entries[i]
			j := 0
			for j < len(e) && e[j].class != class {
				j++
			}
			if j == len(e) {
				e = append(e, classRows{class: class})
				p.entries[i] = e
			}
			e[j].rows = append(e[j].rows, r)
		}
		p.classes[table][levelSlot(l)] |= 1 << class
	}
	for l := k; l <= top; l *= 2 {
		list(l, tableAtOrBelow)
	}
	list(k, tableExactly)
	return scratch
}

// # The sketch filter
//
// Lemma 4 holds at any split of the buckets into groups, whatever the
// rows' levels: x and y share at least n_x − max(c_x, c_y) + 1 of x's
// non-empty groups' patterns. A row's sketch is that of the split into
// sketchGroups groups, one byte per group: 0 when the group is empty,
// else a hash of its pattern (1 to 255). A candidate whose sketch has
// fewer bytes equal to the query's non-empty ones than lemma 4 asks for
// is not compared: equal patterns give equal bytes, so a hash that
// collides only counts one more, never one less.

// sketchGroups is the split of the sketch: a group holds one or two of a
// text's buckets, so the count is close to that of its buckets.
const sketchGroups = 32

// sketch is one byte per group, eight to a word, group ascending.
type sketch [sketchGroups / 8]uint64

// sketchOf returns v's sketch and how many groups it uses.
func sketchOf(v sparse) (sk sketch, n int) {
	const prime = 0x100000001b3
	var hs [sketchGroups]uint64
	var used uint64
	for i, b := range v.idx {
		g := int(b) % sketchGroups
		if used&(1<<g) == 0 {
			used |= 1 << g
			hs[g] = uint64(g+1) * prime
		}
		item := uint64(b)<<1 | 1
		if v.val[i] < 0 {
			item = uint64(b) << 1
		}
		hs[g] = (hs[g] ^ item) * prime
	}
	for g := range sketchGroups {
		if used&(1<<g) != 0 {
			b := mix64(hs[g]) >> 56
			if b == 0 {
				b = 1
			}
			sk[g/8] |= b << (8 * (g % 8))
		}
	}
	return sk, bits.OnesCount64(used)
}

// sketchShared counts the groups non-empty in q whose bytes r has too.
func sketchShared(q, r *sketch) int {
	const low7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	n := 0
	for w := range q {
		v := q[w] ^ r[w]
		zero := ^((v&low7 + low7) | v | low7)     // the high bit of each byte of v that is 0
		used := (q[w]&low7 + low7) | q[w]         // the high bit of each byte of q that is not
		n += bits.OnesCount64(zero & used & high) // (every other bit of zero is clear)
	}
	return n
}
