package dedup

import (
	"math"
	"math/bits"
	"slices"

	"github.com/bardo-golem/bardo/textembed"
)

// A bardo-text/v1 vector has a few dozen non-zero buckets of 512, and the
// texts of one Golem share their common words: an inverted index over
// every bucket would make almost every pair of rows a candidate, and dedup
// of text-only rows quadratic. textIndex indexes only a prefix of each
// vector instead (prefix filtering, as AllPairs and PPJoin do for sets),
// by pairs of buckets where it can, and then checks each candidate
// exactly.
//
// # The prefix bounds
//
// Fix one order of the 512 buckets for the index's life, its rank: by
// ascending document frequency over the rows the engine may index, ties by
// bucket (any fixed order is correct; rare buckets first keep the posting
// lists short). For a vector x with S = Σ x_d² > 0, list its non-zero
// buckets by rank, e_1 … e_m. A prefix of x is e_1 … e_{p−1}, its suffix
// the rest, of mass T_p = Σ_{i≥p} x_{e_i}²; ρ_x is the rank of e_p (∞ when
// the suffix is empty). Let τ be the floor.
//
// Lemma 1. Cut x's prefix P¹ at the first p with T_p < τ²·S (never empty:
// T_1 = S), and y's alike. If cos(x, y) ≥ τ, a bucket is in both
// prefixes. Say ρ_x ≤ ρ_y. A bucket both use with rank below ρ_x is in
// x's prefix, and, its rank below ρ_y, in y's. If there is none, every
// bucket they share is in x's suffix, and by Cauchy–Schwarz
// |x·y| ≤ ‖x_S‖‖y‖ < τ‖x‖‖y‖.
//
// Lemma 2. Cut x's prefix P² at the first p with T_p + max_{i<p} x_{e_i}²
// < τ²·S, when there is one, and y's alike. If cos(x, y) ≥ τ, two buckets
// are in both prefixes. Say ρ_x ≤ ρ_y: as above, the buckets both use with
// rank below ρ_x are in both prefixes. If there is at most one, d, every
// other bucket they share is in x's suffix, and by Cauchy–Schwarz over
// {d} ∪ suffix, |x·y| ≤ √(x_d² + T_p)·‖y‖ < τ‖x‖‖y‖.
//
// Signs do not matter, nor does normalization. A row whose P² exists and
// has at most maxPairPrefix buckets is a pair row: it is listed under each
// pair of buckets of its P². Every other row is a lone row, listed under
// each bucket of its P¹. Every row is also listed under each bucket of its
// P¹ in a second table, for lone queries. A query that would be a pair row
// walks the pairs of its P² (lemma 2 finds every pair row at τ or above)
// and the lone rows under the buckets of its P¹ (lemma 1 finds every lone
// row); any other query walks every row under the buckets of its P¹
// (lemma 1).
//
// # Exactness
//
// A candidate is first put to cannot, a bound on its cosine from bitmaps
// of the two vectors' buckets by sign and weight (no false negatives: it
// only skips a row whose cosine is certainly below τ). Its cosine is then
// computed as similarity.Cosine64 computes
// it: the float64 products of the float32 components, float64(a·b), summed
// in increasing bucket order (Cosine64 adds zero products besides, which
// cannot change a non-zero sum), Σ x² the same way, then
// dot / sqrt(‖a‖²·‖b‖²), clamped. The cosines are the same bits as
// Cosine64's, so the best match at or above the floor is the one a brute
// force over every row finds. The prefixes are cut for τ a little below
// the floor (prefixMargin): the sums that cut them and those of the
// cosine carry rounding errors near 1e-14, and a row whose computed cosine
// reaches the floor has a true cosine above τ, so the lemmas hold for the
// cosines as computed.
type textIndex struct {
	rank   *bucketRank
	tau2   float64                 // τ²: prefixes are cut for cosines of at least τ
	floor  float64                 // the least floor best is asked for
	every  [textembed.Dims][]int32 // by rank: every row whose P¹ holds the bucket
	lone   [textembed.Dims][]int32 // by rank: the lone rows whose P¹ holds the bucket
	pairs  [][]int32               // by pairKey: the pair rows whose P² holds both buckets; nil until the first
	rows   []sparse                // text row → vector
	sumSq  []float64               // Σ v², bucket ascending, per text row
	shapes []shape                 // text row → its shape, for cannot
	tau    float64
	global []int // text row → engine row

	seen  []uint32 // scratch of best: the query that last met a text row
	query uint32
	comps []comp // scratch of cut
}

// bitWords is the length of a bucket bitmap.
const bitWords = textembed.Dims / 64

// maxPairPrefix bounds the buckets of a pair row's P², so that a row is
// listed under at most 276 pairs; a longer text is a lone row.
const maxPairPrefix = 24

// pairKey names the pair of ranks a < b.
func pairKey(a, b uint16) int { return int(a)*textembed.Dims + int(b) }

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
	return &textIndex{rank: rank, tau: tau, tau2: float64(tau * tau), floor: floor}
}

// comp is a component's rank and square, as cut sorts them.
type comp struct {
	rank uint16
	sq   float64
}

