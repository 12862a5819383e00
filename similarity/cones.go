package similarity

import (
	"math"
	"math/rand/v2"
)

// This file holds what a store needs to keep a cluster index of references
// at rest (see the package doc, "Cones"): k-means over their int8 codes
// (Cluster), the nearest of a set of centroids (Centroids), the cone of a
// cluster — its centre and a lower bound of its members' cosines with it
// (ConeCos) — and the test of a stream against a cone (Stream.Reaches).
// Every number a store keeps is computed with each product rounded on its
// own and summed in a fixed order, or exactly in integers, so that an index
// is the same bits on every CPU; a search's test of a cone decides only
// what the search reads, never what it finds.

// coneSlack covers what separates a reference's int8 form from the vector
// Cosine64 measures: the code approximates the float32 unit vector r̂,
// whose components are each v/‖v‖ rounded once to float32 (‖r̂ − v/‖v‖‖ ≤
// 2^-24), and the float64 sums of a bound (below 2^-40 for 2^16
// components). It is far above both, and far below any cosine that
// decides anything.
const coneSlack = 1e-6

// Centroids are unit vectors in the int8 form a nearest-centroid search
// scores: a code of each (its components over its scale, rounded) against
// each reference's code at rest, summed exactly in integers. A Centroids
// is not safe for concurrent use.
type Centroids struct {
	dims, dp, n int
	codes       []int8 // n rows of dp, then zero rows to a multiple of quantGroup
	scale       []float64
	bias        []int32 // 128·Σ code: the dot with codes+128 less the dot with codes
	dots        func(out []int32, ldo int, q []int8, codes []uint8, n, dp, kn int)
	out         []int32
	best        []float64
}

// NewCentroids returns the centroids cents (rows of dims components) in
// int8 form.
func NewCentroids(dims int, cents []float32) *Centroids {
	n := len(cents) / dims
	dp := CodeLen(dims)
	groups := (n + quantGroup - 1) / quantGroup
	c := &Centroids{dims: dims, dp: dp, n: n, codes: make([]int8, groups*quantGroup*dp),
		scale: make([]float64, n), bias: make([]int32, n), dots: int8Kernel().quant.dots}
	for j := range n {
		code := c.codes[j*dp : (j+1)*dp]
		c.scale[j], _, _ = quantize(code, cents[j*dims:(j+1)*dims])
		var b int32
		for _, x := range code {
			b += int32(x)
		}
		c.bias[j] = 128 * b
	}
	return c
}

// Len returns the number of centroids.
func (c *Centroids) Len() int { return c.n }

// nearestChunk is how many references Nearest scores at a time.
const nearestChunk = 256

// Nearest sets near[i] to the centroid with the largest dot product with
// reference i of codes (len(near) codes at rest, CodeLen(dims) bytes each),
// ties to the lowest centroid (0 when there is none). A dot product is an
// exact integer, scaled by the centroid's scale in one rounding: the
// answer is the same on every CPU.
func (c *Centroids) Nearest(codes []byte, near []int32) {
	n := len(near)
	if len(codes) < n*c.dp {
		panic("similarity: Nearest of fewer codes than answers")
	}
	if c.out == nil {
		c.out = make([]int32, quantGroup*nearestChunk)
		c.best = make([]float64, nearestChunk)
	}
	for lo := 0; lo < n; lo += nearestChunk {
		m := min(nearestChunk, n-lo)
		cs := codes[lo*c.dp : (lo+m)*c.dp]
		for r := range m {
			c.best[r], near[lo+r] = math.Inf(-1), 0
		}
		for g := 0; g*quantGroup < c.n; g++ {
			c.dots(c.out, nearestChunk, c.codes[g*quantGroup*c.dp:(g+1)*quantGroup*c.dp], cs, m, c.dp, c.dp)
			for i := range min(quantGroup, c.n-g*quantGroup) {
				j := g*quantGroup + i
				for r, d := range c.out[i*nearestChunk : i*nearestChunk+m] {
					if sc := c.scale[j] * float64(d-c.bias[j]); sc > c.best[r] {
						c.best[r], near[lo+r] = sc, int32(j)
					}
				}
			}
		}
	}
}

