package dedup

import (
	"math"
	"slices"

	"github.com/bardo-golem/bardo/textembed"
)

// A bardo-text/v1 vector has a few dozen non-zero buckets of 512, and the
// texts of one Golem share their common words: an inverted index over
// every bucket would make almost every pair of rows a candidate, and dedup
// of text-only rows quadratic. textIndex indexes only a prefix of each
// vector instead (prefix filtering, as AllPairs and PPJoin do for sets),
// and then checks each candidate exactly.
//
// # The prefix bound
//
// Fix one order of the 512 buckets for the index's life, its rank: by
// ascending document frequency over the rows the engine may index, ties by
// bucket (any fixed order is correct; rare buckets first keep the
// prefixes' posting lists short). For a vector x with S = Σ x_d² > 0, list
// its non-zero buckets by rank, e_1 … e_m, and let M_j = Σ_{i≥j} x_{e_i}²
// be the mass of the tail from e_j on. Its prefix is e_1 … e_{p−1}, where
// p is the first j with M_j < τ²·S: the tail from e_p on, its suffix, has
// norm ‖x_S‖ < τ‖x‖. (M_1 = S, so a prefix is never empty.)
//
// Lemma: if cos(x, y) ≥ τ, some bucket is in the prefix of both. Let ρ_x
// be the rank of e_p (∞ when the suffix is empty), and say ρ_x ≤ ρ_y. A
// bucket d non-zero in both with rank(d) < ρ_x is in x's prefix, and as
// rank(d) < ρ_y in y's too. If there is none, every bucket they share is
// in x's suffix, and by Cauchy–Schwarz |x·y| = |Σ_{d∈S} x_d y_d| ≤
// ‖x_S‖‖y‖ < τ‖x‖‖y‖: the cosine is below τ. Signs do not matter, and
// neither does normalization (the bound is on x_S relative to ‖x‖).
//
// So a query walks the posting lists of its own prefix buckets only, each
// listing the rows whose prefix holds the bucket, and every row whose
// cosine reaches τ is met.
//
// # Exactness
//
// A candidate's cosine is then computed as similarity.Cosine64 computes
// it: the float64 products of the float32 components, float64(a·b), summed
// in increasing bucket order (Cosine64 adds zero products besides, which
// cannot change a non-zero sum), Σ x² the same way, then
// dot / sqrt(‖a‖²·‖b‖²), clamped. The cosines are the same bits as
// Cosine64's, so the best match at or above the floor is the one a brute
// force over every row finds. The prefixes are cut for τ a little below
// the floor (prefixMargin): the sums that cut them and those of the
// cosine carry rounding errors near 1e-14, and a row whose computed cosine
// reaches the floor has a true cosine above τ, so the lemma holds for the
// cosines as computed.
type textIndex struct {
	rank     *bucketRank
	tau2     float64                 // τ²: prefixes are cut for cosines of at least τ
	floor    float64                 // the least floor best is asked for
	postings [textembed.Dims][]int32 // by rank: the text rows whose prefix holds the bucket
	rows     []sparse                // text row → vector
	sumSq    []float64               // Σ v², bucket ascending, per text row
	global   []int                   // text row → engine row

	seen  []uint32 // scratch of best: the query that last met a text row
	query uint32
	ranks []uint16 // scratch of prefix
	comps []comp
}

// prefixMargin is how far below the floor the prefixes are cut.
const prefixMargin = 1e-9

// sparse is a vector's non-zero components, bucket ascending.
type sparse struct {
	idx []uint16
	val []float32
}

// sparseOf returns the non-zero components of v.
func sparseOf(v []float32) sparse {
	n := 0
	for _, f := range v {
		if f != 0 {
			n++
		}
	}
	s := sparse{idx: make([]uint16, 0, n), val: make([]float32, 0, n)}
	for k, f := range v {
		if f != 0 {
			s.idx = append(s.idx, uint16(k))
			s.val = append(s.val, f)
		}
	}
	return s
}

// sumSq returns Σ v², bucket ascending: Cosine64's ‖v‖².
func (s sparse) sumSq() float64 {
	var ss float64
	for _, f := range s.val {
		ss += float64(float64(f) * float64(f))
	}
	return ss
}

