package similarity

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
)

// This file holds the int8 form of references at rest and the streaming
// search over it (see the package doc, "Searching references at rest").

// CodeLen returns how many bytes the int8 code of a vector of dims
// components takes at rest: dims rounded up to a multiple of 64.
func CodeLen(dims int) int {
	return (dims + quantAlign - 1) / quantAlign * quantAlign
}

// Bounds are the numbers of a reference's int8 form besides its code: the
// scale s = max|r̂ₖ|/127, the error E = ‖r̂ − s·code‖, the norm R =
// ‖s·code‖ and the tail norm ‖r̂_T‖ past the prefix a threshold search
// scores first (0 when there is none), as the in-memory int8 form holds
// them.
type Bounds struct {
	Scale, Err, Norm, Tail float64
}

// QuantizeAtRest writes the int8 code of v (each code plus 128, padded
// with 128 to CodeLen(len(v)) bytes) into code and returns its bounds:
// the int8 form a Set makes of v, the same bits on every CPU. It returns
// an error for a vector it cannot take: empty, of more than 65536
// components, or with a NaN or infinite component.
func QuantizeAtRest(code []byte, v []float32) (Bounds, error) {
	d := len(v)
	if d == 0 || d > maxQuantDims {
		return Bounds{}, fmt.Errorf("a vector of %d dims has no int8 form (1 to %d)", d, maxQuantDims)
	}
	if len(code) != CodeLen(d) {
		panic(fmt.Sprintf("similarity: QuantizeAtRest of %d dims into %d bytes", d, len(code)))
	}
	ss := sumSq64(v)
	if !finite(ss) {
		for i, x := range v {
			if !finite(float64(x)) {
				return Bounds{}, fmt.Errorf("component %d is %v, not a finite number", i, x)
			}
		}
	}
	qk := &portableRows
	if k := current.Load(); k.quant != nil {
		qk = k.quant
	}
	row := make([]float32, d)
	mx := unitMax(qk, row, v, ss)
	var b Bounds
	b.Scale, b.Err, b.Norm, b.Tail = quantizeUnit(qk, code, row, mx, prefixLen(len(code)))
	return b, nil
}

// A Block is a run of references in their int8 form at rest, as a store
// reads them: Refs[j] is reference j's handle (the caller's: a search
// returns it), its code is Codes[j*CodeLen(dims):], its bounds Bounds[j].
// A reference whose Skip[j] is true is not searched (nil: none is).
type Block struct {
	Refs   []int64
	Codes  []byte
	Bounds []Bounds
	Skip   []bool
}

// A Ref is a reference at rest as a search's rescoring reads it: its
// vector as stored (float32 components) and the key that breaks ties, the
// lowest winning.
type Ref struct {
	Vector []float32
	Key    string
}

// StoredMatch is the reference a search at rest found for a query.
type StoredMatch struct {
	Ref int64   // the reference's handle; −1 when there is none
	Key string  // its key
	Cos float64 // Cosine64 of the query and the reference's vector
}

// A Stream searches references at rest for a batch of queries of one
// space, block after block (Scan), holding per query only the references
// that may still be its answer; Best or Within then rescores those with
// Cosine64 from their vectors, which it reads one at a time. The answers
// are those of the same search of a Set holding every reference scanned
// (except that ties go to the lowest key, where a Set's go to the lowest
// index): see the package doc, "Searching references at rest".
type Stream struct {
	dims, dp, kp int
	queries      [][]float32
	sums         []float64
	live         []int
	qq           []quantQuery
	codes        []int8
	thr, low, e  float64
	e2           float64
	trk          [][]qtracker // per worker, per live query
	outs         [][]int32
	k            *kernel
	within       bool
	scanned      int
}

