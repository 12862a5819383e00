package library

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// EquipChannel is the channel equipped rows arrive by in a successor's
// store.
const EquipChannel = "library"

// KindEquip is the Plan.Kind of an equip.
const KindEquip = "equip"

// Equip is everything equipping does to a successor's store, decided.
// Plan is what the store applies: BundleDigest is Key, Channel
// EquipChannel, SourceGolemID the library's golem id.
type Equip struct {
	Plan    inherit.Plan
	Key     string   // "sha256:<hex>" of (library state, selection, successor): the idempotency key
	Choices []Choice // one per selected record, in selection order
	// Quarantined counts the rows admitted quarantined (Selected.Quarantine).
	Quarantined int
}

// Choice is what becomes of one selected record.
type Choice struct {
	Rank       int
	ID         string
	Category   string
	Channel    string  // the library channel it was deposited by
	Confidence float64 // in the library
	Score      float64 // effective weight × retrieval weight, which ranked it
	Hops       int
	Multiplier float64
	Arrival    float64 // its confidence in the successor
	Decision   string  // dedup.VerdictAdmit | VerdictSighting | VerdictSameAs
	Match      string  // the successor's row sighted or resembled
	Cosine     float64
	Status     string // of an admitted row: active, or archived below the retrieval floor
}

// PlanEquip decides how the selection arrives in the successor's store t:
// each record at EquipConfidence from the channel it was deposited by and
// the hops from its source generation, reviewed against the successor's
// rows by inherit.Dedup; the edges among selected records come along.
// state names the library's state (see the package doc, "Equip").
//
// A record the successor's policy does not accept (Selected.Quarantine)
// arrives quarantined, and is reviewed after every trusted one: trust is
// decided once, so a quarantined row of the equip never is the sighting,
// the same_as or the holder of an id of a trusted one.
//
// A row the library kept apart arrives under its own id (OwnID), and the
// library's edges follow it. Two selected rows may then share an id (two
// signers' rows of one id): the later in review order is a sighting of
// the earlier, as any arrival whose id an earlier one took; a sighting
// names the library's row it came from (its id in the library).
func PlanEquip(libraryGolem, state string, sel []Selected, edges []grimoire.CausalEdge, t inherit.Target, o EquipOptions) (*Equip, error) {
	switch o.OnSimilar {
	case "":
		o.OnSimilar = inherit.OnSimilarKeep
	case inherit.OnSimilarKeep, inherit.OnSimilarMerge:
	default:
		return nil, fmt.Errorf("on-similar %q: equip takes %q or %q", o.OnSimilar, inherit.OnSimilarKeep, inherit.OnSimilarMerge)
	}
	n, err := bottleneck.Cap(o.MaxEntries)
	if err != nil {
		return nil, err
	}
	o.MaxEntries = n
	edges = restoreEdges(sel, edges)
	eq := &Equip{Choices: make([]Choice, len(sel))}
	rows := make([]inherit.Arrival, len(sel))
	for i := range sel {
		eq.Choices[i], rows[i] = equipRow(&sel[i], t.Generation)
	}
	// The review order: trusted records, then quarantined ones, each in
	// selection order.
	order := make([]int, 0, len(sel))
	for _, quarantined := range []bool{false, true} {
		for i := range sel {
			if sel[i].Quarantine == quarantined {
				order = append(order, i)
			}
		}
	}
	incoming := make([]dedup.Incoming, len(order))
	for k, i := range order {
		a := &rows[i]
		e := &a.Entry
		incoming[k] = dedup.Incoming{ID: e.ID, Content: e.Content, Space: a.EmbeddingModel, Vector: e.Embedding, Polarity: e.Polarity}
	}
	eq.Key = equipKey(libraryGolem, state, eq.Choices, t)
	p := &eq.Plan
	*p = inherit.Plan{
		BundleDigest:    eq.Key,
		Kind:            KindEquip,
		Channel:         EquipChannel,
		OnSimilar:       o.OnSimilar,
		SourceGolemID:   libraryGolem,
		StoreGolemID:    t.GolemID,
		StoreGeneration: t.Generation,
		Now:             o.Now,
		Params:          equipParams(libraryGolem, state, t, o, len(sel)),
	}
	verdicts, err := dedup.ReviewAt(t.Existing, t.Vectors, incoming)
	if err != nil {
		return nil, err
	}
	rowOf := make(map[string]string, len(rows))
	for k, v := range verdicts {
		i := order[k]
		a, c := rows[i], &eq.Choices[i]
		id := a.Entry.ID
		c.Decision, c.Match, c.Cosine = v.Action, v.Match, v.Cosine
		p.Counts.Reviewed++
		if v.Action == dedup.VerdictSighting {
			if _, seen := rowOf[id]; !seen {
				rowOf[id] = v.Match
			}
			src := a.Entry.Source
			p.Sightings = append(p.Sightings, inherit.Sighting{ExistingID: v.Match, IncomingID: sel[i].Record.Entry.ID, Cosine: v.Cosine,
				SourceGolemID: src.GolemID, SourceGeneration: src.Generation, Confidence: unit(src.Confidence)})
			p.Counts.SkippedDuplicate++
			continue
		}
		rowOf[id] = id
		switch {
		case sel[i].Quarantine:
			a.Entry.Status = grimoire.StatusQuarantined
			eq.Quarantined++
		case a.Entry.Confidence < inherit.RetrievalFloor:
			a.Entry.Status = grimoire.StatusArchived
			p.Counts.ArchivedBelowFloor++
		}
		c.Status = a.Entry.Status
		if v.Action == dedup.VerdictSameAs {
			s := inherit.SameAs{NewID: id, ExistingID: v.Match, Cosine: v.Cosine, Merged: o.OnSimilar == inherit.OnSimilarMerge}
			if s.Merged {
				a.SameAs = v.Match
			}
			p.SameAs = append(p.SameAs, s)
			p.Counts.SameAsCandidates++
		}
		p.Admit = append(p.Admit, a)
		p.Counts.Admitted++
	}
	if eq.Quarantined > 0 {
		p.Params["quarantined"] = eq.Quarantined
	}
	p.Edges = mapEdges(edges, rowOf, &p.Counts)
	sortPlan(p)
	return eq, nil
}

