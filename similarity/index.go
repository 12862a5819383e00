package similarity

import (
	"math"
	"math/rand/v2"
	"slices"
)

// clusterIndex groups a layout's positions in clusters ("leaves"), each
// with a centroid and a lower bound on its members' cosines to it, so that
// a search can skip a leaf none of whose members can beat a query's best
// (see bound).
type clusterIndex struct {
	leaves []leaf
	cents  []float32 // the leaves' unit centroids, packed as reference panels
	zeroLo int       // positions [zeroLo, n) hold the zero vectors, in no leaf
	n      int
	quant  indexQuant // the int8 form in the layout's order, made by the first int8 search
}

// leaf is a cluster of the positions [lo, hi).
type leaf struct {
	lo, hi int
	// minCos is at most the exact cosine of every member with the
	// centroid: the smallest float32 score, less the score error bound.
	minCos float64
}

// An index pays for itself only on large searches: building it costs
// about what scoring 500 queries against every reference does (passes over
// the references to cluster, pack and bound them), and every search then
// scores its queries against all centroids. A search tries one when it
// has at least minIndexQueries queries and a full scan would take at
// least minIndexWork multiply-adds (a third of a second or so on two
// cores).
const (
	minIndexRefs    = 4096
	minIndexQueries = 1024
	minIndexWork    = 1 << 36
	// probeQueries is how many of a search's queries judge whether an index
	// would help, against probeRefs references drawn from the set.
	probeQueries = 64
	probeRefs    = 8192
	// maxVisits is the largest share of the references a batch of queries
	// may visit through the index; beyond it the batch scans them all.
	maxVisits = 0.5
	// boundSlack covers the float64 rounding of Cosine64 and of bound.
	boundSlack = 1e-12
)

// indexTest are the tests' hooks: skipSize tries an index on searches
// smaller than the thresholds above, skipProbe builds one on sets the
// probe turns down.
var indexTest struct{ skipSize, skipProbe bool }

// worthIndexing reports whether a search of nq queries against the set is
// large enough to try an index for.
func (s *Set) worthIndexing(nq int) bool {
	if indexTest.skipSize {
		return nq > 0 && s.n >= minIndexRefs
	}
	return nq >= minIndexQueries && s.n >= minIndexRefs && float64(nq)*float64(s.n)*float64(s.dims) >= minIndexWork
}

// leafCount returns the number of leaves for n references: about
// 12·√n, as inverted-file indexes use, so that scoring a query against the
// centroids costs about as much as visiting the few leaves it needs.
func leafCount(n int) int {
	return max(1, int(math.Ceil(12*math.Sqrt(float64(n)))))
}

// bound returns an upper bound on the cosine of a query with any member of
// a leaf, given tHi ≥ the exact cosine of the query with the centroid and
// r ≤ that of every member with the centroid. On the sphere, the angle from
// the query to a member is at least θ − ρ, θ = acos(tHi) and ρ = acos(r):
// the cosine is at most cos(max(0, θ − ρ)) = tHi·r + √(1−tHi²)·√(1−r²)
// when θ > ρ.
func bound(tHi, r float64) float64 {
	tHi = min(1, tHi)
	r = max(-1, r)
	if tHi >= r {
		return math.Inf(1) // the query lies within the leaf's cone
	}
	tHi = max(-1, tHi)
	return float64(tHi*r) + math.Sqrt((1-float64(tHi*tHi))*(1-float64(r*r))) + boundSlack
}

