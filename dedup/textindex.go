package dedup

import (
	"math"

	"github.com/bardo-golem/bardo/textembed"
)

// textIndex finds, among rows compared through bardo-text/v1, the one with
// the largest cosine to a query, exactly as similarity.Cosine64 computes
// it. A bardo-text/v1 vector has a few dozen non-zero buckets of 512, so
// the index is inverted: each bucket lists the rows that use it. A query
// walks its own non-zero buckets in increasing order and adds, per row,
// the float64 products of the float32 components: the same products in
// the same order as Cosine64's dot product, which skips only products that
// are zero and so cannot change the sum. The cosines are therefore the same
// bits as Cosine64's, without a 512-wide vector per row: a store of 100k
// rows costs some 30 MB, not 400, and a query touches only the rows that
// share a word with it. Rows can be added between queries, which is how
// rows admitted earlier in a plan are found.
type textIndex struct {
	postings [textembed.Dims][]posting
	global   []int     // text row → engine row
	sumSq    []float64 // Σ v², in index order, per text row

	acc     []float64 // scratch of best: dot products per text row
	touched []int32
	seen    []bool
}

type posting struct {
	row int32
	val float32
}

// add appends the engine row global with text vector v.
func (x *textIndex) add(global int, v []float32) {
	r := int32(len(x.global))
	var ss float64
	for k, f := range v {
		if f != 0 {
			x.postings[k] = append(x.postings[k], posting{r, f})
			ss += float64(float64(f) * float64(f))
		}
	}
	x.global = append(x.global, global)
	x.sumSq = append(x.sumSq, ss)
	x.acc = append(x.acc, 0)
	x.seen = append(x.seen, false)
}

func (x *textIndex) len() int { return len(x.global) }

// best returns the row with the largest cosine to q among those whose
// cosine is at least floor, ties to the lowest engine row; index −1 when
// there is none.
func (x *textIndex) best(q []float32, floor float64) match {
	best := match{idx: -1}
	var sq float64
	for _, f := range q {
		sq += float64(float64(f) * float64(f))
	}
	if sq == 0 {
		return best // cosine 0 with everything
	}
	x.touched = x.touched[:0]
	for k, f := range q {
		if f == 0 {
			continue
		}
		qf := float64(f)
		for _, p := range x.postings[k] {
			if !x.seen[p.row] {
				x.seen[p.row] = true
				x.touched = append(x.touched, p.row)
				x.acc[p.row] = 0
			}
			x.acc[p.row] += float64(qf * float64(p.val))
		}
	}
	for _, r := range x.touched {
		x.seen[r] = false
		if cos := cosine(x.acc[r], sq, x.sumSq[r]); cos >= floor {
			best = better(best, match{x.global[r], cos})
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
