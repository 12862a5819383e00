package bundle

// Format is the value of Header.Format for bundles this package writes.
const Format = "bardo.bundle/v1"

// Kinds of bundle.
const (
	// KindDeath is a germline bundle: what a dying Golem passes on.
	KindDeath = "death"
	// KindSnapshot is an insurance snapshot: a living Golem's degraded
	// backup, whose body is a SnapshotBody (snapshot.go).
	KindSnapshot = "snapshot"
	// KindClade is a clade push: the germline candidates a dying Golem
	// shares with its siblings at its phase's sharing threshold. Its body
	// is a Body with entries, PLAYBOOK.md and the causal graph among them
	// only (legacy.go).
	KindClade = "clade"
	// KindListing is a marketplace listing: the dying Golem's most novel
	// death-reflection items, whose body is a ListingBody (legacy.go).
	KindListing = "listing"
)

// Reference kinds.
const (
	RefEntry      = "entry"
	RefHypothesis = "hypothesis"
	RefDocument   = "document"
)

// Embedding encodings (header.embedding.encoding; f16.go, embedding.go).
const (
	// EncodingF32LE is raw little-endian IEEE 754 float32: dims × 4 bytes.
	EncodingF32LE = "f32le"
	// EncodingF16LE is little-endian IEEE 754 binary16, rounded to nearest
	// (ties to even) from float32: dims × 2 bytes, widened exactly.
	EncodingF16LE = "f16le"
)

// Bundle is a whole bundle file: the header and body that the digest
// covers, and an optional signature outside it.
//
// A bundle holds one body, chosen by Header.Kind: Body, the germline, for
// KindDeath and KindClade; Snapshot for KindSnapshot; Listing for
// KindListing. Each is written under the key "body" (see container.go);
// those the kind does not use are empty — Body is its zero value in a
// snapshot or a listing, Snapshot and Listing are nil in a death or clade
// bundle — and Encode refuses a bundle that sets another.
type Bundle struct {
	Header    Header        `cbor:"header"`
	Body      Body          `cbor:"body"` // KindDeath
	Snapshot  *SnapshotBody `cbor:"body"` // KindSnapshot
	Listing   *ListingBody  `cbor:"body"` // KindListing
	Signature *Signature    `cbor:"signature,omitempty"`
}

// Header describes a bundle. Every field is inside the digest.
type Header struct {
	Format     string     `cbor:"format"`
	Kind       string     `cbor:"kind"`
	GolemID    string     `cbor:"golem_id"`
	Generation int        `cbor:"generation"`
	LineageID  string     `cbor:"lineage_id,omitempty"`
	Parents    []string   `cbor:"parents,omitempty"`  // digests, "sha256:<hex>"
	Ancestry   []Ancestor `cbor:"ancestry,omitempty"` // the line back to generation 0, parent first (ancestry.go)
	ExportedAt string     `cbor:"exported_at"`        // RFC 3339, UTC, from the export header
	Tick       *int64     `cbor:"tick,omitempty"`
	Phase      string     `cbor:"phase,omitempty"`
	Death      *Death     `cbor:"death,omitempty"`
	Embedding  *Embedding `cbor:"embedding,omitempty"`
	Bottleneck Bottleneck `cbor:"bottleneck"`
	Counts     Counts     `cbor:"counts"`
	Advisor    *Advisor   `cbor:"advisor,omitempty"`
	Share      *Share     `cbor:"share,omitempty"` // KindClade only
}

// Death says how and when the Golem died.
type Death struct {
	Cause string `cbor:"cause"`
	At    string `cbor:"at"` // RFC 3339, UTC
	Tick  int64  `cbor:"tick"`
}

// Embedding names the space of the entries' vectors.
type Embedding struct {
	Model    string `cbor:"model"`
	Dims     int    `cbor:"dims"`
	Encoding string `cbor:"encoding"` // EncodingF32LE or EncodingF16LE
}

// Bottleneck records the genomic bottleneck's parameters.
type Bottleneck struct {
	MaxEntries int    `cbor:"max_entries"`
	Now        string `cbor:"now"` // RFC 3339: the reference time of the decay
}

// Counts says how much is inside the bundle and how much was left out.
type Counts struct {
	Entries         int `cbor:"entries"`          // entries in the body
	Candidates      int `cbor:"candidates"`       // entries that competed in the bottleneck
	SomaEntries     int `cbor:"soma_entries"`     // entries that died with the Golem (not selected, or not candidates)
	CausalEdges     int `cbor:"causal_edges"`     // edges in the body
	EdgesLeftOut    int `cbor:"edges_left_out"`   // edges with an end outside the bundle
	Episodes        int `cbor:"episodes"`         // episodes read (soma: never inside)
	ReflectionItems int `cbor:"reflection_items"` // items over all nine categories
	ToxicEntries    int `cbor:"toxic_entries"`
	LeftOut         int `cbor:"left_out"` // references declared left out
}

