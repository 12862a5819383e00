package similarity

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Match is a reference of a Set and its cosine to a query.
type Match struct {
	Index int     // the reference's index in the Set; −1 when there is none
	Cos   float64 // Cosine64 of the query and the reference; 0 when Index is −1
}

// MaxCos returns, for each query, the reference with the largest cosine and
// that cosine, exactly as if Cosine64 had been computed against every
// reference: the float32 kernel scores the references, every reference
// within the margin (at least 1e-4, see the package doc) of a query's best
// score is re-scored with Cosine64, and the float64 maximum wins, ties to
// the lowest index. References a cluster bound rules out are never scored
// (see the package doc). The result does not depend on the kernel, the
// CPU, GOMAXPROCS or whether the set has a cluster index.
//
// A zero query has cosine 0 with every reference, so it matches reference 0.
// Index is −1 when the set is empty or the query has a NaN or infinite
// component (its cosines are undefined). MaxCos panics if a query is not
// Dims long.
func (s *Set) MaxCos(queries [][]float32) []Match {
	return s.best(queries, math.Inf(-1))
}

// BestAtLeast returns, for each query, what MaxCos returns when its cosine
// is at least threshold, and Match{Index: −1} otherwise: the batch
// threshold search of dedup ("is any reference at least 0.90, and which is
// best"). It is exact in the same sense as MaxCos, and skips the work
// MaxCos does for maxima below the threshold: the kernel offers only scores
// that may reach it, and a cluster index skips the leaves that cannot.
// A zero query matches reference 0 when threshold ≤ 0.
func (s *Set) BestAtLeast(queries [][]float32, threshold float64) []Match {
	if math.IsNaN(threshold) {
		panic("similarity: BestAtLeast with a NaN threshold")
	}
	return s.best(queries, threshold)
}

