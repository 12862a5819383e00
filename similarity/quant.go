package similarity

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
)

// This file holds the int8 prefilter of MaxCos and BestAtLeast (see the
// package doc, "Int8 prefilter", for the bound and its proof).

// A quantKernel computes int8 dot products of quantGroup queries at a
// time over the first kn components: for i < quantGroup and j < n it sets
//
//	out[i*ldo+j] = Σ_{k<kn} q[i*dp+k] · codes[j*dp+k]
//
// with q signed and codes unsigned bytes (a reference's int8 code plus
// 128), the form of VPDPBUSD. dp and kn are multiples of quantAlign,
// 0 < kn ≤ dp. The sums are exact: |out[i*ldo+j]| < dp·127·255 < 2^31 for
// dp ≤ maxQuantDims.
type quantKernel struct {
	dots func(out []int32, ldo int, q []int8, codes []uint8, n, dp, kn int)
	// unit and row are the two passes of quantizing a reference (see
	// unitMax and quantizeUnit): every implementation gives the same bits.
	unit func(dst, v []float32, inv float64) (mx uint32)
	row  func(dst []uint8, x []float32, kp int, inv float32, s float64, sm *quantSums)
}

// portableRows are the portable passes of quantizing a reference.
var portableRows = quantKernel{unit: unitGeneric, row: quantRowGeneric}

// quantGroup is how many queries a quantKernel call scores.
const quantGroup = 4

// checkDots panics unless the slices of a dots call hold what the
// contract reads and writes: the assembly kernel trusts its arguments.
func checkDots(out, ldo, q, codes, n, dp, kn int) {
	if n < 0 || dp <= 0 || dp%quantAlign != 0 || dp > maxQuantDims || ldo < n ||
		kn <= 0 || kn > dp || kn%quantAlign != 0 ||
		out < (quantGroup-1)*ldo+n || q < quantGroup*dp || codes < n*dp {
		panic(fmt.Sprintf("similarity: int8 dots n=%d dp=%d kn=%d ldo=%d with out %d, q %d, codes %d", n, dp, kn, ldo, out, q, codes))
	}
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
	// A threshold search first scores the first kp components (0: it
	// does not) and bounds the rest by ‖û_T‖·‖r̂_T‖, tail = ‖r̂_T‖, T the
	// components from kp on.
	kp   int
	tail []float64
}

// prefixFrom is the least threshold for which a search scores a prefix
// first.
const prefixFrom = 0.5

// prefixLen returns how many components a threshold search's first pass
// scores, for rows padded to dp: a quarter, in whole registers; 0 when
// that would be all of them.
func prefixLen(dp int) int {
	kp := (dp/4 + quantAlign - 1) / quantAlign * quantAlign
	if kp >= dp {
		return 0
	}
	return kp
}

// quantizable reports whether the set's dims fit the int8 form.
func (s *Set) quantizable() bool { return s.dims <= maxQuantDims }

// quantized returns the set's int8 form, making it on first use with the
// quantizing passes of qk (all give the same bits).
func (s *Set) quantized(qk *quantKernel) *quantSet {
	if q := s.quant.Load(); q != nil {
		return q
	}
	s.quantMu.Lock()
	defer s.quantMu.Unlock()
	if q := s.quant.Load(); q != nil {
		return q
	}
	dp := (s.dims + quantAlign - 1) / quantAlign * quantAlign
	qs := s.quantizeRows(qk, nil, prefixLen(dp))
	s.quant.Store(qs)
	return qs
}