// Advisor records the external command that wrote reflection category 6, or
// why its output was not used.
type Advisor struct {
	Command string `cbor:"command"`
	Used    bool   `cbor:"used"`
	Reason  string `cbor:"reason,omitempty"`
}

// Body is the germline of a death bundle. The Weismann barrier is
// structural: no type reachable from Body has a field for episodes, the
// decision cache, emotional tags, parent episode ids, the owner's address,
// metrics, fitness points, or documents other than PLAYBOOK.md (and
// STRATEGY.md, only as reflection category 1).
type Body struct {
	Entries     []Entry     `cbor:"entries"`
	Playbook    *Document   `cbor:"playbook,omitempty"`
	CausalGraph []Edge      `cbor:"causal_graph"`
	Reflection  *Reflection `cbor:"reflection,omitempty"`
	Autopsy     *Autopsy    `cbor:"autopsy,omitempty"`
	LeftOut     []Ref       `cbor:"left_out,omitempty"`
}

// Entry is a germline Grimoire entry, in bottleneck rank order.
type Entry struct {
	ID                    string   `cbor:"id"`
	Category              string   `cbor:"category"`
	Content               string   `cbor:"content"`
	Embedding             []byte   `cbor:"embedding,omitempty"` // Dims × 4 bytes (f32le) or × 2 (f16le): header.embedding.encoding
	Confidence            float64  `cbor:"confidence"`
	ConfidenceAtCreation  float64  `cbor:"confidence_at_creation"`
	QualityScore          float64  `cbor:"quality_score"`
	ValidatedCount        int64    `cbor:"validated_count,omitempty"`
	ContradictedCount     int64    `cbor:"contradicted_count,omitempty"`
	DecayClass            string   `cbor:"decay_class"`
	MarketRegime          string   `cbor:"market_regime,omitempty"`
	Domain                string   `cbor:"domain"`
	Tags                  []string `cbor:"tags,omitempty"`
	CreatedAt             string   `cbor:"created_at,omitempty"`
	LastAccessedAt        string   `cbor:"last_accessed_at"`
	ValidFrom             string   `cbor:"valid_from,omitempty"`
	ValidUntil            string   `cbor:"valid_until,omitempty"`
	Strength              int64    `cbor:"strength"`
	Provenance            string   `cbor:"provenance"`
	Source                Source   `cbor:"source"`
	IsBloodstain          bool     `cbor:"is_bloodstain,omitempty"`
	Polarity              string   `cbor:"polarity"`
	Status                string   `cbor:"status"`
	RequiresInvestigation bool     `cbor:"requires_investigation,omitempty"`
	Score                 float64  `cbor:"score"` // bottleneck rank score
	Decay                 float64  `cbor:"decay"` // temporal decay at Bottleneck.Now
}

// Source says where an entry's confidence was last earned.
type Source struct {
	GolemID    string  `cbor:"golem_id"`
	Generation int     `cbor:"generation"`
	Confidence float64 `cbor:"confidence"`
}

// Document is a named text with its digest.
type Document struct {
	Name   string `cbor:"name"`
	Text   string `cbor:"text"`
	Digest string `cbor:"digest"` // "sha256:<hex>" of Text's UTF-8 bytes
}

// Edge is one edge of the germline causal graph: both ends are entries of
// the bundle. Sorted by (source, target), bytewise.
type Edge struct {
	SourceID  string  `cbor:"source_id"`
	TargetID  string  `cbor:"target_id"`
	Weight    float64 `cbor:"weight"`
	Evidence  int64   `cbor:"evidence,omitempty"`
	Lag       *int64  `cbor:"lag,omitempty"`
	Mechanism string  `cbor:"mechanism,omitempty"`
}

// Ref is a typed reference to something a reflection item or an autopsy
// entry draws on.
type Ref struct {
	Kind string `cbor:"kind"` // RefEntry, RefHypothesis, RefDocument
	ID   string `cbor:"id"`
}

// Vector is an embedding tagged with its space.
type Vector struct {
	Space string `cbor:"space"` // model name, or "bardo-text/v1"
	Dims  int    `cbor:"dims"`
	Data  []byte `cbor:"data"` // Dims × 4 bytes, f32le
}

// Reflection is the 9-category death reflection, keyed by name.
type Reflection struct {
	BuiltToDo     []Item `cbor:"built_to_do"`
	Learned       []Item `cbor:"learned"`
	GotWrong      []Item `cbor:"got_wrong"`
	Confused      []Item `cbor:"confused"`
	Suspect       []Item `cbor:"suspect"`
	TellSuccessor []Item `cbor:"tell_successor"`
	NeverTested   []Item `cbor:"never_tested"`
	FinalPlaybook []Item `cbor:"final_playbook"`
	CausalGraph   []Item `cbor:"causal_graph"`
}