// equipRow is the successor's row a selected record becomes, and the
// report of it.
func equipRow(s *Selected, generation int) (Choice, inherit.Arrival) {
	r := s.Record
	e := r.Entry
	e.ID = OwnID(r)
	channel := r.Channel()
	src := grimoire.Source{GolemID: r.Origin.GolemID, Confidence: unit(e.Confidence)}
	if e.Source != nil {
		src = *e.Source
	}
	hops := inherit.Hops(generation, src.Generation)
	conf := EquipConfidence(e.Confidence, channel, hops)
	atCreation, arrival := conf, conf
	e.Confidence, e.ConfidenceAtCreation, e.Source = conf, &atCreation, &src
	e.Embedding = append(grimoire.Vector(nil), e.Embedding...)
	if len(e.Embedding) == 0 {
		e.Embedding = nil
	}
	e.Tags = append([]string(nil), e.Tags...)
	e.Provenance = equipProvenance(e.Provenance, channel)
	e.Status = grimoire.StatusActive
	st := &grimoire.StoreState{ArrivalConfidence: &arrival, Channel: EquipChannel}
	if old := r.Entry.Store; old != nil {
		st.Bundle = old.Bundle
		// Bloodstain provenance travels with the record: it keeps its
		// boost and its slower decay in the successor.
		if old.RetrievalWeight != nil {
			w := *old.RetrievalWeight
			st.RetrievalWeight = &w
		}
		if old.DemurrageWeight != nil {
			w := *old.DemurrageWeight
			st.DemurrageWeight = &w
		}
	}
	e.Store = st
	model := r.EmbeddingModel
	if e.Embedding == nil {
		model = ""
	}
	c := Choice{Rank: s.Rank, ID: e.ID, Category: e.Category, Channel: channel, Confidence: r.Entry.Confidence,
		Score: s.Score, Hops: hops, Multiplier: Multiplier(channel), Arrival: conf}
	return c, inherit.Arrival{Entry: e, EmbeddingModel: model, Kind: inherit.KindEntry}
}

// equipProvenance is the provenance of an equipped row: a death testament
// stays one; a sibling's or bought entry says so; the owner's lineage is
// the predecessor.
func equipProvenance(p, channel string) string {
	switch {
	case p == grimoire.ProvenanceDeathReflection:
		return p
	case channel == inherit.ChannelClade:
		return grimoire.ProvenanceClade
	case channel == ChannelMarketplace:
		return grimoire.ProvenanceMarketplace
	}
	return grimoire.ProvenancePredecessor
}

// equipKey is the digest of what makes an equip: the library's state, the
// selection with the confidences it arrives at, and the successor.
func equipKey(libraryGolem, state string, cs []Choice, t inherit.Target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "bardo.equip/v1\nlibrary %q %q\nsuccessor %q %d\n", libraryGolem, state, t.GolemID, t.Generation)
	for _, c := range cs {
		b.WriteString(strconv.Quote(c.ID))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatFloat(c.Arrival, 'g', -1, 64))
		b.WriteByte('\n')
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// equipParams are the rules an equip used, for its activity.
func equipParams(libraryGolem, state string, t inherit.Target, o EquipOptions, selected int) map[string]any {
	return map[string]any{
		"library":           libraryGolem,
		"library_state":     state,
		"store_generation":  t.Generation,
		"max_entries":       o.MaxEntries, // as PlanEquip resolved it
		"domains":           orEmpty(o.Domains),
		"tags":              orEmpty(o.Tags),
		"categories":        orEmpty(o.Categories),
		"now":               o.Now.UTC().Format(time.RFC3339Nano),
		"on_similar":        o.OnSimilar,
		"selected":          selected,
		"multiplier_death":  MultiplierDeath,
		"multiplier_live":   MultiplierLive,
		"multiplier_other":  MultiplierOther,
		"base_predecessor":  inherit.BasePredecessor,
		"generation_factor": inherit.GenerationFactor,
		"retrieval_floor":   inherit.RetrievalFloor,
		"skip_above":        dedup.SkipAbove,
		"same_as_from":      dedup.SameAsFrom,
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
