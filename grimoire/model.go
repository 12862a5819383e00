package grimoire

import (
	"time"
)

// Format is the value of the header's "format" field that this package reads
// and writes.
const Format = "bardo.grimoire-export/v1"

// DefaultTickSeconds is the wall-clock length of one tick when the header
// does not say.
const DefaultTickSeconds = 40

// DefaultSenescenceThreshold is the epistemic fitness below which the
// epistemic death clock fires, when the header does not say.
const DefaultSenescenceThreshold = 0.35

// Record is one parsed, validated line of an export other than the header:
// *Entry, *Episode, *CausalEdge, *Document, *Hypothesis, *DecisionCache,
// *Metric or *Fitness.
type Record interface {
	// RecordType is the record's "type" value, e.g. "entry".
	RecordType() string
}

// Record type names, as written in the "type" field.
const (
	TypeHeader        = "header"
	TypeEntry         = "entry"
	TypeEpisode       = "episode"
	TypeCausalEdge    = "causal_edge"
	TypeDocument      = "document"
	TypeHypothesis    = "hypothesis"
	TypeDecisionCache = "decision_cache"
	TypeMetric        = "metric"
	TypeFitness       = "fitness"
)

// Header is the first record of every export.
type Header struct {
	Type                string          `json:"type"`
	Format              string          `json:"format"`
	GolemID             string          `json:"golem_id"`
	Generation          int             `json:"generation"`
	LineageID           string          `json:"lineage_id,omitempty"`
	OwnerAddress        string          `json:"owner_address,omitempty"`
	ExportedAt          time.Time       `json:"exported_at"`
	Tick                *int64          `json:"tick,omitempty"`
	TickSeconds         *float64        `json:"tick_seconds,omitempty"`
	Phase               string          `json:"phase,omitempty"`
	Death               *Death          `json:"death,omitempty"`
	Embedding           *EmbeddingSpace `json:"embedding,omitempty"`
	ParentBundle        string          `json:"parent_bundle,omitempty"`
	Credits             *Credits        `json:"credits,omitempty"`
	EpistemicFitness    *float64        `json:"epistemic_fitness,omitempty"`
	SenescenceThreshold *float64        `json:"senescence_threshold,omitempty"`
	Store               *HeaderStore    `json:"store,omitempty"` // bardo's extension (HeaderStore)
}

// HeaderStore is what a bardo store records of its line, written by
// bardo export --store in the header's "store" object and read back by
// bardo: an extension of bardo.grimoire-export/v1, as the entry's "store"
// object is. A Golem runtime omits it; a reader that does not know it
// skips it as an unknown field.
type HeaderStore struct {
	// Ancestry is the line the store descends from, nearest first: the
	// bundle it was created from (the header's parent_bundle), then that
	// bundle's own ancestry, back to generation 0, at most MaxAncestry.
	Ancestry []Ancestor `json:"ancestry,omitempty"`
}

// MaxAncestry is the most ancestors a header's store.ancestry names, as
// a bundle's header.ancestry (bundle.MaxAncestry).
const MaxAncestry = 1024

// Ancestor is one bundle of the line: its digest, Golem and generation.
type Ancestor struct {
	Digest     string `json:"digest"` // "sha256:<hex>" of the bundle's header and body
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
}

// Death says how and when a Golem died.
type Death struct {
	Cause string    `json:"cause"`
	At    time.Time `json:"at"`
	Tick  int64     `json:"tick"`
}

// Death causes.
var DeathCauses = []string{"credit_exhaustion", "epistemic_senescence", "staleness", "stochastic", "owner_kill", "vm_failure"}

// Phases are the behavioral phases a header may name.
var Phases = []string{"thriving", "stable", "conservation", "declining", "terminal"}

// EmbeddingSpace names the model that produced the export's embeddings and
// their length. Vectors are compared only within one space.
type EmbeddingSpace struct {
	Model string `json:"model"`
	Dims  int    `json:"dims"`
}

// Credits is the Golem's credit state.
type Credits struct {
	RemainingUSDC    float64 `json:"remaining_usdc"`
	InitialUSDC      float64 `json:"initial_usdc"`
	DeathReserveUSDC float64 `json:"death_reserve_usdc"`
}

// Entry categories.
const (
	CategoryInsight          = "insight"
	CategoryHeuristic        = "heuristic"
	CategoryWarning          = "warning"
	CategoryCausalLink       = "causal_link"
	CategoryStrategyFragment = "strategy_fragment"
	CategoryAntiKnowledge    = "anti_knowledge"
	CategoryDreamJournal     = "dream_journal"
)

