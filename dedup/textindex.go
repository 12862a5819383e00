package dedup

import (
	"math"
	"slices"

	"github.com/bardo-golem/bardo/textembed"
)

// A bardo-text/v1 vector has a few dozen non-zero buckets of 512, and the
// texts of one Golem share their common words: an inverted index over
// every bucket would make almost every pair of rows a candidate, and dedup
// of text-only rows quadratic. textIndex finds most rows through the
// patterns of groups of buckets (textpattern.go, lemmas 3 and 4), and the
// rest through a prefix of each vector (prefix filtering, as AllPairs and
// PPJoin do for sets), by pairs of buckets where it can; then it checks
// each candidate exactly.
//
// # The prefix bounds
//
// Fix one order of the 512 buckets for the index's life, its rank: by
// ascending document frequency over the rows the engine may index, ties by
// bucket (any fixed order is correct; rare buckets first keep the posting
// lists short). For a vector x with S = Σ x_d² > 0, list its non-zero
// buckets by rank, e_1 … e_m. A prefix of x is e_1 … e_{p−1}, its suffix
// the rest, of mass T_p = Σ_{i≥p} x_{e_i}²; ρ_x is the rank of e_p (∞ when
// the suffix is empty). Let τ be the floor.
//
// Lemma 1. Cut x's prefix P¹ at the first p with T_p < τ²·S (never empty:
// T_1 = S), and y's alike. If cos(x, y) ≥ τ, a bucket is in both
// prefixes. Say ρ_x ≤ ρ_y. A bucket both use with rank below ρ_x is in
// x's prefix, and, its rank below ρ_y, in y's. If there is none, every
// bucket they share is in x's suffix, and by Cauchy–Schwarz
// |x·y| ≤ ‖x_S‖‖y‖ < τ‖x‖‖y‖.
//
// Lemma 2. Cut x's prefix P² at the first p with T_p + max_{i<p} x_{e_i}²
// < τ²·S, when there is one, and y's alike. If cos(x, y) ≥ τ, two buckets
// are in both prefixes. Say ρ_x ≤ ρ_y: as above, the buckets both use with
// rank below ρ_x are in both prefixes. If there is at most one, d, every
// other bucket they share is in x's suffix, and by Cauchy–Schwarz over
// {d} ∪ suffix, |x·y| ≤ √(x_d² + T_p)·‖y‖ < τ‖x‖‖y‖.
//
// Signs do not matter, nor does normalization. A row whose P² exists and
// has at most maxPrefix[2] buckets is of level 2: it is listed under each
// pair of buckets of its P². Every other row is of level 1, listed under
// each bucket of its P¹ (table exactly[1]). Every row is also listed
// under each bucket of its P¹ in a second table (atLeast[1]), for queries
// of level 1. A query of level 2 walks the pairs of its P² (lemma 2 finds
// every row of level 2 at τ or above) and the rows of level 1 under the
// buckets of its P¹ (lemma 1 finds them); a query of level 1 walks every
// row under the buckets of its P¹ (lemma 1). One prefixIndex holds the
// rows outside the pattern index, which every query walks; another, made
// at the first query outside the pattern index, holds every row.
//
// # Exactness
//
// A candidate is first put to the sketch filter (lemma 4 at a split of 32
// groups, textpattern.go: no false negatives, it only skips a row whose
// cosine is certainly below the floor). Its cosine is then computed as
// similarity.Cosine64 computes it: the float64 products of the float32 components, float64(a·b), summed
// in increasing bucket order (Cosine64 adds zero products besides, which
// cannot change a non-zero sum), Σ x² the same way, then
// dot / sqrt(‖a‖²·‖b‖²), clamped. The cosines are the same bits as
// Cosine64's, so the best match at or above the floor is the one a brute
// force over every row finds. The prefixes are cut for τ a little below
// the floor (prefixMargin): the sums that cut them and those of the
// cosine carry rounding errors near 1e-14, and a row whose computed cosine
// reaches the floor has a true cosine above τ, so the lemmas hold for the
// cosines as computed.
type textIndex struct {
	rank  *bucketRank
	tau2  float64 // τ²: prefixes are cut for cosines of at least τ
	floor float64 // the least floor best is asked for
	top   int     // the highest level of the pattern index
	pat   patternTable
	inel  prefixIndex  // the rows outside the pattern index
	all   *prefixIndex // every row, for a query outside the pattern index; nil until the first
	meta  []textRow    // text row → what a query reads of it first
	comps []component  // every text row's components, row after row
	tau   float64

	cutBuf []comp                 // scratch of cut
	hs     [textembed.Dims]uint64 // scratch of groupHashes
	hashes []uint64               // scratch of groupHashes
	search textSearch             // scratch of best
	group  group                  // the engine's group of its rows
}