// NewBestStream starts the search of BestAtLeast with threshold thr (MaxCos
// when thr is −∞) for the queries, each dims long, over references at
// rest. A query with a NaN or infinite component, and a zero query, match
// nothing. It panics if a query is not dims long or thr is NaN.
func NewBestStream(dims int, queries [][]float32, thr float64) *Stream {
	if math.IsNaN(thr) {
		panic("similarity: a stream with a NaN threshold")
	}
	st := newStream(dims, queries, thr)
	st.low = math.Inf(-1)
	if thr > st.low {
		st.low = thr - st.e - quantSlack
	}
	st.e2 = 2*st.e + quantSlack
	st.start()
	return st
}

// NewWithinStream starts the search of WithinEach with threshold thr for
// the queries over references at rest: every reference whose Cosine64 with
// a query is at least thr.
func NewWithinStream(dims int, queries [][]float32, thr float64) *Stream {
	if math.IsNaN(thr) || math.IsInf(thr, 0) {
		panic("similarity: a within stream needs a finite threshold")
	}
	st := newStream(dims, queries, thr)
	st.within = true
	st.low = thr - st.e - quantSlack
	st.e2 = math.Inf(1)
	st.start()
	return st
}

func newStream(dims int, queries [][]float32, thr float64) *Stream {
	if dims < 1 || dims > maxQuantDims {
		panic(fmt.Sprintf("similarity: a stream of %d dims", dims))
	}
	st := &Stream{dims: dims, dp: CodeLen(dims), queries: queries, thr: thr, e: margin(dims) / 2}
	st.kp = prefixLen(st.dp)
	st.sums = make([]float64, len(queries))
	for i, q := range queries {
		if len(q) != dims {
			panic(fmt.Sprintf("similarity: query %d has %d dims, the stream %d", i, len(q), dims))
		}
		st.sums[i] = sumSq64(q)
		if finite(st.sums[i]) && st.sums[i] != 0 {
			st.live = append(st.live, i)
		}
	}
	return st
}

// start quantizes the live queries and makes the workers' trackers.
func (st *Stream) start() {
	d := st.dims
	unit := make([]float32, len(st.live)*d)
	for li, i := range st.live {
		unitInto(unit[li*d:(li+1)*d], st.queries[i], st.sums[i])
	}
	st.qq, st.codes = quantizeQueries(unit, len(st.live), d, st.dp, st.kp)
	st.k = int8Kernel()
	workers := runtime.GOMAXPROCS(0)
	st.trk = make([][]qtracker, workers)
	st.outs = make([][]int32, workers)
	for w := range st.trk {
		st.trk[w] = make([]qtracker, len(st.live))
		for li := range st.trk[w] {
			st.trk[w][li] = qtracker{lo: math.Inf(-1), low: st.low, floor: st.low}
		}
	}
}

// int8Kernel returns the int8 kernel chosen, or the fastest one this CPU
// runs when the choice is a float32 kernel: every one gives the same
// answers.
func int8Kernel() *kernel {
	k := current.Load()
	if k.quant == nil {
		for _, q := range kernels { // slowest first: the last int8 one
			if q.quant != nil {
				k = q
			}
		}
	}
	return k
}

// Scanned returns how many references the stream has scanned.
func (st *Stream) Scanned() int { return st.scanned }

// Scan scores every query against the block's references, keeping those
// that may be an answer. The block is not retained: its slices may be
// reused once Scan returns. It returns an error, and scans nothing, for a
// block whose slices disagree in length.
func (st *Stream) Scan(b *Block) error {
	n, dp := len(b.Refs), st.dp
	if len(b.Codes) != n*dp || len(b.Bounds) != n || b.Skip != nil && len(b.Skip) != n {
		return fmt.Errorf("a block of %d references with %d bytes of codes (want %d), %d bounds and %d skips", n, len(b.Codes), n*dp, len(b.Bounds), len(b.Skip))
	}
	st.scanned += n
	if n == 0 || len(st.live) == 0 {
		return nil
	}
	kp := dp
	if st.thr >= prefixFrom && st.kp > 0 {
		kp = st.kp
	}
	subRefs := max(16, quantBlockBytes/dp)
	subs := (n + subRefs - 1) / subRefs
	groups := (len(st.live) + quantGroup - 1) / quantGroup
	workers := workerCount(len(st.trk), len(st.live)*n*st.dims)
	qChunks := 1
	if subs < 4*workers {
		qChunks = min(groups, (4*workers+subs-1)/subs)
	}
	units := subs * qChunks
	workers = min(workers, units)
	for w := range workers {
		if len(st.outs[w]) < quantGroup*subRefs {
			st.outs[w] = make([]int32, quantGroup*subRefs)
		}
	}
	parallel(workers, units, func(w, u int) {
		s, c := u/qChunks, u%qChunks
		lo, hi := s*subRefs, min(n, (s+1)*subRefs)
		st.scanSub(w, b, lo, hi, c*groups/qChunks, (c+1)*groups/qChunks, kp, subRefs)
	})
	return nil
}

