package similarity

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// candidate is a reference whose float32 score may make it the answer.
type candidate struct {
	ref   int
	score float32
}

// tracker collects the candidates of one query over the references one
// worker scans: those scoring at least floor. For MaxCos the floor moves up
// with the best score, to best − margin.
type tracker struct {
	floor  float32
	best   float32
	moving bool
	margin float64
	low    float32 // the floor never drops below it: a threshold search's threshold less the score error
	cands  []candidate
	limit  int // prune when cands reaches it
}

func (t *tracker) offer(ref int, score float32) {
	if t.moving && score > t.best {
		t.best = score
		t.floor = max(t.low, floor32(float64(score)-t.margin))
	}
	t.cands = append(t.cands, candidate{ref, score})
	// Drop the candidates the rising floor left behind, each time the list
	// doubles from what the last pruning kept: offers cost amortized O(1).
	if t.moving && len(t.cands) >= max(t.limit, 32) {
		kept := t.cands[:0]
		for _, c := range t.cands {
			if c.score >= t.floor {
				kept = append(kept, c)
			}
		}
		t.cands = kept
		t.limit = 2 * len(kept)
	}
}

// maxTracker starts the tracker of a MaxCos query.
func maxTracker(margin float64) tracker {
	return tracker{floor: float32(math.Inf(-1)), best: float32(math.Inf(-1)), moving: true, margin: margin, low: float32(math.Inf(-1))}
}

// atLeastTracker starts the tracker of a BestAtLeast query: a MaxCos
// tracker whose floor never drops below low.
func atLeastTracker(margin float64, low float32) tracker {
	t := maxTracker(margin)
	t.floor, t.low = low, low
	return t
}

// Work is cut into units of one block of reference panels, sized so that
// the block stays in a core's L2 cache while every query panel streams past
// it, times a share of the query panels when there are too few blocks to
// keep the workers busy. A unit's scores are a query panel's height × the
// block's width: the N×M matrix never exists.
const (
	blockBytes = 384 << 10
	// serialWork is the number of multiply-adds below which a search runs
	// on the calling goroutine: starting workers would cost more.
	serialWork = 1 << 16
)

// blockPanels returns how many reference panels of dims components make
// one cache block.
func blockPanels(dims int) int {
	return max(1, blockBytes/(dims*4*panelWidth))
}

// workerCount returns how many goroutines to spread units of work over,
// given the multiply-adds the work takes.
func workerCount(units, work int) int {
	if work < serialWork {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), units))
}

// parallel calls fn(w, u) for every unit u < units, spread over workers
// goroutines; w < workers names the goroutine, for its scratch space.
func parallel(workers, units int, fn func(w, u int)) {
	if workers <= 1 {
		for u := range units {
			fn(0, u)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				u := int(next.Add(1) - 1)
				if u >= units {
					return
				}
				fn(w, u)
			}
		})
	}
	wg.Wait()
}

// scratch is one worker's memory for block calls.
type scratch struct {
	out  []float32
	rmax []float32
	qbuf []float32    // packed query panels, for searches that gather queries
	rows []queryPanel // panels of one query, unpacked
}

func newScratch(k *kernel, dims int) *scratch {
	bp := blockPanels(dims)
	h := k.heights[0]
	return &scratch{
		out:  make([]float32, h*bp*panelWidth),
		rmax: make([]float32, h*panelWidth),
	}
}

// scan scores the query panels qps (entry e of a panel is query ids[e])
// against the references at positions [lo, hi) of lay and offers those
// above their query's floor to trk[query].
func (sc *scratch) scan(k *kernel, lay *layout, dims int, qps []queryPanel, ids []int, lo, hi int, trk []tracker) {
	bp := blockPanels(dims)
	inf := float32(math.Inf(-1))
	for pb := lo / panelWidth; pb*panelWidth < hi; pb += bp {
		pe := min(pb+bp, panelCount(hi))
		np := pe - pb
		ldo := np * panelWidth
		rp := lay.panelsOf()[pb*panelWidth*dims : pe*panelWidth*dims]
		base := pb * panelWidth
		ja, jz := max(lo, base)-base, min(hi, pe*panelWidth)-base
		for _, qp := range qps {
			rmax := sc.rmax[:qp.m*panelWidth]
			for i := range rmax {
				rmax[i] = inf
			}
			k.block(sc.out, ldo, rmax, qp.data, qp.m, rp, np, dims)
			for i := range qp.count {
				t := &trk[ids[qp.first+i]]
				mx := inf
				for _, x := range rmax[i*panelWidth : (i+1)*panelWidth] {
					if x > mx {
						mx = x
					}
				}
				if mx < t.floor {
					continue
				}
				row := sc.out[i*ldo : i*ldo+jz]
				for j := ja; j < jz; j++ {
					if score := row[j]; score >= t.floor {
						t.offer(lay.ref(base+j), score)
					}
				}
			}
		}
	}
}