// cut returns v's components by rank, and the lengths of its P¹ and P²
// (see the type's doc); p2 is 0 when v has no P² of at most
// maxPairPrefix buckets. ss is v's Σ v², which is not 0. The slice is
// scratch, valid until the next call.
func (x *textIndex) cut(v sparse, ss float64) (cs []comp, p1, p2 int) {
	cs = x.comps[:0]
	for k, b := range v.idx {
		c := float64(v.val[k])
		cs = append(cs, comp{x.rank[b], float64(c * c)})
	}
	x.comps = cs
	slices.SortFunc(cs, func(a, b comp) int { return int(a.rank) - int(b.rank) })
	limit := float64(x.tau2 * ss)
	// tails[p] is T_{p+1} of the doc, the mass of cs[p:].
	var buf [64]float64
	tails := buf[:0]
	if len(cs)+1 > len(buf) {
		tails = make([]float64, 0, len(cs)+1)
	}
	tails = tails[:len(cs)+1]
	tails[len(cs)] = 0
	for p := len(cs) - 1; p >= 0; p-- {
		tails[p] = tails[p+1] + cs[p].sq
	}
	p1 = len(cs)
	for p1 > 0 && tails[p1-1] < limit {
		p1--
	}
	// P¹ is cs[:p1]: the first p with T < limit, T falling as p grows.
	var most float64
	for p := 1; p <= min(len(cs), maxPairPrefix); p++ {
		most = max(most, cs[p-1].sq)
		if tails[p]+most < limit {
			return cs, p1, p
		}
	}
	return cs, p1, 0
}

// add appends the engine row global with text vector v.
func (x *textIndex) add(global int, v sparse) {
	r := int32(len(x.global))
	ss := v.sumSq()
	x.global = append(x.global, global)
	x.rows = append(x.rows, v)
	x.sumSq = append(x.sumSq, ss)
	x.seen = append(x.seen, 0)
	x.shapes = append(x.shapes, shapeOf(v, ss))
	if ss == 0 {
		return // cosine 0 with everything: never a match
	}
	cs, p1, p2 := x.cut(v, ss)
	for _, c := range cs[:p1] {
		x.every[c.rank] = append(x.every[c.rank], r)
		if p2 == 0 {
			x.lone[c.rank] = append(x.lone[c.rank], r)
		}
	}
	if p2 > 0 {
		if x.pairs == nil {
			x.pairs = make([][]int32, textembed.Dims*textembed.Dims)
		}
		for i, a := range cs[:p2] {
			for _, b := range cs[i+1 : p2] {
				k := pairKey(a.rank, b.rank)
				x.pairs[k] = append(x.pairs[k], r)
			}
		}
	}
}

// shape is what cannot needs of a vector: bitmaps of its non-zero
// buckets by sign, and of its heavy ones — those whose |v| is more than
// the vector's least non-zero magnitude — and those two magnitudes over
// ‖v‖.
type shape struct {
	pos, neg, heavy [bitWords]uint64
	light, peak     float64 // min |v| / ‖v‖ and max |v| / ‖v‖; 0 for a zero vector
}

// shapeOf returns v's shape; ss is its Σ v².
func shapeOf(v sparse, ss float64) shape {
	var sh shape
	if ss == 0 {
		return sh
	}
	least, most := math.Inf(1), 0.0
	for _, f := range v.val {
		a := math.Abs(float64(f))
		least, most = min(least, a), max(most, a)
	}
	for k, i := range v.idx {
		bit := uint64(1) << (i % 64)
		if v.val[k] < 0 {
			sh.neg[i/64] |= bit
		} else {
			sh.pos[i/64] |= bit
		}
		if math.Abs(float64(v.val[k])) != least {
			sh.heavy[i/64] |= bit
		}
	}
	n := math.Sqrt(ss)
	sh.light, sh.peak = least/n, most/n
	return sh
}

// cannot reports whether text row r certainly has a cosine below τ to the
// query of shape q. Over the buckets both use, a product of the same signs
// is at most the product of the two magnitudes' bounds (light, or peak
// where heavy), one of opposite signs at most −light·light; their sum,
// over ‖x‖‖y‖, bounds the cosine. It is computed with rounding errors near
// 1e-15, far inside prefixMargin.
func (x *textIndex) cannot(q *shape, r int32) bool {
	y := &x.shapes[r]
	var same, sameQ, sameY, sameQY, opp int
	for w := range bitWords {
		s := q.pos[w]&y.pos[w] | q.neg[w]&y.neg[w]
		same += bits.OnesCount64(s)
		sameQ += bits.OnesCount64(s & q.heavy[w])
		sameY += bits.OnesCount64(s & y.heavy[w])
		sameQY += bits.OnesCount64(s & q.heavy[w] & y.heavy[w])
		opp += bits.OnesCount64(q.pos[w]&y.neg[w] | q.neg[w]&y.pos[w])
	}
	ll := same - sameQ - sameY + sameQY // light in both
	bound := float64(float64(ll) * float64(q.light*y.light))
	bound += float64(float64(sameQ-sameQY) * float64(q.peak*y.light))
	bound += float64(float64(sameY-sameQY) * float64(q.light*y.peak))
	bound += float64(float64(sameQY) * float64(q.peak*y.peak))
	bound -= float64(float64(opp) * float64(q.light*y.light))
	return bound < x.tau
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
	qs := shapeOf(q, sq)
	meet := func(list []int32) {
		for _, r := range list {
			if x.seen[r] == x.query {
				continue
			}
			x.seen[r] = x.query
			if x.cannot(&qs, r) {
				continue
			}
			if cos := cosine(dot(q, x.rows[r]), sq, x.sumSq[r]); cos >= floor {
				best = better(best, match{x.global[r], cos})
			}
		}
	}
	cs, p1, p2 := x.cut(q, sq)
	if p2 == 0 {
		for _, c := range cs[:p1] {
			meet(x.every[c.rank])
		}
		return best
	}
	for _, c := range cs[:p1] {
		meet(x.lone[c.rank])
	}
	if x.pairs != nil {
		for i, a := range cs[:p2] {
			for _, b := range cs[i+1 : p2] {
				meet(x.pairs[pairKey(a.rank, b.rank)])
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
