package maintain

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

var now = time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// row is an active tactical heuristic at full memory strength, accessed an
// hour before now.
func row(edit func(*grimoire.Entry)) *grimoire.Entry {
	e := &grimoire.Entry{ID: "e", Category: grimoire.CategoryHeuristic, Confidence: 0.6, QualityScore: 0.5,
		DecayClass: grimoire.DecayTactical, Strength: 1, Status: grimoire.StatusActive, Polarity: grimoire.PolarityPositive,
		LastAccessedAt: now.Add(-time.Hour), Store: &grimoire.StoreState{MemoryStrength: ptr(1.0)}}
	if edit != nil {
		edit(e)
	}
	return e
}

func TestMetabolize(t *testing.T) {
	before, after := now.Add(-24*time.Hour), now.Add(time.Second)
	for _, tc := range []struct {
		name   string
		e      *grimoire.Entry
		last   *time.Time
		factor float64
		want   Metabolism
	}{
		{"full strength decays by the factor", row(nil), nil, 0.97, Metabolism{Action: Metabolized, From: 1, To: 0.97}},
		{"unset strength counts as 1", row(func(e *grimoire.Entry) { e.Store = nil }), nil, 0.97, Metabolism{Action: Metabolized, From: 1, To: 0.97}},
		{"metabolized by an earlier cycle decays again", row(nil), &before, 0.5, Metabolism{Action: Metabolized, From: 1, To: 0.5}},
		{"floored at 0.05", row(func(e *grimoire.Entry) { e.Store.MemoryStrength = ptr(0.051) }), nil, 0.5,
			Metabolism{Action: Metabolized, From: 0.051, To: StrengthFloor}},
		{"at the floor stays", row(func(e *grimoire.Entry) { e.Store.MemoryStrength = ptr(0.05) }), nil, 0.97,
			Metabolism{Action: AtFloor, From: 0.05, To: 0.05}},
		{"a replayed cycle never decays twice", row(nil), &now, 0.97, Metabolism{Action: AlreadyMetabolized, From: 1, To: 1}},
		{"a cycle older than the last never decays", row(nil), &after, 0.97, Metabolism{Action: AlreadyMetabolized, From: 1, To: 1}},
		{"archived rows are out of recall", row(func(e *grimoire.Entry) { e.Status = grimoire.StatusArchived }), nil, 0.97,
			Metabolism{Action: NotActive, From: 1, To: 1}},
		{"quarantined rows are out of recall", row(func(e *grimoire.Entry) { e.Status = grimoire.StatusQuarantined }), nil, 0.97,
			Metabolism{Action: NotActive, From: 1, To: 1}},
		{"bloodstain protected", row(func(e *grimoire.Entry) { e.IsBloodstain = true }), nil, 0.97,
			Metabolism{Action: Protected, Protection: ProtectBloodstain, From: 1, To: 1}},
		{"warning protected", row(func(e *grimoire.Entry) { e.Category = grimoire.CategoryWarning }), nil, 0.97,
			Metabolism{Action: Protected, Protection: ProtectWarning, From: 1, To: 1}},
		{"anti_knowledge protected", row(func(e *grimoire.Entry) { e.Category = grimoire.CategoryAntiKnowledge }), nil, 0.97,
			Metabolism{Action: Protected, Protection: ProtectAntiKnowledge, From: 1, To: 1}},
		{"autopsy-flagged protected", row(func(e *grimoire.Entry) { e.Store.ToxicRecommendation = "discard" }), nil, 0.97,
			Metabolism{Action: Protected, Protection: ProtectAutopsyFlagged, From: 1, To: 1}},
		{"open question protected", row(func(e *grimoire.Entry) { e.RequiresInvestigation = true }), nil, 0.97,
			Metabolism{Action: Protected, Protection: ProtectOpenQuestion, From: 1, To: 1}},
		{"factor 1 keeps strength", row(nil), nil, 1, Metabolism{Action: Metabolized, From: 1, To: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := tc.e.Confidence
			got := Metabolize(tc.e, tc.last, now, tc.factor)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Metabolize (-want +got):\n%s", d)
			}
			if tc.e.Confidence != conf {
				t.Errorf("confidence changed: %v → %v", conf, tc.e.Confidence)
			}
		})
	}
}

