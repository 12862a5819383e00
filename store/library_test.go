package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

const libSpace = "test-embed/v1"

// libVec returns a vector of the library tests' 8-dim space.
func libVec(xs ...float32) []float32 {
	v := make([]float32, 8)
	copy(v, xs)
	return v
}

// Vectors at exact cosines to libVec(1).
var (
	lib097 = libVec(97, 24, 3, 2, 1, 1) // 97/100
	lib092 = libVec(23, 8, 4, 4)        // 23/25
)

func newLibrary(t *testing.T) *Store {
	t.Helper()
	p := filepath.Join(t.TempDir(), "library.db")
	s, err := Create(context.Background(), p, Meta{Kind: KindLibrary, GolemID: "library"}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// libBundle is a death bundle of golem at generation gen in the test space.
func libBundle(golem string, gen int, entries ...bundle.Entry) *bundle.Bundle {
	return &bundle.Bundle{
		Header: bundle.Header{Format: bundle.Format, Kind: bundle.KindDeath, GolemID: golem, Generation: gen,
			ExportedAt: "2026-11-02T12:00:00Z", Embedding: &bundle.Embedding{Model: libSpace, Dims: 8, Encoding: bundle.EncodingF32LE},
			Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: "2026-11-02T12:00:00Z"}, Counts: bundle.Counts{Entries: len(entries)}},
		Body: bundle.Body{Entries: entries, CausalGraph: []bundle.Edge{}},
	}
}

func libEntry(golem string, gen int, id, category, content string, conf float64, v []float32) bundle.Entry {
	pol := grimoire.PolarityPositive
	if category == grimoire.CategoryWarning {
		pol = grimoire.PolarityNegative
	}
	return bundle.Entry{ID: id, Category: category, Content: content, Embedding: bundle.PackF32(v), Confidence: conf,
		ConfidenceAtCreation: conf, QualityScore: 0.7, DecayClass: grimoire.DecayStructural, Domain: "general",
		LastAccessedAt: "2026-11-01T09:30:00Z", Strength: 1, Provenance: grimoire.ProvenanceSelfLearned,
		Source: bundle.Source{GolemID: golem, Generation: gen, Confidence: conf}, Polarity: pol, Status: grimoire.StatusActive}
}

// deposit plans b by channel against the library and applies it.
func deposit(t *testing.T, s *Store, b *bundle.Bundle, channel string) (*library.Deposit, error) {
	t.Helper()
	ctx := context.Background()
	digest, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	src, err := library.FromBundle(b, digest, channel)
	if err != nil {
		t.Fatal(err)
	}
	existing, err := s.DedupView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, err := library.PlanDeposit(src, existing, library.DepositOptions{Now: t0, Vectors: s.Vectors(ctx)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ApplyDeposit(ctx, d, t0)
	return d, err
}

// threeGolems are deposits from golems a (generation 0, death), b
// (generation 1, death) and c (generation 1, a sibling's bundle: clade)
// with planted overlaps.
func threeGolems() (a, b, c *bundle.Bundle) {
	a = libBundle("golem-a", 0,
		libEntry("golem-a", 0, "a-oracle", grimoire.CategoryInsight, "oracle updates lag during crises", 0.8, libVec(1)),
		libEntry("golem-a", 0, "a-gas", grimoire.CategoryHeuristic, "delay rebalancing when gas spikes", 0.9, libVec(0, 1)),
		libEntry("golem-a", 0, "a-drain", grimoire.CategoryWarning, "pool X drained after oracle updates", 0.3, libVec(0, 0, 1)),
		libEntry("golem-a", 0, "a-hunch", grimoire.CategoryInsight, "weekend volume is thinner", 0.5, libVec(0, 0, 0, 1)), // left out: 0.5 < 0.6
	)
	a.Body.CausalGraph = []bundle.Edge{{SourceID: "a-drain", TargetID: "a-oracle", Weight: 0.7, Evidence: 5}}
	a.Body.Playbook = &bundle.Document{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n- a\n"}
	b = libBundle("golem-b", 1,
		libEntry("golem-b", 1, "b-oracle", grimoire.CategoryInsight, "oracles lag in a crisis", 0.7, lib097),            // 0.97: sighting of a-oracle
		libEntry("golem-b", 1, "b-gas", grimoire.CategoryHeuristic, "wait out gas spikes before rebalancing", 0.8, nil), // text: admitted
		libEntry("golem-b", 1, "b-slip", grimoire.CategoryInsight, "slippage widens on thin books", 0.75, lib092),       // 0.92: both kept
		libEntry("golem-b", 1, "b-drain", grimoire.CategoryWarning, "pool X drained after oracle updates", 0.2, libVec(0, 0, 0, 0, 1)),
	)
	b.Body.Entries[1].Embedding = bundle.PackF32(libVec(0, 0, 0, 0, 0, 1))
	c = libBundle("golem-c", 1,
		libEntry("golem-c", 1, "c-oracle", grimoire.CategoryInsight, "crises make oracles lag", 0.9, libVec(97, -24, -3, -2, -1, -1)), // 0.97 to a-oracle, 0.81 to b-slip: a sighting by golem-c at 0.72
		libEntry("golem-c", 1, "c-new", grimoire.CategoryHeuristic, "split large swaps", 0.95, libVec(0, 0, 0, 0, 0, 0, 1)),
	)
	return a, b, c
}

// TestDepositThreeGolems deposits three Golems of two generations with
// planted overlaps and pins what was admitted, sighted and kept both.
func TestDepositThreeGolems(t *testing.T) {
	ctx := context.Background()
	s := newLibrary(t)
	a, b, c := threeGolems()

	type counts struct{ admitted, skipped, sameAs, leftOut, edges int }
	for _, step := range []struct {
		b       *bundle.Bundle
		channel string
		want    counts
	}{
		{a, library.ChannelDeath, counts{admitted: 3, leftOut: 1, edges: 1}},
		// b-oracle at 0.97 is a sighting; b-drain has a-drain's text (an
		// exact match); b-slip at 0.92 to a-oracle is kept with a same_as.
		{b, library.ChannelDeath, counts{admitted: 2, skipped: 2, sameAs: 1}},
		{c, inherit.ChannelClade, counts{admitted: 1, skipped: 1}},
	} {
		d, err := deposit(t, s, step.b, step.channel)
		if err != nil {
			t.Fatalf("deposit of %s: %v", step.b.Header.GolemID, err)
		}
		pc := d.Plan.Counts
		got := counts{pc.Admitted, pc.SkippedDuplicate, pc.SameAsCandidates, d.Offering.LeftOut, len(d.Plan.Edges)}
		if got != step.want {
			t.Errorf("deposit of %s: %+v, want %+v", step.b.Header.GolemID, got, step.want)
		}
	}
	mustBeSound(t, s)

	recs := map[string]*library.Record{}
	err := s.EachRecord(ctx, func(r *library.Record) error {
		recs[r.Entry.ID] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for id := range recs {
		ids = append(ids, id)
	}
	if len(recs) != 6 {
		t.Errorf("library holds %d rows, want 6: %v", len(recs), ids)
	}
	o := recs["a-oracle"]
	clade := func(c float64) float64 { return c * library.CladeFactor } // in float64, as the deposit computes it
	wantBy := []library.Attestation{
		{GolemID: "golem-a", Generation: 0, Confidence: 0.8},
		{GolemID: "golem-b", Generation: 1, Confidence: 0.7},
		{GolemID: "golem-c", Generation: 1, Confidence: clade(0.9)},
	}
	if d := cmp.Diff(wantBy, o.Attestations()); d != "" {
		t.Errorf("a-oracle attested by (-want +got):\n%s", d)
	}
	if o.Entry.Confidence != 0.8 {
		t.Errorf("a-oracle at %v: a sighting never changes confidence", o.Entry.Confidence)
	}
	for id, tier := range map[string]string{"a-oracle": library.TierEssential, "a-drain": library.TierEssential,
		"a-gas": library.TierRecommended, "b-slip": library.TierRecommended, "c-new": library.TierRecommended} {
		if got := recs[id].Tier(); got != tier {
			t.Errorf("%s in tier %q, want %q", id, got, tier)
		}
	}
	if r := recs["c-new"]; r.Entry.Confidence != clade(0.95) || library.BloodstainProvenance(&r.Entry) || r.Origin.Channel != inherit.ChannelClade {
		t.Errorf("c-new: %v, origin %+v: a clade deposit at × 0.80 without bloodstain provenance", r.Entry.Confidence, r.Origin)
	}
	if r := recs["a-gas"]; !library.BloodstainProvenance(&r.Entry) || r.Entry.Store.ArrivalConfidence != nil || r.Origin.GolemID != "golem-a" {
		t.Errorf("a-gas: %+v, origin %+v: a death deposit carries bloodstain provenance and no arrival confidence", r.Entry.Store, r.Origin)
	}

	deposits, err := s.Deposits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range deposits {
		got = append(got, d.GolemID+"/"+d.Channel)
	}
	if d := cmp.Diff([]string{"golem-a/death", "golem-b/death", "golem-c/clade"}, got); d != "" {
		t.Errorf("deposits (-want +got):\n%s", d)
	}
}

// TestDepositIdempotentAndNonDestructive: a second deposit of a source
// changes nothing; later deposits never change a row already held.
func TestDepositIdempotentAndNonDestructive(t *testing.T) {
	ctx := context.Background()
	s := newLibrary(t)
	a, b, _ := threeGolems()
	if _, err := deposit(t, s, a, library.ChannelDeath); err != nil {
		t.Fatal(err)
	}
	before := dump(t, s)
	if _, err := deposit(t, s, a, library.ChannelDeath); !errors.Is(err, ErrAlreadyDeposited) {
		t.Fatalf("second deposit: %v, want ErrAlreadyDeposited", err)
	}
	if _, err := deposit(t, s, a, inherit.ChannelClade); !errors.Is(err, ErrAlreadyDeposited) {
		t.Fatalf("the same bundle by another channel: %v, want ErrAlreadyDeposited", err)
	}
	if d := cmp.Diff(before, dump(t, s)); d != "" {
		t.Fatalf("a repeated deposit changed the library:\n%s", d)
	}
	oracle, err := s.Entry(ctx, "a-oracle")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := deposit(t, s, b, library.ChannelDeath); err != nil {
		t.Fatal(err)
	}
	after, err := s.Entry(ctx, "a-oracle")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(oracle, after); d != "" {
		t.Errorf("a sighting changed the row (-before +after):\n%s", d)
	}
	mustBeSound(t, s)
}

// TestDepositFailsWhole: a deposit whose plan cannot be applied (an edge
// end that exists nowhere) leaves the library as it was.
func TestDepositFailsWhole(t *testing.T) {
	s := newLibrary(t)
	a, _, _ := threeGolems()
	digest, _ := a.Digest()
	src, err := library.FromBundle(a, digest, library.ChannelDeath)
	if err != nil {
		t.Fatal(err)
	}
	d, err := library.PlanDeposit(src, nil, library.DepositOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Plan.Edges = append(d.Plan.Edges, grimoire.CausalEdge{SourceID: "a-oracle", TargetID: "nowhere", Weight: 1, Evidence: 5})
	before := dump(t, s)
	if _, err := s.ApplyDeposit(context.Background(), d, t0); !errors.Is(err, ErrNoEntry) {
		t.Fatalf("apply: %v, want ErrNoEntry", err)
	}
	if diff := cmp.Diff(before, dump(t, s)); diff != "" {
		t.Errorf("a failed deposit changed the library:\n%s", diff)
	}
}

// TestEquipIntoSuccessor equips a successor's store from the library and
// applies the same equip again.
func TestEquipIntoSuccessor(t *testing.T) {
	ctx := context.Background()
	lib := newLibrary(t)
	a, b, c := threeGolems()
	for _, x := range []struct {
		b       *bundle.Bundle
		channel string
	}{{a, library.ChannelDeath}, {b, library.ChannelDeath}, {c, inherit.ChannelClade}} {
		if _, err := deposit(t, lib, x.b, x.channel); err != nil {
			t.Fatal(err)
		}
	}
	_, succ := newStore(t) // golem-7a-g1, generation 1
	defer succ.Close()

	o := library.EquipOptions{Now: t0, MaxEntries: 4}
	sel, err := library.NewSelector(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.EachRecord(ctx, func(r *library.Record) error { sel.Add(r); return nil }); err != nil {
		t.Fatal(err)
	}
	edges, err := lib.Edges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	state, err := lib.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	existing, err := succ.DedupView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := succ.Meta()
	eq, err := library.PlanEquip(lib.Meta().GolemID, state, sel.Result(), edges, inherit.Target{GolemID: m.GolemID, Generation: m.Generation, Existing: existing, Vectors: succ.Vectors(ctx)}, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ch := range eq.Choices {
		got = append(got, ch.ID)
	}
	// Warnings first (a-drain, b-drain was a sighting of it), then by
	// effective weight × retrieval weight: death deposits weigh 1.2.
	if d := cmp.Diff([]string{"a-drain", "a-gas", "a-oracle", "b-gas"}, got); d != "" {
		t.Errorf("selection (-want +got):\n%s", d)
	}
	if _, err := succ.ApplyEquip(ctx, eq, t0); err != nil {
		t.Fatal(err)
	}
	mustBeSound(t, succ)
	gas, err := succ.Entry(ctx, "a-gas")
	if err != nil {
		t.Fatal(err)
	}
	if gas.Confidence != 0.3 || *gas.Store.ArrivalConfidence != 0.3 || gas.Store.Channel != library.EquipChannel || gas.Source.GolemID != "golem-a" {
		t.Errorf("a-gas equipped at %v (arrival %v, channel %q, source %+v), want 0.3 from golem-a", gas.Confidence, *gas.Store.ArrivalConfidence, gas.Store.Channel, gas.Source)
	}
	n, err := succ.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n.Entries != 4 || n.CausalEdges != 1 {
		t.Errorf("successor holds %d entries and %d edges, want 4 and 1 (a-drain → a-oracle)", n.Entries, n.CausalEdges)
	}
	before := dump(t, succ)
	if _, err := succ.ApplyEquip(ctx, eq, t0); !errors.Is(err, ErrAlreadyEquipped) {
		t.Fatalf("second equip: %v, want ErrAlreadyEquipped", err)
	}
	if d := cmp.Diff(before, dump(t, succ)); d != "" {
		t.Errorf("a repeated equip changed the store:\n%s", d)
	}

	if _, err := lib.ApplyEquip(ctx, eq, t0); !errors.Is(err, ErrIsLibrary) {
		t.Errorf("equip into a library: %v, want ErrIsLibrary", err)
	}
	d, _ := deposit(t, lib, a, library.ChannelDeath) // any plan: the store refuses before looking
	if _, err := succ.ApplyDeposit(ctx, d, t0); !errors.Is(err, ErrNotLibrary) {
		t.Errorf("deposit into a Golem's store: %v, want ErrNotLibrary", err)
	}
}

// TestDepositQuarantinedNeverBlocksTrusted: a deposit under quarantine is
// a "deposit_quarantined" activity, so the same source deposited trusted
// afterwards applies (recording what it supersedes), while a second
// deposit of either kind is ErrAlreadyDeposited; each keeps its verdict.
func TestDepositQuarantinedNeverBlocksTrusted(t *testing.T) {
	ctx := context.Background()
	s := newLibrary(t)
	const digest = "sha256:aa"
	dep := func(q bool) *library.Deposit {
		tr := inherit.Trust{Signature: "trusted", SignedBy: "owner"}
		if q {
			tr = inherit.Trust{Signature: "unsigned", Quarantine: true}
		}
		return &library.Deposit{Plan: inherit.Plan{BundleDigest: digest, Kind: "death", Channel: library.ChannelDeath, Trust: tr}, Offering: &library.Offering{}}
	}
	qa, err := s.ApplyDeposit(ctx, dep(true), t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyDeposit(ctx, dep(true), t0); !errors.Is(err, ErrAlreadyDeposited) {
		t.Errorf("a second quarantined deposit = %v, want ErrAlreadyDeposited", err)
	}
	ta, err := s.ApplyDeposit(ctx, dep(false), t0)
	if err != nil {
		t.Fatalf("the trusted deposit after a quarantined one: %v", err)
	}
	if _, err := s.ApplyDeposit(ctx, dep(false), t0); !errors.Is(err, ErrAlreadyDeposited) {
		t.Errorf("a second trusted deposit = %v, want ErrAlreadyDeposited", err)
	}
	if _, err := s.ApplyDeposit(ctx, dep(true), t0); !errors.Is(err, ErrAlreadyDeposited) {
		t.Errorf("a quarantined deposit after the trusted one = %v, want ErrAlreadyDeposited", err)
	}
	a, err := s.FindActivity(ctx, ActivityDepositQuarantined, digest)
	if err != nil || a == nil || a.ID != qa {
		t.Fatalf("the quarantined deposit's activity = %+v, %v", a, err)
	}
	if a, err = s.FindActivity(ctx, ActivityDeposit, digest); err != nil || a == nil || a.ID != ta || a.Params["supersedes"] != float64(qa) {
		t.Fatalf("the trusted deposit's activity = %+v, %v; want it to supersede %d", a, err, qa)
	}
	v, err := s.DepositVerdicts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]DepositVerdict{qa: {Signature: "unsigned", Quarantined: true}, ta: {Signature: "trusted", SignedBy: "owner"}}
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	if d, err := s.Deposits(ctx); err != nil || len(d) != 2 {
		t.Errorf("Deposits = %d, %v; want both", len(d), err)
	}
	mustBeSound(t, s)
}

// TestMigrateDepositVerdicts: a library of schema 3, where a quarantined
// deposit was a "deposit" activity and verdicts were keyed by digest,
// migrates: the quarantined deposit becomes "deposit_quarantined", every
// verdict is kept, keyed by its deposit, and the signed original of the
// quarantined source can then be deposited.
func TestMigrateDepositVerdicts(t *testing.T) {
	ctx := context.Background()
	defer func(old migrationSet) { schema = old }(schema)
	schema = migrationSet{fsys: migrations, version: 3}
	p := filepath.Join(t.TempDir(), "library.db")
	s, err := Create(ctx, p, Meta{Kind: KindLibrary, GolemID: "library"}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	var q, tr int64
	if err := s.writeTx(ctx, func(tx *writeTx) error {
		var err error
		if q, err = tx.recordActivity(ctx, Activity{Kind: ActivityDeposit, At: t0, InputDigest: "sha256:aa"}); err != nil {
			return err
		}
		if tr, err = tx.recordActivity(ctx, Activity{Kind: ActivityDeposit, At: t0, InputDigest: "sha256:bb"}); err != nil {
			return err
		}
		_, err = tx.exec(ctx, `INSERT INTO deposit_verdicts(source_digest, activity_id, signature, signed_by, quarantined)
			VALUES('sha256:aa', ?, 'untrusted', 'k1', 1), ('sha256:bb', ?, 'trusted', 'k2', 0)`, q, tr)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	w := openMigrated(t, p)
	acts, err := w.Activities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[int64]string{}
	for _, a := range acts {
		kinds[a.ID] = a.Kind
	}
	if kinds[q] != ActivityDepositQuarantined || kinds[tr] != ActivityDeposit {
		t.Errorf("after the migration the deposits are %q and %q, want %q and %q", kinds[q], kinds[tr], ActivityDepositQuarantined, ActivityDeposit)
	}
	v, err := w.DepositVerdicts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]DepositVerdict{q: {Signature: "untrusted", SignedBy: "k1", Quarantined: true}, tr: {Signature: "trusted", SignedBy: "k2"}}
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("verdicts after the migration (-want +got):\n%s", d)
	}
	d := &library.Deposit{Plan: inherit.Plan{BundleDigest: "sha256:aa", Kind: "death", Channel: library.ChannelDeath,
		Trust: inherit.Trust{Signature: "trusted", SignedBy: "owner"}}, Offering: &library.Offering{}}
	if _, err := w.ApplyDeposit(ctx, d, t0); err != nil {
		t.Errorf("the signed original of a source quarantined before the migration: %v", err)
	}
	mustBeSound(t, w)
}

// TestDedupViewSigners: each row of a library's view carries the key that
// signed the deposit that brought it ("" for an unsigned one), so that a
// deposit meets only its own signer's rows (library.Apart) without a map
// of every row.
func TestDedupViewSigners(t *testing.T) {
	ctx := context.Background()
	s := newLibrary(t)
	vec := func(k int) []float32 {
		v := make([]float32, 8)
		v[k] = 1
		return v
	}
	for i, by := range []string{"", "k1", "k2"} {
		golem := fmt.Sprintf("golem-%d", i)
		b := libBundle(golem, 0,
			libEntry(golem, 0, golem+"-x", grimoire.CategoryInsight, "an insight of "+golem, 0.8, vec(2*i)),
			libEntry(golem, 0, golem+"-y", grimoire.CategoryWarning, "a warning of "+golem, 0.7, vec(2*i+1)))
		digest, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		src, err := library.FromBundle(b, digest, library.ChannelDeath)
		if err != nil {
			t.Fatal(err)
		}
		tr := inherit.Trust{Signature: "unsigned"}
		if by != "" {
			tr = inherit.Trust{Signature: "trusted", SignedBy: by}
		}
		existing, err := s.DedupView(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen, _ := library.Apart(existing, by)
		d, err := library.PlanDeposit(src, seen, library.DepositOptions{Now: t0, Trust: tr, Vectors: s.Vectors(ctx)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyDeposit(ctx, d, t0); err != nil {
			t.Fatal(err)
		}
	}
	view, err := s.DedupView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, x := range view {
		got[x.ID] = x.Signer
	}
	want := map[string]string{"golem-0-x": "", "golem-0-y": "", "golem-1-x": "k1", "golem-1-y": "k1", "golem-2-x": "k2", "golem-2-y": "k2"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("signers (-want +got):\n%s", d)
	}
	loaded, err := s.LoadedDedupView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range loaded {
		if x.Signer != want[x.ID] {
			t.Errorf("LoadedDedupView: %s signed by %q, want %q", x.ID, x.Signer, want[x.ID])
		}
	}
	seen, apart := library.Apart(view, "k1")
	if len(seen) != 2 || seen[0].ID != "golem-1-x" || seen[1].ID != "golem-1-y" || len(apart) != 4 {
		t.Errorf("a k1 deposit meets %+v, apart %v", seen, apart)
	}
}

// TestMigrateApartOf: a library of schema 8 kept rows apart under ids of
// the plain form; the migration gives each its deposit's record of its
// own id (apart_of), so that an equip gives it back, and never a row that
// no deposit created or that only looks like one.
func TestMigrateApartOf(t *testing.T) {
	ctx := context.Background()
	defer func(old migrationSet) { schema = old }(schema)
	schema = migrationSet{fsys: migrations, version: 8}
	p := filepath.Join(t.TempDir(), "library.db")
	s, err := Create(ctx, p, Meta{Kind: KindLibrary, GolemID: "library"}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	apart := "apart:0123456789ab:e1"
	d := &library.Deposit{Plan: inherit.Plan{BundleDigest: "sha256:aa", Kind: "death", Channel: library.ChannelDeath,
		Admit: []inherit.Arrival{{Entry: *entry(apart, "kept apart", 0.8), Original: "e1"}, {Entry: *entry("apart:short:e2", "looks kept apart", 0.8)}}},
		Offering: &library.Offering{}}
	if _, err := s.ApplyDeposit(ctx, d, t0); err != nil {
		t.Fatal(err)
	}
	// What schema 8 wrote: no apart_of.
	if _, err := s.db.Exec("UPDATE entry_changes SET detail=json_remove(detail, '$.apart_of')"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	w := openMigrated(t, p)
	got := map[string]string{}
	if err := w.EachRecord(ctx, func(r *library.Record) error {
		got[r.Entry.ID] = r.ApartOf
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{apart: "e1", "apart:short:e2": ""}, got); d != "" {
		t.Errorf("apart_of after the migration (-want +got):\n%s", d)
	}
	mustBeSound(t, w)
}

// openMigrated opens the store at path for writing with every migration
// of this bardo, which migrates it, and closes it when the test ends.
func openMigrated(t *testing.T, path string) *Store {
	t.Helper()
	schema = migrationSet{fsys: migrations, version: SchemaVersion}
	w, err := Open(context.Background(), path, Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// TestDepositBySigner is issue 32, item 14: a deposit is identified by its
// source's digest and its signer. One digest signed by two keys (a
// stranger's re-signed copy) is two deposits, each with its verdict; the
// same signer again is ErrAlreadyDeposited, and FindDeposit tells them
// apart.
func TestDepositBySigner(t *testing.T) {
	ctx := context.Background()
	s := newLibrary(t)
	dep := func(signer string) error {
		d := &library.Deposit{Plan: inherit.Plan{BundleDigest: "sha256:aa", Kind: "death", Channel: library.ChannelDeath,
			Trust: inherit.Trust{Signature: "untrusted", SignedBy: signer}}, Offering: &library.Offering{}}
		_, err := s.ApplyDeposit(ctx, d, t0)
		return err
	}
	for _, signer := range []string{"stranger", "owner", ""} {
		if err := dep(signer); err != nil {
			t.Fatalf("deposit signed by %q: %v", signer, err)
		}
	}
	for _, signer := range []string{"stranger", "owner", ""} {
		if err := dep(signer); !errors.Is(err, ErrAlreadyDeposited) {
			t.Errorf("deposit signed by %q again: %v, want ErrAlreadyDeposited", signer, err)
		}
		a, err := s.FindDeposit(ctx, ActivityDeposit, "sha256:aa", signer)
		if err != nil || a == nil {
			t.Fatalf("FindDeposit(%q) = %v, %v", signer, a, err)
		}
		if v, _ := s.DepositVerdicts(ctx); v[a.ID].SignedBy != signer {
			t.Errorf("FindDeposit(%q) found the deposit of %q", signer, v[a.ID].SignedBy)
		}
	}
	if a, err := s.FindDeposit(ctx, ActivityDeposit, "sha256:aa", "someone"); a != nil || err != nil {
		t.Errorf("FindDeposit of a signer that never deposited = %v, %v", a, err)
	}
	mustBeSound(t, s)
}
