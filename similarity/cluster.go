package similarity

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The cluster index groups references with a k-means-lite: two levels of
// Lloyd iterations on short sketches of the vectors, seeded by a fixed
// seed. Where the clusters fall only decides how fast a search is: the
// bounds that skip clusters are computed from the full vectors of whatever
// clusters result, so any clustering gives exact answers.

// sketchDims is the length of the sketches the clustering works on.
const sketchDims = 64

// clusterSeed seeds every random choice of the clustering.
const clusterSeed = 0xba4d0

// nearest sets near[i] to the centroid (a unit vector of cents, c of them)
// with the largest dot product with point pts[ids[i]] (unit vectors of sd
// components), ties to the lowest centroid, scoring with kernel k over
// workers goroutines.
func nearest(k *kernel, workers int, pts []float32, ids []int, sd int, cents []float32, c int, near []int32) {
	cp := packRows(cents, c, sd)
	const chunk = 256 // points per unit of work
	units := (len(ids) + chunk - 1) / chunk
	workers = min(workers, units)
	as := make([]assignScratch, workers)
	parallel(workers, units, func(w, u int) {
		lo, hi := u*chunk, min(len(ids), (u+1)*chunk)
		as[w].nearest(k, pts, ids[lo:hi], sd, cp, c, near[lo:hi])
	})
}

// assignScratch is one goroutine's memory for nearest.
type assignScratch struct {
	out, rmax, qbuf []float32
}

// nearest is the package function nearest on one goroutine, the centroids
// packed in cp.
func (as *assignScratch) nearest(k *kernel, pts []float32, ids []int, sd int, cp []float32, c int, near []int32) {
	np := panelCount(c)
	ldo := np * panelWidth
	if len(as.out) < k.heights[0]*ldo {
		as.out = make([]float32, k.heights[0]*ldo)
		as.rmax = make([]float32, k.heights[0]*panelWidth)
	}
	for _, qp := range packQueries(k, pts, ids, sd, &as.qbuf) {
		k.block(as.out, ldo, as.rmax, qp.data, qp.m, cp, np, sd)
		for i := range qp.count {
			row := as.out[i*ldo : i*ldo+c]
			best, arg := row[0], 0
			for j, x := range row {
				if x > best {
					best, arg = x, j
				}
			}
			near[qp.first+i] = int32(arg)
		}
	}
}

// kmeans clusters the points ids (unit vectors of sd components in pts)
// into c clusters with iters Lloyd iterations (iters ≥ 1), from c distinct points
// drawn with seed, or, with spread, chosen farthest first. It returns the
// unit centroids, c rows of sd, and each point's cluster. Training runs on
// at most sample points drawn with the same seed; every point is then
// assigned.
func kmeans(k *kernel, workers int, pts []float32, ids []int, sd, c, iters, sample int, seed uint64, spread bool) ([]float32, []int32) {
	rng := rand.New(rand.NewPCG(clusterSeed, seed))
	train := ids
	if len(ids) > sample {
		perm := rng.Perm(len(ids))[:sample]
		train = make([]int, sample)
		for i, p := range perm {
			train[i] = ids[p]
		}
	}
	c = min(c, len(train))
	cents := make([]float32, c*sd)
	seeds := rng.Perm(len(train))[:c]
	if spread {
		seeds = farthestFirst(pts, train, sd, c)
	}
	for i, p := range seeds {
		copy(cents[i*sd:(i+1)*sd], pts[train[p]*sd:(train[p]+1)*sd])
	}
	near := make([]int32, len(train))
	sums := make([]float32, c*sd)
	for it := range iters {
		nearest(k, workers, pts, train, sd, cents, c, near)
		if it == iters-1 && len(train) == len(ids) {
			return cents, near // the last assignment is every point's
		}
		clear(sums)
		for i, p := range train {
			acc := sums[int(near[i])*sd : (int(near[i])+1)*sd]
			for kk, x := range pts[p*sd : (p+1)*sd] {
				acc[kk] += x
			}
		}
		for j := range c {
			acc := sums[j*sd : (j+1)*sd]
			if ss := sumSq64(acc); ss > 0 { // an empty cluster keeps its centroid
				unitInto(cents[j*sd:(j+1)*sd], acc, ss)
			}
		}
	}
	all := make([]int32, len(ids))
	nearest(k, workers, pts, ids, sd, cents, c, all)
	return cents, all
}

// farthestFirst returns c positions in train, from 0 on, each that of the
// point whose largest dot product with the points chosen before it is the
// smallest: one point of each well separated cluster comes first. It
// costs len(train)·c dot products, for small problems only.
func farthestFirst(pts []float32, train []int, sd, c int) []int {
	near := make([]float32, len(train)) // largest dot product with a chosen point
	for i := range near {
		near[i] = float32(math.Inf(-1))
	}
	chosen := []int{0}
	for len(chosen) < c {
		last := train[chosen[len(chosen)-1]]
		lv := pts[last*sd : (last+1)*sd]
		arg, low := 0, float32(math.Inf(1))
		for i, p := range train {
			near[i] = max(near[i], dot32(pts[p*sd:(p+1)*sd], lv))
			if near[i] < low {
				arg, low = i, near[i]
			}
		}
		chosen = append(chosen, arg)
	}
	return chosen
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

// leavesOf splits the points members (in increasing index) into at most
// kg leaves by k-means on their vectors in pts, sd components each (the
// references' sketches, or the probe's sample), and returns the non-empty
// leaves, members in increasing index.
func leavesOf(k *kernel, workers int, pts []float32, sd int, members []int, kg int, seed uint64, spread bool) leafSet {
	switch {
	case len(members) == 0:
		return leafSet{}
	case kg <= 1 || len(members) == 1:
		return leafSet{members: [][]int{members}, cents: sketchMean(pts, sd, members)}
	}
	cents, near := kmeans(k, workers, pts, members, sd, kg, 3, 64*kg, seed, spread)
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
