package dedup

import (
	"math"
	"math/bits"
	"slices"

	"github.com/bardo-golem/bardo/textembed"
)

// textSearch is the scratch of a search of a textIndex: one per goroutine
// that searches it, the index itself unchanged while they do (readOnly).
type textSearch struct {
	mark   []uint32 // per text row, the stamp of the last pass that met it, plus its hits (hitMask)
	stamp  uint32
	dense  [textembed.Dims]float64 // the query, dense
	tight  [maxClass + 1]uint8     // its tightening's classes
	touch  []int32                 // the rows hit at one level
	cutBuf []comp                  // scratch of cut
	hs     [textembed.Dims]uint64  // scratch of groupHashes
	lists  [][]int32               // the query's lists at one level and class
	qkeys  [levelSlots][]uint64    // the query's keys by level, in no table (tableKey)
	// the query's entries by table and level, looked up
	// when a pass first needs them (bit table·levelSlots + level of has)
	qentries [tableExactly + 1][levelSlots][]patternEntry
	has      uint32
	work     textWork
}

// textWork counts what searches did: the measure of TestTextWorkPerRow.
type textWork struct {
	walked   int // list entries walked
	checked  int // rows put to the sketch filter
	compared int // cosines computed
}

// readOnly reports whether a search for q leaves x as it is: it does
// unless q is the first query outside the pattern index, which builds the
// index of every row's prefixes.
func (x *textIndex) readOnly(q sparse) bool {
	if x.all != nil {
		return true
	}
	ss := q.sumSq()
	if ss == 0 {
		return true
	}
	k, _ := patternLevel(q, ss, x.tau, x.top)
	return k > 0
}

// best returns the row with the largest cosine to q among those whose
// cosine is at least floor, ties to the lowest engine row; index −1 when
// there is none.
func (s *textSearch) best(x *textIndex, q sparse, floor float64) match {
	if floor < x.floor {
		panic("dedup: a text index asked below its floor")
	}
	best := match{idx: -1}
	if n := len(x.meta); len(s.mark) < n {
		s.mark = append(s.mark, make([]uint32, n-len(s.mark))...)
	}
	sq := q.sumSq()
	if sq == 0 {
		return best // cosine 0 with everything
	}
	qsk, qn := sketchOf(q)
	k, _ := patternLevel(q, sq, x.tau, x.top)
	defer s.load(q)()
	// Only a row at least as close as the best so far can change the
	// answer: the classes shrink as the best rises (tighten).
	t := s.tightening(x, q, sq, floor)
	check := func(r int32) {
		s.work.checked++
		m := &x.meta[r]
		if sketchCannot(&qsk, qn, max(t.query, int(t.class[m.class])), m) {
			return
		}
		s.work.compared++
		if cos := cosine(s.dotDense(x, m), sq, m.sumSq); cos >= floor {
			if best = better(best, match{int(m.global), cos}); cos > floor {
				floor = cos
				t = s.tightening(x, q, sq, floor)
			}
		}
	}
	stamp := s.nextStamp()
	meet := func(list []int32) {
		s.work.walked += len(list)
		for _, r := range list {
			if s.mark[r] != stamp {
				s.mark[r] = stamp
				check(r)
			}
		}
	}
	if k == 0 {
		// Outside the pattern index: every row through its prefixes.
		if x.all == nil {
			x.all = new(prefixIndex)
			for r := range x.meta {
				if ss := x.meta[r].sumSq; ss != 0 {
					cs, lens := x.cutInto(&s.cutBuf, x.row(int32(r)), ss)
					x.all.add(int32(r), cs, &lens)
				}
			}
		}
		cs, lens := x.cutInto(&s.cutBuf, q, sq)
		x.all.walk(cs, &lens, meet)
		return best
	}
	// Lemma 4: a row of class g meets the query only if they share at
	// least m = n − max(c, g) + 1 of the query's n keys at a level, so at
	// least s − p + 1 of any s of them, p = n − m + 1: a pass walks the s
	// shortest lists and compares the rows found often enough. A row is
	// of one class and met at one level, so each pass marks afresh.
	//
	// Rows of class g are met at level w_g or coarser in the first table
	// and at each finer level in the second, where w_g is the query's
	// level or, when lemma 4 asks for one key in common there (p = n, so
	// every row found would be compared), the first finer level where it
	// asks for more: each row sits in the first table at every level from
	// its own to the top.
	s.queryLevels(x, q, k)
	var classes uint32
	for l := k; l <= x.top; l *= 2 {
		classes |= x.pat.classes[tableAtOrBelow][levelSlot(l)] | x.pat.classes[tableExactly][levelSlot(l)]
	}
	for ; classes != 0; classes &= classes - 1 {
		g := bits.TrailingZeros32(classes)
		w := k
		for w < x.top && max(t.query, int(t.class[g])) >= len(s.qkeys[levelSlot(w)]) {
			w *= 2
		}
		s.pass(x, w, tableAtOrBelow, g, &t, meet, check)
		for l := 2 * w; l <= x.top; l *= 2 {
			s.pass(x, l, tableExactly, g, &t, meet, check)
		}
	}
	cs, lens := x.cutInto(&s.cutBuf, q, sq)
	x.inel.walk(cs, &lens, meet)
	return best
}

// queryLevels computes the query's keys at each level from k to the top,
// in s.qkeys.
func (s *textSearch) queryLevels(x *textIndex, q sparse, k int) {
	for l := k; l <= x.top; l *= 2 {
		s.qkeys[levelSlot(l)] = groupHashes(q, l, 0, &s.hs, s.qkeys[levelSlot(l)][:0])
	}
	s.has = 0
}

