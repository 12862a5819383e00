package library

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// Condition is one of a living Golem's current conditions: a text, with a
// model vector when it has one.
type Condition struct {
	Kind   string    // ConditionText | ConditionEpisode | ConditionEntry
	ID     string    // the episode's or entry's id; "" for a text
	Text   string    // what is compared through bardo-text/v1
	Space  string    // the model space of Vector; "" when it has none
	Vector []float32 // nil when it has none
}

// Kinds of Condition.
const (
	ConditionVector  = "vector" // a query vector, compared in its model space only
	ConditionText    = "text"
	ConditionEpisode = "episode"
	ConditionEntry   = "entry"
)

// Reasons a record is a recall candidate.
const (
	ReasonDeathDeposit         = "death_deposit"         // deposited in a library by death
	ReasonBloodstainProvenance = "bloodstain_provenance" // equipped from a death deposit: it carries the bloodstain weights, though no bloodstain flag
	ReasonBloodstain           = "bloodstain"            // flagged is_bloodstain
	ReasonDeathReflection      = "death_reflection"      // provenance death_reflection
)

// Reasons says why a record is a recall candidate, in a fixed order; none
// when it is not one. Quarantined records never are.
func Reasons(e *grimoire.Entry) []string {
	if e.Status == grimoire.StatusQuarantined {
		return nil
	}
	var out []string
	switch {
	case e.Store != nil && e.Store.Channel == ChannelDeath:
		out = append(out, ReasonDeathDeposit)
	case BloodstainProvenance(e) && !e.IsBloodstain:
		out = append(out, ReasonBloodstainProvenance)
	}
	if e.IsBloodstain {
		out = append(out, ReasonBloodstain)
	}
	if e.Provenance == grimoire.ProvenanceDeathReflection {
		out = append(out, ReasonDeathReflection)
	}
	return out
}

// RecallWeight is the retrieval weight recall ranks a candidate by: its
// own, and at least the bloodstain boost 1.2.
func RecallWeight(e *grimoire.Entry) float64 {
	return max(RetrievalWeight(e), BloodstainRetrievalWeight)
}

// Hit is a record recall surfaces.
type Hit struct {
	Rank            int // from 1
	Record          *Record
	Reasons         []string
	Condition       int     // index of the condition that matched best
	Cosine          float64 // > RecallAbove, float64
	Compared        string  // the space the cosine was taken in: a model space, or bardo-text/v1
	RetrievalWeight float64
	EffectiveWeight float64 // at now
	Score           float64 // Cosine × RetrievalWeight × EffectiveWeight
}

