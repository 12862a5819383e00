package inherit

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/lineage"
)

// Channels a bundle arrives by.
const (
	ChannelPredecessor = "predecessor"
	ChannelClade       = "clade"
	ChannelSnapshot    = "snapshot"
)

// What to do with a row whose best cosine is in [dedup.SameAsFrom,
// dedup.SkipAbove].
const (
	OnSimilarKeep  = "keep"  // keep both; record a same_as candidate
	OnSimilarMerge = "merge" // also point the new row's same_as at the old
	OnSimilarAsk   = "ask"   // planned as keep; the caller resolves each pair with Resolve
)

// Kinds of Arrival.
const (
	KindEntry      = "entry"      // an entry of the bundle
	KindReflection = "reflection" // a death reflection item
	KindAutopsy    = "autopsy"    // an autopsy marker naming an entry left out of the bundle
)

var (
	// ErrDigestMismatch is returned when the digest a bundle is planned
	// under is not the digest of its content.
	ErrDigestMismatch = errors.New("bundle digest does not match its content")
	// ErrUnsupported is returned for a bundle kind this version cannot
	// apply, or a kind and channel that do not go together.
	ErrUnsupported = errors.New("not supported by this version of bardo")
)

// Existing is one entry of the successor store, as the planner sees it for
// dedup and id collisions: package dedup's row.
type Existing = dedup.Existing

// Target is the successor store as the planner sees it.
type Target struct {
	GolemID    string // the successor store's golem
	Generation int    // the store's generation (for a store this inherit creates: bundle generation + 1)
	Existing   []Existing
	// Vectors searches the vectors of Existing rows at rest (a store's
	// VectorReader); nil when every row's vector is loaded.
	Vectors dedup.VectorStore
	// Line is the store's line, which the lineage rules judge the bundle
	// against (lineage.go); nil for a store the bundle creates, its
	// successor by construction.
	Line *lineage.Line
}

// Options say how to apply a bundle.
type Options struct {
	Channel   string    // ChannelPredecessor (also "" for a death bundle) | ChannelClade | ChannelSnapshot (also "" for a snapshot)
	OnSimilar string    // OnSimilarKeep (also "") | OnSimilarMerge | OnSimilarAsk
	Now       time.Time // the run's time, recorded in the Plan; never used for confidence
	Trust     Trust     // what the trust policy said of the bundle; Trust.Quarantine: every admitted row lands quarantined
	// Adopt takes a bundle of another lineage on the predecessor or
	// snapshot channel, recorded as an adoption (Plan.Lineage.Adopted).
	Adopt bool
	// Progress, when set, is called after each incoming row is reviewed,
	// with the rows reviewed and the rows to review, so that a command
	// can draw a progress bar. It changes nothing in the plan.
	Progress func(reviewed, total int)
}

// Plan is everything applying a bundle does to a store, decided.
type Plan struct {
	BundleDigest     string
	Kind             string // the bundle's kind: bundle.KindDeath or bundle.KindSnapshot (degraded inheritance)
	Channel          string
	OnSimilar        string
	SourceGolemID    string // the bundle's golem
	SourceGeneration int    // the bundle's generation
	StoreGolemID     string
	StoreGeneration  int
	Now              time.Time
	Trust            Trust // what the trust policy said; Trust.Quarantine: a quarantined arrival
	// Lineage is what the lineage rules said of the bundle (lineage.go);
	// its Relation is "" when Target.Line is nil.
	Lineage Lineage

	Rekeys    []Rekey               // quarantined rows moved aside first, for a trusted row takes their id; by From
	Admit     []Arrival             // rows to insert, in review order (a same_as points only backwards); never an id the store holds
	Sightings []Sighting            // by (ExistingID, IncomingID)
	SameAs    []SameAs              // by NewID
	Flags     []Flag                // by EntryID: autopsy markers on rows the store holds or that arrive
	Edges     []grimoire.CausalEdge // by (SourceID, TargetID)
	Documents []grimoire.Document   // by Name
	Counts    Counts
	Params    map[string]any // recorded in the activity

	// Kept is the bundle file (bundle.Encode) of a quarantined arrival,
	// which the store keeps so that a release plans it again as trusted;
	// nil for a trusted arrival.
	Kept []byte
}

