package similarity

import (
	"cmp"
	"math"
	"slices"
	"runtime"
	"sync/atomic"
)

// This file holds the int8 prefilter of MaxCos and BestAtLeast (see the
// package doc, "Int8 prefilter", for the bound and its proof).

// A quantKernel computes int8 dot products: for j < n it sets
//
//	out[j] = Σ_{k<dp} q[k] · codes[j*dp+k]
//
// with q signed and codes unsigned bytes (a reference's int8 code plus
// 128), the form of VPDPBUSD. dp is a multiple of quantAlign. The sums are
// exact: |out[j]| < dp·127·255 < 2^31 for dp ≤ maxQuantDims.
type quantKernel struct {
	dots func(out []int32, q []int8, codes []uint8, n, dp int)
}

const (
	// quantAlign is the multiple dims are padded to in the int8 form: one
	// 512-bit register of bytes.
	quantAlign = 64
	// maxQuantDims is the most dims the int8 form takes: beyond it the
	// sums could overflow int32 and the searches use the float32 kernel.
	maxQuantDims = 1 << 16
	// quantSlack covers the float64 rounding of the bound's terms: every
	// term is at most 4 in magnitude and is summed over at most 2^16
	// components, so its rounding error is below 2^-33.
	quantSlack = 0x1p-30
	// quantBlockBytes is the size of a block of codes a worker scores every
	// query of its share against before moving on: it stays in L2.
	quantBlockBytes = 256 << 10
)

// quantSet is a Set's int8 form: per reference its code (the unit vector
// r̂ over its scale, rounded), the scale s = max|r̂ₖ|/127, E = ‖r̂ − s·code‖
// and R = ‖s·code‖, all from the float32 unit vector the float32 kernels
// score.
type quantSet struct {
	dp    int
	codes []uint8 // n rows of dp: code+128, padding 128 (code 0)
	scale []float64
	errN  []float64
	norm  []float64
}

// quantizable reports whether the set's dims fit the int8 form.
func (s *Set) quantizable() bool { return s.dims <= maxQuantDims }

// quantized returns the set's int8 form, making it on first use.
func (s *Set) quantized() *quantSet {
	if q := s.quant.Load(); q != nil {
		return q
	}
	s.quantMu.Lock()
	defer s.quantMu.Unlock()
	if q := s.quant.Load(); q != nil {
		return q
	}
	d := s.dims
	dp := (d + quantAlign - 1) / quantAlign * quantAlign
	qs := &quantSet{dp: dp, codes: make([]uint8, s.n*dp), scale: make([]float64, s.n), errN: make([]float64, s.n), norm: make([]float64, s.n)}
	const chunk = 256
	units := (s.n + chunk - 1) / chunk
	parallel(workerCount(units, s.n*d), units, func(_, u int) {
		row := make([]float32, d)
		code := make([]int8, dp)
		for j := u * chunk; j < min(s.n, (u+1)*chunk); j++ {
			unitInto(row, s.Vector(j), s.sumSq[j])
			qs.scale[j], qs.errN[j], qs.norm[j] = quantize(code, row)
			dst := qs.codes[j*dp : (j+1)*dp]
			for k, c := range code {
				dst[k] = uint8(int(c) + 128)
			}
		}
	})
	s.quant.Store(qs)
	return qs
}

// quantize writes the int8 code of the unit vector x into code (padded
// with zeros to its length) and returns the scale s = max|xₖ|/127, the
// error norm ‖x − s·code‖ and the norm ‖s·code‖, in float64. A zero x has
// scale 0, code 0 and both norms 0.
func quantize(code []int8, x []float32) (s, errN, norm float64) {
	clear(code)
	mx := 0.0
	for _, v := range x {
		mx = max(mx, math.Abs(float64(v)))
	}
	if mx == 0 {
		return 0, 0, 0
	}
	s = mx / 127
	var e2 float64
	var c2 int64
	for k, v := range x {
		c := math.Round(float64(v) / s)
		c = min(127, max(-127, c))
		code[k] = int8(c)
		r := float64(v) - s*c
		e2 += r * r
		c2 += int64(c) * int64(c)
	}
	return s, math.Sqrt(e2), s * math.Sqrt(float64(c2))
}

// dotsGeneric is the portable quantKernel.
func dotsGeneric(out []int32, q []int8, codes []uint8, n, dp int) {
	q = q[:dp]
	codes = codes[:n*dp]
	for j := range n {
		r := codes[j*dp : (j+1)*dp]
		var s0, s1, s2, s3 int32
		for k := 0; k+4 <= dp; k += 4 {
			s0 += int32(q[k]) * int32(r[k])
			s1 += int32(q[k+1]) * int32(r[k+1])
			s2 += int32(q[k+2]) * int32(r[k+2])
			s3 += int32(q[k+3]) * int32(r[k+3])
		}
		out[j] = s0 + s1 + s2 + s3
	}
}

// quantQuery is a live query in int8 form.
type quantQuery struct {
	code  []int8
	scale float64 // s_u
	errN  float64 // E_u
	unitN float64 // ‖û‖, at most 1 + 2^-20
	bias  int32   // 128·Σ code: what the unsigned codes add to a dot
}

// qcand is a reference whose upper bound hi may make it the answer.
type qcand struct {
	ref int
	hi  float64
}

// qtracker collects the candidates of one query over the references one
// worker scans: every reference whose upper bound reaches floor, which
// rises with the best lower bound lo to lo − 2e.
type qtracker struct {
	lo    float64 // the largest lower bound seen
	low   float64 // the floor's least value: thr − e, or −∞
	floor float64
	cands []qcand
	limit int
}

