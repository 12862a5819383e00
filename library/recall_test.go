package library_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/textembed"
)

type hitSummary struct {
	ID        string
	Reasons   []string
	Condition int
	Cosine    float64
	Compared  string
}

func summarize(hits []library.Hit) []hitSummary {
	var out []hitSummary
	for _, h := range hits {
		out = append(out, hitSummary{h.Record.Entry.ID, h.Reasons, h.Condition, h.Cosine, h.Compared})
	}
	return out
}

// TestRecallPlanted plants a death condition: a bloodstain at cosine 0.85
// to the current conditions surfaces, one at 0.75 does not, nor does a
// record at 0.97 that is no death record.
func TestRecallPlanted(t *testing.T) {
	recs, conds := plantedRecall()
	hits, err := library.Recall(conds, recs, now, library.RecallAbove)
	if err != nil {
		t.Fatal(err)
	}
	want := []hitSummary{{"stain-085", []string{library.ReasonDeathDeposit}, 0, 0.85, space}}
	if d := cmp.Diff(want, summarize(hits)); d != "" {
		t.Fatalf("hits (-want +got):\n%s", d)
	}
	h := hits[0]
	if h.RetrievalWeight != 1.2 || !near(h.Score, 0.85*1.2*h.EffectiveWeight) || h.EffectiveWeight != 0.6 {
		t.Errorf("hit %+v: score must be cosine × 1.2 × effective weight (structural: 0.6)", h)
	}
}

// plantedRecall is TestRecallPlanted's library and condition.
func plantedRecall() ([]library.Record, []library.Condition) {
	recs := []library.Record{
		record("stain-085", grimoire.CategoryWarning, library.ChannelDeath, 0.6, 0, cos085),
		record("stain-075", grimoire.CategoryWarning, library.ChannelDeath, 0.6, 0, cos075),
		record("living-097", grimoire.CategoryInsight, library.ChannelLive, 0.9, 0, cos097),
		record("flag-080", grimoire.CategoryWarning, library.ChannelLive, 0.9, 0, cos080), // exactly 0.8: not above
	}
	recs[3].Entry.IsBloodstain = true
	return recs, []library.Condition{{Kind: library.ConditionEntry, ID: "now-1", Text: "unrelated words", Space: space, Vector: e1}}
}

// TestRecallRanking: the score ranks, the best condition is named, and
// text stands in where the two sides share no model space.
func TestRecallRanking(t *testing.T) {
	text := "oracle heartbeat stalled during a liquidity crisis"
	recs := []library.Record{
		record("a-death", grimoire.CategoryWarning, library.ChannelDeath, 0.9, 0, e1),
		record("b-stain", grimoire.CategoryWarning, library.ChannelLive, 0.9, 0, e2),
		record("c-reflection", grimoire.CategoryInsight, library.ChannelLive, 0.5, 0, nil),
		record("d-quarantined", grimoire.CategoryWarning, library.ChannelDeath, 0.9, 0, e1),
	}
	recs[1].Entry.IsBloodstain = true
	recs[2].Entry.Provenance = grimoire.ProvenanceDeathReflection
	recs[2].Entry.Content = text
	recs[3].Entry.Status = grimoire.StatusQuarantined
	conds := []library.Condition{
		{Kind: library.ConditionEntry, ID: "x", Text: "x", Space: space, Vector: cos092},  // 0.92 to a-death
		{Kind: library.ConditionEntry, ID: "y", Text: "y", Space: space, Vector: e1},      // 1 to a-death
		{Kind: library.ConditionEpisode, ID: "ep-9", Text: text},                          // text to c-reflection
		{Kind: library.ConditionEntry, ID: "z", Text: "z", Space: "other/v1", Vector: e2}, // another space: text only
	}
	hits, err := library.Recall(conds, recs, now, library.RecallAbove)
	if err != nil {
		t.Fatal(err)
	}
	want := []hitSummary{
		{"a-death", []string{library.ReasonDeathDeposit}, 1, 1, space},
		{"c-reflection", []string{library.ReasonDeathReflection}, 2, 1, textembed.Space},
	}
	if d := cmp.Diff(want, summarize(hits)); d != "" {
		t.Errorf("hits (-want +got):\n%s", d)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score || hits[i].Rank != i+1 {
			t.Errorf("hit %d out of order: %+v after %+v", i, hits[i], hits[i-1])
		}
	}
}

func TestReasons(t *testing.T) {
	dw := 3.0
	for _, tc := range []struct {
		name string
		edit func(*grimoire.Entry)
		want []string
	}{
		{"a living row", func(e *grimoire.Entry) { e.Store = &grimoire.StoreState{Channel: library.ChannelLive} }, nil},
		{"a death deposit", func(e *grimoire.Entry) { e.Store = &grimoire.StoreState{Channel: library.ChannelDeath} }, []string{library.ReasonDeathDeposit}},
		{"equipped from a death deposit", func(e *grimoire.Entry) {
			e.Store = &grimoire.StoreState{Channel: library.EquipChannel, DemurrageWeight: &dw}
		}, []string{library.ReasonBloodstainProvenance}},
		{"an inherited bloodstain", func(e *grimoire.Entry) {
			e.IsBloodstain, e.Store = true, &grimoire.StoreState{Channel: "predecessor", DemurrageWeight: &dw}
		}, []string{library.ReasonBloodstain}},
		{"a death-deposited testament", func(e *grimoire.Entry) {
			e.Provenance, e.IsBloodstain, e.Store = grimoire.ProvenanceDeathReflection, true, &grimoire.StoreState{Channel: library.ChannelDeath}
		}, []string{library.ReasonDeathDeposit, library.ReasonBloodstain, library.ReasonDeathReflection}},
		{"quarantined", func(e *grimoire.Entry) {
			e.IsBloodstain, e.Status = true, grimoire.StatusQuarantined
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &grimoire.Entry{Status: grimoire.StatusActive}
			tc.edit(e)
			if d := cmp.Diff(tc.want, library.Reasons(e)); d != "" {
				t.Errorf("reasons (-want +got):\n%s", d)
			}
		})
	}
}