// Arrival is one row to insert.
type Arrival struct {
	// Entry is the row: Source as the bundle says (or the dying Golem for
	// rows born of its reflection and autopsy), Confidence and
	// Store.ArrivalConfidence the arrival confidence, Store.Channel and
	// Store.Bundle, bloodstain weights, Store.ToxicRecommendation when the
	// autopsy flags it, Status archived below the floor.
	Entry             grimoire.Entry
	EmbeddingModel    string   // space of Entry.Embedding; "" when it has none
	ToxicContribution *float64 // the autopsy's contribution to failure, when flagged
	SameAs            string   // the row this one was merged into (non-destructive); "" when not merged
	Kind              string   // KindEntry | KindReflection | KindAutopsy
	// Original is the id the row has in its source when the plan admits
	// it under another, so that the store records it (a library's row
	// kept apart: library.KeepApart); "" otherwise.
	Original string
}

// Sighting is an incoming row that the store already holds: recorded,
// nothing else changes.
type Sighting struct {
	ExistingID       string  // the row sighted (in the store, or admitted earlier in the plan)
	IncomingID       string  // the incoming row's id
	Cosine           float64 // 1 for identical contents
	SourceGolemID    string  // where the incoming row's confidence was earned
	SourceGeneration int
	Confidence       float64 // the incoming source's confidence, in [0, 1]
}

// SameAs is a pair of rows that may be the same knowledge: both kept, a
// candidate for review.
type SameAs struct {
	NewID, ExistingID string
	Cosine            float64
	Merged            bool // the new row's same_as points to ExistingID
}

// Flag is an autopsy marker on a row.
type Flag struct {
	EntryID        string
	Recommendation string // discard | invert | reinvestigate: a flag, never a deletion
	Contribution   float64
}

// Counts say what a plan does. Reviewed = Admitted + SkippedDuplicate;
// ArchivedBelowFloor and SameAsCandidates count admitted rows.
type Counts struct {
	Reviewed           int      // rows looked at: entries, reflection items that become rows, left-out autopsy markers
	Admitted           int      // rows inserted
	SkippedDuplicate   int      // sightings: cosine above 0.95, or an id already held
	SameAsCandidates   int      // admitted with a same_as candidate
	ArchivedBelowFloor int      // admitted archived: below the retrieval floor on arrival
	FlaggedToxic       int      // rows an autopsy marker flags (len(Flags))
	FlaggedLikelyStale int      // snapshot: admitted insights its successor notes mark likely stale, flagged for review
	Rederived          int      // reflection items and autopsy markers on entries born of an earlier reflection: no new row (born.go)
	Warnings           []string // what was not done, or done otherwise than asked
}

// Resolve decides, for each same_as candidate, whether the new row is
// merged into the old one (merge returns true). It is how OnSimilarAsk is
// answered; it overrides what OnSimilar planned.
func (p *Plan) Resolve(merge func(SameAs) bool) {
	byID := make(map[string]int, len(p.Admit))
	for i := range p.Admit {
		byID[p.Admit[i].Entry.ID] = i
	}
	for i := range p.SameAs {
		s := &p.SameAs[i]
		k, ok := byID[s.NewID]
		if !ok {
			continue // not a pair of this plan's rows
		}
		s.Merged = merge(*s)
		a := &p.Admit[k]
		a.SameAs = ""
		if s.Merged {
			a.SameAs = s.ExistingID
		}
	}
}