// quantizeRows returns the int8 form of the set's references in the given
// order (row j is reference order[j]; nil: index order), with the tail
// norms past kp when kp > 0, quantized with qk's passes.
func (s *Set) quantizeRows(qk *quantKernel, order []int32, kp int) *quantSet {
	d := s.dims
	qs := newQuantSet(s.n, d, kp)
	dp := qs.dp
	const chunk = 256
	units := (s.n + chunk - 1) / chunk
	parallel(workerCount(units, s.n*d), units, func(_, u int) {
		row := make([]float32, d)
		for j := u * chunk; j < min(s.n, (u+1)*chunk); j++ {
			r := j
			if order != nil {
				r = int(order[j])
			}
			mx := unitMax(qk, row, s.Vector(r), s.sumSq[r])
			var tail float64
			qs.scale[j], qs.errN[j], qs.norm[j], tail = quantizeUnit(qk, qs.codes[j*dp:(j+1)*dp], row, mx, qs.kp)
			if qs.kp > 0 {
				qs.tail[j] = tail
			}
		}
	})
	return qs
}

// newQuantSet returns room for the int8 form of n references of d dims,
// with tail norms past kp when kp > 0.
func newQuantSet(n, d, kp int) *quantSet {
	dp := (d + quantAlign - 1) / quantAlign * quantAlign
	qs := &quantSet{dp: dp, codes: make([]uint8, n*dp), scale: make([]float64, n), errN: make([]float64, n), norm: make([]float64, n), kp: kp}
	if kp > 0 {
		qs.tail = make([]float64, n)
	}
	return qs
}

// quantize writes the int8 code of the unit vector x into code (padded
// with zeros to its length) and returns the scale s = max|xₖ|/127, the
// error norm ‖x − s·code‖ and the norm ‖s·code‖, in float64, as
// quantizeUnit computes them. A zero x has scale 0, code 0 and both norms
// 0.
func quantize(code []int8, x []float32) (s, errN, norm float64) {
	var mx uint32
	for _, v := range x {
		mx = max(mx, math.Float32bits(v)&0x7fffffff)
	}
	u := make([]uint8, len(code))
	s, errN, norm, _ = quantizeUnit(&portableRows, u, x, math.Float32frombits(mx), 0)
	for k, c := range u {
		code[k] = int8(c ^ 0x80)
	}
	return s, errN, norm
}

// unitMax writes v/‖v‖ rounded to float32 into dst, as unitInto does, and
// returns the largest magnitude of its components (0 for a zero v), with
// qk's pass.
func unitMax(qk *quantKernel, dst, v []float32, ss float64) float32 {
	if ss == 0 {
		clear(dst)
		return 0
	}
	return math.Float32frombits(qk.unit(dst[:len(v)], v, 1/math.Sqrt(ss)))
}

// unitGeneric writes float32(float64(v[k])·inv) into dst[k] and returns
// the largest of their magnitudes' bits (for finite non-negative floats
// the order of the bits is the values').
func unitGeneric(dst, v []float32, inv float64) uint32 {
	dst = dst[:len(v)]
	var m0, m1 uint32
	k := 0
	for ; k+2 <= len(v); k += 2 {
		y0 := float32(float64(v[k]) * inv)
		y1 := float32(float64(v[k+1]) * inv)
		dst[k], dst[k+1] = y0, y1
		m0 = max(m0, math.Float32bits(y0)&0x7fffffff)
		m1 = max(m1, math.Float32bits(y1)&0x7fffffff)
	}
	for ; k < len(v); k++ {
		y := float32(float64(v[k]) * inv)
		dst[k] = y
		m0 = max(m0, math.Float32bits(y)&0x7fffffff)
	}
	return max(m0, m1)
}

// quantSums holds the partial sums of quantizing one vector: component k
// adds to lane k mod 16 (see quantizeUnit).
type quantSums struct {
	e [16]float64 // (xₖ − s·codeₖ)²
	t [16]float64 // xₖ² for k ≥ kp
	c [16]int32   // codeₖ², at most 127²·2^16/16 < 2^31 a lane
}

// fold16 adds the 16 lanes of a partial sum in a fixed tree, halving:
// lane j takes lane j+8, then j+4, j+2 and j+1, the order in which an
// AVX-512 fold of two registers of 8 would add them.
func fold16(a *[16]float64) float64 {
	x := *a
	for w := 8; w >= 1; w /= 2 {
		for j := range w {
			x[j] += x[j+w]
		}
	}
	return x[0]
}