// scanSub scores the query groups [ga, gz) against references [lo, hi) of
// b on worker w's trackers, over the first kp components first when kp <
// dp: scanQuantized's loop (quant.go), with the block's bounds.
func (st *Stream) scanSub(w int, b *Block, lo, hi, ga, gz, kp, ldo int) {
	dp := st.dp
	n := hi - lo
	block := b.Codes[lo*dp : hi*dp]
	bd := b.Bounds[lo:hi]
	var skip []bool
	if b.Skip != nil {
		skip = b.Skip[lo:hi]
	}
	var maxE, maxR, maxS, maxT float64
	for j := range bd {
		if skip != nil && skip[j] {
			continue
		}
		maxE, maxR, maxS = max(maxE, bd[j].Err), max(maxR, bd[j].Norm), max(maxS, bd[j].Scale)
		maxT = max(maxT, bd[j].Tail)
	}
	out := st.outs[w]
	for gi := ga; gi < gz; gi++ {
		st.k.quant.dots(out, ldo, st.codes[gi*quantGroup*dp:(gi+1)*quantGroup*dp], block, n, dp, kp)
		for r := range min(quantGroup, len(st.live)-gi*quantGroup) {
			li := gi*quantGroup + r
			q, t := &st.qq[li], &st.trk[w][li]
			xs := out[r*ldo : r*ldo+n]
			bmax := q.errN*maxR + q.unitN*maxE + quantSlack
			if kp < dp {
				tb := q.tail * maxT
				cut := skipBelow(t.floor, bmax+tb, q.scale*maxS, q.biasP)
				for j, x := range xs {
					if x < cut || skip != nil && skip[j] {
						continue
					}
					if q.scale*bd[j].Scale*float64(x-q.biasP)+bmax+q.tail*bd[j].Tail < t.floor {
						continue
					}
					x += dotTail(q.code[kp:dp], block[j*dp+kp:(j+1)*dp])
					a := q.scale * bd[j].Scale * float64(x-q.bias)
					if a+bmax < t.floor {
						continue
					}
					e := q.errN*bd[j].Norm + q.unitN*bd[j].Err + quantSlack
					if t.offer(int(b.Refs[lo+j]), a-e, a+e, st.e2) {
						cut = skipBelow(t.floor, bmax+tb, q.scale*maxS, q.biasP)
					}
				}
				continue
			}
			cut := skipBelow(t.floor, bmax, q.scale*maxS, q.bias)
			for j, x := range xs {
				if x < cut || skip != nil && skip[j] {
					continue
				}
				a := q.scale * bd[j].Scale * float64(x-q.bias)
				if a+bmax < t.floor {
					continue
				}
				e := q.errN*bd[j].Norm + q.unitN*bd[j].Err + quantSlack
				if t.offer(int(b.Refs[lo+j]), a-e, a+e, st.e2) {
					cut = skipBelow(t.floor, bmax, q.scale*maxS, q.bias)
				}
			}
		}
	}
	quantStats.scored.Add(int64(n) * int64(min(len(st.live), gz*quantGroup)-ga*quantGroup))
}