// PlanBundle decides how bundle b, whose digest is digest, arrives in the
// store t. A death bundle arrives on the predecessor or the clade channel;
// a clade push (bundle.KindClade) on the clade channel only, a sibling's
// knowledge at CladeConfidence, never as a predecessor (ChannelError);
// an insurance snapshot on the snapshot channel only, as a degraded
// inheritance (see the package documentation). It returns
// ErrDigestMismatch when digest is not b's, ErrUnsupported for another
// kind or a kind on a channel it does not take, a *LineageError
// (ErrLineage) for a bundle the lineage rules refuse (the store's own, a
// descendant's, a stranger's on the predecessor or snapshot channel
// without Options.Adopt), and an error matching bundle.ErrCorrupt for a
// bundle it cannot read (a time that does not parse, a vector of the
// wrong length, a snapshot without its body). Values out of range are not
// errors: they are clamped.
func PlanBundle(b *bundle.Bundle, digest string, t Target, o Options) (*Plan, error) {
	if err := checkOptions(&o, b.Header.Kind); err != nil {
		return nil, err
	}
	actual, err := b.Digest()
	if err != nil {
		return nil, err
	}
	if digest != actual {
		return nil, fmt.Errorf("bundle claims digest %q, its content has %s: %w", digest, actual, ErrDigestMismatch)
	}
	var kin Lineage
	var kinWarnings []string
	if t.Line != nil {
		if kin, kinWarnings, err = guardLineage(b, digest, *t.Line, o); err != nil {
			return nil, err
		}
	}
	p := &Plan{
		BundleDigest:     digest,
		Kind:             b.Header.Kind,
		Channel:          o.Channel,
		OnSimilar:        o.OnSimilar,
		SourceGolemID:    b.Header.GolemID,
		SourceGeneration: b.Header.Generation,
		StoreGolemID:     t.GolemID,
		StoreGeneration:  t.Generation,
		Now:              o.Now,
		Trust:            o.Trust,
		Lineage:          kin,
		Params:           params(o, t),
	}
	if kin.Relation != "" {
		p.Params[ParamLineage] = kin.params()
	}
	if kin.Adopted {
		p.Params[ParamAdopted] = true
	}
	if o.Trust.SignedBy != "" {
		p.Params["signed_by"] = o.Trust.SignedBy
	}
	if o.Trust.Released && !o.Trust.Quarantine {
		p.Params["released"] = true
	}
	all := t.Existing
	seen, quarantined := visible(t.Existing, o.Trust)
	t.Existing = seen
	pl := &planner{b: b, t: t, o: o, p: p, digest12: digest12(digest), all: all}
	if err := pl.run(); err != nil {
		return nil, err
	}
	p.Counts.Warnings = append(kinWarnings, p.Counts.Warnings...) // decided first, said first
	pl.rekeys(quarantined)
	if o.Trust.Quarantine {
		pl.confine()
		var kept bytes.Buffer
		if err := bundle.Encode(&kept, b); err != nil {
			return nil, err
		}
		p.Kept = kept.Bytes()
	}
	p.Counts.FlaggedToxic = len(p.Flags)
	p.sortOutputs()
	return p, nil
}