// Item is one item of the death reflection.
type Item struct {
	Index   int     `cbor:"index"`           // 1–9
	Name    string  `cbor:"name"`            // the category's name
	Text    string  `cbor:"text"`            // the knowledge itself: a record's content, never wrapped
	Frame   *Frame  `cbor:"frame,omitempty"` // why the item is here; absent when nothing is said
	Refs    []Ref   `cbor:"refs,omitempty"`
	Vector  *Vector `cbor:"vector,omitempty"`
	Novelty float64 `cbor:"novelty"`
}

// Frame is an item's framing as fields: why the reflection put it in its
// category. It is never part of the item's text, so that an entry born of
// the item carries the knowledge and nothing bardo said about it. Readers
// render it as a lead ("Suspected at 0.25: …"). Every key is omitted at its
// default; a frame with nothing to say is absent.
type Frame struct {
	Confidence           *float64 `cbor:"confidence,omitempty"`             // learned, suspect: the entry's confidence
	ConfidenceAtCreation *float64 `cbor:"confidence_at_creation,omitempty"` // got_wrong
	Loss                 bool     `cbor:"loss,omitempty"`                   // got_wrong: remembered as a loss
	Negative             bool     `cbor:"negative,omitempty"`               // got_wrong: negative polarity
	OpenQuestion         bool     `cbor:"open_question,omitempty"`          // confused: requires investigation
	Contested            bool     `cbor:"contested,omitempty"`              // confused: contradicted ≥ 1 and ≥ validated
	Validated            int64    `cbor:"validated,omitempty"`              // with contested
	Contradicted         int64    `cbor:"contradicted,omitempty"`           // with contested
	Recommendation       string   `cbor:"recommendation,omitempty"`         // the autopsy's verdict
	Contribution         *float64 `cbor:"contribution,omitempty"`           // with recommendation
	Reason               string   `cbor:"reason,omitempty"`                 // with recommendation
	Origin               string   `cbor:"origin,omitempty"`                 // never_tested: the hypothesis's origin
	Reborn               bool     `cbor:"reborn,omitempty"`                 // the entry was born of an earlier reflection item or autopsy marker
}

// Autopsy is the epistemic autopsy: which entries drove the failed
// predictions.
type Autopsy struct {
	Clocks                     []string     `cbor:"clocks,omitempty"` // death clocks that fired: "staleness", "senescence", "forced"
	WindowStartTick            int64        `cbor:"window_start_tick"`
	WindowEndTick              int64        `cbor:"window_end_tick"`
	Known                      int          `cbor:"known"`
	Correct                    int          `cbor:"correct"`
	Accuracy                   *float64     `cbor:"accuracy,omitempty"`
	Fitness                    *float64     `cbor:"fitness,omitempty"`
	SenescenceThreshold        float64      `cbor:"senescence_threshold"`
	ToxicEntries               []ToxicEntry `cbor:"toxic_entries"`
	UnrecordedToxic            int          `cbor:"unrecorded_toxic,omitempty"` // toxic by usage, but no entry record: no text to pass on
	FailureRegime              string       `cbor:"failure_regime,omitempty"`
	LastValidRegime            string       `cbor:"last_valid_regime,omitempty"`
	RegimeTransitionHypothesis string       `cbor:"regime_transition_hypothesis,omitempty"`
}

// Recommendations for a toxic entry.
const (
	RecommendDiscard       = "discard"
	RecommendInvert        = "invert"
	RecommendReinvestigate = "reinvestigate"
)

// ToxicEntry is an entry the autopsy found driving failed predictions.
type ToxicEntry struct {
	Entry                 Ref     `cbor:"entry"`
	Content               string  `cbor:"content"` // the entry's text: it may not pass the bottleneck
	ContributionToFailure float64 `cbor:"contribution_to_failure"`
	ConfidenceAtFailure   float64 `cbor:"confidence_at_failure"`
	Recommendation        string  `cbor:"recommendation"`
	FailureRate           float64 `cbor:"failure_rate"` // failures / uses in the window
	Uses                  int     `cbor:"uses"`
	Failures              int     `cbor:"failures"`
	DecayClass            string  `cbor:"decay_class,omitempty"`
	Domain                string  `cbor:"domain,omitempty"`
	Reason                string  `cbor:"reason,omitempty"`
}

// Signature signs a bundle's digest; it is outside the digest.
type Signature struct {
	Algorithm string `cbor:"alg"` // "ed25519"
	PublicKey []byte `cbor:"public_key"`
	Sig       []byte `cbor:"sig"`
}
