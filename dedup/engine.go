package dedup

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// spaceKey names a model embedding space: vectors are compared only within
// one. The zero key is "no model vector": such a row meets others through
// bardo-text/v1 of its content.
type spaceKey struct {
	space string
	dims  int
}

// modelKey returns the key of a vector of the named space, or the zero key
// when there is no vector or it is bardo-text/v1 (text comparisons always
// embed the content).
func modelKey(space string, v []float32) spaceKey {
	if len(v) == 0 || space == "" || space == textembed.Space {
		return spaceKey{}
	}
	return spaceKey{space, len(v)}
}

// existingKey returns the key of a store row's vector, loaded or at rest.
func existingKey(x *Existing) spaceKey {
	if x.Vector == nil && x.Ref != 0 && x.Dims > 0 && x.Space != "" && x.Space != textembed.Space {
		return spaceKey{x.Space, x.Dims}
	}
	return modelKey(x.Space, x.Vector)
}

// candidate is one incoming row under review.
type candidate struct {
	id, content, pol string
	key              spaceKey  // model space of vec
	vec              []float32 // model vector; nil when none
	text             *sparse   // bardo-text/v1 of the content, made on first use
}

func (c *candidate) textVector() sparse {
	if c.text == nil {
		v := sparseText(c.content)
		c.text = &v
	}
	return *c.text
}

// sparseText returns bardo-text/v1 of content, its non-zero components
// only: a row holds a few dozen of 512.
func sparseText(content string) sparse {
	idx, val := textembed.EmbedSparse(content)
	return sparse{idx, val}
}

// match is an engine row and its cosine to a candidate; idx −1 is none.
type match struct {
	idx int
	cos float64
}

// better returns whichever of a and b has the larger cosine, ties to the
// lower row: the store's rows in id order come first, then the admitted
// rows in the order they were admitted.
func better(a, b match) match {
	switch {
	case b.idx < 0:
		return a
	case a.idx < 0, b.cos > a.cos, b.cos == a.cos && b.idx < a.idx:
		return b
	}
	return a
}

// group is the set of rows a candidate may be a duplicate of through one
// kind of comparison: a model space (or none) and a polarity.
type group struct {
	key spaceKey
	pol string
}

// engine finds, for each candidate, the row it most resembles among the
// store's rows and the rows admitted before it. Its rows are numbered: the
// store's in id order, then the admitted ones as they are admitted.
type engine struct {
	// The store's rows, engine rows 0 … len(store)−1 in id order, are the
	// caller's, read in place: a row of a large store costs the engine no
	// copy. What a review reads of them from rest is beside them.
	store   []Existing
	order   []int             // engine row → index in store; nil when store is in id order
	fetched map[int]string    // contents read from rest
	loaded  map[int][]float32 // vectors read from rest (loadHeld)
	adm     []admitted        // engine rows len(store) …: the rows admitted, in order
	vs      VectorStore
	byID    map[string]int
	exact   map[string]int // polarity "\x00" content → lowest row

	cands        []*candidate
	existingBest []match              // per candidate: the best store row of its model group, if at least SameAsFrom
	plan         map[group]*planSet   // per model group: every candidate of it
	planPos      []int                // candidate → its index in its planSet
	text         map[group]*textIndex // rows met through bardo-text/v1
	rank         *bucketRank          // the text indexes' bucket order
	textTop      int                  // the text indexes' top level: the highest of the candidates'
	queries      map[group]bool       // the groups of the candidates
	needText     map[group]bool       // cache of needsText
	workers      int                  // goroutines of a look-ahead (ahead.go); 0: none
	ahead        lookAhead
}

// admitted is a row the review admitted.
type admitted struct {
	id, content string
	key         spaceKey
	vec         []float32
}

// planSet holds the model vectors of the candidates of one group, so that
// a candidate can be compared with those admitted before it.
type planSet struct {
	set      *similarity.Set
	rows     []int // set index → engine row; −1 while not admitted
	admitted int
}