// prefixIndex lists rows by their prefixes (lemmas 1 and 2).
type prefixIndex struct {
	atLeast [maxLevel + 1]postings // level l: the rows of level l or more, under the l-subsets of their Pˡ
	exactly [maxLevel]postings     // level l < maxLevel: the rows of level l, under the l-subsets of their Pˡ
}

// add lists text row r, of components cs by rank and prefix lengths lens.
func (p *prefixIndex) add(r int32, cs []comp, lens *[maxLevel + 1]int) {
	level := levelOf(lens)
	for l := 1; l <= level; l++ {
		eachKey(cs[:lens[l]], l, 0, func(k uint64) { p.atLeast[l].add(k, r) })
	}
	if level < maxLevel {
		eachKey(cs[:lens[level]], level, 0, func(k uint64) { p.exactly[level].add(k, r) })
	}
}

// walk calls meet with every row listed that a query of components cs and
// prefix lengths lens must meet (some more than once).
func (p *prefixIndex) walk(cs []comp, lens *[maxLevel + 1]int, meet func([]int32)) {
	level := levelOf(lens)
	eachKey(cs[:lens[level]], level, 0, func(k uint64) { meet(p.atLeast[level].get(k)) })
	for l := 1; l < level; l++ {
		eachKey(cs[:lens[l]], l, 0, func(k uint64) { meet(p.exactly[l].get(k)) })
	}
}

// maxLevel is the most prefix buckets a row is listed under together.
const maxLevel = 2

// maxPrefix[l] bounds the buckets of a Pˡ whose l-subsets a row is listed
// under: at most C(24, 2) = 276 pairs. A row whose
// Pˡ is longer is of a lower level. The bounds do not grow with l, so a
// row of level l has a Pᵏ for every k ≤ l (Pᵏ is never longer than Pˡ).
var maxPrefix = [maxLevel + 1]int{1: math.MaxInt, 2: 24}

// postings lists text rows by a key: the ranks of l buckets, ascending,
// nine bits each.
type postings struct {
	at    keyTable
	lists [][]int32
}

func (p *postings) add(key uint64, r int32) {
	l := p.at.index(key, len(p.lists))
	if l == len(p.lists) {
		p.lists = append(p.lists, nil)
	}
	p.lists[l] = append(p.lists[l], r)
}

func (p *postings) get(key uint64) []int32 {
	if l, ok := p.at.find(key); ok {
		return p.lists[l]
	}
	return nil
}

// keyTable maps 64-bit keys to indexes: open addressing with linear
// probing, at most half full. A query looks up a few hundred keys, most
// of them absent, where Go's map costs several times more per lookup.
type keyTable struct {
	keys []uint64 // slot → its key, power-of-two many
	at   []int32  // slot → 1 + its index; 0: an empty slot
	n    int
}

// slot returns the slot of key, or the empty slot where it would go.
func (t *keyTable) slot(key uint64) int {
	mask := len(t.keys) - 1
	i := int(mix64(key)) & mask
	for t.at[i] != 0 && t.keys[i] != key {
		i = (i + 1) & mask
	}
	return i
}

// find returns key's index.
func (t *keyTable) find(key uint64) (int, bool) {
	if t.n == 0 {
		return 0, false
	}
	i := t.slot(key)
	return int(t.at[i]) - 1, t.at[i] != 0
}

