package dedup

import (
	"runtime"
	"sync"
)

// Dedup is sequential: each incoming row is compared with the rows
// admitted before it. But most of a row's text search is against rows
// already indexed, and that part does not depend on the rows admitted
// meanwhile. So the engine searches a batch of candidates at once, in
// parallel, against the text indexes as they stand when the batch begins
// (lookAhead), and each candidate, at its turn, adds the rows admitted
// since (the batch's own, at most aheadBatch of them, compared exactly):
// the best of both is the best over every row, by the same total order
// (better), so the verdicts are those of the sequential search, whatever
// the number of goroutines.

// aheadBatch is how many candidates a look-ahead searches.
const aheadBatch = 256

// aheadMin is the fewest candidates that make a look-ahead worth its
// goroutines.
const aheadMin = 2 * aheadBatch

// lookAhead is the text search of a batch of candidates, [from, to).
type lookAhead struct {
	from, to int
	best     []match            // candidate from+j → its best text match when the batch began
	searched []bool             // false: search it at its turn (it would change an index)
	sizes    map[*textIndex]int // the rows each index held when the batch began
	searches []*textSearch      // one per goroutine
}

// aheadWorkers returns how many goroutines a look-ahead uses: 0 when it
// is not worth it.
func aheadWorkers(candidates int) int {
	if n := min(runtime.GOMAXPROCS(0), 8); n > 1 && candidates >= aheadMin {
		return n
	}
	return 0
}

// embedAll makes the bardo-text/v1 vector of each of cs, on workers
// goroutines when there are any: each candidate's by one of them.
func embedAll(cs []*candidate, workers int) {
	if workers == 0 {
		return // made on first use
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := w; j < len(cs); j += workers {
				cs[j].textVector()
			}
		}()
	}
	wg.Wait()
}

// textBest returns candidate i's best text match, ties to the lower row,
// among the rows of the text indexes its group meets, at floor or above.
func (e *engine) textBest(i int, floor float64) match {
	c := e.cands[i]
	best := match{idx: -1}
	if e.workers > 0 {
		if i >= e.ahead.to {
			e.lookAhead(i)
		}
		if j := i - e.ahead.from; e.ahead.searched[j] {
			best = e.ahead.best[j]
			// The rows indexed since the batch began: those of the indexes
			// it saw, past their sizes then, and of the ones made since.
			// The engine's goroutine runs this, so the indexes' own
			// scratch is free.
			for g, ix := range e.text {
				if !meets(c, g) {
					continue
				}
				if n, old := e.ahead.sizes[ix]; !old || n < ix.len() {
					best = better(best, ix.search.bestAfter(ix, c.textVector(), max(floor, best.cos), n))
				}
			}
			return best
		}
	}
	// better is a total order on (cosine, row), so the order in which the
	// groups are visited does not matter.
	for g, ix := range e.text {
		if meets(c, g) && ix.len() > 0 {
			best = better(best, ix.best(c.textVector(), max(floor, best.cos)))
		}
	}
	return best
}

// meets reports whether candidate c is compared with the rows of text
// group g.
func meets(c *candidate, g group) bool {
	return g.pol == c.pol && (c.key == (spaceKey{}) || g.key != c.key)
}

// lookAhead searches the candidates from i on, a batch of them, against
// the text indexes as they stand.
func (e *engine) lookAhead(i int) {
	a := &e.ahead
	a.from, a.to = i, min(i+aheadBatch, len(e.cands))
	a.best = a.best[:0]
	a.searched = a.searched[:0]
	for range a.to - a.from {
		a.best = append(a.best, match{idx: -1})
		a.searched = append(a.searched, false)
	}
	clear(a.sizes)
	if a.sizes == nil {
		a.sizes = make(map[*textIndex]int)
	}
	for _, ix := range e.text {
		a.sizes[ix] = ix.len()
	}
	for len(a.searches) < e.workers {
		a.searches = append(a.searches, new(textSearch))
	}
	var wg sync.WaitGroup
	for w := range e.workers {
		wg.Add(1)
		go func(s *textSearch) {
			defer wg.Done()
			for j := a.from + w; j < a.to; j += e.workers {
				e.searchAhead(s, j)
			}
		}(a.searches[w])
	}
	wg.Wait()
}

// searchAhead is candidate j's part of a look-ahead, with scratch s: it
// reads the engine and the indexes and writes only its own slot.
func (e *engine) searchAhead(s *textSearch, j int) {
	a := &e.ahead
	c := e.cands[j]
	best := e.known(j)
	floor := max(SameAsFrom, best.cos)
	for ix := range a.sizes {
		if !meets(c, ix.group) || ix.len() == 0 {
			continue
		}
		q := c.textVector() // made once, by the first index it meets
		if !ix.readOnly(q) {
			return // searched at its turn
		}
		best = better(best, s.best(ix, q, max(floor, best.cos)))
	}
	a.best[j-a.from], a.searched[j-a.from] = best, true
}

// textWork returns what the engine's text searches have done so far.
func (e *engine) textWork() textWork {
	var w textWork
	add := func(s *textSearch) {
		w.walked += s.work.walked
		w.checked += s.work.checked
		w.compared += s.work.compared
	}
	for _, ix := range e.text {
		add(&ix.search)
	}
	for _, s := range e.ahead.searches {
		add(s)
	}
	return w
}
