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
// Lemma 4. At a level K where lemma 3 holds, x and y share at least
// n_x(K) − max(c_x, c_y) + 1 keys: of x's n_x(K) non-empty groups at most
// |Δ| < max(c_x, c_y) hold a bucket of Δ, and each other one has the
// same pattern in y. So a query counts, per row, the keys it shares at the
// level that row is met at, and compares exactly only the rows that reach
// that count: rows that share a phrase share a group or two, not most of
// them.
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

// patternClass returns c_x of the doc for τ, or maxTop+1 when it is
// above maxTop. ss is v's Σ v², not 0.
func patternClass(v sparse, ss, tau float64) int {
	least := math.Inf(1)
	for _, f := range v.val {
		least = min(least, float64(float64(f)*float64(f)))
	}
	c := math.Ceil(float64(2*(1-tau)) * (ss / least) * (1 + classMargin))
	if !(c <= maxTop) {
		return maxTop + 1
	}
	return max(1, int(c))
}

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

// patternKeys calls f with the key of each non-empty group of v at level
// k in table, and returns how many there are.
func patternKeys(v sparse, k, table int, hs *[textembed.Dims]uint64, f func(uint64)) int {
	const prime = 0x100000001b3
	var used [textembed.Dims / 64]uint64
	for i, b := range v.idx {
		g := int(b) % k
		if used[g/64]&(1<<(g%64)) == 0 {
			used[g/64] |= 1 << (g % 64)
			hs[g] = (uint64(k)<<20 | uint64(table)<<16 | uint64(g)) * prime
		}
		item := uint64(b)<<1 | 1
		if v.val[i] < 0 {
			item = uint64(b) << 1
		}
		hs[g] = (hs[g] ^ item) * prime
	}
	n := 0
	for g := range k {
		if used[g/64]&(1<<(g%64)) != 0 {
			f(mix64(hs[g]))
			n++
		}
	}
	return n
}

// mix64 is SplitMix64's finalizer.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// patternTable lists text rows by key: linked lists through flat slices.
type patternTable struct {
	head map[uint64]int32 // key → its latest entry
	row  []int32          // entry → text row
	next []int32          // entry → the key's previous entry; −1 at the first
}

func (p *patternTable) add(key uint64, r int32) {
	if p.head == nil {
		p.head = make(map[uint64]int32)
	}
	prev, ok := p.head[key]
	if !ok {
		prev = -1
	}
	p.head[key] = int32(len(p.row))
	p.row = append(p.row, r)
	p.next = append(p.next, prev)
}

// each calls f with each row listed under key.
func (p *patternTable) each(key uint64, f func(int32)) {
	e, ok := p.head[key]
	if !ok {
		return
	}
	for ; e >= 0; e = p.next[e] {
		f(p.row[e])
	}
}