// Cluster returns at most k unit centroids (rows of dims components) of
// the points: the references whose codes at rest are codes (CodeLen(dims)
// bytes each) with scales their Bounds.Scale. It runs iters rounds of
// Lloyd's algorithm from k distinct non-zero points drawn with seed (fewer
// centroids when the points have fewer; none when all are zero): each point
// joins its Nearest centroid, and each centroid becomes the unit mean of
// its points' vectors as their codes give them (a centroid left without
// points keeps its place). Every sum is taken in the points' order with
// each product rounded on its own: the same bits on every CPU.
func Cluster(dims int, codes []byte, scales []float64, k, iters int, seed uint64) []float32 {
	dp := CodeLen(dims)
	n := len(scales)
	var seeds []int // the points a centroid may start at: not zero
	for i, s := range scales {
		if s > 0 {
			seeds = append(seeds, i)
		}
	}
	k = min(k, len(seeds))
	if k <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(clusterSeed, seed))
	cents := make([]float32, k*dims)
	for j, i := range rng.Perm(len(seeds))[:k] {
		p := seeds[i]
		sum := make([]float64, dims)
		addCode(sum, codes[p*dp:], scales[p])
		unitOf(cents[j*dims:(j+1)*dims], sum)
	}
	near := make([]int32, n)
	for range iters {
		NewCentroids(dims, cents).Nearest(codes, near)
		sums := make([]float64, k*dims)
		for i, j := range near {
			addCode(sums[int(j)*dims:(int(j)+1)*dims], codes[i*dp:], scales[i])
		}
		for j := range k {
			unitOf(cents[j*dims:(j+1)*dims], sums[j*dims:(j+1)*dims])
		}
	}
	return cents
}

// addCode adds the vector a code at rest gives (scale·code) to sum.
func addCode(sum []float64, code []byte, scale float64) {
	code = code[:len(sum)]
	for kk, c := range code {
		sum[kk] += float64(scale * float64(int(c)-128))
	}
}

// unitOf writes sum/‖sum‖ rounded to float32 into dst, unless sum is zero.
func unitOf(dst []float32, sum []float64) {
	var ss float64
	for _, x := range sum {
		ss += float64(x * x)
	}
	if !(ss > 0) || !finite(ss) {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for kk, x := range sum {
		dst[kk] = float32(x * inv)
	}
}

// ConeCos returns a lower bound of the cosine of centre (any non-zero
// vector) with the reference whose code at rest is code and whose bounds
// are b: NewCone(centre).Cos(code, b).
func ConeCos(centre []float32, code []byte, b Bounds) float64 {
	return NewCone(centre).Cos(code, b)
}

// A Cone is the centre of a cluster, ready to bound its members' cosines
// with it (Cos).
type Cone struct {
	centre []float32
	norm   float64 // ‖centre‖, 0 for a zero or non-finite centre
}

// NewCone returns the cone of centre.
func NewCone(centre []float32) Cone {
	c := Cone{centre: centre}
	if cs := sumSq64(centre); cs > 0 && finite(cs) {
		c.norm = math.Sqrt(cs)
	}
	return c
}

// Cos returns a lower bound of the cosine of the cone's centre with the
// reference whose code at rest is code and whose bounds are b: its code
// gives r̂ = scale·code + e with ‖e‖ ≤ Err, so ĉ·r̂ ≥ scale·(ĉ·code) − Err,
// less coneSlack for what separates r̂ from the vector. The lowest bound
// of a cluster's members is its cone's cosine. It is −1 for a zero
// centre.
func (c Cone) Cos(code []byte, b Bounds) float64 {
	if c.norm == 0 {
		return -1
	}
	code = code[:len(c.centre)]
	var dot float64
	for kk, x := range c.centre {
		dot += float64(float64(x) * float64(int(code[kk])-128)) // exact products
	}
	lb := float64(b.Scale*dot)/c.norm - b.Err - coneSlack
	return max(-1, lb)
}

// Threshold returns the stream's threshold (−∞ for a MaxCos stream).
func (st *Stream) Threshold() float64 { return st.thr }

// Live returns how many of the stream's queries can match anything.
func (st *Stream) Live() int { return len(st.live) }

// Reaches reports whether a reference in the cone of centre and cos (every
// reference of it has a cosine with centre of at least cos) may be an
// answer of the stream: false only when no query's cosine with any
// reference of the cone can reach the threshold, so that a search may
// skip the cone's references and find what it would have found. A
// reference at angle at most β = acos(cos) from the centre is at angle at
// least θ − β from a query at angle θ from it, so its cosine with the
// query is at most cos(θ − β) when θ > β. A stream without a threshold
// reaches every cone.
func (st *Stream) Reaches(centre []float32, cos float64) bool {
	if math.IsInf(st.thr, -1) || len(centre) != st.dims {
		return true
	}
	cs := sumSq64(centre)
	if !(cs > 0) || !finite(cs) || math.IsNaN(cos) {
		return true
	}
	beta := math.Acos(max(-1, min(1, cos)))
	for _, i := range st.live {
		var d float64
		for kk, x := range st.queries[i] {
			d += float64(float64(x) * float64(centre[kk]))
		}
		theta := math.Acos(max(-1, min(1, d/math.Sqrt(st.sums[i]*cs))))
		if theta <= beta || math.Cos(theta-beta)+coneSlack >= st.thr {
			return true
		}
	}
	return false
}