func newEngine(existing []Existing, vs VectorStore, incoming []Incoming) (*engine, error) {
	cands := make([]*candidate, len(incoming))
	for i := range incoming {
		in := &incoming[i]
		c := &candidate{id: in.ID, content: in.Content, pol: grimoire.EffectivePolarity(in.Polarity)}
		if c.key = modelKey(in.Space, in.Vector); c.key != (spaceKey{}) {
			c.vec = in.Vector
		}
		cands[i] = c
	}
	e := &engine{
		byID:     make(map[string]int, len(cands)),
		exact:    make(map[string]int, len(cands)),
		cands:    cands,
		plan:     make(map[group]*planSet),
		planPos:  make([]int, len(cands)),
		text:     make(map[group]*textIndex),
		queries:  make(map[group]bool),
		needText: make(map[group]bool),
		vs:       vs,
		store:    existing,
		fetched:  map[int]string{},
		loaded:   map[int][]float32{},
	}
	// What a store row can be to a candidate besides a vector's match: the
	// holder of its id, or the same content. Only such rows are indexed by
	// id and content, so the indexes grow with the candidates, not with
	// the store.
	candIDs := make(map[string]bool, len(cands))
	candContents := make(map[string]bool, len(cands))
	candSums := make(map[uint64]bool, len(cands))
	for _, c := range cands {
		e.queries[group{c.key, c.pol}] = true
		candIDs[c.id] = true
		if c.content != "" {
			candContents[c.content] = true
			candSums[contentSum(c.content)] = true
		}
	}
	// The store's rows in id order (a store view comes sorted: no order to
	// keep then).
	if !slices.IsSortedFunc(existing, func(a, b Existing) int { return strings.Compare(a.ID, b.ID) }) {
		e.order = make([]int, len(existing))
		for i := range e.order {
			e.order[i] = i
		}
		slices.SortStableFunc(e.order, func(a, b int) int { return strings.Compare(existing[a].ID, existing[b].ID) })
	}
	members := make(map[group][]int) // model group → store rows
	type textRow struct {
		r int
		g group
		v sparse
	}
	type atRest struct {
		r   int
		pol string
	}
	var texts []textRow        // store rows met through bardo-text/v1
	var fetch []atRest         // store rows whose content at rest the review reads
	var df [textembed.Dims]int // of the rows the text indexes may hold
	count := func(v sparse) {
		for _, k := range v.idx {
			df[k]++
		}
	}
	for r := range existing {
		x := e.stored(r)
		key := existingKey(x)
		pol := grimoire.EffectivePolarity(x.Polarity)
		if x.Vector == nil && key != (spaceKey{}) && vs == nil {
			return nil, fmt.Errorf("store entry %q: its vector is at rest and the review was given no store to search", x.ID)
		}
		if key != (spaceKey{}) {
			g := group{key, pol}
			members[g] = append(members[g], r)
		}
		read := false // its content at rest is needed
		if candIDs[x.ID] {
			e.indexID(r, x.ID)
			read = true
		}
		if x.Content != "" && candContents[x.Content] {
			e.indexContent(r, x.Content, pol)
		}
		if x.Content == "" && x.Sum != 0 && candSums[x.Sum] {
			read = true
		}
		if g := (group{key, pol}); e.needsText(g) {
			texts = append(texts, textRow{r: r, g: g})
			read = true
		}
		if read && x.Content == "" && x.Sum != 0 {
			fetch = append(fetch, atRest{r, pol})
		}
	}
	if len(fetch) > 0 {
		if vs == nil {
			return nil, fmt.Errorf("store entry %q: its content is at rest and the review was given no store to read", e.id(fetch[0].r))
		}
		ids := make([]string, len(fetch))
		for k, f := range fetch {
			ids[k] = e.id(f.r)
		}
		got, err := vs.Contents(ids)
		if err != nil {
			return nil, err
		}
		for _, f := range fetch {
			c, ok := got[e.id(f.r)]
			if !ok {
				return nil, fmt.Errorf("store entry %q: the store did not return its content", e.id(f.r))
			}
			e.fetched[f.r] = c
			if c != "" && candContents[c] {
				e.indexContent(f.r, c, f.pol)
			}
		}
	}
	for k := range texts {
		texts[k].v = sparseText(e.content(texts[k].r))
		count(texts[k].v)
	}
	e.textTop = 1
	var texting []*candidate
	for _, c := range cands {
		if e.needsText(group{c.key, c.pol}) {
			texting = append(texting, c)
		}
	}
	e.workers = aheadWorkers(len(texting))
	embedAll(texting, e.workers)
	for _, c := range texting {
		v := c.textVector()
		count(v)
		if ss := v.sumSq(); ss != 0 {
			k, _ := patternLevel(v, ss, SameAsFrom-prefixMargin, maxTop)
			e.textTop = max(e.textTop, k)
		}
	}
	// One bucket order for every text index, fixed before the first row.
	e.rank = rankByFrequency(&df)
	for _, t := range texts {
		e.addText(t.r, t.g, t.v)
	}
	if err := e.searchExisting(members); err != nil {
		return nil, err
	}
	if err := e.loadHeld(); err != nil {
		return nil, err
	}
	if err := e.buildPlanSets(); err != nil {
		return nil, err
	}
	return e, nil
}

// addRow appends an admitted row, indexed by its id and content, and
// returns its number.
func (e *engine) addRow(id, content string, key spaceKey, vec []float32, pol string) int {
	r := len(e.store) + len(e.adm)
	e.adm = append(e.adm, admitted{id, content, key, vec})
	e.indexID(r, id)
	if content != "" {
		e.indexContent(r, content, pol)
	}
	return r
}