// TestMetabolismConverges: repeated cycles reach the floor and stay there.
func TestMetabolismConverges(t *testing.T) {
	e := row(nil)
	for i := range 200 {
		at := now.Add(time.Duration(i) * 24 * time.Hour)
		m := Metabolize(e, nil, at, DefaultDecayFactor)
		e.Store.MemoryStrength = ptr(m.To)
	}
	if got := *e.Store.MemoryStrength; got != StrengthFloor {
		t.Errorf("after 200 cycles strength = %v, want the floor %v", got, StrengthFloor)
	}
}

func TestRetain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		e        *grimoire.Entry
		restored bool
		archive  bool
		weight   float64
	}{
		{"fresh row kept", row(nil), false, false, 0.6 * math.Exp2(-1.0/168)},
		{"structural never decays", row(func(e *grimoire.Entry) {
			e.DecayClass, e.LastAccessedAt = grimoire.DecayStructural, now.AddDate(-5, 0, 0)
		}), false, false, 0.6},
		{"low confidence alone archives", row(func(e *grimoire.Entry) {
			e.DecayClass, e.Confidence = grimoire.DecayStructural, 0.04
		}), false, true, 0.04},
		{"at the floor kept", row(func(e *grimoire.Entry) {
			e.DecayClass, e.Confidence = grimoire.DecayStructural, 0.05
		}), false, false, 0.05},
		{"four tactical half-lives archive", row(func(e *grimoire.Entry) {
			e.LastAccessedAt = now.Add(-4 * 7 * 24 * time.Hour)
		}), false, true, 0.6 / 16},
		{"a bloodstain decays three times slower", row(func(e *grimoire.Entry) {
			e.IsBloodstain, e.LastAccessedAt = true, now.Add(-4*7*24*time.Hour)
		}), false, false, 0.6 * math.Exp2(-4.0/3)},
		{"archived rows are not archived again", row(func(e *grimoire.Entry) {
			e.Status, e.Confidence = grimoire.StatusArchived, 0.01
		}), false, false, 0.01 * math.Exp2(-1.0/168)},
		{"quarantined rows are left to their review", row(func(e *grimoire.Entry) {
			e.Status, e.Confidence = grimoire.StatusQuarantined, 0.01
		}), false, false, 0.01 * math.Exp2(-1.0/168)},
		{"a row a person restored is not archived again", row(func(e *grimoire.Entry) {
			e.DecayClass, e.Confidence = grimoire.DecayStructural, 0.01
		}), true, false, 0.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := tc.e.Confidence
			got := Retain(tc.e, tc.restored, now)
			if got.Archive != tc.archive || math.Abs(got.Weight-tc.weight) > 1e-12 {
				t.Errorf("Retain = %+v, want archive %v weight %v", got, tc.archive, tc.weight)
			}
			if got.Archive != (got.Reason != "") {
				t.Errorf("reason %q for archive %v", got.Reason, got.Archive)
			}
			if tc.e.Confidence != conf {
				t.Errorf("confidence changed: %v → %v", conf, tc.e.Confidence)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(Options{MaxReviewed: 2, MaxWrites: 1})
	if !b.Review() || !b.Write() || !b.Review() {
		t.Fatal("budget refused within its limits")
	}
	if b.Write() {
		t.Error("a second write fit a budget of 1")
	}
	if b.Review() {
		t.Error("a third review fit a budget of 2")
	}
	if b.Spent != "--max-writes 1 reached" {
		t.Errorf("Spent = %q, want the first budget that ran out", b.Spent)
	}
	b.Unreview()
	if b.Reviewed != 1 {
		t.Errorf("Reviewed after Unreview = %d, want 1", b.Reviewed)
	}
}

func TestOptionsWithDefaults(t *testing.T) {
	got, err := Options{Now: now}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Now: now, DecayFactor: DefaultDecayFactor, MaxReviewed: DefaultMaxReviewed, MaxWrites: DefaultMaxWrites, BatchSize: DefaultBatchSize}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("defaults (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"no time", Options{}, "needs a time"},
		{"factor above 1", Options{Now: now, DecayFactor: 1.01}, "decay factor 1.01 is outside (0, 1]"},
		{"negative factor", Options{Now: now, DecayFactor: -0.5}, "decay factor -0.5 is outside (0, 1]"},
		{"NaN factor", Options{Now: now, DecayFactor: math.NaN()}, "outside (0, 1]"},
		{"negative writes", Options{Now: now, MaxWrites: -1}, "max writes -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.o.WithDefaults()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
