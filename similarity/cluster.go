package similarity

import (
	"math"
	"math/rand/v2"
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
	parallel(min(workers, units), units, func(_, u int) {
		lo, hi := u*chunk, min(len(ids), (u+1)*chunk)
		nearestPacked(k, pts, ids[lo:hi], sd, cp, c, near[lo:hi])
	})
}

// nearestPacked is nearest on one goroutine, the centroids packed in cp.
func nearestPacked(k *kernel, pts []float32, ids []int, sd int, cp []float32, c int, near []int32) {
	np := panelCount(c)
	ldo := np * panelWidth
	out := make([]float32, k.heights[0]*ldo)
	rmax := make([]float32, k.heights[0]*panelWidth)
	for _, qp := range packQueries(k, pts, ids, sd, nil) {
		k.block(out, ldo, rmax, qp.data, qp.m, cp, np, sd)
		for i := range qp.count {
			row := out[i*ldo : i*ldo+c]
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
// into c clusters with iters Lloyd iterations, from c distinct points
// drawn with seed. It returns the unit centroids, c rows of sd, and each
// point's cluster. Training runs on at most sample points drawn with the
// same seed; every point is then assigned.
func kmeans(k *kernel, workers int, pts []float32, ids []int, sd, c, iters, sample int, seed uint64) ([]float32, []int32) {
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
	for i, p := range rng.Perm(len(train))[:c] {
		copy(cents[i*sd:(i+1)*sd], pts[train[p]*sd:(train[p]+1)*sd])
	}
	near := make([]int32, len(train))
	sums := make([]float64, c*sd)
	for range iters {
		nearest(k, workers, pts, train, sd, cents, c, near)
		clear(sums)
		for i, p := range train {
			acc := sums[int(near[i])*sd : (int(near[i])+1)*sd]
			for kk, x := range pts[p*sd : (p+1)*sd] {
				acc[kk] += float64(x)
			}
		}
		for j := range c {
			acc := sums[j*sd : (j+1)*sd]
			var ss float64
			for _, x := range acc {
				ss += x * x
			}
			if ss == 0 {
				continue // an empty cluster keeps its centroid
			}
			inv := 1 / math.Sqrt(ss)
			for kk, x := range acc {
				cents[j*sd+kk] = float32(x * inv)
			}
		}
	}
	all := make([]int32, len(ids))
	nearest(k, workers, pts, ids, sd, cents, c, all)
	return cents, all
}