// Recall returns the recall candidates among recs whose cosine to one of
// the conditions exceeds above (RecallAbove, 0.8, unless the caller asks
// for another), ranked by score descending, ties by id bytewise. A record
// and a condition are compared by their model vectors when both have one
// in the same space, else by bardo-text/v1 of their texts. The best
// condition is kept for each record, ties to the earlier. An error names
// a vector that cannot be compared, or an above outside [0, 1).
func Recall(conds []Condition, recs []Record, now time.Time, above float64) ([]Hit, error) {
	if !(above >= 0 && above < 1) {
		return nil, fmt.Errorf("a recall threshold of %v is outside [0, 1)", above)
	}
	type best struct {
		cond     int
		cos      float64
		compared string
	}
	var cands []int
	for i := range recs {
		if len(Reasons(&recs[i].Entry)) > 0 {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 || len(conds) == 0 {
		return nil, nil
	}
	// One set per model space, and one of every candidate's text when a
	// condition has text: a bare vector meets only the vectors of its
	// space, and bardo-text/v1 of every record (2 KiB a vector) would cost
	// a large store more than its model vectors.
	type space struct {
		name string
		dims int
	}
	models := map[space]*similarity.SetBuilder{}
	modelRows := map[space][]int{} // set index → recs index
	inModel := make(map[int]space, len(cands))
	for _, i := range cands {
		r := &recs[i]
		if sp := (space{r.EmbeddingModel, len(r.Entry.Embedding)}); modelSpace(sp.name, r.Entry.Embedding) {
			b := models[sp]
			if b == nil {
				b = similarity.NewSet(sp.name, sp.dims)
				models[sp] = b
			}
			// recs outlive the search: the set holds their vectors.
			if _, err := b.AddShared(r.Entry.Embedding); err != nil {
				return nil, fmt.Errorf("entry %q: %w", r.Entry.ID, err)
			}
			modelRows[sp] = append(modelRows[sp], i)
			inModel[i] = sp
		}
	}
	sets := make(map[space]*similarity.Set, len(models))
	for sp, b := range models {
		sets[sp] = b.Build()
	}
	found := map[int]best{}
	consider := func(i, ci int, cos float64, compared string) {
		if cos <= above {
			return
		}
		if b, ok := found[i]; !ok || cos > b.cos {
			found[i] = best{ci, cos, compared}
		}
	}
	// Each set is searched once for all the conditions compared in it (a
	// batch threshold search), then the matches are considered condition
	// by condition, model space before text, as one search each would.
	modelQueries := map[space][][]float32{}
	modelAt := make([]int, len(conds)) // the condition's query in its space's batch; −1: none
	textAt := make([]int, len(conds))
	var textQueries [][]float32
	for ci := range conds {
		c := &conds[ci]
		sp := space{c.Space, len(c.Vector)}
		modelAt[ci], textAt[ci] = -1, -1
		if set := sets[sp]; modelSpace(c.Space, c.Vector) && set != nil {
			if err := checkFinite(c.Vector); err != nil {
				return nil, fmt.Errorf("condition %d (%s %q): %w", ci+1, c.Kind, c.ID, err)
			}
			modelAt[ci] = len(modelQueries[sp])
			modelQueries[sp] = append(modelQueries[sp], c.Vector)
		}
		if c.Kind != ConditionVector { // a bare vector has no text to compare
			textAt[ci] = len(textQueries)
			textQueries = append(textQueries, textembed.Embed(c.Text))
		}
	}
	modelMatches := make(map[space][][]similarity.Match, len(modelQueries))
	for sp, qs := range modelQueries {
		modelMatches[sp] = sets[sp].WithinEach(qs, above)
	}
	var textMatches [][]similarity.Match
	if len(textQueries) > 0 {
		text := similarity.NewSet(textembed.Space, textembed.Dims)
		for _, i := range cands {
			if _, err := text.AddShared(textembed.Embed(recs[i].Entry.Content)); err != nil {
				return nil, fmt.Errorf("entry %q: %w", recs[i].Entry.ID, err)
			}
		}
		textMatches = text.Build().WithinEach(textQueries, above)
	}
	for ci := range conds {
		c := &conds[ci]
		sp := space{c.Space, len(c.Vector)}
		hasModel := modelSpace(c.Space, c.Vector)
		if q := modelAt[ci]; q >= 0 {
			for _, m := range modelMatches[sp][q] {
				consider(modelRows[sp][m.Index], ci, m.Cos, sp.name)
			}
		}
		if textAt[ci] < 0 {
			continue
		}
		for _, m := range textMatches[textAt[ci]] {
			i := cands[m.Index]
			if s, ok := inModel[i]; hasModel && ok && s == sp {
				continue // compared in their common model space
			}
			consider(i, ci, m.Cos, textembed.Space)
		}
	}
	hits := make([]Hit, 0, len(found))
	for i, b := range found {
		hits = append(hits, hitOf(&recs[i], b.cond, b.cos, b.compared, now))
	}
	return ranked(hits), nil
}

// hitOf is the hit of candidate r, matched by condition cond at cosine
// cos in space compared.
func hitOf(r *Record, cond int, cos float64, compared string, now time.Time) Hit {
	e := &r.Entry
	h := Hit{Record: r, Reasons: Reasons(e), Condition: cond, Cosine: cos, Compared: compared,
		RetrievalWeight: RecallWeight(e), EffectiveWeight: EffectiveWeight(e, now)}
	h.Score = h.Cosine * h.RetrievalWeight * h.EffectiveWeight
	return h
}

// ranked sorts hits by score descending, ties by id bytewise, and numbers
// them.
func ranked(hits []Hit) []Hit {
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Record.Entry.ID, b.Record.Entry.ID))
	})
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits
}

// A VectorSearch finds, in a store's vectors at rest, those of a space
// whose Cosine64 with a query is at least a threshold (package store's
// VectorReader): Key is the record's id.
type VectorSearch interface {
	Within(space string, dims int, queries [][]float32, threshold float64) ([][]similarity.StoredMatch, error)
}

// RecallVector is Recall of one vector condition in a store whose vectors
// are at rest: vs finds the vectors of the condition's space above the
// threshold, and load reads just those records (by id, increasing), so
// that the cost follows the hits, not the store. Its hits are Recall's.
func RecallVector(c Condition, vs VectorSearch, load func(ids []string) ([]Record, error), now time.Time, above float64) ([]Hit, error) {
	if !(above >= 0 && above < 1) {
		return nil, fmt.Errorf("a recall threshold of %v is outside [0, 1)", above)
	}
	if c.Kind != ConditionVector || !modelSpace(c.Space, c.Vector) {
		return nil, fmt.Errorf("RecallVector takes a vector condition with a model space")
	}
	if err := checkFinite(c.Vector); err != nil {
		return nil, fmt.Errorf("condition 1 (%s %q): %w", c.Kind, c.ID, err)
	}
	ms, err := vs.Within(c.Space, len(c.Vector), [][]float32{c.Vector}, above)
	if err != nil {
		return nil, err
	}
	cos := map[string]float64{}
	var ids []string
	for _, m := range ms[0] {
		if m.Cos > above {
			ids = append(ids, m.Key)
			cos[m.Key] = m.Cos
		}
	}
	recs, err := load(ids)
	if err != nil {
		return nil, err
	}
	var hits []Hit
	for i := range recs {
		r := &recs[i]
		if len(Reasons(&r.Entry)) == 0 {
			continue
		}
		hits = append(hits, hitOf(r, 0, cos[r.Entry.ID], c.Space, now))
	}
	return ranked(hits), nil
}