// index returns key's index, giving it next when it has none.
func (t *keyTable) index(key uint64, next int) int {
	if 2*(t.n+1) > len(t.keys) {
		old, oldAt := t.keys, t.at
		size := max(64, 2*len(old))
		t.keys, t.at = make([]uint64, size), make([]int32, size)
		for j, at := range oldAt {
			if at != 0 {
				i := t.slot(old[j])
				t.keys[i], t.at[i] = old[j], at
			}
		}
	}
	i := t.slot(key)
	if t.at[i] == 0 {
		t.keys[i], t.at[i] = key, int32(next+1)
		t.n++
	}
	return int(t.at[i]) - 1
}

// eachKey calls f with the key of each l-subset of cs (rank ascending).
func eachKey(cs []comp, l int, key uint64, f func(uint64)) {
	if l == 0 {
		f(key)
		return
	}
	for i := 0; i+l <= len(cs); i++ {
		eachKey(cs[i+1:], l-1, key<<9|uint64(cs[i].rank), f)
	}
}

// extraLists is how many lists beyond the fewest that lemma 4 needs a
// query walks: each one more raises the hits a row needs by one.
const extraLists = 1

// prefixMargin is how far below the floor the prefixes are cut.
const prefixMargin = 1e-9

// sparse is a vector's non-zero components, bucket ascending.
type sparse struct {
	idx []uint16
	val []float32
}

// sumSq returns Σ v², bucket ascending: Cosine64's ‖v‖².
func (s sparse) sumSq() float64 {
	var ss float64
	for _, f := range s.val {
		ss += float64(float64(f) * float64(f))
	}
	return ss
}

// dot returns Σ a·b over the buckets both use, bucket ascending.
func dot(a, b sparse) float64 {
	var d float64
	i, j := 0, 0
	for i < len(a.idx) && j < len(b.idx) {
		switch {
		case a.idx[i] < b.idx[j]:
			i++
		case a.idx[i] > b.idx[j]:
			j++
		default:
			d += float64(float64(a.val[i]) * float64(b.val[j]))
			i++
			j++
		}
	}
	return d
}

// bucketRank is the fixed order of the buckets: rank[k] of bucket k, 0
// first.
type bucketRank [textembed.Dims]uint16

// rankByFrequency orders the buckets by ascending df (document
// frequency), ties by bucket.
func rankByFrequency(df *[textembed.Dims]int) *bucketRank {
	order := make([]int, textembed.Dims)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return df[a] - df[b] })
	r := new(bucketRank)
	for pos, k := range order {
		r[k] = uint16(pos)
	}
	return r
}

// newTextIndex returns an empty index in the bucket order rank, for
// queries whose floor is at least floor (> 0), with a pattern index of
// levels up to top (a power of two, at most maxTop; rounded down).
func newTextIndex(rank *bucketRank, floor float64, top int) *textIndex {
	if !(floor > prefixMargin) {
		panic("dedup: a text index needs a positive floor")
	}
	tau := floor - prefixMargin
	t := 1
	for t*2 <= min(top, maxTop) {
		t *= 2
	}
	return &textIndex{rank: rank, tau: tau, tau2: float64(tau * tau), floor: floor, top: t}
}

// comp is a component's rank and square, as cut sorts them.
type comp struct {
	rank uint16
	sq   float64
}

// cut returns v's components by rank, and the lengths of its prefixes
// (see the type's doc): lens[1] of P¹, lens[l] of Pˡ for each l up to
// the row's level, 0 above it. ss is v's Σ v², which is not 0. The slice
// is scratch, valid until the next call.
func (x *textIndex) cut(v sparse, ss float64) (cs []comp, lens [maxLevel + 1]int) {
	return x.cutInto(&x.cutBuf, v, ss)
}