// quantizeUnit is the one quantization of a unit vector x whose largest
// component magnitude is mx, in one pass of qk: it writes each code plus
// 128 into dst[:len(x)] and 128 (code 0) into the rest of dst, and returns
// the scale s = mx/127, the error norm E = ‖x − s·code‖, the norm R =
// ‖s·code‖ and, when 0 < kp < len(x), the tail norm ‖x[kp:]‖ (else 0), in
// float64. kp is a multiple of 16. The sums of squares are taken in 16
// partial sums, component k in sum k mod 16 in increasing k, folded by
// fold16, and every product and difference is rounded on its own, so the
// results are the same bits on every CPU and pass. A zero mx gives code 0
// and zeros.
func quantizeUnit(qk *quantKernel, dst []uint8, x []float32, mx float32, kp int) (s, errN, norm, tail float64) {
	n := len(x)
	if mx == 0 {
		for k := range dst {
			dst[k] = 128
		}
		return 0, 0, 0, 0
	}
	s = float64(mx) / 127
	// Any integer code keeps the bound: the norms are those of the codes
	// chosen. Rounding to nearest by 127/mx keeps them small.
	inv := float32(127 / float64(mx))
	if kp <= 0 || kp >= n {
		kp = n
	}
	var sm quantSums
	qk.row(dst[:n], x, kp, inv, s, &sm)
	for k := n; k < len(dst); k++ {
		dst[k] = 128
	}
	var c2 int64
	for _, c := range sm.c {
		c2 += int64(c)
	}
	errN = math.Sqrt(fold16(&sm.e))
	norm = s * math.Sqrt(float64(c2))
	if kp < n {
		tail = math.Sqrt(fold16(&sm.t))
	}
	return s, errN, norm, tail
}

// quantRowGeneric is the portable pass of quantizeUnit: it writes the
// codes of x, plus 128, into dst and adds component k's squares to lane
// k mod 16 of sm (its tail square when k ≥ kp).
func quantRowGeneric(dst []uint8, x []float32, kp int, inv float32, s float64, sm *quantSums) {
	dst = dst[:len(x)]
	for k, v := range x {
		c, r := code1(v, inv, s)
		dst[k] = uint8(c + 128)
		j := k & 15
		sm.e[j] += float64(r * r)
		sm.c[j] += c * c
		if k >= kp {
			sm.t[j] += float64(float64(v) * float64(v))
		}
	}
}

// code1 returns the code of component v, v·inv rounded to the nearest
// integer (halves away from zero) in [−127, 127], and its error v − s·code.
func code1(v, inv float32, s float64) (int32, float64) {
	y := float32(v * inv)
	half := math.Float32frombits(0x3f000000 | math.Float32bits(y)&0x80000000) // ±0.5, y's sign
	c := min(127, max(-127, int32(float32(y+half))))
	return c, float64(v) - float64(s*float64(c))
}

// dotsGeneric is the portable quantKernel.
func dotsGeneric(out []int32, ldo int, q []int8, codes []uint8, n, dp, kn int) {
	checkDots(len(out), ldo, len(q), len(codes), n, dp, kn)
	for i := range quantGroup {
		qi := q[i*dp : i*dp+kn]
		o := out[i*ldo : i*ldo+n]
		for j := range o {
			r := codes[j*dp : j*dp+kn]
			r = r[:len(qi)]
			var s0, s1, s2, s3 int32
			for k := 0; k+4 <= len(qi); k += 4 {
				s0 += int32(qi[k]) * int32(r[k])
				s1 += int32(qi[k+1]) * int32(r[k+1])
				s2 += int32(qi[k+2]) * int32(r[k+2])
				s3 += int32(qi[k+3]) * int32(r[k+3])
			}
			o[j] = s0 + s1 + s2 + s3
		}
	}
}

