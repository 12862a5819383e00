package dedup

import (
	"hash/maphash"

	"github.com/bardo-golem/bardo/similarity"
)

// The thresholds of docs/DECISIONS.md#dedup: the one place they are
// defined.
const (
	// SkipAbove: a row whose best cosine exceeds it is a sighting.
	SkipAbove = 0.95
	// SameAsFrom: a row whose best cosine is at least this (and at most
	// SkipAbove) is admitted with a same_as candidate.
	SameAsFrom = 0.90
)

// Existing is one row of a store, as dedup sees it. Its model vector is
// either loaded (Vector) or at rest in the store (Ref and Dims, Vector
// nil), where a review searches it through a VectorStore; so is its
// content: loaded (Content), or at rest (Content "", Sum its ContentSum),
// where a review reads it only when the row needs it (see Contents).
type Existing struct {
	ID, Content string
	Space       string    // embedding space of the row's vector; "" when the row has none
	Vector      []float32 // nil when the row has none, or when it is at rest
	Status      string    // active | archived | quarantined
	Polarity    string    // positive (also "") | negative
	Ref         int64     // the vector's handle in the VectorStore when it is at rest; 0 otherwise
	Dims        int       // the length of the vector at rest
	Sum         uint64    // ContentSum of the content when it is at rest; 0 when it is loaded or empty
	// Signer is the key that signed the library deposit that brought the
	// row ("" when unsigned, unknown, or not a library's row): not dedup's
	// to judge, but the rule that keeps signers apart (library.Apart).
	Signer string
}

// contentSeed keys ContentSum: a sum is compared only within one process
// (a review and the store view it reads), never kept.
var contentSeed = maphash.MakeSeed()

// ContentSum returns the sum by which a row whose content is at rest is
// known to a review: a review reads the content of a row whose sum is an
// incoming row's, and compares the texts. Never 0, which is "no content at
// rest".
func ContentSum(content []byte) uint64 {
	return nonZero(maphash.Bytes(contentSeed, content))
}

func contentSum(content string) uint64 {
	return nonZero(maphash.String(contentSeed, content))
}

