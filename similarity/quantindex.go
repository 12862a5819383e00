package similarity

import (
	"math"
	"sync"
	"sync/atomic"
)

// This file holds MaxCos and BestAtLeast through a cluster index with an
// int8 kernel: the leaves are chosen as in prune.go, from float32 scores
// against the centroids, and the members of the leaves a query visits are
// scored in int8 and judged by the per-pair bound, as a full int8 scan
// judges every reference (see the package doc, "Int8 prefilter" and
// "Cluster index", for both bounds and why together they keep the
// answers exact).

// quantIndexBatch is how many queries go through the index at a time with
// an int8 kernel: more than indexBatch, so that the queries visiting a
// leaf fill the kernel's groups of quantGroup.
const quantIndexBatch = 1024

// quantIndexTest are the tests' hooks that weaken the bounds, to show the
// exactness tests notice: pairScale multiplies every per-pair bound B
// (1: the proven bound), leafCut is added to the least bound a leaf must
// reach to be visited (0: the proven one).
var quantIndexTest = struct{ pairScale, leafCut float64 }{1, 0}

// indexQuant is the int8 form of a cluster index's layout: row pos holds
// the reference at position pos, so a leaf's codes are contiguous.
type indexQuant struct {
	once sync.Once
	qs   *quantSet
}

// quantized returns the int8 form of the layout's references in its
// order: the one finishIndex made with an int8 kernel, or, for an index
// built by a float32 kernel, one made now with qk's passes (all give the
// same bits).
func (ix *clusterIndex) quantized(s *Set, qk *quantKernel, order []int32) *quantSet {
	ix.quant.once.Do(func() { ix.quant.qs = s.quantizeRows(qk, order, 0) })
	return ix.quant.qs
}

// indexScan is one MaxCos or BestAtLeast call's state through a cluster
// index in int8: the live queries' int8 forms and, per worker, a tracker
// per query and scratch space.
type indexScan struct {
	k     *kernel
	lay   *layout
	qs    *quantSet
	qq    []quantQuery
	codes []int8 // the queries' codes, dp apart
	e2    float64
	chunk int // positions scored per dots call
	trk   [][]qtracker
	sc    []indexScratch

	scored atomic.Int64
}

// indexScratch is one worker's memory: the codes of a group of queries and
// the group's dots.
type indexScratch struct {
	q   []int8
	out []int32
}

// bestThroughIndexQuantized is MaxCos (thr −∞) and BestAtLeast of the live
// queries (unit vectors in unit, dims apart) through the cluster index of
// lay, in int8: it fills matches[i] for the live queries.
func (s *Set) bestThroughIndexQuantized(k *kernel, lay *layout, queries [][]float32, sums []float64, live []int, unit []float32, thr float64, matches []Match) {
	d := s.dims
	e := margin(d) / 2 // |û·r̂ − Cosine64| ≤ e (see margin)
	low := math.Inf(-1)
	if thr > low {
		low = thr - e - quantSlack
	}
	e2 := 2*e + quantSlack
	ix := lay.index
	qs := ix.quantized(s, k.quant, lay.order)
	nq := len(live)
	qq, codes := quantizeQueries(unit, nq, d, qs.dp, 0)
	// The float32 search scores the queries against the centroids.
	sr := s.newSearch(k, lay, unit, nq, func(int) tracker { return tracker{} })
	workers := sr.workers()
	is := &indexScan{k: k, lay: lay, qs: qs, qq: qq, codes: codes, e2: e2,
		chunk: max(16, quantBlockBytes/qs.dp), trk: make([][]qtracker, workers), sc: make([]indexScratch, workers)}
	fresh := qtracker{lo: math.Inf(-1), low: low, floor: low}
	for w := range workers {
		is.trk[w] = make([]qtracker, nq)
		for li := range nq {
			is.trk[w][li] = fresh
		}
		is.sc[w] = indexScratch{q: make([]int8, quantGroup*qs.dp), out: make([]int32, quantGroup*is.chunk)}
	}

	c := len(ix.leaves)
	lr, ls := leafAngles(ix)
	var t []float32
	var ldt int
	for a := 0; a < nq; a += quantIndexBatch {
		ids := batchIDs(a, min(quantIndexBatch, nq-a))
		t, ldt = sr.centroidScores(ids, t)
		lists, nearest := nearestLeaves(t, ldt, c, ids)
		is.visits(ix.visitsOf(lists, nil))

		// Every other leaf that may hold a cosine as large as the best
		// lower bound so far, less e, and reach the threshold.
		clear(lists)
		var zero []int
		work := 0
		for i, q := range ids {
			best := math.Inf(-1)
			for w := range is.trk {
				best = max(best, is.trk[w][q].lo)
			}
			lb := max(best-e-boundSlack, thr-boundSlack) + quantIndexTest.leafCut
			row := t[i*ldt : i*ldt+c]
			visit := func(j int) {
				if j != nearest[i] && bound(float64(row[j])+e+boundSlack, ix.leaves[j].minCos) >= lb {
					lists[j] = append(lists[j], q)
					work += ix.leaves[j].hi - ix.leaves[j].lo
				}
			}
			if !(lb > -1 && lb <= 1-leafFastMax) {
				for j := range row {
					visit(j)
				}
				continue
			}
			// Only the leaves that pass leafFast can pass bound.
			m := math.Sqrt(1 - lb*lb)
			for j, x := range row {
				if leafMayReach(float64(x)+e+boundSlack, lr[j], ls[j], lb, m) {
					visit(j)
				}
			}
			if ix.zeroLo < ix.n && 0 >= lb {
				zero = append(zero, q)
				work += s.n - ix.zeroLo
			}
		}
		if float64(work) > maxVisits*float64(len(ids))*float64(s.n) {
			// The index does not pay for these queries: scan everything.
			for w := range is.trk {
				for _, q := range ids {
					is.trk[w][q] = fresh
				}
			}
			var vs []visit
			for p := 0; p < s.n; p += is.chunk {
				vs = append(vs, visit{lo: p, hi: min(s.n, p+is.chunk), ids: ids})
			}
			is.visits(vs)
			continue
		}
		is.visits(ix.visitsOf(lists, zero))
	}
	quantStats.scored.Add(is.scored.Load())
	s.rescoreBest(queries, sums, live, is.trk, thr, low, e, e2, matches)
}

