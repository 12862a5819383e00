package similarity

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Match is a reference of a Set and its cosine to a query.
type Match struct {
	Index int     // the reference's index in the Set; −1 when there is none
	Cos   float64 // Cosine64 of the query and the reference; 0 when Index is −1
}

// MaxCos returns, for each query, the reference with the largest cosine and
// that cosine, exactly as if Cosine64 had been computed against every
// reference: the float32 kernel scores all of them, every reference within
// the margin (at least 1e-4, see the package doc) of a query's best score
// is re-scored with Cosine64, and the float64 maximum wins, ties to the
// lowest index. The result does not depend on the kernel, the CPU or
// GOMAXPROCS.
//
// A zero query has cosine 0 with every reference, so it matches reference 0.
// Index is −1 when the set is empty or the query has a NaN or infinite
// component (its cosines are undefined). MaxCos panics if a query is not
// Dims long.
func (s *Set) MaxCos(queries [][]float32) []Match {
	matches := make([]Match, len(queries))
	if len(queries) == 0 {
		return matches
	}
	for i := range matches {
		matches[i] = Match{Index: -1}
	}
	if s.n == 0 {
		for i, q := range queries {
			s.checkQuery(i, q)
		}
		return matches
	}
	m := margin(s.dims)
	unit := make([]float32, len(queries)*s.dims)
	sums := make([]float64, len(queries))
	for i, q := range queries {
		sums[i] = s.normalize(unit[i*s.dims:(i+1)*s.dims], i, q)
	}
	chunks := s.run(unit, len(queries), func(i int) tracker {
		if sums[i] == 0 || !finite(sums[i]) {
			return tracker{floor: float32(math.Inf(1))} // answered below without the kernel
		}
		return tracker{floor: float32(math.Inf(-1)), best: float32(math.Inf(-1)), moving: true, margin: m}
	})
	for i, q := range queries {
		switch {
		case !finite(sums[i]):
			continue
		case sums[i] == 0:
			matches[i] = Match{Index: 0, Cos: 0}
			continue
		}
		best := float32(math.Inf(-1))
		for _, c := range chunks {
			best = max(best, c[i].best)
		}
		floor := floor32(float64(best) - m)
		for _, c := range chunks {
			for _, cd := range c[i].cands {
				if cd.score < floor {
					continue
				}
				cos := cosine(dot64(q, s.Vector(cd.ref)), sums[i], s.sumSq[cd.ref])
				// Candidates come in increasing index, so a tie keeps the lower.
				if matches[i].Index < 0 || cos > matches[i].Cos {
					matches[i] = Match{Index: cd.ref, Cos: cos}
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
	if s.n == 0 {
		s.checkQuery(0, q)
		return nil
	}
	unit := make([]float32, s.dims)
	sum := s.normalize(unit, 0, q)
	if !finite(sum) {
		return nil
	}
	floor := floor32(threshold - margin(s.dims))
	chunks := s.run(unit, 1, func(int) tracker { return tracker{floor: floor} })
	var out []Match
	for _, c := range chunks {
		for _, cd := range c[0].cands {
			if cos := cosine(dot64(q, s.Vector(cd.ref)), sum, s.sumSq[cd.ref]); cos >= threshold {
				out = append(out, Match{Index: cd.ref, Cos: cos})
			}
		}
	}
	return out
}

func (s *Set) checkQuery(i int, q []float32) {
	if len(q) != s.dims {
		panic(fmt.Sprintf("similarity: query %d has %d dims, space %q has %d", i, len(q), s.space, s.dims))
	}
}

// normalize writes q/‖q‖ rounded to float32 into dst and returns Σq². A
// zero or non-finite q leaves dst zero.
func (s *Set) normalize(dst []float32, i int, q []float32) float64 {
	s.checkQuery(i, q)
	ss := sumSq64(q)
	if ss == 0 || !finite(ss) {
		return ss
	}
	norm := math.Sqrt(ss)
	for k, x := range q {
		dst[k] = float32(float64(x) / norm)
	}
	return ss
}

// Work is cut into units of up to queryBlock queries against one chunk of
// references, scored refBlock references at a time: the kernel's tile is
// queryBlock × refBlock scores, so the N×M matrix never exists.
const (
	queryBlock = 30 // a multiple of the generic kernel's 3 queries
	refBlock   = 64
	// serialWork is the number of multiply-adds below which a search runs
	// on the calling goroutine: starting workers would cost more.
	serialWork = 1 << 16
)

// candidate is a reference whose float32 score may make it the answer.
type candidate struct {
	ref   int
	score float32
}

// tracker collects the candidates of one query over one chunk of
// references: those scoring at least floor. For MaxCos the floor moves up
// with the best score, to best − margin.
type tracker struct {
	floor  float32
	best   float32
	moving bool
	margin float64
	cands  []candidate
	limit  int // prune when cands reaches it
}

func (t *tracker) offer(ref int, score float32) {
	if t.moving && score > t.best {
		t.best = score
		t.floor = floor32(float64(score) - t.margin)
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

// run scores the nq unit queries in q against every reference with the
// current kernel and returns one tracker per query for each chunk of
// references, chunks in increasing index. Queries are split across
// GOMAXPROCS workers; when there are too few queries to keep them busy, the
// references are split into chunks too.
func (s *Set) run(q []float32, nq int, newTracker func(query int) tracker) [][]tracker {
	k := current.Load()
	workers := runtime.GOMAXPROCS(0)
	if nq*s.n*s.dims < serialWork {
		workers = 1
	}
	qBlocks := (nq + queryBlock - 1) / queryBlock
	rBlocks := (s.n + refBlock - 1) / refBlock
	nChunks := 1
	if qBlocks < workers {
		nChunks = min(rBlocks, (workers+qBlocks-1)/qBlocks)
	}
	chunks := make([][]tracker, nChunks)
	for c := range chunks {
		chunks[c] = make([]tracker, nq)
		for i := range nq {
			chunks[c][i] = newTracker(i)
		}
	}
	units := qBlocks * nChunks
	var next atomic.Int64
	work := func() {
		out := make([]float32, queryBlock*refBlock)
		for {
			u := int(next.Add(1) - 1)
			if u >= units {
				return
			}
			qb, c := u/nChunks, u%nChunks
			qa, qz := qb*queryBlock, min((qb+1)*queryBlock, nq)
			ra := c * rBlocks / nChunks * refBlock
			rz := min((c+1)*rBlocks/nChunks*refBlock, s.n)
			s.scan(k, out, q, qa, qz, ra, rz, chunks[c][qa:qz])
		}
	}
	workers = min(workers, units)
	if workers <= 1 {
		work()
		return chunks
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(work)
	}
	wg.Wait()
	return chunks
}

// scan offers references [ra, rz) to the trackers of queries [qa, qz).
func (s *Set) scan(k *kernel, out, q []float32, qa, qz, ra, rz int, trackers []tracker) {
	d := s.dims
	nq := qz - qa
	for r0 := ra; r0 < rz; r0 += refBlock {
		r1 := min(r0+refBlock, rz)
		nr := r1 - r0
		k.tile(out, q[qa*d:qz*d], s.unit[r0*d:r1*d], nq, nr, d)
		for i := range trackers {
			t := &trackers[i]
			floor := t.floor
			for j, score := range out[i*nr : (i+1)*nr] {
				if score >= floor {
					t.offer(r0+j, score)
					floor = t.floor
				}
			}
		}
	}
}