func (t *qtracker) offer(ref int, lo, hi, e2 float64) {
	if lo > t.lo {
		t.lo = lo
		t.floor = max(t.low, lo-e2)
	}
	if hi < t.floor {
		return
	}
	t.cands = append(t.cands, qcand{ref, hi})
	if len(t.cands) >= max(t.limit, 32) {
		kept := t.cands[:0]
		for _, c := range t.cands {
			if c.hi >= t.floor {
				kept = append(kept, c)
			}
		}
		t.cands = kept
		t.limit = 2 * len(kept)
	}
}

// quantStats counts, for tests and benchmarks, the pairs the last int8
// search scored and the candidates it rescored with Cosine64.
var quantStats struct{ scored, rescored atomic.Int64 }

// bestQuantized is MaxCos (thr −∞) and BestAtLeast through the int8
// prefilter: it fills matches[i] for the live queries, whose unit vectors
// unit holds, dims apart.
func (s *Set) bestQuantized(k *kernel, queries [][]float32, sums []float64, live []int, unit []float32, thr float64, matches []Match) {
	qs := s.quantized()
	d, dp := s.dims, qs.dp
	e := margin(d) / 2 // |û·r̂ − Cosine64| ≤ e (see margin)
	qq := make([]quantQuery, len(live))
	codes := make([]int8, len(live)*dp)
	for li := range live {
		u := unit[li*d : (li+1)*d]
		c := codes[li*dp : (li+1)*dp : (li+1)*dp]
		sc, en, _ := quantize(c, u)
		var bias int32
		for _, x := range c {
			bias += int32(x)
		}
		qq[li] = quantQuery{code: c, scale: sc, errN: en, unitN: math.Sqrt(sumSq64(u)), bias: 128 * bias}
	}
	low := math.Inf(-1)
	if thr > low {
		low = thr - e - quantSlack
	}
	e2 := 2*e + quantSlack

	blockRefs := max(16, quantBlockBytes/dp)
	blocks := (s.n + blockRefs - 1) / blockRefs
	workers := workerCount(runtime.GOMAXPROCS(0), len(live)*s.n*d)
	// Units are blocks × query chunks; with few blocks, split the queries.
	qChunks := 1
	if blocks < 4*workers {
		qChunks = min(len(live), (4*workers+blocks-1)/blocks)
	}
	units := blocks * qChunks
	workers = min(workers, units)
	trk := make([][]qtracker, workers)
	outs := make([][]int32, workers)
	for w := range trk {
		trk[w] = make([]qtracker, len(live))
		for li := range trk[w] {
			trk[w][li] = qtracker{lo: math.Inf(-1), low: low, floor: low}
		}
		outs[w] = make([]int32, blockRefs)
	}
	// Per block: the largest E and R of its references, for a bound on the
	// bound that spares most pairs computing their own.
	maxE := make([]float64, blocks)
	maxR := make([]float64, blocks)
	for b := range blocks {
		for j := b * blockRefs; j < min(s.n, (b+1)*blockRefs); j++ {
			maxE[b] = max(maxE[b], qs.errN[j])
			maxR[b] = max(maxR[b], qs.norm[j])
		}
	}
	parallel(workers, units, func(w, u int) {
		b, c := u/qChunks, u%qChunks
		lo, hi := b*blockRefs, min(s.n, (b+1)*blockRefs)
		n := hi - lo
		out := outs[w][:n]
		block := qs.codes[lo*dp : hi*dp]
		scale, errN, norm := qs.scale[lo:hi], qs.errN[lo:hi], qs.norm[lo:hi]
		for li := c * len(live) / qChunks; li < (c+1)*len(live)/qChunks; li++ {
			q, t := &qq[li], &trk[w][li]
			k.quant.dots(out, q.code, block, n, dp)
			bmax := q.errN*maxR[b] + q.unitN*maxE[b] + quantSlack
			for j, x := range out {
				a := q.scale * scale[j] * float64(x-q.bias)
				if a+bmax < t.floor {
					continue // its upper bound cannot reach the floor, nor its lower bound the best
				}
				bd := q.errN*norm[j] + q.unitN*errN[j] + quantSlack
				t.offer(lo+j, a-bd, a+bd, e2)
			}
		}
		quantStats.scored.Add(int64(n) * int64((c+1)*len(live)/qChunks-c*len(live)/qChunks))
	})

	// Merge the workers' candidates and rescore them with Cosine64, best
	// upper bound first, until no upper bound can reach the best cosine.
	var cands []qcand
	for li, i := range live {
		best := math.Inf(-1)
		for w := range trk {
			best = max(best, trk[w][li].lo)
		}
		floor := max(low, best-e2)
		cands = cands[:0]
		for w := range trk {
			for _, cd := range trk[w][li].cands {
				if cd.hi >= floor {
					cands = append(cands, cd)
				}
			}
		}
		slices.SortFunc(cands, func(a, b qcand) int {
			if c := cmp.Compare(b.hi, a.hi); c != 0 {
				return c
			}
			return cmp.Compare(a.ref, b.ref)
		})
		mt := &matches[i]
		rescored := 0
		for _, cd := range cands {
			if mt.Index >= 0 && cd.hi+e+quantSlack < mt.Cos {
				break // Cosine64 ≤ hi + e < the best: neither wins nor ties
			}
			rescored++
			cos := cosine(dot64(queries[i], s.Vector(cd.ref)), sums[i], s.sumSq[cd.ref])
			if cos < thr {
				continue
			}
			if mt.Index < 0 || cos > mt.Cos || cos == mt.Cos && cd.ref < mt.Index {
				*mt = Match{Index: cd.ref, Cos: cos}
			}
		}
		quantStats.rescored.Add(int64(rescored))
	}
}