// pass meets the rows of class g listed in table at level l (lemma 4, in
// best): through meet when every row found must be compared, else
// through check, for the rows found in enough of the walked lists.
func (s *textSearch) pass(x *textIndex, l, table, g int, t *tightening, meet func([]int32), check func(int32)) {
	if x.pat.classes[table][levelSlot(l)]&(1<<g) == 0 {
		return
	}
	entries := s.qentries[table][levelSlot(l)]
	if bit := uint32(1) << (table*levelSlots + levelSlot(l)); s.has&bit == 0 {
		s.has |= bit
		entries = entries[:0]
		for _, h := range s.qkeys[levelSlot(l)] {
			entries = append(entries, x.pat.entry(tableKey(h, table)))
		}
		s.qentries[table][levelSlot(l)] = entries
	}
	n := len(entries)
	lists := s.lists[:0]
	for _, e := range entries {
		lists = append(lists, e.rows(g))
	}
	s.lists = lists
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	p := min(n, max(t.query, int(t.class[g])))
	walk := min(n, p+extraLists)
	if walk == p { // one key in common is all lemma 4 asks
		for _, list := range lists {
			meet(list)
		}
		return
	}
	stamp := s.nextStamp()
	need := stamp + uint32(walk-p+1)
	s.touch = s.touch[:0]
	for _, list := range lists[:walk] {
		s.work.walked += len(list)
		for _, r := range list {
			m := s.mark[r]
			if m&^hitMask != stamp {
				m = stamp
				s.touch = append(s.touch, r)
			}
			s.mark[r] = m + 1
		}
	}
	for _, r := range s.touch {
		if s.mark[r] >= need {
			check(r)
		}
	}
}

// tightening is the classes of lemma 4 at a floor above the index's.
type tightening struct {
	query int                  // the query's class
	class *[maxClass + 1]uint8 // a row's class at the index's τ → at the floor
}

// sameClasses is the tightening of a floor that is the index's.
var sameClasses = func() (t [maxClass + 1]uint8) {
	for g := range t {
		t[g] = uint8(g)
	}
	return t
}()

// tightening returns the classes for cosines of at least floor: the
// query's from its weights, and a row's from its class at the index's τ.
// A row of class g has 2(1 − τ)·w·(1 + classMargin) ≤ g, so at τ′ ≥ τ its
// class is at most ⌈g·(1 − τ′)/(1 − τ)⌉ (computed from above), and
// maxClass stays maxClass: it stands for every class from there up.
func (s *textSearch) tightening(x *textIndex, q sparse, sq, floor float64) tightening {
	tau := max(x.tau, floor-prefixMargin)
	if tau == x.tau {
		return tightening{query: patternClass(q, sq, x.tau), class: &sameClasses}
	}
	ratio := float64(1-tau) / float64(1-x.tau) * (1 + classMargin)
	for g := range maxClass {
		s.tight[g] = uint8(max(1, int(math.Ceil(float64(g)*ratio))))
	}
	s.tight[maxClass] = maxClass
	return tightening{query: patternClass(q, sq, tau), class: &s.tight}
}

// hitMask is the low bits of a mark: the keys a row shares with the
// query in one pass (at most maxTop). The high bits are the pass's stamp.
const hitMask = 1<<5 - 1

// nextStamp returns the stamp of a new pass over the rows: no row's mark
// holds it.
func (s *textSearch) nextStamp() uint32 {
	s.stamp += hitMask + 1
	if s.stamp == 0 { // wrapped: forget every mark
		clear(s.mark)
		s.stamp = hitMask + 1
	}
	return s.stamp
}

// dotDense returns the dot product of the query held in s.dense with the
// text row of m: Σ q·v over the row's buckets, bucket ascending. The
// query's zeros add zero products, which cannot change the sum's bits
// (see dot).
func (s *textSearch) dotDense(x *textIndex, m *textRow) float64 {
	var d float64
	for _, c := range x.comps[m.start:m.end] {
		d += float64(s.dense[c.bucket] * float64(c.val))
	}
	return d
}

// bestAfter is best over text rows from and after: by comparing each with q
// (lemma 4 on the sketches, then exactly), for the few rows indexed since a
// look-ahead began (ahead.go).
func (s *textSearch) bestAfter(x *textIndex, q sparse, floor float64, from int) match {
	best := match{idx: -1}
	sq := q.sumSq()
	if sq == 0 || from >= len(x.meta) {
		return best
	}
	qsk, qn := sketchOf(q)
	qc := patternClass(q, sq, x.tau)
	defer s.load(q)()
	for r := from; r < len(x.meta); r++ {
		m := &x.meta[r]
		if sketchCannot(&qsk, qn, max(qc, int(m.class)), m) {
			continue
		}
		if cos := cosine(s.dotDense(x, m), sq, m.sumSq); cos >= floor {
			best = better(best, match{int(m.global), cos})
		}
	}
	return best
}

// load puts q in s.dense and returns what takes it out again.
func (s *textSearch) load(q sparse) (unload func()) {
	for i, b := range q.idx {
		s.dense[b] = float64(q.val[i])
	}
	return func() {
		for _, b := range q.idx {
			s.dense[b] = 0
		}
	}
}

// sketchCannot reports whether lemma 4 on the sketches rules out the row
// of m for a query of sketch qsk over qn groups, c the larger of the two
// classes: the row shares fewer groups than qn − c + 1.
func sketchCannot(qsk *sketch, qn, c int, m *textRow) bool {
	need := qn - c + 1
	return need > 0 && sketchShared(qsk, &m.sk) < need
}