// indexedLayout returns a layout of the set with a cluster index, or nil
// when the probe, the first probeQueries queries of unit (nq of them),
// finds that an index would not spare enough of the references: random
// vectors in many dimensions, say, leave no cluster far enough from any
// query.
//
// The leaves come from two levels of k-means: about √c coarse groups,
// trained on a sample in full dimensions (a group's centroid is the mean
// of many clusters' centres and stands out from the noise only there),
// then each group split into leaves on the references' sketches, and the
// strays moved (see leafSet.refine).
func (s *Set) indexedLayout(k *kernel, unit []float32, nq int) *layout {
	d := s.dims
	var live []int // the references a leaf can hold: not zero
	for r, ss := range s.sumSq {
		if ss > 0 {
			live = append(live, r)
		}
	}
	if len(live) < minIndexRefs {
		return nil
	}
	c := leafCount(len(live))
	c1 := int(math.Ceil(math.Sqrt(float64(c))))
	workers := workerCount(len(live), len(live)*d)

	sample := make([]int, min(len(live), probeRefs))
	for i := range sample {
		sample[i] = live[int(int64(i)*int64(len(live))/int64(len(sample)))]
	}
	su := make([]float32, len(sample)*d)
	for i, r := range sample {
		unitInto(su[i*d:(i+1)*d], s.Vector(r), s.sumSq[r])
	}
	probe := unit[:min(nq, probeQueries)*d]
	best := maxScores(k, probe, len(probe)/d, su, len(sample), d)
	if median(slices.Clone(best)) < minProbeBest && !indexTest.skipProbe {
		return nil
	}
	cents1, sNear := kmeans(k, workers, su, identity(len(sample)), d, c1, 6, len(sample), 1, false)
	c1 = len(cents1) / d
	if probeVisits(k, probe, best, su, sNear, c1, d) > maxProbeVisits && !indexTest.skipProbe {
		return nil
	}

	sk, sd, coarse := s.sketchAndAssign(k, workers, live, cents1, c1)
	groups := make([][]int, c1)
	for i, g := range coarse {
		groups[g] = append(groups[g], live[i])
	}
	sets := make([]leafSet, c1)
	parallel(workers, c1, func(_, g int) {
		kg := max(1, int(math.Round(float64(c)*float64(len(groups[g]))/float64(len(live)))))
		sets[g] = leavesOf(k, 1, sk, sd, groups[g], kg, uint64(2+g), false)
	})
	var all leafSet
	for _, ls := range sets {
		all.add(ls)
	}
	all = all.refine(k, workers, sk, sd)

	order := make([]int32, 0, s.n)
	var leaves []leaf
	for _, members := range all.members {
		lf := leaf{lo: len(order)}
		for _, r := range members {
			order = append(order, int32(r))
		}
		lf.hi = len(order)
		leaves = append(leaves, lf)
	}
	for r, ss := range s.sumSq {
		if ss == 0 {
			order = append(order, int32(r))
		}
	}
	return s.finishIndex(k, workers, order, leaves)
}

// sketchAndAssign returns, in one pass over the references live, every
// reference's sketch (sk, n rows of sd components, indexed by reference;
// zero for the others) and each live reference's nearest coarse centroid
// of cents (c of them). The kernel computes both: the sketch is a linear
// map, whose sd rows score the unit vector alongside the centroids.
func (s *Set) sketchAndAssign(k *kernel, workers int, live []int, cents []float32, c int) (sk []float32, sd int, near []int32) {
	d := s.dims
	sd = min(d, sketchDims)
	rows := make([]float32, (c+sd)*d)
	copy(rows, cents)
	rng := rand.New(rand.NewPCG(clusterSeed, 1))
	for kk := range d {
		sign := float32(1)
		if sd < d && rng.IntN(2) == 0 {
			sign = -1
		}
		rows[(c+kk%sd)*d+kk] = sign
	}
	cp := packRows(rows, c+sd, d)
	np := panelCount(c + sd)
	ldo := np * panelWidth
	sk = make([]float32, s.n*sd)
	near = make([]int32, len(live))
	const chunk = 256
	units := (len(live) + chunk - 1) / chunk
	workers = min(workers, units)
	as := make([]assignScratch, workers)
	parallel(workers, units, func(w, u int) {
		lo, hi := u*chunk, min(len(live), (u+1)*chunk)
		sc := &as[w]
		if sc.out == nil {
			sc.out = make([]float32, k.heights[0]*ldo)
			sc.rmax = make([]float32, k.heights[0]*panelWidth)
		}
		for _, qp := range s.packRefQueries(k, live[lo:hi], &sc.qbuf) {
			k.block(sc.out, ldo, sc.rmax, qp.data, qp.m, cp, np, d)
			for i := range qp.count {
				row := sc.out[i*ldo : i*ldo+c+sd]
				arg := 0
				for j, x := range row[:c] {
					if x > row[arg] {
						arg = j
					}
				}
				near[lo+qp.first+i] = int32(arg)
				r := live[lo+qp.first+i]
				unitInto(sk[r*sd:(r+1)*sd], row[c:], sumSq64(row[c:]))
			}
		}
	})
	return sk, sd, near
}

// leafMinCos returns a leaf's minCos: the least float32 score of its
// centroid cent against lanes [a, z) of panels, less e and boundSlack.
func leafMinCos(k *kernel, cent, panels []float32, a, z, d int, e float64) float64 {
	np := len(panels) / (panelWidth * d)
	out := make([]float32, np*panelWidth)
	rmax := make([]float32, panelWidth)
	k.block(out, len(out), rmax, cent, 1, panels, np, d)
	low := float32(math.Inf(1))
	for _, x := range out[a:z] {
		low = min(low, x)
	}
	return float64(low) - e - boundSlack
}

