package reflection

// The nine category names, keyed as in the bundle and docs/DECISIONS.md#death-reflection.
const (
	NameBuiltToDo     = "built_to_do"
	NameLearned       = "learned"
	NameGotWrong      = "got_wrong"
	NameConfused      = "confused"
	NameSuspect       = "suspect"
	NameTellSuccessor = "tell_successor"
	NameNeverTested   = "never_tested"
	NameFinalPlaybook = "final_playbook"
	NameCausalGraph   = "causal_graph"
)

// Names are the nine category names in order: Names[i] is category i+1.
var Names = [9]string{
	NameBuiltToDo, NameLearned, NameGotWrong, NameConfused, NameSuspect,
	NameTellSuccessor, NameNeverTested, NameFinalPlaybook, NameCausalGraph,
}

// Titles are the headings a person reads, in the seed's words: Titles[i]
// belongs to category i+1.
var Titles = [9]string{
	"What I was built to do",
	"What I actually learned",
	"What I got wrong",
	"What confused me",
	"What I suspect but can't prove",
	"What I'd tell my successor",
	"What I never had time to test",
	"My final playbook",
	"Causal graph",
}

// Index returns the 1-based index of the category called name, or 0 when
// no category has that name.
func Index(name string) int {
	for i, n := range Names {
		if n == name {
			return i + 1
		}
	}
	return 0
}

// Reference kinds.
const (
	RefEntry      = "entry"
	RefHypothesis = "hypothesis"
	RefDocument   = "document"
)

// Ref is a typed reference to what an item draws on: an entry id, a
// hypothesis id, or a document name.
type Ref struct {
	Kind string // RefEntry, RefHypothesis or RefDocument
	ID   string
}

// Vector is an item's embedding, tagged with its space: the export's
// embedding model for a single entry or hypothesis with an embedding,
// textembed.Space otherwise.
type Vector struct {
	Space string
	Data  []float32
}

// Item is one item of the death reflection.
type Item struct {
	Index   int    // 1–9
	Name    string // the category's name, Names[Index-1]
	Text    string // the knowledge itself: a record's content, never wrapped
	Frame   Frame  // why it is here (frame.go); rendered, never part of Text
	Refs    []Ref
	Vector  Vector
	Novelty float64 // left 0 here; the pipeline scores it against the clade
}

// Reflection is the 9-category death reflection: Categories[i] holds the
// items of category i+1, never nil.
type Reflection struct {
	GolemID    string // from the export's header
	Generation int
	Categories [9][]Item

	// AdvisorUsed says category 6 holds the advisor's items. When an
	// advisor was given but its answer was refused, AdvisorError says why
	// and category 6 holds the deterministic advice.
	AdvisorUsed  bool
	AdvisorError string
}

// Items returns the items of the category called name, or nil when no
// category has that name.
func (r *Reflection) Items(name string) []Item {
	i := Index(name)
	if i == 0 {
		return nil
	}
	return r.Categories[i-1]
}

// Len returns the number of items over all nine categories.
func (r *Reflection) Len() int {
	n := 0
	for _, items := range r.Categories {
		n += len(items)
	}
	return n
}