// cutInto is cut with the scratch buf.
func (x *textIndex) cutInto(buf *[]comp, v sparse, ss float64) (cs []comp, lens [maxLevel + 1]int) {
	cs = (*buf)[:0]
	for k, b := range v.idx {
		c := float64(v.val[k])
		cs = append(cs, comp{x.rank[b], float64(c * c)})
	}
	*buf = cs
	slices.SortFunc(cs, func(a, b comp) int { return int(a.rank) - int(b.rank) })
	limit := float64(x.tau2 * ss)
	// tails[p] is T_{p+1} of the doc, the mass of cs[p:].
	var tailBuf [64]float64
	tails := tailBuf[:0]
	if len(cs)+1 > len(tailBuf) {
		tails = make([]float64, 0, len(cs)+1)
	}
	tails = tails[:len(cs)+1]
	tails[len(cs)] = 0
	for p := len(cs) - 1; p >= 0; p-- {
		tails[p] = tails[p+1] + cs[p].sq
	}
	p1 := len(cs)
	for p1 > 0 && tails[p1-1] < limit {
		p1--
	}
	// P¹ is cs[:p1]: the first p with T < limit, T falling as p grows.
	lens[1] = p1
	for l := 2; l <= maxLevel; l++ {
		// Pˡ is cs[:p] for the first p with T_{p+1} plus the l−1 largest
		// squares of cs[:p] below the limit.
		var top [maxLevel - 1]float64 // descending
		for p := 1; p <= min(len(cs), maxPrefix[l]); p++ {
			sq := cs[p-1].sq
			var most float64
			for j := range l - 1 {
				if sq > top[j] {
					top[j], sq = sq, top[j]
				}
				most += top[j]
			}
			if tails[p]+most < limit {
				lens[l] = p
				break
			}
		}
		if lens[l] == 0 {
			break // Pˡ⁺¹ is no shorter, and maxPrefix no longer
		}
	}
	return cs, lens
}

// levelOf returns the level of a row whose prefixes have lengths lens: the
// most l with a Pˡ.
func levelOf(lens *[maxLevel + 1]int) int {
	l := maxLevel
	for lens[l] == 0 {
		l--
	}
	return l
}

// textRow is what a query reads of a text row before its components:
// one cache line.
type textRow struct {
	sk     sketch  // textpattern.go
	sumSq  float64 // Σ v², bucket ascending: Cosine64's ‖v‖²
	global int32   // its engine row
	start  int32   // its components are comps[start:end]
	end    int32
	class  uint8 // at most maxClass
}

// component is one non-zero bucket of a text row.
type component struct {
	bucket uint16
	val    float32
}

// row returns text row r's vector.
func (x *textIndex) row(r int32) sparse {
	m := &x.meta[r]
	cs := x.comps[m.start:m.end]
	v := sparse{idx: make([]uint16, len(cs)), val: make([]float32, len(cs))}
	for i, c := range cs {
		v.idx[i], v.val[i] = c.bucket, c.val
	}
	return v
}

// add appends the engine row global with text vector v.
func (x *textIndex) add(global int, v sparse) {
	r := int32(len(x.meta))
	ss := v.sumSq()
	sk, _ := sketchOf(v)
	m := textRow{sk: sk, sumSq: ss, global: int32(global), start: int32(len(x.comps)), class: maxClass}
	for i, b := range v.idx {
		x.comps = append(x.comps, component{b, v.val[i]})
	}
	m.end = int32(len(x.comps))
	if ss == 0 {
		x.meta = append(x.meta, m)
		return // cosine 0 with everything: never a match
	}
	k, c := patternLevel(v, ss, x.tau, x.top)
	m.class = uint8(c) // patternClass's, at most maxClass
	x.meta = append(x.meta, m)
	if k > 0 {
		x.hashes = x.pat.add(v, r, k, c, x.top, &x.hs, x.hashes)
	} else {
		cs, lens := x.cut(v, ss)
		x.inel.add(r, cs, &lens)
	}
	if x.all != nil {
		cs, lens := x.cut(v, ss)
		x.all.add(r, cs, &lens)
	}
}

func (x *textIndex) len() int { return len(x.meta) }

// best returns the row with the largest cosine to q among those whose
// cosine is at least floor, ties to the lowest engine row; index −1 when
// there is none.
func (x *textIndex) best(q sparse, floor float64) match { return x.search.best(x, q, floor) }

// cosine is similarity.Cosine64 from its three sums, for finite vectors:
// dot / sqrt(‖a‖²·‖b‖²), clamped to [−1, 1], 0 when either is zero.
func cosine(dot, sa, sb float64) float64 {
	if sa == 0 || sb == 0 {
		return 0
	}
	return min(1, max(-1, dot/math.Sqrt(sa*sb)))
}