// stored returns store row r (r < len(e.store)).
func (e *engine) stored(r int) *Existing {
	if e.order != nil {
		return &e.store[e.order[r]]
	}
	return &e.store[r]
}

func (e *engine) id(r int) string {
	if r < len(e.store) {
		return e.stored(r).ID
	}
	return e.adm[r-len(e.store)].id
}

// content returns row r's content, "" for a store row's at rest that the
// review did not read.
func (e *engine) content(r int) string {
	if r < len(e.store) {
		if x := e.stored(r); x.Content != "" {
			return x.Content
		}
		return e.fetched[r]
	}
	return e.adm[r-len(e.store)].content
}

func (e *engine) key(r int) spaceKey {
	if r < len(e.store) {
		return existingKey(e.stored(r))
	}
	return e.adm[r-len(e.store)].key
}

// vec returns row r's model vector: nil for a store row's at rest that
// the review did not read.
func (e *engine) vec(r int) []float32 {
	if r < len(e.store) {
		if x := e.stored(r); x.Vector != nil {
			return x.Vector
		}
		return e.loaded[r]
	}
	return e.adm[r-len(e.store)].vec
}

// status returns a store row's status; "" for an admitted row.
func (e *engine) status(r int) string {
	if r < len(e.store) {
		return e.stored(r).Status
	}
	return ""
}

// indexID makes row r the holder of id, unless a lower row holds it.
func (e *engine) indexID(r int, id string) {
	if old, dup := e.byID[id]; !dup || r < old {
		e.byID[id] = r
	}
}

// indexContent makes row r the row of its (non-empty) content and
// polarity, unless a lower row has them.
func (e *engine) indexContent(r int, content, pol string) {
	k := pol + "\x00" + content
	if old, dup := e.exact[k]; !dup || r < old {
		e.exact[k] = r
	}
}

// needsText reports whether rows of group g must be met through
// bardo-text/v1: some candidate of the same polarity has no model vector,
// or one of another space.
func (e *engine) needsText(g group) bool {
	need, ok := e.needText[g]
	if !ok {
		for q := range e.queries {
			if q.pol == g.pol && (q.key == (spaceKey{}) || q.key != g.key) {
				need = true
				break
			}
		}
		e.needText[g] = need
	}
	return need
}

// addText indexes row r of group g by its bardo-text/v1 vector text.
func (e *engine) addText(r int, g group, text sparse) {
	ix := e.text[g]
	if ix == nil {
		ix = newTextIndex(e.rank, SameAsFrom, e.textTop)
		ix.group = g
		e.text[g] = ix
	}
	ix.add(r, text)
}

// searchExisting finds each candidate's best store row of its model group,
// all candidates of a group at once.
func (e *engine) searchExisting(members map[group][]int) error {
	e.existingBest = make([]match, len(e.cands))
	byGroup := make(map[group][]int)
	for i, c := range e.cands {
		e.existingBest[i] = match{idx: -1}
		if c.key != (spaceKey{}) {
			g := group{c.key, c.pol}
			byGroup[g] = append(byGroup[g], i)
		}
	}
	for g, cis := range byGroup {
		rows := members[g]
		if len(rows) == 0 {
			continue
		}
		queries := make([][]float32, len(cis))
		for k, i := range cis {
			queries[k] = e.cands[i].vec
		}
		// The loaded vectors in a Set, the store's own (not a copy: the
		// caller holds them anyway); those at rest searched where they
		// are. Only a match at SameAsFrom or above decides anything (see
		// decide): the threshold search skips the maxima below it.
		b := similarity.NewSet(g.key.space, g.key.dims)
		var loaded []int
		var atRest []int // rows whose vectors are at rest, by ref
		for _, r := range rows {
			v := e.vec(r)
			if v == nil {
				atRest = append(atRest, r)
				continue
			}
			if _, err := b.AddShared(v); err != nil {
				return fmt.Errorf("store entry %q: %w", e.id(r), err)
			}
			loaded = append(loaded, r)
		}
		if len(loaded) > 0 {
			for k, m := range b.Build().BestAtLeast(queries, SameAsFrom) {
				if m.Index >= 0 {
					e.existingBest[cis[k]] = match{loaded[m.Index], m.Cos}
				}
			}
		}
		if len(atRest) == 0 {
			continue
		}
		slices.SortFunc(atRest, func(a, b int) int { return cmp.Compare(e.stored(a).Ref, e.stored(b).Ref) })
		refs := make([]int64, len(atRest))
		for k, r := range atRest {
			refs[k] = e.stored(r).Ref
		}
		found, err := e.vs.BestAtLeast(g.key.space, g.key.dims, g.pol, refs, queries, SameAsFrom)
		if err != nil {
			return err
		}
		for k, m := range found {
			if m.Ref < 0 {
				continue
			}
			j, ok := slices.BinarySearch(refs, m.Ref)
			r := -1
			if ok {
				r = atRest[j]
			}
			if !ok || e.id(r) != m.Key {
				return fmt.Errorf("the store's search returned vector %d (%q), which is not a row of the review", m.Ref, m.Key)
			}
			// Rows are numbered in id order: the lowest row of a tie is
			// the lowest id, as the store breaks ties.
			e.existingBest[cis[k]] = better(e.existingBest[cis[k]], match{r, m.Cos})
		}
	}
	return nil
}

