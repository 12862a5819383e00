package similarity

// This file holds the searches through a cluster index. A query first
// visits the leaf whose centroid is nearest; its best score b there means
// the answer's cosine is at least b − e (e = margin/2 bounds a score's
// error). It then visits every other leaf whose bound is at least that, and
// skips the rest: none of their members can reach the best cosine, let
// alone tie with it, so MaxCos's candidates (everything within the margin
// of the best score) and its answer are those of a full scan. Within
// visits the leaves whose bound reaches the threshold.

// indexBatch is how many queries go through the index at a time: their
// scores against every centroid are held at once.
const indexBatch = 256

// layoutFor returns the layout a search of nq queries (unit vectors in
// unit) uses: the set's current one, or one with a cluster index when the
// search is the first one large enough to try building it.
func (s *Set) layoutFor(k *kernel, unit []float32, nq int) *layout {
	if l := s.indexedFor(k, unit, nq); l != nil {
		return l
	}
	return s.layout()
}

// indexedFor returns the set's layout if it has a cluster index, trying
// to build one first when the search of nq queries is the first one large
// enough; else nil, without packing the references.
func (s *Set) indexedFor(k *kernel, unit []float32, nq int) *layout {
	if s.worthIndexing(nq) && !s.tried.Load() {
		s.layMu.Lock()
		if !s.tried.Load() {
			if lay := s.indexedLayout(k, unit, nq); lay != nil {
				s.lay.Store(lay)
			}
			s.tried.Store(true)
		}
		s.layMu.Unlock()
	}
	if l := s.lay.Load(); l != nil && l.index != nil {
		return l
	}
	return nil
}

// centroidScores sets t to the scores of the queries ids against every
// leaf's centroid: row i, ldt = the centroid panels' width apart, holds
// query ids[i]'s. The kernel writes the rows in place, so t has room for
// a panel's padding rows and columns; centroidScores reuses t when it is
// large enough and returns it.
func (sr *search) centroidScores(ids []int, t []float32) ([]float32, int) {
	ix := sr.lay.index
	d := sr.s.dims
	c := len(ix.leaves)
	ldt := panelCount(c) * panelWidth
	if size := (len(ids) + sr.k.heights[0]) * ldt; cap(t) < size {
		t = make([]float32, size)
	}
	qps := packQueries(sr.k, sr.unit, ids, d, nil)
	bp := blockPanels(d)
	blocks := (panelCount(c) + bp - 1) / bp
	parallel(min(sr.workers(), blocks), blocks, func(w, b int) {
		sc := sr.sc[w]
		pa, pz := b*bp, min(panelCount(c), (b+1)*bp)
		for _, qp := range qps {
			sr.k.block(t[qp.first*ldt+pa*panelWidth:], ldt, sc.rmax, qp.data, qp.m, ix.cents[pa*panelWidth*d:pz*panelWidth*d], pz-pa, d)
		}
	})
	return t, ldt
}

// maxThroughIndex runs the MaxCos search of every query through the index.
// A BestAtLeast search (sr.thr above −∞) also skips the leaves that
// cannot reach its threshold.
func (sr *search) maxThroughIndex(margin float64) {
	ix := sr.lay.index
	e := margin / 2
	c := len(ix.leaves)
	var t []float32
	var ldt int
	for a := 0; a < sr.nq; a += indexBatch {
		ids := batchIDs(a, min(indexBatch, sr.nq-a))
		t, ldt = sr.centroidScores(ids, t)
		lists, nearest := nearestLeaves(t, ldt, c, ids)
		sr.visits(ix.visitsOf(lists, nil))

		// Every other leaf that may hold a cosine as large as the best so far.
		clear(lists)
		var zero []int
		work := 0
		for i, q := range ids {
			lb := max(float64(sr.best(q))-e-boundSlack, sr.thr-boundSlack)
			row := t[i*ldt : i*ldt+c]
			for j, x := range row {
				if j != nearest[i] && bound(float64(x)+e+boundSlack, ix.leaves[j].minCos) >= lb {
					lists[j] = append(lists[j], q)
					work += ix.leaves[j].hi - ix.leaves[j].lo
				}
			}
			if ix.zeroLo < ix.n && 0 >= lb {
				zero = append(zero, q)
				work += sr.s.n - ix.zeroLo
			}
		}
		if float64(work) > maxVisits*float64(len(ids))*float64(sr.s.n) {
			// The index does not pay for these queries: scan everything.
			for _, w := range sr.trk {
				for _, q := range ids {
					w[q] = sr.newTracker(q)
				}
			}
			sr.all(ids)
			continue
		}
		sr.visits(ix.visitsOf(lists, zero))
	}
}

// withinThroughIndex runs the Within search of query 0 through the index.
func (sr *search) withinThroughIndex(threshold, margin float64) {
	ix := sr.lay.index
	e := margin / 2
	t, _ := sr.centroidScores([]int{0}, nil)
	lists := make([][]int, len(ix.leaves))
	for j, x := range t[:len(ix.leaves)] {
		if bound(float64(x)+e+boundSlack, ix.leaves[j].minCos) >= threshold {
			lists[j] = []int{0}
		}
	}
	var zero []int
	if 0 >= threshold {
		zero = []int{0}
	}
	sr.visits(ix.visitsOf(lists, zero))
}

// visitsOf returns the visits of the queries lists[j] to leaf j, and of
// the queries zero to the zero vectors.
func (ix *clusterIndex) visitsOf(lists [][]int, zero []int) []visit {
	var vs []visit
	for j, ids := range lists {
		if len(ids) > 0 {
			vs = append(vs, visit{lo: ix.leaves[j].lo, hi: ix.leaves[j].hi, ids: ids})
		}
	}
	if len(zero) > 0 && ix.zeroLo < ix.n {
		vs = append(vs, visit{lo: ix.zeroLo, hi: ix.n, ids: zero})
	}
	return vs
}

// batchIDs returns the query positions a, a+1, …, a+n−1.
func batchIDs(a, n int) []int {
	ids := identity(n)
	for i := range ids {
		ids[i] += a
	}
	return ids
}

// nearestLeaves returns each query's nearest leaf (the first of the
// highest centroid scores; query ids[i]'s c scores are t[i*ldt:]) and, by
// leaf, the queries it is nearest to.
func nearestLeaves(t []float32, ldt, c int, ids []int) (lists [][]int, nearest []int) {
	lists = make([][]int, c)
	nearest = make([]int, len(ids))
	for i, q := range ids {
		row := t[i*ldt : i*ldt+c]
		arg := 0
		for j, x := range row {
			if x > row[arg] {
				arg = j
			}
		}
		nearest[i] = arg
		lists[arg] = append(lists[arg], q)
	}
	return lists, nearest
}
