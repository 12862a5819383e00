package similarity

import (
	"cmp"
	"slices"
)

// The probe judges, before any index is built, whether one would spare
// enough of a search: it runs the first queries of the search against a
// sample of the references, and an index of the sample, at a fraction of
// the cost of either.

// minProbeBest is the median best cosine of the probe queries against the
// sample below which no index is tried. A leaf can be skipped only if its
// cone is narrower than about asin(best) (its centroid at right angles to
// the query, as most are), and its members lie at least their nearest
// neighbour's angle, about acos(best), apart: asin(b) > acos(b)/2 needs
// b > 0.5. Random vectors in many dimensions are far below.
const minProbeBest = 0.5

// maxProbeVisits is the largest share of the references the probe may
// expect a query to visit for the index to be built.
const maxProbeVisits = 0.3

// median returns the median of xs, which it sorts.
func median(xs []float32) float32 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// probeVisits returns the share of the sample's references the probe
// queries q would visit through an index of the sample: the two largest of
// its coarse groups (group of sample point i: near[i]) split into leaves of
// about eight, and each query's best score against the whole sample, best,
// for the best it would find. The sample's unit vectors are su, dims apart.
func probeVisits(k *kernel, q, best, su []float32, near []int32, c1, dims int) float64 {
	nq := len(q) / dims
	groups := make([][]int, c1)
	for i, g := range near {
		groups[g] = append(groups[g], i)
	}
	slices.SortStableFunc(groups, func(a, b []int) int { return cmp.Compare(len(b), len(a)) })
	var probe leafSet
	for g, members := range groups[:min(2, c1)] {
		probe.add(leavesOf(k, 1, su, dims, members, max(1, len(members)/8), uint64(1000+g), true))
	}
	probe = probe.refine(k, 1, su, dims)
	nl := len(probe.members)
	cents := make([]float32, nl*dims)
	minCos := make([]float64, nl)
	total := 0
	for j, members := range probe.members {
		c := cents[j*dims : (j+1)*dims]
		copy(c, sketchMean(su, dims, members)) // the unit mean of unit vectors
		minCos[j] = 1
		for _, i := range members {
			minCos[j] = min(minCos[j], float64(dot32(c, su[i*dims:(i+1)*dims])))
		}
		total += len(members)
	}
	t := allScores(k, q, nq, cents, nl, dims)
	visited := 0
	for i := range nq {
		for j, members := range probe.members {
			if bound(float64(t[i*nl+j]), minCos[j]) >= float64(best[i]) {
				visited += len(members)
			}
		}
	}
	return float64(visited) / float64(nq*total)
}

// allScores returns the nq×nr scores (row-major) of the unit query rows q
// against the vectors rows, by kernel k.
func allScores(k *kernel, q []float32, nq int, rows []float32, nr, dims int) []float32 {
	rp := packRows(rows, nr, dims)
	np := panelCount(nr)
	ldo := np * panelWidth
	out := make([]float32, k.heights[0]*ldo)
	rmax := make([]float32, k.heights[0]*panelWidth)
	all := make([]float32, nq*nr)
	for _, p := range packQueries(k, q, identity(nq), dims, nil) {
		k.block(out, ldo, rmax, p.data, p.m, rp, np, dims)
		for i := range p.count {
			copy(all[(p.first+i)*nr:(p.first+i+1)*nr], out[i*ldo:])
		}
	}
	return all
}

// maxScores returns each unit query row's best score against the vectors
// rows, by kernel k.
func maxScores(k *kernel, q []float32, nq int, rows []float32, nr, dims int) []float32 {
	best := make([]float32, nq)
	const chunk = 1024 // rows scored at a time
	for a := 0; a < nr; a += chunk {
		z := min(nr, a+chunk)
		sc := allScores(k, q, nq, rows[a*dims:z*dims], z-a, dims)
		for i := range nq {
			row := sc[i*(z-a) : (i+1)*(z-a)]
			if a == 0 {
				best[i] = row[0]
			}
			best[i] = max(best[i], slices.Max(row))
		}
	}
	return best
}