// loadHeld reads the vectors at rest of the store rows that hold an
// incoming id, which a review compares with the incoming row (pairCosine).
func (e *engine) loadHeld() error {
	for _, c := range e.cands {
		r, ok := e.byID[c.id]
		if !ok || r >= len(e.store) || c.key == (spaceKey{}) || c.key != e.key(r) || e.vec(r) != nil {
			continue
		}
		v, err := e.vs.Vector(e.stored(r).Ref)
		if err != nil {
			return fmt.Errorf("store entry %q: %w", e.id(r), err)
		}
		e.loaded[r] = v
	}
	return nil
}

// buildPlanSets puts the model vectors of each group's candidates in a
// Set, in review order.
func (e *engine) buildPlanSets() error {
	builders := make(map[group]*similarity.SetBuilder)
	for i, c := range e.cands {
		if c.key == (spaceKey{}) {
			continue
		}
		g := group{c.key, c.pol}
		b := builders[g]
		if b == nil {
			b = similarity.NewSet(g.key.space, g.key.dims)
			builders[g] = b
		}
		pos, err := b.Add(c.vec)
		if err != nil {
			return fmt.Errorf("incoming entry %q: %w", c.id, err)
		}
		e.planPos[i] = pos
	}
	for g, b := range builders {
		ps := &planSet{set: b.Build()}
		ps.rows = make([]int, ps.set.Len())
		for k := range ps.rows {
			ps.rows[k] = -1
		}
		e.plan[g] = ps
	}
	return nil
}

// held returns the row holding id, if any.
func (e *engine) held(id string) (int, bool) {
	r, ok := e.byID[id]
	return r, ok
}

// best returns the row candidate i most resembles (idx −1: none). Only
// matches at SameAsFrom or above are searched for: decide ignores the
// others.
func (e *engine) best(i int) match {
	c := e.cands[i]
	best := e.known(i)
	if c.key != (spaceKey{}) {
		if ps := e.plan[group{c.key, c.pol}]; ps != nil && ps.admitted > 0 {
			for _, m := range ps.set.Within(c.vec, SameAsFrom) {
				if r := ps.rows[m.Index]; r >= 0 {
					best = better(best, match{r, m.Cos})
				}
			}
		}
	}
	return better(best, e.textBest(i, max(SameAsFrom, best.cos)))
}

// known returns what candidate i is known to match before a search: the
// row of its content, and its best store row of its model group.
func (e *engine) known(i int) match {
	c := e.cands[i]
	best := match{idx: -1}
	if c.content != "" {
		if r, ok := e.exact[c.pol+"\x00"+c.content]; ok {
			best = match{r, 1}
		}
	}
	if c.key != (spaceKey{}) {
		best = better(best, e.existingBest[i])
	}
	return best
}

// admit makes candidate i a row that later candidates are compared with.
func (e *engine) admit(i int) {
	c := e.cands[i]
	r := e.addRow(c.id, c.content, c.key, c.vec, c.pol)
	g := group{c.key, c.pol}
	if ps := e.plan[g]; ps != nil && c.key != (spaceKey{}) {
		ps.rows[e.planPos[i]] = r
		ps.admitted++
	}
	if e.needsText(g) {
		e.addText(r, g, c.textVector())
	}
}

// pairCosine compares candidate i with row r as dedup does, whatever their
// polarities: for an id that both hold.
func (e *engine) pairCosine(i, r int) float64 {
	c := e.cands[i]
	var cos float64
	switch {
	case c.content != "" && c.content == e.content(r):
		return 1
	case c.key != (spaceKey{}) && c.key == e.key(r):
		cos = similarity.Cosine64(c.vec, e.vec(r))
	default:
		// Cosine64's bits from the non-zero components (textindex.go).
		a, b := c.textVector(), sparseText(e.content(r))
		cos = cosine(dot(a, b), a.sumSq(), b.sumSq())
	}
	if math.IsNaN(cos) { // a store row with a non-finite vector
		return 0
	}
	return cos
}