// search is one MaxCos or Within call's state: the live queries' unit
// vectors, and per worker goroutine its scratch space and a tracker per
// query. Which worker scores which reference does not change the answer:
// every tracker keeps all it was offered within the margin of its best,
// and the results merge the trackers of all workers.
type search struct {
	s    *Set
	k    *kernel
	lay  *layout
	unit []float32 // the queries' unit vectors, dims apart
	nq   int
	trk  [][]tracker // trk[worker][query]
	sc   []*scratch
	// thr is a BestAtLeast search's threshold, −∞ for the others;
	// newTracker starts a query's tracker.
	thr        float64
	newTracker func(q int) tracker

	scored atomic.Int64 // query × reference pairs scored, for tests and benchmarks
}

func (s *Set) newSearch(k *kernel, lay *layout, unit []float32, nq int, newTracker func(q int) tracker) *search {
	workers := workerCount(runtime.GOMAXPROCS(0), nq*s.n*s.dims)
	sr := &search{s: s, k: k, lay: lay, unit: unit, nq: nq, trk: make([][]tracker, workers), sc: make([]*scratch, workers),
		thr: math.Inf(-1), newTracker: newTracker}
	for w := range workers {
		sr.trk[w] = make([]tracker, nq)
		for q := range nq {
			sr.trk[w][q] = newTracker(q)
		}
		sr.sc[w] = newScratch(k, s.dims)
	}
	return sr
}

func (sr *search) workers() int { return len(sr.trk) }

// all offers every reference to the queries ids.
func (sr *search) all(ids []int) {
	d := sr.s.dims
	qps := packQueries(sr.k, sr.unit, ids, d, nil)
	bp := blockPanels(d)
	blocks := (panelCount(sr.s.n) + bp - 1) / bp
	// With fewer blocks than workers, split the query panels as well.
	qChunks := 1
	if blocks < 4*sr.workers() {
		qChunks = min(len(qps), (4*sr.workers()+blocks-1)/blocks)
	}
	parallel(min(sr.workers(), blocks*qChunks), blocks*qChunks, func(w, u int) {
		b, c := u/qChunks, u%qChunks
		qa, qz := c*len(qps)/qChunks, (c+1)*len(qps)/qChunks
		lo := b * bp * panelWidth
		hi := min(sr.s.n, (b+1)*bp*panelWidth)
		sr.sc[w].scan(sr.k, sr.lay, d, qps[qa:qz], ids, lo, hi, sr.trk[w])
		sr.scored.Add(int64(hi-lo) * int64(qps[qz-1].first+qps[qz-1].count-qps[qa].first))
	})
}

// visit is a run of positions of the layout to offer to some queries.
type visit struct {
	lo, hi int
	ids    []int
}

// A visit packs its queries into panels when it has at least
// packMinQueries of them and packMinRefs references.
const (
	packMinQueries = 4
	packMinRefs    = 64
)

// visits offers each visit's positions to its queries.

func (sr *search) visits(vs []visit) {
	d := sr.s.dims
	parallel(min(sr.workers(), len(vs)), len(vs), func(w, u int) {
		v, sc := vs[u], sr.sc[w]
		var qps []queryPanel
		if len(v.ids) >= packMinQueries && v.hi-v.lo >= packMinRefs {
			qps = packQueries(sr.k, sr.unit, v.ids, d, &sc.qbuf)
		} else {
			// Packing a query costs about what scoring it against a small
			// leaf does: score the unit vectors as they are, panels of one.
			qps = sc.rows[:0]
			for i, q := range v.ids {
				qps = append(qps, queryPanel{first: i, count: 1, m: 1, data: sr.unit[q*d : (q+1)*d]})
			}
			sc.rows = qps
		}
		sc.scan(sr.k, sr.lay, d, qps, v.ids, v.lo, v.hi, sr.trk[w])
		sr.scored.Add(int64(v.hi-v.lo) * int64(len(v.ids)))
	})
}

// best returns the best score any worker's tracker of query q holds.
func (sr *search) best(q int) float32 {
	b := float32(math.Inf(-1))
	for _, w := range sr.trk {
		b = max(b, w[q].best)
	}
	return b
}
