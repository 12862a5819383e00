package similarity

import (
	"cmp"
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
}

// leaf is a cluster of the positions [lo, hi).
type leaf struct {
	lo, hi int
	// minCos is at most the exact cosine of every member with the
	// centroid: the smallest float32 score, less the score error bound.
	minCos float64
}

// An index pays for itself only on large searches: building it costs
// about a dozen passes over the references, and every search then scores
// its queries against all centroids.
const (
	minIndexRefs    = 4096
	minIndexQueries = 32
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

// maxProbeVisits is the largest share of the references the probe may
// expect a query to visit for the index to be built. (A variable for the
// tests, which force an index on data that gains nothing from it.)
var maxProbeVisits = 0.3

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
	return tHi*r + math.Sqrt((1-tHi*tHi)*(1-r*r)) + boundSlack
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
	cents1, sNear := kmeans(k, workers, su, identity(len(sample)), d, c1, 6, len(sample), 1)
	c1 = len(cents1) / d
	if probeVisits(k, unit[:min(nq, probeQueries)*d], su, sNear, c1, d) > maxProbeVisits {
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
		sets[g] = leavesOf(k, 1, sk, sd, groups[g], kg, uint64(2+g))
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
	zeroLo := len(order)
	for r, ss := range s.sumSq {
		if ss == 0 {
			order = append(order, int32(r))
		}
	}
	lay := s.packLayout(order)
	lay.index = s.finishIndex(k, workers, lay, leaves, zeroLo)
	return lay
}

// sketchAndAssign returns, in one pass over the references live, every
// reference's sketch (sk, n rows of sd components, indexed by reference;
// zero for the others) and each live reference's nearest coarse centroid.
func (s *Set) sketchAndAssign(k *kernel, workers int, live []int, cents []float32, c int) (sk []float32, sd int, near []int32) {
	d := s.dims
	sd = min(d, sketchDims)
	signs := make([]float32, d)
	rng := rand.New(rand.NewPCG(clusterSeed, 1))
	for kk := range signs {
		signs[kk] = 1
		if sd < d && rng.IntN(2) == 0 {
			signs[kk] = -1
		}
	}
	sk = make([]float32, s.n*sd)
	near = make([]int32, len(live))
	cp := packRows(cents, c, d)
	const chunk = 256
	units := (len(live) + chunk - 1) / chunk
	parallel(workers, units, func(_, u int) {
		lo, hi := u*chunk, min(len(live), (u+1)*chunk)
		rows := make([]float32, (hi-lo)*d)
		acc := make([]float64, sd)
		for i, r := range live[lo:hi] {
			row := rows[i*d : (i+1)*d]
			unitInto(row, s.Vector(r), s.sumSq[r])
			clear(acc)
			for kk, x := range row {
				acc[kk%sd] += float64(signs[kk] * x)
			}
			var ss float64
			for _, x := range acc {
				ss += x * x
			}
			if ss > 0 {
				inv := 1 / math.Sqrt(ss)
				for kk, x := range acc {
					sk[r*sd+kk] = float32(x * inv)
				}
			}
		}
		nearestPacked(k, rows, identity(hi-lo), d, cp, c, near[lo:hi])
	})
	return sk, sd, near
}

// leafSet is a list of leaves, each a list of references, and their
// centroids in sketch space.
type leafSet struct {
	members [][]int
	cents   []float32 // sd components per leaf
}

func (ls *leafSet) add(o leafSet) {
	ls.members = append(ls.members, o.members...)
	ls.cents = append(ls.cents, o.cents...)
}

// leavesOf splits the references members (in increasing index) into at
// most kg leaves by k-means on their sketches, and returns the non-empty
// leaves, members in increasing index.
func leavesOf(k *kernel, workers int, sk []float32, sd int, members []int, kg int, seed uint64) leafSet {
	if kg <= 1 || len(members) <= 1 {
		return leafSet{members: [][]int{members}, cents: sketchMean(sk, sd, members)}
	}
	cents, near := kmeans(k, workers, sk, members, sd, kg, 4, 64*kg, seed)
	ms := make([][]int, len(cents)/sd)
	for i, r := range members {
		ms[near[i]] = append(ms[near[i]], r)
	}
	var ls leafSet
	for j, m := range ms {
		if len(m) > 0 {
			ls.members = append(ls.members, m)
			ls.cents = append(ls.cents, cents[j*sd:(j+1)*sd]...)
		}
	}
	return ls
}

// sketchMean returns the unit mean of the sketches of members.
func sketchMean(sk []float32, sd int, members []int) []float32 {
	sum := make([]float64, sd)
	for _, r := range members {
		for kk, x := range sk[r*sd : (r+1)*sd] {
			sum[kk] += float64(x)
		}
	}
	c := make([]float32, sd)
	var ss float64
	for _, x := range sum {
		ss += x * x
	}
	if ss > 0 {
		for kk, x := range sum {
			c[kk] = float32(x / math.Sqrt(ss))
		}
	}
	return c
}

// strayGap is how far below the median score of its leaf's members a
// member's sketch scores against the leaf's centroid to be a stray.
const strayGap = 0.25

// refine takes the strays out of their leaves: members that k-means put
// with references they are far from, which would widen the leaf's cone
// for every query (a coarse group holding a few members of a cluster
// whose leaf lies in another group, say). Each stray joins the leaf of the
// nearest centroid if it is no stray there, else a leaf of its own.
func (ls leafSet) refine(k *kernel, workers int, sk []float32, sd int) leafSet {
	n := len(ls.members)
	cut := make([]float32, n)
	var strays []int
	kept := make([][]int, n)
	for j, members := range ls.members {
		c := ls.cents[j*sd : (j+1)*sd]
		scores := make([]float32, len(members))
		for i, r := range members {
			scores[i] = dot32(sk[r*sd:(r+1)*sd], c)
		}
		cut[j] = float32(math.Inf(-1))
		if len(members) >= 4 {
			sorted := slices.Clone(scores)
			slices.Sort(sorted)
			cut[j] = sorted[len(sorted)/2] - strayGap
		}
		for i, r := range members {
			if scores[i] < cut[j] {
				strays = append(strays, r)
			} else {
				kept[j] = append(kept[j], r)
			}
		}
	}
	if len(strays) == 0 {
		return ls
	}
	near := make([]int32, len(strays))
	nearest(k, workers, sk, strays, sd, ls.cents, n, near)
	cents := slices.Clone(ls.cents)
	for i, r := range strays {
		j := int(near[i])
		if dot32(sk[r*sd:(r+1)*sd], ls.cents[j*sd:(j+1)*sd]) >= cut[j] && len(kept[j]) > 0 {
			kept[j] = append(kept[j], r)
			continue
		}
		kept = append(kept, []int{r})
		cents = append(cents, sk[r*sd:(r+1)*sd]...)
	}
	var out leafSet
	for j, m := range kept {
		if len(m) > 0 {
			slices.Sort(m)
			out.members = append(out.members, m)
			out.cents = append(out.cents, cents[j*sd:(j+1)*sd]...)
		}
	}
	return out
}

func dot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s float32
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// centroid returns the unit vector, rounded to float32, of the sum of the
// unit vectors of the references members.
func (s *Set) centroid(members []int) []float32 {
	sum := make([]float64, s.dims)
	for _, r := range members {
		inv := 1 / math.Sqrt(s.sumSq[r])
		for k, x := range s.Vector(r) {
			sum[k] += float64(x) * inv
		}
	}
	c := make([]float32, s.dims)
	for k, x := range sum {
		c[k] = float32(x)
	}
	unitInto(c, c, sumSq64(c))
	return c
}

// finishIndex computes the leaves' centroids and, scoring each member of
// a leaf against its centroid with kernel k, their minCos.
func (s *Set) finishIndex(k *kernel, workers int, lay *layout, leaves []leaf, zeroLo int) *clusterIndex {
	d := s.dims
	e := margin(d) / 2
	cents := make([]float32, len(leaves)*d)
	parallel(workers, len(leaves), func(w, i int) {
		lf := &leaves[i]
		members := make([]int, 0, lf.hi-lf.lo)
		for pos := lf.lo; pos < lf.hi; pos++ {
			members = append(members, lay.ref(pos))
		}
		c := cents[i*d : (i+1)*d]
		copy(c, s.centroid(members))
		pa, pz := lf.lo/panelWidth, panelCount(lf.hi)
		out := make([]float32, (pz-pa)*panelWidth)
		rmax := make([]float32, panelWidth)
		k.block(out, len(out), rmax, c, 1, lay.panels[pa*panelWidth*d:pz*panelWidth*d], pz-pa, d)
		low := float32(math.Inf(1))
		for _, x := range out[lf.lo-pa*panelWidth : lf.hi-pa*panelWidth] {
			low = min(low, x)
		}
		lf.minCos = float64(low) - e - boundSlack
	})
	return &clusterIndex{leaves: leaves, cents: packRows(cents, len(leaves), d), zeroLo: zeroLo, n: s.n}
}

// probeVisits returns the share of the sample's references the probe
// queries q would visit through an index of the sample: the two largest of
// its coarse groups (group of sample point i: near[i]) split into leaves of
// about eight, and each query's best score against the whole sample for
// the best it would find. The sample's unit vectors are su, dims apart.
func probeVisits(k *kernel, q, su []float32, near []int32, c1, dims int) float64 {
	nq, ns := len(q)/dims, len(su)/dims
	groups := make([][]int, c1)
	for i, g := range near {
		groups[g] = append(groups[g], i)
	}
	slices.SortStableFunc(groups, func(a, b []int) int { return cmp.Compare(len(b), len(a)) })
	var probe leafSet
	for g, members := range groups[:min(2, c1)] {
		probe.add(leavesOf(k, 1, su, dims, members, max(1, len(members)/8), uint64(1000+g)))
	}
	best := maxScores(k, q, nq, su, ns, dims)
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

// sampleIndexes returns n indexes below total, evenly spaced.
func sampleIndexes(total, n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = int(int64(i) * int64(total) / int64(n))
	}
	return ids
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
