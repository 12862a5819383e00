package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// The trust limits of inheritance (issue 7; KIP seed §19, §37.15: imported
// authority never transfers): whatever a bundle claims — confidences,
// generations, sources, bloodstains, sizes, ids the store holds — applying
// it never makes a row arrive above its base, never overwrites or deletes
// a row the store held, and never changes an earlier activity.

// limitsSpace is the embedding space of the stores and bundles here.
const limitsSpace, limitsDims = "limits-embed", 4

// hostileBundles draws bundles that claim anything from r.
type hostileBundles struct{ r *rand.Rand }

func pickOf[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

var (
	limitIDs      = []string{"own-0", "own-1", "own-2", "e1", "e2", "e3", "e4", "left-1"}
	limitContents = []string{"own lesson 0", "own lesson 1", "OWN LESSON 2", "hedge before funding flips", "the oracle lags", "x"}
	limitConfs    = []float64{-1e300, -0.5, 0, 0.04, 0.2, 0.3, 0.31, 0.5, 0.9, 1, 1.5, 1e300}
	limitVectors  = [][]float32{nil, {1, 0, 0, 0}, {0, 1, 0, 0}, {0.99, 0.1, 0, 0}, {0.93, 0.36, 0, 0}, {0, 0, 0, 0}, {3, -2, 1e30, 0}}
)

func (h hostileBundles) packed() []byte {
	v := pickOf(h.r, limitVectors...)
	if v == nil {
		return nil
	}
	return bundle.PackF32(v)
}

func (h hostileBundles) bundle() *bundle.Bundle {
	r := h.r
	b := &bundle.Bundle{Header: bundle.Header{
		Format: bundle.Format, Kind: bundle.KindDeath,
		GolemID:    pickOf(r, "pred", "golem-7a-g1", "stranger"),
		Generation: r.IntN(6),
		ExportedAt: "2026-11-02T12:00:00Z",
		Embedding:  &bundle.Embedding{Model: limitsSpace, Dims: limitsDims, Encoding: bundle.EncodingF32LE},
		Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: "2026-11-02T12:00:00Z"},
	}}
	// Ids the store holds, and ids of other entries; each once, as
	// readBundle's Check insists (a bundle naming one id twice is
	// refused before it is planned).
	ids := slices.Clone(limitIDs)
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	for _, id := range ids[:r.IntN(len(ids)+1)] {
		b.Body.Entries = append(b.Body.Entries, bundle.Entry{
			ID: id, Category: pickOf(r, grimoire.Categories[:6]...), Content: pickOf(r, limitContents...),
			Embedding: h.packed(), Confidence: pickOf(r, limitConfs...), ConfidenceAtCreation: pickOf(r, limitConfs...),
			QualityScore: pickOf(r, limitConfs...), ValidatedCount: int64(r.IntN(1000)),
			DecayClass: pickOf(r, grimoire.DecayClasses...), Domain: "general", LastAccessedAt: "2026-11-01T00:00:00Z",
			Strength: int64(r.IntN(100)), Provenance: pickOf(r, grimoire.ProvenanceSelfLearned, grimoire.ProvenancePredecessor, grimoire.ProvenanceDeathReflection),
			Source:       bundle.Source{GolemID: pickOf(r, "pred", "golem-7a-g1", "stranger"), Generation: r.IntN(7), Confidence: pickOf(r, limitConfs...)},
			IsBloodstain: r.IntN(2) == 0, Polarity: pickOf(r, grimoire.PolarityPositive, grimoire.PolarityNegative),
			Status: pickOf(r, grimoire.StatusActive, grimoire.StatusArchived), RequiresInvestigation: r.IntN(3) == 0,
			Score: 1, Decay: 1,
		})
	}
	b.Header.Counts.Entries = len(b.Body.Entries)
	for range r.IntN(4) {
		b.Body.CausalGraph = append(b.Body.CausalGraph, bundle.Edge{SourceID: pickOf(r, limitIDs...), TargetID: pickOf(r, limitIDs...), Weight: pickOf(r, 0, 0.5, 1)})
	}
	if r.IntN(2) == 0 {
		text := "# PLAYBOOK\n- " + pickOf(r, limitContents...) + "\n"
		b.Body.Playbook = &bundle.Document{Name: grimoire.DocPlaybook, Text: text, Digest: bundle.DocumentDigest(text)}
	}
	if r.IntN(2) == 0 {
		refl := &bundle.Reflection{}
		cats := []*[]bundle.Item{&refl.Learned, &refl.GotWrong, &refl.Suspect, &refl.NeverTested, &refl.TellSuccessor}
		for range r.IntN(6) {
			i := r.IntN(len(cats))
			item := bundle.Item{Index: []int{2, 3, 5, 7, 6}[i], Name: []string{"learned", "got_wrong", "suspect", "never_tested", "tell_successor"}[i],
				Text: pickOf(r, limitContents...), Novelty: pickOf(r, limitConfs...),
				Refs: []bundle.Ref{{Kind: bundle.RefEntry, ID: pickOf(r, limitIDs...)}}}
			if p := h.packed(); p != nil {
				item.Vector = &bundle.Vector{Space: limitsSpace, Dims: limitsDims, Data: p}
			}
			*cats[i] = append(*cats[i], item)
		}
		b.Body.Reflection = refl
	}
	if r.IntN(2) == 0 {
		a := &bundle.Autopsy{Clocks: []string{"staleness"}, SenescenceThreshold: 0.35}
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		for _, id := range ids[:r.IntN(5)] {
			a.ToxicEntries = append(a.ToxicEntries, bundle.ToxicEntry{
				Entry:                 bundle.Ref{Kind: bundle.RefEntry, ID: id},
				Content:               pickOf(r, limitContents...),
				ContributionToFailure: pickOf(r, limitConfs...),
				ConfidenceAtFailure:   pickOf(r, limitConfs...),
				Recommendation:        pickOf(r, bundle.RecommendDiscard, bundle.RecommendInvert, bundle.RecommendReinvestigate),
				FailureRate:           1,
				Uses:                  r.IntN(50),
				Failures:              r.IntN(50),
			})
		}
		b.Body.Autopsy = a
	}
	return b
}