func nonZero(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

// A VectorStore holds what of Existing rows is at rest — their vectors and
// contents — and searches the vectors where they are, so that a review of
// a large store never loads them (package store's VectorReader).
type VectorStore interface {
	// BestAtLeast returns, for each query of space (space, dims), the
	// vector of polarity among refs (increasing) whose Cosine64 with it is
	// the largest at or above threshold, ties to the lowest row id (its
	// Key), or Ref −1: exactly a similarity.Set's answer over those
	// vectors.
	BestAtLeast(space string, dims int, polarity string, refs []int64, queries [][]float32, threshold float64) ([]similarity.StoredMatch, error)
	// Vector returns the vector whose handle is ref.
	Vector(ref int64) ([]float32, error)
	// Contents returns the contents of the rows of ids, by id. A review
	// reads only the rows it needs the text of: those whose sum is an
	// incoming row's, those holding an incoming id, and those it meets
	// through bardo-text/v1.
	Contents(ids []string) (map[string]string, error)
}

// Incoming is a row offered to a store, as dedup sees it: an inherit's
// rows, and those of the Library of Babel's deposits and equips, meet the
// store's rows through it alike.
type Incoming struct {
	ID, Content string
	Space       string    // embedding space of Vector; "" when the row has none
	Vector      []float32 // nil when the row has none
	Polarity    string    // positive (also "") | negative
}

// What dedup decides for an incoming row.
const (
	VerdictAdmit    = "admit"    // a new row
	VerdictSighting = "sighting" // not admitted: the row Match is the same knowledge
	VerdictSameAs   = "same_as"  // admitted, with a same_as candidate on Match
)

// Verdict is the decision on one incoming row.
type Verdict struct {
	Action string  // VerdictAdmit | VerdictSighting | VerdictSameAs
	Match  string  // the row sighted or resembled: a store row, or an incoming row admitted before; "" for a plain admit
	Cosine float64 // the cosine to Match (float64); 0 for a plain admit
	HeldID bool    // a sighting because Match holds the incoming id, whatever the cosine
}

// ReusedID reports whether v is a sighting only because Match holds the
// incoming id for other content: a cosine that alone would not have made
// it one. Writers warn about these.
func (v Verdict) ReusedID() bool { return v.HeldID && v.Cosine <= SkipAbove }

// Review reviews the incoming rows in order against the store's rows and
// the incoming rows admitted before them (see the package doc): above
// SkipAbove a sighting, from SameAsFrom to SkipAbove admitted with a
// same_as candidate, below admitted; an id already held is a sighting of
// its holder whatever the cosine; rows of different polarity never match.
// It returns one Verdict per incoming row. An error names a vector that
// cannot be compared (a length that disagrees with its space, a
// non-finite component).
func Review(existing []Existing, incoming []Incoming) ([]Verdict, error) {
	return ReviewAt(existing, nil, incoming)
}

// ReviewAt is Review of a store whose rows' vectors may be at rest in vs
// (nil: every vector is loaded).
func ReviewAt(existing []Existing, vs VectorStore, incoming []Incoming) ([]Verdict, error) {
	r, err := NewReviewerAt(existing, vs, incoming)
	if err != nil {
		return nil, err
	}
	out := make([]Verdict, len(incoming))
	for i := range out {
		out[i], _ = r.Next()
	}
	return out, nil
}

// A Reviewer is Review one row at a time, for a caller that reports
// progress or needs to know more of the rows matched.
type Reviewer struct {
	e    *engine
	next int
}

// NewReviewer prepares the review of incoming against existing: it
// compares the incoming rows with the store's and indexes what later rows
// are compared with. Its errors are Review's.
func NewReviewer(existing []Existing, incoming []Incoming) (*Reviewer, error) {
	return NewReviewerAt(existing, nil, incoming)
}

// NewReviewerAt is NewReviewer of a store whose rows' vectors may be at
// rest in vs (nil: every vector is loaded); its errors include vs's.
func NewReviewerAt(existing []Existing, vs VectorStore, incoming []Incoming) (*Reviewer, error) {
	e, err := newEngine(existing, vs, incoming)
	if err != nil {
		return nil, err
	}
	return &Reviewer{e: e}, nil
}

// Next decides the next incoming row, in order, and admits it unless it is
// a sighting, so that later rows are compared with it. status is the
// status of the store row matched; "" when Match is an incoming row or
// there is none. Next panics when every row has been reviewed.
func (r *Reviewer) Next() (v Verdict, status string) {
	i := r.next
	if i >= len(r.e.cands) {
		panic("dedup: Next after the last incoming row")
	}
	r.next++
	e := r.e
	d := e.decide(i)
	v = Verdict{Action: VerdictAdmit}
	switch {
	case d.sight:
		v = Verdict{Action: VerdictSighting, Match: e.id(d.m.idx), Cosine: d.m.cos, HeldID: d.held}
	case d.similar:
		v = Verdict{Action: VerdictSameAs, Match: e.id(d.m.idx), Cosine: d.m.cos}
	}
	if d.m.idx >= 0 {
		status = e.status(d.m.idx)
	}
	if !d.sight {
		e.admit(i)
	}
	return v, status
}

// decision is what dedup decides for candidate i.
type decision struct {
	m       match // the row matched; idx −1 for a plain admit
	sight   bool  // not admitted: a sighting of m
	held    bool  // a sighting because m holds the candidate's id
	similar bool  // admitted with a same_as candidate on m
}

// decide applies the dedup thresholds to candidate i's best match: the one
// place they are applied.
func (e *engine) decide(i int) decision {
	if r, ok := e.held(e.cands[i].id); ok {
		return decision{m: match{r, e.pairCosine(i, r)}, sight: true, held: true}
	}
	best := e.best(i)
	switch {
	case best.idx >= 0 && best.cos > SkipAbove:
		return decision{m: best, sight: true}
	case best.idx >= 0 && best.cos >= SameAsFrom:
		return decision{m: best, similar: true}
	}
	return decision{m: match{idx: -1}}
}