// dot returns Σ a·b over the buckets both use, bucket ascending.
func dot(a, b sparse) float64 {
	var d float64
	i, j := 0, 0
	for i < len(a.idx) && j < len(b.idx) {
		switch {
		case a.idx[i] < b.idx[j]:
			i++
		case a.idx[i] > b.idx[j]:
			j++
		default:
			d += float64(float64(a.val[i]) * float64(b.val[j]))
			i++
			j++
		}
	}
	return d
}

// bucketRank is the fixed order of the buckets: rank[k] of bucket k, 0
// first.
type bucketRank [textembed.Dims]uint16

// rankByFrequency orders the buckets by ascending df (document
// frequency), ties by bucket.
func rankByFrequency(df *[textembed.Dims]int) *bucketRank {
	order := make([]int, textembed.Dims)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return df[a] - df[b] })
	r := new(bucketRank)
	for pos, k := range order {
		r[k] = uint16(pos)
	}
	return r
}

// newTextIndex returns an empty index in the bucket order rank, for
// queries whose floor is at least floor (> 0).
func newTextIndex(rank *bucketRank, floor float64) *textIndex {
	if !(floor > prefixMargin) {
		panic("dedup: a text index needs a positive floor")
	}
	tau := floor - prefixMargin
	return &textIndex{rank: rank, tau2: float64(tau * tau), floor: floor}
}

// prefix appends to dst the ranks of the buckets of v's prefix (see the
// type's doc), and returns it; ss is v's Σ v², which is not 0.
func (x *textIndex) prefix(dst []uint16, v sparse, ss float64) []uint16 {
	cs := x.comps[:0]
	for k, b := range v.idx {
		c := float64(v.val[k])
		cs = append(cs, comp{x.rank[b], float64(c * c)})
	}
	x.comps = cs
	slices.SortFunc(cs, func(a, b comp) int { return int(a.rank) - int(b.rank) })
	limit := float64(x.tau2 * ss)
	var tail float64
	p := len(cs)
	for p > 0 && tail+cs[p-1].sq < limit {
		tail += cs[p-1].sq
		p--
	}
	for _, c := range cs[:p] {
		dst = append(dst, c.rank)
	}
	return dst
}

// comp is a component's rank and square, as prefix sorts them.
type comp struct {
	rank uint16
	sq   float64
}

// add appends the engine row global with text vector v.
func (x *textIndex) add(global int, v sparse) {
	r := int32(len(x.global))
	ss := v.sumSq()
	x.global = append(x.global, global)
	x.rows = append(x.rows, v)
	x.sumSq = append(x.sumSq, ss)
	x.seen = append(x.seen, 0)
	if ss == 0 {
		return // cosine 0 with everything: never a match
	}
	x.ranks = x.prefix(x.ranks[:0], v, ss)
	for _, k := range x.ranks {
		x.postings[k] = append(x.postings[k], r)
	}
}

func (x *textIndex) len() int { return len(x.global) }

// best returns the row with the largest cosine to q among those whose
// cosine is at least floor, ties to the lowest engine row; index −1 when
// there is none.
func (x *textIndex) best(q sparse, floor float64) match {
	if floor < x.floor {
		panic("dedup: a text index asked below its floor")
	}
	best := match{idx: -1}
	sq := q.sumSq()
	if sq == 0 {
		return best // cosine 0 with everything
	}
	x.query++
	if x.query == 0 { // wrapped: forget every mark
		clear(x.seen)
		x.query = 1
	}
	x.ranks = x.prefix(x.ranks[:0], q, sq)
	for _, k := range x.ranks {
		for _, r := range x.postings[k] {
			if x.seen[r] == x.query {
				continue
			}
			x.seen[r] = x.query
			if cos := cosine(dot(q, x.rows[r]), sq, x.sumSq[r]); cos >= floor {
				best = better(best, match{x.global[r], cos})
			}
		}
	}
	return best
}

// cosine is similarity.Cosine64 from its three sums, for finite vectors:
// dot / sqrt(‖a‖²·‖b‖²), clamped to [−1, 1], 0 when either is zero.
func cosine(dot, sa, sb float64) float64 {
	if sa == 0 || sb == 0 {
		return 0
	}
	return min(1, max(-1, dot/math.Sqrt(sa*sb)))
}