// Categories lists every entry category, in the spec's order.
var Categories = []string{CategoryInsight, CategoryHeuristic, CategoryWarning, CategoryCausalLink, CategoryStrategyFragment, CategoryAntiKnowledge, CategoryDreamJournal}

// Decay classes.
const (
	DecayStructural        = "structural"
	DecayRegimeConditional = "regime_conditional"
	DecayTactical          = "tactical"
	DecayEphemeral         = "ephemeral"
	DecayProcedural        = "procedural"
)

// DecayClasses lists every decay class.
var DecayClasses = []string{DecayStructural, DecayRegimeConditional, DecayTactical, DecayEphemeral, DecayProcedural}

// Market regimes.
var Regimes = []string{"bull", "bear", "sideways", "high_vol", "low_vol", "crisis"}

// Provenances.
const (
	ProvenanceSelfLearned     = "self_learned"
	ProvenanceClade           = "clade"
	ProvenancePredecessor     = "predecessor"
	ProvenanceStyxQuery       = "styx_query"
	ProvenanceLethe           = "lethe"
	ProvenanceMarketplace     = "marketplace"
	ProvenanceReplicant       = "replicant"
	ProvenanceDeathReflection = "death_reflection"
	ProvenanceDream           = "dream"
)

// Provenances lists every provenance.
var Provenances = []string{ProvenanceSelfLearned, ProvenanceClade, ProvenancePredecessor, ProvenanceStyxQuery, ProvenanceLethe, ProvenanceMarketplace, ProvenanceReplicant, ProvenanceDeathReflection, ProvenanceDream}

// Entry statuses.
const (
	StatusActive      = "active"
	StatusArchived    = "archived"
	StatusQuarantined = "quarantined"
)

// Polarities.
const (
	PolarityPositive = "positive"
	PolarityNegative = "negative"
)

// EffectivePolarity returns the polarity p names: "" (a record that
// leaves it out) is positive.
func EffectivePolarity(p string) string {
	if p == "" {
		return PolarityPositive
	}
	return p
}

// Entry is one Grimoire entry: the semantic memory. After the reader has
// validated an entry, every defaulted field holds its default
// (ConfidenceAtCreation, Domain, Strength, Provenance, Source, Polarity,
// Status), so stages never re-apply defaults.
type Entry struct {
	Type                  string        `json:"type"`
	ID                    string        `json:"id"`
	Category              string        `json:"category"`
	Content               string        `json:"content"`
	Embedding             Vector        `json:"embedding,omitempty"`
	Confidence            float64       `json:"confidence"`
	ConfidenceAtCreation  *float64      `json:"confidence_at_creation,omitempty"`
	QualityScore          float64       `json:"quality_score"`
	ValidatedCount        int64         `json:"validated_count,omitempty"`
	ContradictedCount     int64         `json:"contradicted_count,omitempty"`
	DecayClass            string        `json:"decay_class"`
	MarketRegime          string        `json:"market_regime,omitempty"`
	Domain                string        `json:"domain,omitempty"`
	Tags                  []string      `json:"tags,omitempty"`
	CreatedAt             *time.Time    `json:"created_at,omitempty"`
	LastAccessedAt        time.Time     `json:"last_accessed_at"`
	ValidFrom             *time.Time    `json:"valid_from,omitempty"`
	ValidUntil            *time.Time    `json:"valid_until,omitempty"`
	Strength              int64         `json:"strength,omitempty"`
	Provenance            string        `json:"provenance,omitempty"`
	Source                *Source       `json:"source,omitempty"`
	ParentEpisodeIDs      []string      `json:"parent_episode_ids,omitempty"`
	EmotionalTag          *EmotionalTag `json:"emotional_tag,omitempty"`
	IsBloodstain          bool          `json:"is_bloodstain,omitempty"`
	Polarity              string        `json:"polarity,omitempty"`
	Status                string        `json:"status,omitempty"`
	RequiresInvestigation bool          `json:"requires_investigation,omitempty"`
	Store                 *StoreState   `json:"store,omitempty"`
}

// RecordType implements Record.
func (*Entry) RecordType() string { return TypeEntry }

// Source says where an entry's confidence was last earned.
type Source struct {
	GolemID    string  `json:"golem_id"`
	Generation int     `json:"generation"`
	Confidence float64 `json:"confidence"`
}