func checkOptions(o *Options, kind string) error {
	switch kind {
	case bundle.KindDeath:
		switch o.Channel {
		case "":
			o.Channel = ChannelPredecessor
		case ChannelPredecessor, ChannelClade:
		case ChannelSnapshot:
			return fmt.Errorf("channel %q takes an insurance snapshot, and this is a %q bundle: %w", o.Channel, kind, ErrUnsupported)
		default:
			return fmt.Errorf("channel %q: want %q or %q", o.Channel, ChannelPredecessor, ChannelClade)
		}
	case bundle.KindSnapshot:
		switch o.Channel {
		case "":
			o.Channel = ChannelSnapshot
		case ChannelSnapshot:
		default:
			return fmt.Errorf("bundle kind %q arrives on channel %q only, not %q: %w", kind, ChannelSnapshot, o.Channel, ErrUnsupported)
		}
	case bundle.KindClade:
		switch o.Channel {
		case ChannelClade:
		case "", ChannelPredecessor:
			return &ChannelError{Kind: kind, Channel: ChannelPredecessor, Want: ChannelClade}
		default:
			return &ChannelError{Kind: kind, Channel: o.Channel, Want: ChannelClade}
		}
	default:
		return fmt.Errorf("bundle kind %q: want %q, %q or %q: %w", kind, bundle.KindDeath, bundle.KindClade, bundle.KindSnapshot, ErrUnsupported)
	}
	switch o.OnSimilar {
	case "":
		o.OnSimilar = OnSimilarKeep
	case OnSimilarKeep, OnSimilarMerge, OnSimilarAsk:
	default:
		return fmt.Errorf("on-similar %q: want %q, %q or %q", o.OnSimilar, OnSimilarKeep, OnSimilarMerge, OnSimilarAsk)
	}
	return nil
}

// params are the rules a plan used, for the activity that records it.
func params(o Options, t Target) map[string]any {
	return map[string]any{
		"channel":                     o.Channel,
		"on_similar":                  o.OnSimilar,
		"quarantine":                  o.Trust.Quarantine,
		"signature":                   cmp.Or(o.Trust.Signature, "unsigned"),
		"store_generation":            t.Generation,
		"base_predecessor":            BasePredecessor,
		"base_reflection":             BaseReflection,
		"base_autopsy":                BaseAutopsy,
		"base_clade":                  BaseClade,
		"clade_cap":                   CladeCap,
		"clade_factor":                CladeFactor,
		"generation_factor":           GenerationFactor,
		"retrieval_floor":             RetrievalFloor,
		"skip_above":                  dedup.SkipAbove,
		"same_as_from":                dedup.SameAsFrom,
		"bloodstain_retrieval_weight": BloodstainRetrievalWeight,
		"bloodstain_demurrage_weight": BloodstainDemurrageWeight,
	}
}

// A ChannelError is a bundle offered on a channel its kind does not come
// by: a clade push on the predecessor channel, say. It matches
// ErrUnsupported (exit 65); Want is the channel that takes it.
type ChannelError struct {
	Kind, Channel, Want string
}

func (e *ChannelError) Error() string {
	return fmt.Sprintf("bundle kind %q arrives on channel %q only, not %q", e.Kind, e.Want, e.Channel)
}

// Is makes a ChannelError match ErrUnsupported.
func (e *ChannelError) Is(target error) bool { return target == ErrUnsupported }

// digest12 is the first 12 hex digits of a "sha256:<hex>" digest, which
// name the rows a bundle's reflection and autopsy give birth to.
func digest12(d string) string {
	h := strings.TrimPrefix(d, "sha256:")
	return h[:min(12, len(h))]
}

// sortOutputs puts every list but Admit in its documented order.
func (p *Plan) sortOutputs() {
	slices.SortFunc(p.Sightings, func(a, b Sighting) int {
		return cmp.Or(strings.Compare(a.ExistingID, b.ExistingID), strings.Compare(a.IncomingID, b.IncomingID))
	})
	slices.SortFunc(p.Rekeys, func(a, b Rekey) int { return strings.Compare(a.From, b.From) })
	slices.SortFunc(p.SameAs, func(a, b SameAs) int { return strings.Compare(a.NewID, b.NewID) })
	slices.SortFunc(p.Flags, func(a, b Flag) int { return strings.Compare(a.EntryID, b.EntryID) })
	slices.SortFunc(p.Edges, func(a, b grimoire.CausalEdge) int {
		return cmp.Or(strings.Compare(a.SourceID, b.SourceID), strings.Compare(a.TargetID, b.TargetID))
	})
	slices.SortFunc(p.Documents, func(a, b grimoire.Document) int { return strings.Compare(a.Name, b.Name) })
}