// limitsStore is a store of golem-7a-g1, generation 1, that learned three
// rows of its own (ingested), in the space of the bundles.
func limitsStore(t *testing.T) *Store {
	t.Helper()
	_, s := newStore(t)
	x := newExport(t0)
	x.h.Embedding = &grimoire.EmbeddingSpace{Model: limitsSpace, Dims: limitsDims}
	for i, v := range [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, nil} {
		e := entry(fmt.Sprintf("own-%d", i), fmt.Sprintf("own lesson %d", i), 0.8)
		e.Embedding = v
		e.IsBloodstain = i == 1
		x.add(e)
	}
	x.add(&grimoire.CausalEdge{SourceID: "own-0", TargetID: "own-1", Weight: 0.7, Evidence: 3})
	x.add(&grimoire.Document{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n- the successor's own\n"})
	mustIngest(t, s, x.bytes(t), t0)
	return s
}

// tableRows renders the rows a query returns, one string each.
func tableRows(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%q", vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// heldState is everything about the rows a store held and the activities
// it recorded that no later inherit may change. Flags are the one
// documented exception: an autopsy marker sets a row's toxic
// recommendation and contribution (and so its updated_by), nothing else.
func heldState(t *testing.T, s *Store, lastActivity int64, ids []string) []string {
	t.Helper()
	var out []string
	cols := strings.Join(slices.DeleteFunc(entryColumnNames(t, s), func(c string) bool {
		return c == "toxic_recommendation" || c == "toxic_contribution" || c == "updated_by"
	}), ", ")
	for _, id := range ids {
		r := tableRows(t, s, "SELECT "+cols+" FROM grimoire_entries WHERE id=?", id)
		if len(r) != 1 {
			t.Fatalf("row %q: %d rows", id, len(r))
		}
		out = append(out, "entry "+r[0])
		out = append(out, tableRows(t, s, "SELECT * FROM embeddings WHERE entry_id=?", id)...)
	}
	for _, q := range []string{
		"SELECT * FROM activities WHERE id<=? ORDER BY id",
		"SELECT * FROM entry_changes WHERE activity_id<=? ORDER BY activity_id, entry_id, action",
		"SELECT * FROM document_versions WHERE activity_id<=? ORDER BY name, activity_id",
		"SELECT * FROM sightings WHERE activity_id<=? ORDER BY entry_id, activity_id, incoming_id",
		"SELECT * FROM review_candidates WHERE activity_id<=? ORDER BY id",
		"SELECT source_id, target_id, weight, evidence, lag, mechanism, created_by FROM causal_edges WHERE created_by<=? ORDER BY source_id, target_id",
	} {
		out = append(out, q)
		out = append(out, tableRows(t, s, q, lastActivity)...)
	}
	return out
}

func entryColumnNames(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.db.Query("SELECT * FROM grimoire_entries LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// arrivalBound is the most a row of kind may arrive at on channel.
func arrivalBound(kind, channel string) float64 {
	if channel == inherit.ChannelClade {
		if kind == inherit.KindEntry {
			return inherit.BaseClade
		}
		base := map[string]float64{inherit.KindReflection: inherit.BaseReflection, inherit.KindAutopsy: inherit.BaseAutopsy}[kind]
		return math.Min(base, inherit.CladeCap) * inherit.CladeFactor
	}
	return map[string]float64{inherit.KindEntry: inherit.BasePredecessor, inherit.KindReflection: inherit.BaseReflection, inherit.KindAutopsy: inherit.BaseAutopsy}[kind]
}

func TestTrustLimits(t *testing.T) {
	const stores, bundlesPerStore = 25, 4
	ctx := context.Background()
	gen := hostileBundles{rand.New(rand.NewPCG(37, 2026))}
	applied, refused := 0, 0
	for n := range stores {
		s := limitsStore(t)
		for k := range bundlesPerStore {
			b := gen.bundle()
			digest, err := b.Digest()
			if err != nil {
				t.Fatalf("store %d bundle %d: %v", n, k, err)
			}
			existing, err := s.DedupView(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var held []string
			for _, e := range existing {
				held = append(held, e.ID)
			}
			acts, err := s.Activities(ctx)
			if err != nil {
				t.Fatal(err)
			}
			last := acts[len(acts)-1].ID
			toxicBefore := tableRows(t, s, "SELECT id, toxic_recommendation, toxic_contribution, updated_by FROM grimoire_entries ORDER BY id")

			o := inherit.Options{
				Channel:   pickOf(gen.r, inherit.ChannelPredecessor, inherit.ChannelClade),
				OnSimilar: pickOf(gen.r, inherit.OnSimilarKeep, inherit.OnSimilarMerge),
				Trust:     inherit.Trust{Quarantine: gen.r.IntN(3) == 0},
				Now:       t0.Add(time.Duration(n*10+k+1) * time.Hour),
			}
			m := s.Meta()
			plan, err := inherit.PlanBundle(b, digest, inherit.Target{GolemID: m.GolemID, Generation: m.Generation, Existing: existing, Vectors: s.Vectors(ctx)}, o)
			// The same plan from the vectors loaded (the search in memory).
			loaded, lerr := s.LoadedDedupView(ctx)
			if lerr != nil {
				t.Fatal(lerr)
			}
			inMemory, merr := inherit.PlanBundle(b, digest, inherit.Target{GolemID: m.GolemID, Generation: m.Generation, Existing: loaded}, o)
			if (err == nil) != (merr == nil) || err != nil && err.Error() != merr.Error() {
				t.Fatalf("store %d, bundle %d: planned at rest: %v; in memory: %v", n, k, err, merr)
			}
			if d := cmp.Diff(inMemory, plan); err == nil && d != "" {
				t.Fatalf("store %d, bundle %d: the plan at rest differs from the plan in memory (-memory +rest):\n%s", n, k, d)
			}
			if err != nil {
				t.Logf("store %d, bundle %d: planning refused: %v", n, k, err)
				refused++
				continue
			}
			// A quarantined row a trusted row takes the id of is moved
			// aside, whole (TestTrustedArrivalMovesQuarantinedAside): every
			// other row the store held stays as it was.
			aside := map[string]bool{}
			for _, r := range plan.Rekeys {
				aside[r.From] = true
			}
			held = slices.DeleteFunc(held, func(id string) bool { return aside[id] })
			before := heldState(t, s, last, held)
			act, err := s.ApplyInherit(ctx, plan, o.Now)
			if err != nil && !errors.Is(err, ErrAlreadyApplied) {
				// A plan the store refuses changes nothing at all.
				t.Logf("store %d, bundle %d: apply refused: %v", n, k, err)
				refused++
			} else if err == nil {
				applied++
				checkArrivals(t, s, plan, act, o)
			}
			after := heldState(t, s, last, held)
			if d := diffLines(movedAside(before, after, plan.Rekeys), after); d != "" {
				t.Fatalf("store %d, bundle %d (%s channel, quarantine %v) changed what the store held:\n%s", n, k, o.Channel, o.Trust.Quarantine, d)
			}
			if o.Trust.Quarantine && len(aside) == 0 {
				if d := diffLines(toxicBefore, tableRows(t, s, "SELECT id, toxic_recommendation, toxic_contribution, updated_by FROM grimoire_entries WHERE id IN (SELECT id FROM grimoire_entries WHERE created_by<=?) ORDER BY id", last)); d != "" {
					t.Fatalf("store %d, bundle %d: a quarantined bundle flagged rows the store held:\n%s", n, k, d)
				}
			}
		}
		mustBeSound(t, s)
		s.Close()
	}
	if applied < stores*bundlesPerStore/2 {
		t.Errorf("only %d of %d bundles applied: the generator claims too little to test", applied, stores*bundlesPerStore)
	}
	t.Logf("%d hostile bundles applied, %d refused as a whole", applied, refused)
}

// checkArrivals checks the rows activity act admitted: none above its
// base, not even its confidence at creation, and quarantined when the
// plan was.
func checkArrivals(t *testing.T, s *Store, p *inherit.Plan, act int64, o inherit.Options) {
	t.Helper()
	kinds := map[string]string{}
	for _, a := range p.Admit {
		kinds[a.Entry.ID] = a.Kind
	}
	rows, err := s.db.Query("SELECT id, confidence, confidence_at_creation, status, retrieval_weight FROM grimoire_entries WHERE created_by=?", act)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, status string
		var c, cc, rw float64
		if err := rows.Scan(&id, &c, &cc, &status, &rw); err != nil {
			t.Fatal(err)
		}
		bound := arrivalBound(kinds[id], p.Channel)
		switch {
		case kinds[id] == "":
			t.Errorf("row %q was created, and the plan did not admit it", id)
		case c < 0 || c > bound+1e-12 || cc > bound+1e-12:
			t.Errorf("row %q (%s, %s channel) arrived at confidence %v (at creation %v), above its base %v", id, kinds[id], p.Channel, c, cc, bound)
		case o.Trust.Quarantine && status != grimoire.StatusQuarantined:
			t.Errorf("row %q of a quarantined bundle arrived %s", id, status)
		case rw > 1.2+1e-12:
			t.Errorf("row %q arrived with retrieval weight %v", id, rw)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// diffLines says which lines were lost or gained.
// movedAside renames, in lines of heldState, each row the plan moves
// aside, where after has the line so renamed (an incoming id a sighting
// records is a name, not a reference, and stays).
func movedAside(lines, after []string, rekeys []inherit.Rekey) []string {
	out := slices.Clone(lines)
	for i, l := range out {
		all, first := l, l
		for _, r := range rekeys {
			from, to := fmt.Sprintf("%q", r.From), fmt.Sprintf("%q", r.To)
			all, first = strings.ReplaceAll(all, from, to), strings.Replace(first, from, to, 1)
		}
		for _, c := range []string{all, first} {
			if slices.Contains(after, c) {
				out[i] = c
			}
		}
	}
	return out
}

func diffLines(before, after []string) string {
	var b strings.Builder
	for _, l := range before {
		if !slices.Contains(after, l) {
			fmt.Fprintf(&b, "- %.300s\n", l)
		}
	}
	for _, l := range after {
		if !slices.Contains(before, l) {
			fmt.Fprintf(&b, "+ %.300s\n", l)
		}
	}
	return b.String()
}