// best is MaxCos (thr −∞) and BestAtLeast.
func (s *Set) best(queries [][]float32, thr float64) []Match {
	matches := make([]Match, len(queries))
	for i := range matches {
		matches[i] = Match{Index: -1}
	}
	if len(queries) == 0 {
		return matches
	}
	if s.n == 0 {
		for i, q := range queries {
			s.checkQuery(i, q)
		}
		return matches
	}
	d := s.dims
	sums := make([]float64, len(queries))
	var live []int // the queries the kernel scores: finite and not zero
	for i, q := range queries {
		s.checkQuery(i, q)
		sums[i] = sumSq64(q)
		switch {
		case !finite(sums[i]):
		case sums[i] == 0:
			if thr <= 0 {
				matches[i] = Match{Index: 0, Cos: 0}
			}
		default:
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return matches
	}
	unit := make([]float32, len(live)*d)
	for li, i := range live {
		unitInto(unit[li*d:(li+1)*d], queries[i], sums[i])
	}
	k := current.Load()
	// A quantized kernel prefilters with int8 dots: full scans, or the
	// leaves of a cluster index the queries visit.
	if k.quant != nil && s.quantizable() {
		if lay := s.indexedFor(k, unit, len(live)); lay != nil {
			s.bestThroughIndexQuantized(k, lay, queries, sums, live, unit, thr, matches)
		} else {
			s.bestQuantized(k, queries, sums, live, unit, thr, matches)
		}
		return matches
	}
	m := margin(d)
	sr := s.searchMax(k, unit, len(live), m, thr)
	for li, i := range live {
		floor := floor32(float64(sr.best(li)) - m)
		for _, w := range sr.trk {
			for _, cd := range w[li].cands {
				if cd.score < floor {
					continue
				}
				cos := cosine(dot64(queries[i], s.Vector(cd.ref)), sums[i], s.sumSq[cd.ref])
				if cos < thr {
					continue
				}
				if mt := &matches[i]; mt.Index < 0 || cos > mt.Cos || cos == mt.Cos && cd.ref < mt.Index {
					*mt = Match{Index: cd.ref, Cos: cos}
				}
			}
		}
	}
	return matches
}

// Within returns every reference whose cosine to q, computed as Cosine64
// does, is at least threshold, in increasing index. The float32 kernel
// screens the references at threshold minus the margin and Cosine64
// decides, so the result is exact. A caller that needs "above" rather than
// "at least" keeps the Matches with Cos > threshold.
//
// It returns nothing for a q with a NaN or infinite component, and panics
// if q is not Dims long.
func (s *Set) Within(q []float32, threshold float64) []Match {
	s.checkQuery(0, q)
	sum := sumSq64(q)
	if s.n == 0 || !finite(sum) {
		return nil
	}
	unit := make([]float32, s.dims)
	unitInto(unit, q, sum)
	floor := floor32(threshold - margin(s.dims))
	sr := s.searchWithin(current.Load(), unit, threshold, floor)
	var out []Match
	for _, w := range sr.trk {
		for _, cd := range w[0].cands {
			if cos := cosine(dot64(q, s.Vector(cd.ref)), sum, s.sumSq[cd.ref]); cos >= threshold {
				out = append(out, Match{Index: cd.ref, Cos: cos})
			}
		}
	}
	slices.SortFunc(out, func(a, b Match) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// WithinEach returns, for each query, what Within returns for it: every
// reference whose cosine to the query, computed as Cosine64 does, is at
// least threshold, in increasing index (nil when there is none). With an
// int8 kernel and a set without a cluster index, the batch is screened in
// int8 (see the package doc, "Int8 prefilter") and Cosine64 decides, so
// the result is exactly Within's; otherwise it is Within's, query by
// query.
//
// It returns nothing for a query with a NaN or infinite component, or for
// a NaN threshold, and panics if a query is not Dims long.
func (s *Set) WithinEach(queries [][]float32, threshold float64) [][]Match {
	out := make([][]Match, len(queries))
	for i, q := range queries {
		s.checkQuery(i, q)
	}
	if s.n == 0 || len(queries) == 0 || math.IsNaN(threshold) {
		return out
	}
	k := current.Load()
	if l := s.lay.Load(); k.quant == nil || !s.quantizable() || l != nil && l.index != nil {
		for i, q := range queries {
			out[i] = s.Within(q, threshold)
		}
		return out
	}
	d := s.dims
	sums := make([]float64, len(queries))
	var live []int
	for i, q := range queries {
		sums[i] = sumSq64(q)
		switch {
		case !finite(sums[i]):
		case sums[i] == 0:
			if threshold <= 0 { // cosine 0 with every reference
				out[i] = make([]Match, s.n)
				for j := range out[i] {
					out[i][j] = Match{Index: j}
				}
			}
		default:
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return out
	}
	unit := make([]float32, len(live)*d)
	for li, i := range live {
		unitInto(unit[li*d:(li+1)*d], queries[i], sums[i])
	}
	s.withinQuantized(k, queries, sums, live, unit, threshold, out)
	return out
}

// searchMax scores nq unit queries for MaxCos: its trackers together hold
// every reference that scores within the margin of its query's best score.
// With a threshold thr above −∞ (BestAtLeast) they hold only those that
// also score at least thr less the score error: no other can reach thr.
func (s *Set) searchMax(k *kernel, unit []float32, nq int, margin, thr float64) *search {
	lay := s.layoutFor(k, unit, nq)
	newTracker := func(int) tracker { return maxTracker(margin) }
	if thr > math.Inf(-1) {
		low := floor32(thr - margin/2)
		newTracker = func(int) tracker { return atLeastTracker(margin, low) }
	}
	sr := s.newSearch(k, lay, unit, nq, newTracker)
	sr.thr = thr
	if lay.index != nil {
		sr.maxThroughIndex(margin)
	} else {
		sr.all(identity(nq))
	}
	return sr
}

// searchWithin scores one unit query for Within: its trackers together
// hold every reference scoring at least floor.
func (s *Set) searchWithin(k *kernel, unit []float32, threshold float64, floor float32) *search {
	lay := s.layout()
	sr := s.newSearch(k, lay, unit, 1, func(int) tracker { return tracker{floor: floor} })
	if lay.index != nil {
		sr.withinThroughIndex(threshold, margin(s.dims))
	} else {
		sr.all([]int{0})
	}
	return sr
}

// identity returns 0, 1, …, n−1.
func identity(n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// layout returns the set's layout, packing the references on first use.
func (s *Set) layout() *layout {
	if l := s.lay.Load(); l != nil {
		return l
	}
	s.layMu.Lock()
	defer s.layMu.Unlock()
	if l := s.lay.Load(); l != nil {
		return l
	}
	l := s.packLayout(nil)
	s.lay.Store(l)
	return l
}

func (s *Set) checkQuery(i int, q []float32) {
	if len(q) != s.dims {
		panic(fmt.Sprintf("similarity: query %d has %d dims, space %q has %d", i, len(q), s.space, s.dims))
	}
}