// Best rescores each query's candidates with Cosine64, best upper bound
// first, reading each candidate's vector and key with fetch, and returns
// per query the reference with the largest cosine at or above the
// stream's threshold (ties to the lowest key), or Ref −1. It is
// NewBestStream's answer; fetch's first error stops it.
func (st *Stream) Best(fetch func(ref int64) (Ref, error)) ([]StoredMatch, error) {
	if st.within {
		panic("similarity: Best of a within stream")
	}
	out := make([]StoredMatch, len(st.queries))
	for i := range out {
		out[i] = StoredMatch{Ref: -1}
	}
	var cands []qcand
	for li, i := range st.live {
		best := math.Inf(-1)
		for w := range st.trk {
			best = max(best, st.trk[w][li].lo)
		}
		floor := max(st.low, best-st.e2)
		cands = st.collect(cands[:0], li, floor)
		slices.SortFunc(cands, func(a, b qcand) int {
			return cmp.Or(cmp.Compare(b.hi, a.hi), cmp.Compare(a.ref, b.ref))
		})
		mt := &out[i]
		rescored := 0
		for _, cd := range cands {
			if mt.Ref >= 0 && cd.hi+st.e+quantSlack < mt.Cos {
				break // Cosine64 ≤ hi + e < the best: neither wins nor ties
			}
			rescored++
			r, cos, err := st.rescore(i, cd.ref, fetch)
			if err != nil {
				return nil, err
			}
			if cos < st.thr {
				continue
			}
			if mt.Ref < 0 || cos > mt.Cos || cos == mt.Cos && r.Key < mt.Key {
				*mt = StoredMatch{Ref: int64(cd.ref), Key: r.Key, Cos: cos}
			}
		}
		quantStats.rescored.Add(int64(rescored))
	}
	return out, nil
}

// Within rescores every query's candidates with Cosine64 and returns per
// query the references whose cosine is at least the stream's threshold,
// by increasing key. It is NewWithinStream's answer.
func (st *Stream) Within(fetch func(ref int64) (Ref, error)) ([][]StoredMatch, error) {
	if !st.within {
		panic("similarity: Within of a best stream")
	}
	out := make([][]StoredMatch, len(st.queries))
	var cands []qcand
	for li, i := range st.live {
		cands = st.collect(cands[:0], li, st.low)
		for _, cd := range cands {
			r, cos, err := st.rescore(i, cd.ref, fetch)
			if err != nil {
				return nil, err
			}
			if cos >= st.thr {
				out[i] = append(out[i], StoredMatch{Ref: int64(cd.ref), Key: r.Key, Cos: cos})
			}
		}
		quantStats.rescored.Add(int64(len(cands)))
		slices.SortFunc(out[i], func(a, b StoredMatch) int { return cmp.Compare(a.Key, b.Key) })
	}
	return out, nil
}

// collect appends query li's candidates whose upper bound reaches floor,
// from every worker, to cands.
func (st *Stream) collect(cands []qcand, li int, floor float64) []qcand {
	for w := range st.trk {
		for _, cd := range st.trk[w][li].cands {
			if cd.hi >= floor {
				cands = append(cands, cd)
			}
		}
	}
	return cands
}

// rescore reads reference ref with fetch and returns it with its Cosine64
// to query i.
func (st *Stream) rescore(i, ref int, fetch func(int64) (Ref, error)) (Ref, float64, error) {
	r, err := fetch(int64(ref))
	if err != nil {
		return r, 0, err
	}
	cos, err := st.cosine(i, r.Vector)
	if err != nil {
		return r, 0, fmt.Errorf("reference %q: %w", r.Key, err)
	}
	return r, cos, nil
}

// cosine is Cosine64 of query i and a reference's vector as stored.
func (st *Stream) cosine(i int, v []float32) (float64, error) {
	if len(v) != st.dims {
		return 0, fmt.Errorf("a vector of %d dims in a space of %d", len(v), st.dims)
	}
	ss := sumSq64(v)
	if !finite(ss) {
		return 0, fmt.Errorf("a vector with a component that is not a finite number")
	}
	return cosine(dot64(st.queries[i], v), st.sums[i], ss), nil
}