// dotTail returns Σ q[k]·c[k], c unsigned codes: the components of a
// dot past a prefix.
func dotTail(q []int8, c []uint8) int32 {
	c = c[:len(q)]
	var s0, s1 int32
	for k := 0; k+2 <= len(q); k += 2 {
		s0 += int32(q[k]) * int32(c[k])
		s1 += int32(q[k+1]) * int32(c[k+1])
	}
	return s0 + s1
}

// quantQuery is a live query in int8 form.
type quantQuery struct {
	code  []int8
	scale float64 // s_u
	errN  float64 // E_u
	unitN float64 // ‖û‖, at most 1 + 2^-20
	bias  int32   // 128·Σ code: what the unsigned codes add to a dot
	tail  float64 // ‖û_T‖, with biasP = 128·Σ code over the prefix
	biasP int32
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

// offer reports whether the floor rose.
func (t *qtracker) offer(ref int, lo, hi, e2 float64) (rose bool) {
	if lo > t.lo {
		t.lo = lo
		if f := max(t.low, lo-e2); f > t.floor {
			t.floor, rose = f, true
		}
	}
	if hi < t.floor {
		return rose
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
	return rose
}

// skipBelow returns the raw dot x (bias included) below which a pair's
// upper bound s_u·s_r·(x − bias) + B cannot reach floor, given B ≤ bmax and
// su·s_r ≤ ss for every reference of the block: then x − bias <
// (floor − bmax)/ss, so s_u·s_r·(x − bias) < floor − bmax when x ≥ bias and
// ≤ 0 < floor − bmax when x < bias. The quotient is shrunk by 2^-20 to
// cover its rounding. With floor ≤ bmax nothing is skipped.
func skipBelow(floor, bmax, ss float64, bias int32) int32 {
	y := (floor - bmax) / ss
	if !(y > 0) || ss == 0 {
		return math.MinInt32
	}
	y *= 1 - 0x1p-20
	if y >= 1<<30 {
		return math.MaxInt32 // every pair (|x − bias| < 2^31 /2 cannot reach it)
	}
	// x − bias < y ⇔ x − bias ≤ ⌈y⌉ − 1 for integers.
	return bias + int32(math.Ceil(y))
}

// quantStats counts, for tests and benchmarks, the pairs the last int8
// search scored and the candidates it rescored with Cosine64.
var quantStats struct{ scored, rescored atomic.Int64 }

// bestQuantized is MaxCos (thr −∞) and BestAtLeast through the int8
// prefilter: it fills matches[i] for the live queries, whose unit vectors
// unit holds, dims apart.
func (s *Set) bestQuantized(k *kernel, queries [][]float32, sums []float64, live []int, unit []float32, thr float64, matches []Match) {
	e := margin(s.dims) / 2 // |û·r̂ − Cosine64| ≤ e (see margin)
	low := math.Inf(-1)
	if thr > low {
		low = thr - e - quantSlack
	}
	e2 := 2*e + quantSlack
	trk := s.scanQuantized(k, live, unit, thr, low, e2)
	s.rescoreBest(queries, sums, live, trk, thr, low, e, e2, matches)
}

// rescoreBest merges the workers' candidates trk[w][li] of the live
// queries and rescores them with Cosine64, best upper bound first, until
// no upper bound can reach the best cosine, into matches; low, e and e2
// are those of the scan (see bestQuantized). The queries are spread over
// the workers, 64 at a time.
func (s *Set) rescoreBest(queries [][]float32, sums []float64, live []int, trk [][]qtracker, thr, low, e, e2 float64, matches []Match) {
	const chunk = 64
	units := (len(live) + chunk - 1) / chunk
	workers := min(len(trk), units)
	bufs := make([][]qcand, workers)
	parallel(workers, units, func(w, u int) {
		for li := u * chunk; li < min(len(live), (u+1)*chunk); li++ {
			bufs[w] = s.rescore1(queries, sums, live, trk, li, thr, low, e, e2, matches, bufs[w])
		}
	})
}

// rescore1 is rescoreBest of live query li, with cands as scratch space,
// which it returns.
func (s *Set) rescore1(queries [][]float32, sums []float64, live []int, trk [][]qtracker, li int, thr, low, e, e2 float64, matches []Match, cands []qcand) []qcand {
	i := live[li]
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
	return cands
}

// withinQuantized is WithinEach through the int8 prefilter: it sets
// out[i] for the live queries, whose unit vectors unit holds, dims apart.
// The floor never rises (e2 = +∞): every reference whose upper bound hi
// reaches thr − e is a candidate, and Cosine64 decides.
func (s *Set) withinQuantized(k *kernel, queries [][]float32, sums []float64, live []int, unit []float32, thr float64, out [][]Match) {
	e := margin(s.dims) / 2 // |û·r̂ − Cosine64| ≤ e (see margin)
	trk := s.scanQuantized(k, live, unit, thr, thr-e-quantSlack, math.Inf(1))
	for li, i := range live {
		var ms []Match
		rescored := 0
		for w := range trk {
			for _, cd := range trk[w][li].cands {
				rescored++
				if cos := cosine(dot64(queries[i], s.Vector(cd.ref)), sums[i], s.sumSq[cd.ref]); cos >= thr {
					ms = append(ms, Match{Index: cd.ref, Cos: cos})
				}
			}
		}
		slices.SortFunc(ms, func(a, b Match) int { return cmp.Compare(a.Index, b.Index) })
		out[i] = ms
		quantStats.rescored.Add(int64(rescored))
	}
}

// scanQuantized scores the live queries (unit vectors in unit, dims
// apart) against every reference in int8 and returns, per worker and live
// query, a tracker holding every reference whose upper bound hi reaches
// max(low, L − e2), L the query's largest lower bound: with e2 = +∞, every
// reference whose hi reaches low. A search for cosines of at least
// prefixFrom (thr) scores a prefix first.
func (s *Set) scanQuantized(k *kernel, live []int, unit []float32, thr, low, e2 float64) [][]qtracker {

	qs := s.quantized(k.quant)
	d, dp := s.dims, qs.dp
	groups := (len(live) + quantGroup - 1) / quantGroup
	qq, codes := quantizeQueries(unit, len(live), d, dp, qs.kp)
	// A search for cosines of at least prefixFrom scores a prefix first
	// when the set has one: below it, too many references would pass.
	kp := dp
	if thr >= prefixFrom && qs.kp > 0 {
		kp = qs.kp
	}

	blockRefs := max(16, quantBlockBytes/dp)
	blocks := (s.n + blockRefs - 1) / blockRefs
	workers := workerCount(runtime.GOMAXPROCS(0), len(live)*s.n*d)
	// Units are blocks × chunks of query groups; with few blocks, split
	// the groups.
	qChunks := 1
	if blocks < 4*workers {
		qChunks = min(groups, (4*workers+blocks-1)/blocks)
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
		outs[w] = make([]int32, quantGroup*blockRefs)
	}
	// Per block: the largest E and R of its references, for a bound on the
	// bound that spares most pairs computing their own.
	maxE := make([]float64, blocks)
	maxR := make([]float64, blocks)
	maxS := make([]float64, blocks)
	maxT := make([]float64, blocks)
	for b := range blocks {
		for j := b * blockRefs; j < min(s.n, (b+1)*blockRefs); j++ {
			maxE[b] = max(maxE[b], qs.errN[j])
			maxR[b] = max(maxR[b], qs.norm[j])
			maxS[b] = max(maxS[b], qs.scale[j])
			if kp < dp {
				maxT[b] = max(maxT[b], qs.tail[j])
			}
		}
	}
	parallel(workers, units, func(w, u int) {
		b, c := u/qChunks, u%qChunks
		lo, hi := b*blockRefs, min(s.n, (b+1)*blockRefs)
		n := hi - lo
		block := qs.codes[lo*dp : hi*dp]
		scale, errN, norm := qs.scale[lo:hi], qs.errN[lo:hi], qs.norm[lo:hi]
		ga, gz := c*groups/qChunks, (c+1)*groups/qChunks
		for gi := ga; gi < gz; gi++ {
			k.quant.dots(outs[w], blockRefs, codes[gi*quantGroup*dp:(gi+1)*quantGroup*dp], block, n, dp, kp)
			for r := range min(quantGroup, len(live)-gi*quantGroup) {
				li := gi*quantGroup + r
				q, t := &qq[li], &trk[w][li]
				out := outs[w][r*blockRefs : r*blockRefs+n]
				bmax := q.errN*maxR[b] + q.unitN*maxE[b] + quantSlack
				if kp < dp {
					// The prefix P's dots: û·r̂ ≤ û_P·r̂_P + ‖û_T‖·‖r̂_T‖ and
					// |û_P·r̂_P − A_P| ≤ B (the bound over P is at most B's),
					// so A_P + B + ‖û_T‖·‖r̂_T‖ is an upper bound too.
					tb := q.tail * maxT[b]
					cut := skipBelow(t.floor, bmax+tb, q.scale*maxS[b], q.biasP)
					for j, x := range out {
						if x < cut {
							continue
						}
						if q.scale*scale[j]*float64(x-q.biasP)+bmax+q.tail*qs.tail[lo+j] < t.floor {
							continue
						}
						x += dotTail(q.code[kp:dp], block[j*dp+kp:(j+1)*dp])
						a := q.scale * scale[j] * float64(x-q.bias)
						if a+bmax < t.floor {
							continue
						}
						bd := q.errN*norm[j] + q.unitN*errN[j] + quantSlack
						if t.offer(lo+j, a-bd, a+bd, e2) {
							cut = skipBelow(t.floor, bmax+tb, q.scale*maxS[b], q.biasP)
						}
					}
					continue
				}
				cut := skipBelow(t.floor, bmax, q.scale*maxS[b], q.bias)
				for j, x := range out {
					if x < cut {
						continue // below the floor, by the block's largest scale and bound
					}
					a := q.scale * scale[j] * float64(x-q.bias)
					if a+bmax < t.floor {
						continue // its upper bound cannot reach the floor, nor its lower bound the best
					}
					bd := q.errN*norm[j] + q.unitN*errN[j] + quantSlack
					if t.offer(lo+j, a-bd, a+bd, e2) {
						cut = skipBelow(t.floor, bmax, q.scale*maxS[b], q.bias)
					}
				}
			}
		}
		quantStats.scored.Add(int64(n) * int64(min(len(live), gz*quantGroup)-ga*quantGroup))
	})
	return trk
}

// quantizeQueries returns the int8 form of the nq unit vectors in unit
// (dims d apart), with their prefix bias and tail norm past kp when kp >
// 0, and their codes, dp apart, padded with code-0 queries to a multiple
// of quantGroup.
func quantizeQueries(unit []float32, nq, d, dp, kp int) ([]quantQuery, []int8) {
	groups := (nq + quantGroup - 1) / quantGroup
	qq := make([]quantQuery, nq)
	codes := make([]int8, groups*quantGroup*dp) // padding queries: code 0
	for li := range nq {
		u := unit[li*d : (li+1)*d]
		c := codes[li*dp : (li+1)*dp : (li+1)*dp]
		sc, en, _ := quantize(c, u)
		var bias int32
		for _, x := range c {
			bias += int32(x)
		}
		qq[li] = quantQuery{code: c, scale: sc, errN: en, unitN: math.Sqrt(sumSq64(u)), bias: 128 * bias}
		if kp > 0 {
			var bp int32
			for _, x := range c[:kp] {
				bp += int32(x)
			}
			qq[li].biasP = 128 * bp
			if kp < d {
				qq[li].tail = math.Sqrt(sumSq64(u[kp:]))
			}
		}
	}
	return qq, codes
}