// EmotionalTag is soma: it never crosses into a germline bundle.
type EmotionalTag struct {
	Primary   string  `json:"primary,omitempty"`
	Pleasure  float64 `json:"pleasure"`
	Arousal   float64 `json:"arousal"`
	Dominance float64 `json:"dominance"`
}

// StoreState is the state a bardo store keeps about an entry; a Golem
// runtime omits it.
type StoreState struct {
	ArrivalConfidence   *float64 `json:"arrival_confidence,omitempty"`
	Channel             string   `json:"channel,omitempty"`
	Bundle              string   `json:"bundle,omitempty"`
	MemoryStrength      *float64 `json:"memory_strength,omitempty"`
	RetrievalWeight     *float64 `json:"retrieval_weight,omitempty"`
	DemurrageWeight     *float64 `json:"demurrage_weight,omitempty"`
	ToxicRecommendation string   `json:"toxic_recommendation,omitempty"`
	ReviewFlags         []string `json:"review_flags,omitempty"`
}

// Episode is raw experience: soma, it never leaves in a death bundle.
type Episode struct {
	Type         string        `json:"type"`
	ID           string        `json:"id"`
	Tick         int64         `json:"tick"`
	At           time.Time     `json:"at"`
	Regime       string        `json:"regime,omitempty"`
	State        string        `json:"state,omitempty"`
	Summary      string        `json:"summary,omitempty"`
	Action       string        `json:"action,omitempty"`
	Outcome      string        `json:"outcome,omitempty"`
	PnLUSDC      *float64      `json:"pnl_usdc,omitempty"`
	Prediction   *Prediction   `json:"prediction,omitempty"`
	UsedEntryIDs []string      `json:"used_entry_ids,omitempty"`
	EmotionalTag *EmotionalTag `json:"emotional_tag,omitempty"`
}

// RecordType implements Record.
func (*Episode) RecordType() string { return TypeEpisode }

// Prediction is what an episode predicted; Correct is nil while unknown.
type Prediction struct {
	Statement string `json:"statement,omitempty"`
	Correct   *bool  `json:"correct"`
}

// CausalEdge is one edge of the causal graph: germline when both ends are.
type CausalEdge struct {
	Type      string  `json:"type"`
	SourceID  string  `json:"source_id"`
	TargetID  string  `json:"target_id"`
	Weight    float64 `json:"weight"`
	Evidence  int64   `json:"evidence,omitempty"`
	Lag       *int64  `json:"lag,omitempty"`
	Mechanism string  `json:"mechanism,omitempty"`
}

// RecordType implements Record.
func (*CausalEdge) RecordType() string { return TypeCausalEdge }

// Document names.
const (
	DocPlaybook = "PLAYBOOK.md"
	DocStrategy = "STRATEGY.md"
)

// Document is a named text: PLAYBOOK.md is germline, STRATEGY.md feeds
// reflection category 1, others are soma.
type Document struct {
	Type string `json:"type"`
	Name string `json:"name"`
	Text string `json:"text"`
}

// RecordType implements Record.
func (*Document) RecordType() string { return TypeDocument }

// Hypothesis statuses.
const (
	HypothesisUntested = "untested"
	HypothesisTested   = "tested"
)

// Hypothesis is a hypothesis the Golem formed; untested ones feed
// reflection category 7.
type Hypothesis struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Content   string `json:"content"`
	Origin    string `json:"origin,omitempty"`
	Status    string `json:"status,omitempty"`
	Embedding Vector `json:"embedding,omitempty"`
}

// RecordType implements Record.
func (*Hypothesis) RecordType() string { return TypeHypothesis }

// DecisionCache is a cached System-1 decision: soma.
type DecisionCache struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Pattern string `json:"pattern,omitempty"`
	Action  string `json:"action,omitempty"`
	Hits    int64  `json:"hits,omitempty"`
}

// RecordType implements Record.
func (*DecisionCache) RecordType() string { return TypeDecisionCache }

// Metric is a strategy performance metric: soma, snapshots only.
type Metric struct {
	Type  string     `json:"type"`
	Name  string     `json:"name"`
	Value float64    `json:"value"`
	At    *time.Time `json:"at,omitempty"`
}

// RecordType implements Record.
func (*Metric) RecordType() string { return TypeMetric }

// Fitness is one point of the epistemic fitness trajectory.
type Fitness struct {
	Type  string     `json:"type"`
	Tick  int64      `json:"tick"`
	At    *time.Time `json:"at,omitempty"`
	Value float64    `json:"value"`
}

// RecordType implements Record.
func (*Fitness) RecordType() string { return TypeFitness }