// IsCandidateSpace reports whether a record's vector of the named space
// can meet a recall condition: a model space, not bardo-text/v1.
func IsCandidateSpace(space string) bool { return space != "" && space != textembed.Space }

// ErrNoSpace is wrapped by VectorSpace's errors: a query vector that no
// candidate's space can take.
var ErrNoSpace = errors.New("no space to compare the query vector in")

// VectorSpace is the model space a query vector of dims components is
// compared in: want when given (it must be the space of some candidate's
// vector of that length), else the one space whose candidates have
// vectors of that length. An error says which spaces there are.
func VectorSpace(recs []Record, dims int, want string) (string, error) {
	seen := map[string]bool{}
	var spaces []string
	for i := range recs {
		r := &recs[i]
		if len(Reasons(&r.Entry)) == 0 || !modelSpace(r.EmbeddingModel, r.Entry.Embedding) || len(r.Entry.Embedding) != dims {
			continue
		}
		if !seen[r.EmbeddingModel] {
			seen[r.EmbeddingModel] = true
			spaces = append(spaces, r.EmbeddingModel)
		}
	}
	return ChooseSpace(spaces, dims, want)
}

// ChooseSpace is VectorSpace's choice among spaces, the model spaces in
// which some recall candidate has a vector of dims components.
func ChooseSpace(spaces []string, dims int, want string) (string, error) {
	spaces = slices.Compact(slices.Sorted(slices.Values(spaces)))
	seen := map[string]bool{}
	for _, s := range spaces {
		seen[s] = true
	}
	switch {
	case want != "" && seen[want]:
		return want, nil
	case want != "":
		return "", fmt.Errorf("%w: no recall candidate has a vector of %d dims in space %q (spaces with %d dims: %s)", ErrNoSpace, dims, want, dims, orNone(spaces))
	case len(spaces) == 1:
		return spaces[0], nil
	case len(spaces) == 0:
		return "", fmt.Errorf("%w: no recall candidate has a vector of %d dims", ErrNoSpace, dims)
	}
	return "", fmt.Errorf("%w: recall candidates have vectors of %d dims in %d spaces (%s): name one with --space", ErrNoSpace, dims, len(spaces), strings.Join(spaces, ", "))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// modelSpace reports whether a vector is a model vector: one of a named
// space other than bardo-text/v1 (text is always embedded afresh).
func modelSpace(space string, v []float32) bool {
	return len(v) > 0 && IsCandidateSpace(space)
}

// checkFinite refuses a query with a NaN or infinite component, whose
// cosines are undefined (the kernel would return nothing for it).
func checkFinite(v []float32) error {
	for k, x := range v {
		if x != x || x-x != 0 {
			return fmt.Errorf("component %d is %v, not a finite number", k, x)
		}
	}
	return nil
}

// Death names the death a recalled record bears witness to.
type Death struct {
	GolemID    string
	Generation int
	Bundle     string // the digest of the bundle (or export) the record came in; "" when unknown
	Via        string // the activity that brought it: deposit, inherit, equip, ...
}

// DeathOf names the death behind a record: for a deposited row the
// depositing Golem, its generation and the deposit's source; for a row an
// inherit brought, the predecessor and its bundle; otherwise (an equipped
// row, one of the Golem's own) the Golem and generation that earned its
// confidence and the bundle it came in.
func DeathOf(r *Record) Death {
	o := r.Origin
	switch {
	case r.Deposit != nil:
		return Death{GolemID: r.Deposit.GolemID, Generation: r.Deposit.Generation, Bundle: o.Digest, Via: o.Kind}
	case o.Kind == "inherit" && o.Generation != nil:
		return Death{GolemID: o.GolemID, Generation: *o.Generation, Bundle: o.Digest, Via: o.Kind}
	}
	d := Death{Via: o.Kind}
	if s := r.Entry.Source; s != nil {
		d.GolemID, d.Generation = s.GolemID, s.Generation
	}
	if st := r.Entry.Store; st != nil {
		d.Bundle = st.Bundle
	}
	return d
}