// visits scores each visit's positions against its queries in int8 and
// offers every pair whose upper bound reaches its query's floor.
func (is *indexScan) visits(vs []visit) {
	parallel(min(len(is.trk), len(vs)), len(vs), func(w, u int) {
		is.visit(w, vs[u])
	})
}

// visit is one visit of visits, on worker w. Its queries are scored
// quantGroup at a time, positions is.chunk at a time.
func (is *indexScan) visit(w int, v visit) {
	qs, dp := is.qs, is.qs.dp
	sc, trk := &is.sc[w], is.trk[w]
	ldo := is.chunk
	for a := v.lo; a < v.hi; a += ldo {
		z := min(v.hi, a+ldo)
		n := z - a
		// The run's largest E, R and scale, for a bound on the bound that
		// spares most pairs computing their own.
		var mE, mR, mS float64
		for p := a; p < z; p++ {
			mE = max(mE, qs.errN[p])
			mR = max(mR, qs.norm[p])
			mS = max(mS, qs.scale[p])
		}
		block := qs.codes[a*dp : z*dp]
		for g := 0; g < len(v.ids); g += quantGroup {
			grp := v.ids[g:min(len(v.ids), g+quantGroup)]
			for r, li := range grp {
				copy(sc.q[r*dp:(r+1)*dp], is.codes[li*dp:(li+1)*dp])
			}
			clear(sc.q[len(grp)*dp:])
			is.k.quant.dots(sc.out, ldo, sc.q, block, n, dp, dp)
			for r, li := range grp {
				q, t := &is.qq[li], &trk[li]
				out := sc.out[r*ldo : r*ldo+n]
				bmax := q.errN*mR + q.unitN*mE + quantSlack
				cut := skipBelow(t.floor, bmax, q.scale*mS, q.bias)
				for j, x := range out {
					if x < cut {
						continue // below the floor, by the run's largest scale and bound
					}
					p := a + j
					av := q.scale * qs.scale[p] * float64(x-q.bias)
					if av+bmax < t.floor {
						continue
					}
					bd := (q.errN*qs.norm[p] + q.unitN*qs.errN[p] + quantSlack) * quantIndexTest.pairScale
					if t.offer(is.lay.ref(p), av-bd, av+bd, is.e2) {
						cut = skipBelow(t.floor, bmax, q.scale*mS, q.bias)
					}
				}
			}
		}
		is.scored.Add(int64(n) * int64(len(v.ids)))
	}
}

// The leaf test before bound: with λ = acos(lb) and ρ = acos(r), r a
// leaf's minCos clamped to [−1, 1], bound(tHi, r) ≥ lb means tHi ≥ r (the
// query in the leaf's cone) or, when ρ + λ < π (r > −lb), that the angle
// θ = acos(tHi) is at most ρ + λ, that is tHi ≥ cos(ρ + λ) = r·lb −
// √(1−r²)·√(1−lb²). A leaf failing all three (r > −lb, tHi < r and tHi <
// cos(ρ + λ) less leafFastSlack) fails bound, whose only difference is
// its slack of boundSlack added to cos(θ − ρ): moving lb by it moves
// cos(ρ + λ) by at most boundSlack/sin λ, below 1e-9 for lb ≤ 1 −
// leafFastMax, far below leafFastSlack, as are the roundings of the
// product. So the test only spares bound's square root; the leaves
// visited are bound's. Queries with lb outside (−1, 1 − leafFastMax]
// call bound for every leaf.
const (
	leafFastMax   = 1e-6
	leafFastSlack = 1e-7
)

// leafMayReach is the test before bound: false only if bound(tHi, r) <
// lb, for r in [−1, 1], sr = √(1−r²), lb in (−1, 1 − leafFastMax] and m =
// √(1−lb²).
func leafMayReach(tHi, r, sr, lb, m float64) bool {
	return tHi >= min(r*lb-sr*m, r)-leafFastSlack || r <= -lb
}

// leafAngles returns each leaf's minCos r clamped to [−1, 1] and √(1−r²).
func leafAngles(ix *clusterIndex) (r, sr []float64) {
	r = make([]float64, len(ix.leaves))
	sr = make([]float64, len(ix.leaves))
	for j, lf := range ix.leaves {
		r[j] = min(1, max(-1, lf.minCos))
		sr[j] = math.Sqrt(1 - r[j]*r[j])
	}
	return r, sr
}