// TestConditionsFromExport keeps the most recently accessed entries and
// the latest episodes, bounded.
func TestConditionsFromExport(t *testing.T) {
	export := `{"type":"header","format":"bardo.grimoire-export/v1","golem_id":"live","generation":1,"exported_at":"2026-11-03T08:00:00Z","embedding":{"model":"test-embed/v1","dims":2}}
{"type":"entry","id":"old","category":"insight","content":"old news","confidence":0.5,"quality_score":0.5,"decay_class":"tactical","last_accessed_at":"2026-10-01T00:00:00Z","embedding":[1,0]}
{"type":"entry","id":"new-b","category":"insight","content":"fresh b","confidence":0.5,"quality_score":0.5,"decay_class":"tactical","last_accessed_at":"2026-11-03T07:00:00Z","embedding":[0,1]}
{"type":"entry","id":"new-a","category":"warning","content":"fresh a","confidence":0.5,"quality_score":0.5,"decay_class":"tactical","last_accessed_at":"2026-11-03T07:00:00Z"}
{"type":"entry","id":"dream","category":"dream_journal","content":"a dream","confidence":0.5,"quality_score":0.5,"decay_class":"tactical","last_accessed_at":"2026-11-03T07:59:00Z"}
{"type":"episode","id":"ep-3","tick":30,"at":"2026-11-03T07:00:00Z","summary":"gas spiked to 300 gwei"}
{"type":"episode","id":"ep-1","tick":10,"at":"2026-11-03T05:00:00Z","summary":"quiet market"}
{"type":"episode","id":"ep-2","tick":20,"at":"2026-11-03T06:00:00Z","regime":"crisis","action":"rebalance","outcome":"slippage"}
`
	r, err := grimoire.NewReader(bytes.NewReader([]byte(export)), grimoire.ReadOptions{Name: "live.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	conds, err := library.ConditionsFromExport(r, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []library.Condition{
		{Kind: library.ConditionEntry, ID: "new-a", Text: "fresh a"},
		{Kind: library.ConditionEntry, ID: "new-b", Text: "fresh b", Space: "test-embed/v1", Vector: []float32{0, 1}},
		{Kind: library.ConditionEpisode, ID: "ep-3", Text: "gas spiked to 300 gwei"},
		{Kind: library.ConditionEpisode, ID: "ep-2", Text: "crisis rebalance slippage"},
	}
	if d := cmp.Diff(want, conds); d != "" {
		t.Errorf("conditions (-want +got):\n%s", d)
	}
}

// TestRecallThresholdAndVector: a lower threshold surfaces what 0.8 does
// not; a vector condition is compared in its model space only; the
// threshold is checked.
func TestRecallThresholdAndVector(t *testing.T) {
	recs, conds := plantedRecall()
	vec := []library.Condition{{Kind: library.ConditionVector, Space: conds[0].Space, Vector: conds[0].Vector}}
	for _, tc := range []struct {
		name  string
		conds []library.Condition
		above float64
		want  []string
	}{
		{"the default threshold", conds, library.RecallAbove, []string{"stain-085"}},
		{"a lower threshold", conds, 0.7, []string{"flag-080", "stain-085", "stain-075"}},
		{"a vector alone", vec, library.RecallAbove, []string{"stain-085"}},
		{"a vector at a lower threshold", vec, 0.7, []string{"flag-080", "stain-085", "stain-075"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := library.Recall(tc.conds, recs, now, tc.above)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Record.Entry.ID)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("hits (-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []float64{-0.1, 1, math.NaN()} {
		if _, err := library.Recall(conds, recs, now, bad); err == nil {
			t.Errorf("threshold %v accepted", bad)
		}
	}
}

func TestVectorSpace(t *testing.T) {
	recs, conds := plantedRecall()
	dims := len(conds[0].Vector)
	if sp, err := library.VectorSpace(recs, dims, ""); err != nil || sp != conds[0].Space {
		t.Errorf("VectorSpace = %q, %v; want %q", sp, err, conds[0].Space)
	}
	if _, err := library.VectorSpace(recs, dims+1, ""); err == nil || !strings.Contains(err.Error(), "no recall candidate has a vector of") {
		t.Errorf("a length no record has: %v", err)
	}
	if _, err := library.VectorSpace(recs, dims, "other-model"); err == nil || !strings.Contains(err.Error(), `in space "other-model"`) {
		t.Errorf("a space no record has: %v", err)
	}
}