// finishIndex packs the references in the order of the leaves (the zero
// vectors last), computing each leaf's centroid as it goes, then scores
// each member of a leaf against its centroid with kernel k for the leaf's
// minCos. A panel may hold the ends of two leaves: their workers write
// different lanes of it.
func (s *Set) finishIndex(k *kernel, workers int, order []int32, leaves []leaf) *layout {
	d := s.dims
	e := margin(d) / 2
	lay := &layout{order: order}
	cents := make([]float32, len(leaves)*d)
	sums := make([][]float32, workers)
	// With an int8 kernel, the int8 form in the layout's order too, from
	// the same unit rows: the bits quantizeRows gives (see indexQuant).
	// Its searches score the codes, so the float32 panels wait until a
	// float32 search needs them (layout.panelsOf), and each leaf's unit
	// rows go to a worker's scratch panels, aligned to the leaf, for its
	// minCos alone.
	var qs *quantSet
	if k.quant != nil && s.quantizable() {
		qs = newQuantSet(s.n, d, 0)
		for pos := len(order) - 1; pos >= 0 && s.sumSq[order[pos]] == 0; pos-- {
			quantizeUnit(k.quant, qs.codes[pos*qs.dp:(pos+1)*qs.dp], nil, 0, 0) // a zero vector: code 0
		}
		lay.src = s
	} else {
		lay.panels = make([]float32, panelCount(s.n)*panelWidth*d)
	}
	// Each worker writes a leaf's unit rows a run of one panel at a time:
	// the rows of the run into bufs[w], then the panel's columns.
	bufs := make([][]float32, workers)
	leafPanels := make([][]float32, workers)
	parallel(workers, len(leaves), func(w, i int) {
		if sums[w] == nil {
			sums[w] = make([]float32, d)
			bufs[w] = make([]float32, panelWidth*d)
		}
		sum, buf := sums[w], bufs[w]
		clear(sum)
		lo, hi := leaves[i].lo, leaves[i].hi
		dst, base := lay.panels, 0 // the panels the rows go to, and the position of their first lane
		if qs != nil {
			size := panelCount(hi-lo) * panelWidth * d
			if cap(leafPanels[w]) < size {
				leafPanels[w] = make([]float32, size)
			}
			dst, base = leafPanels[w][:size], lo
			clear(dst[size-panelWidth*d:]) // the last panel's lanes past the leaf
		}
		for run := lo; run < hi; {
			end := min(hi, base+((run-base)/panelWidth+1)*panelWidth)
			for pos := run; pos < end; pos++ {
				r := int(order[pos])
				row := buf[(pos-run)*d : (pos-run+1)*d]
				if qs != nil {
					mx := unitMax(k.quant, row, s.Vector(r), s.sumSq[r])
					for kk, u := range row {
						sum[kk] += u
					}
					dp := qs.dp
					qs.scale[pos], qs.errN[pos], qs.norm[pos], _ = quantizeUnit(k.quant, qs.codes[pos*dp:(pos+1)*dp], row, mx, 0)
					continue
				}
				inv := 1 / math.Sqrt(s.sumSq[r])
				for kk, x := range s.Vector(r) {
					u := float32(float64(x) * inv)
					row[kk] = u
					sum[kk] += u
				}
			}
			transposeInto(dst[(run-base)/panelWidth*panelWidth*d:], buf, (run-base)%panelWidth, end-run, d)
			run = end
		}
		unitInto(cents[i*d:(i+1)*d], sum, sumSq64(sum))
		if qs != nil {
			leaves[i].minCos = leafMinCos(k, cents[i*d:(i+1)*d], dst, 0, hi-lo, d, e)
		}
	})
	if qs == nil {
		// A panel may hold the ends of two leaves: every leaf is written
		// before any is scored.
		parallel(workers, len(leaves), func(_, i int) {
			lf := &leaves[i]
			pa := lf.lo / panelWidth
			lf.minCos = leafMinCos(k, cents[i*d:(i+1)*d], lay.panels[pa*panelWidth*d:panelCount(lf.hi)*panelWidth*d], lf.lo-pa*panelWidth, lf.hi-pa*panelWidth, d, e)
		})
	}
	zeroLo := 0
	if len(leaves) > 0 {
		zeroLo = leaves[len(leaves)-1].hi
	}
	lay.index = &clusterIndex{leaves: leaves, cents: packRows(cents, len(leaves), d), zeroLo: zeroLo, n: s.n}
	if qs != nil {
		lay.index.quant.once.Do(func() { lay.index.quant.qs = qs })
	}
	return lay
}
