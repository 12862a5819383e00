package bottleneck_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/grimoire"
)

var now = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// entry returns an active tactical insight of quality q last accessed age
// before now; edits fill in the rest.
func entry(id string, q float64, age time.Duration, edits ...func(*grimoire.Entry)) *grimoire.Entry {
	e := &grimoire.Entry{
		Type:           grimoire.TypeEntry,
		ID:             id,
		Category:       grimoire.CategoryInsight,
		Content:        "content of " + id,
		Confidence:     0.7,
		QualityScore:   q,
		DecayClass:     grimoire.DecayTactical,
		LastAccessedAt: now.Add(-age),
		Strength:       1,
		Provenance:     grimoire.ProvenanceSelfLearned,
		Polarity:       grimoire.PolarityPositive,
		Status:         grimoire.StatusActive,
	}
	for _, edit := range edits {
		edit(e)
	}
	return e
}

// selector is bottleneck.NewSelector for a cap that must be valid.
func selector(t testing.TB, maxEntries int, now time.Time) *bottleneck.Selector {
	t.Helper()
	s, err := bottleneck.NewSelector(maxEntries, now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func class(c string) func(*grimoire.Entry)    { return func(e *grimoire.Entry) { e.DecayClass = c } }
func category(c string) func(*grimoire.Entry) { return func(e *grimoire.Entry) { e.Category = c } }
func status(s string) func(*grimoire.Entry)   { return func(e *grimoire.Entry) { e.Status = s } }

// ids returns the ids of a result, in order.
func ids(rs []bottleneck.Ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Entry.ID
	}
	return out
}

func TestScore(t *testing.T) {
	tests := []struct {
		name      string
		e         *grimoire.Entry
		score, dc float64
	}{
		{"tactical at one half-life", entry("a", 0.8, 7*day), 0.4, 0.5},
		{"fresh entry scores its quality", entry("a", 0.8, 0), 0.8, 1},
		{"future access counts as zero", entry("a", 0.8, -day), 0.8, 1},
		{"strength 2 doubles the half-life", entry("a", 0.8, 14*day, func(e *grimoire.Entry) { e.Strength = 2 }), 0.4, 0.5},
		{"bloodstain decays three times slower", entry("a", 0.6, 21*day, func(e *grimoire.Entry) { e.IsBloodstain = true }), 0.3, 0.5},
		{"death reflection decays three times slower", entry("a", 0.6, 21*day, func(e *grimoire.Entry) { e.Provenance = grimoire.ProvenanceDeathReflection }), 0.3, 0.5},
		{"quality below 0.3 halves the half-life", entry("a", 0.2, 7*day), 0.05, 0.25},
		{"structural keeps its quality", entry("a", 0.9, 9000*time.Hour, class(grimoire.DecayStructural)), 0.9, 1},
		{"quality zero scores zero", entry("a", 0, 0), 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			score, dc := bottleneck.Score(tt.e, now)
			if math.Abs(score-tt.score) > 1e-12 || math.Abs(dc-tt.dc) > 1e-12 {
				t.Errorf("Score = %v, %v; want %v, %v", score, dc, tt.score, tt.dc)
			}
		})
	}
}

func TestCandidate(t *testing.T) {
	tests := []struct {
		name     string
		category string
		status   string
		want     bool
	}{
		{"active insight", grimoire.CategoryInsight, grimoire.StatusActive, true},
		{"active heuristic", grimoire.CategoryHeuristic, grimoire.StatusActive, true},
		{"active warning", grimoire.CategoryWarning, grimoire.StatusActive, true},
		{"active causal link", grimoire.CategoryCausalLink, grimoire.StatusActive, true},
		{"active strategy fragment", grimoire.CategoryStrategyFragment, grimoire.StatusActive, true},
		{"active anti-knowledge", grimoire.CategoryAntiKnowledge, grimoire.StatusActive, true},
		{"dream journal stays soma", grimoire.CategoryDreamJournal, grimoire.StatusActive, false},
		{"archived dream journal stays soma", grimoire.CategoryDreamJournal, grimoire.StatusArchived, false},
		{"archived entries are candidates", grimoire.CategoryWarning, grimoire.StatusArchived, true},
		{"quarantined insight is not", grimoire.CategoryInsight, grimoire.StatusQuarantined, false},
		{"quarantined warning is not", grimoire.CategoryWarning, grimoire.StatusQuarantined, false},
		{"unknown category is not", "rumour", grimoire.StatusActive, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entry("a", 0.5, 0, category(tt.category), status(tt.status))
			if got := bottleneck.Candidate(e); got != tt.want {
				t.Errorf("Candidate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestResultOrder(t *testing.T) {
	in := []*grimoire.Entry{
		entry("stale-high", 0.9, 14*day),                                       // 0.225
		entry("fresh-mid", 0.5, 0),                                             // 0.5
		entry("structural-low", 0.4, 400*day, class(grimoire.DecayStructural)), // 0.4
		entry("half-life", 0.8, 7*day),                                         // 0.4, ties with structural-low
		entry("ephemeral-old", 1, 10*day, class(grimoire.DecayEphemeral)),      // 2^-10
		entry("low-quality", 0.2, 7*day),                                       // 0.05
		entry("dream", 1, 0, category(grimoire.CategoryDreamJournal)),          // soma
		entry("quarantined", 1, 0, status(grimoire.StatusQuarantined)),         // not a candidate
		entry("archived", 0.3, 0, status(grimoire.StatusArchived)),             // 0.3
	}
	s := selector(t, bottleneck.DefaultMaxEntries, now)
	for _, e := range in {
		s.Add(e)
	}
	type row struct {
		Rank         int
		ID           string
		Score, Decay float64
	}
	var got []row
	for _, r := range s.Result() {
		got = append(got, row{r.Rank, r.Entry.ID, r.Score, r.Decay})
	}
	want := []row{
		{1, "fresh-mid", 0.5, 1},
		{2, "half-life", 0.4, 0.5},
		{3, "structural-low", 0.4, 1},
		{4, "archived", 0.3, 1},
		{5, "stale-high", 0.225, 0.25},
		{6, "low-quality", 0.05, 0.25},
		{7, "ephemeral-old", math.Exp2(-10), math.Exp2(-10)},
	}
	// Scores and decays are written to six significant digits (decay.Round).
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 5e-6*math.Abs(b)+1e-12 })
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("Result (-want +got):\n%s", d)
	}
	if s.Entries() != 9 || s.Candidates() != 7 || s.Len() != 7 {
		t.Errorf("Entries, Candidates, Len = %d, %d, %d; want 9, 7, 7", s.Entries(), s.Candidates(), s.Len())
	}
}

// The ids of tied entries compare as bytes: digits before upper case before
// lower case, and UTF-8 multi-byte letters after all of ASCII, "É" (C3 89)
// before "é" (C3 A9). A locale-aware or case-folding order would differ.
var bytewise = []string{"10", "9", "B", "Z", "a", "a\x00", "ab", "e", "z", "É", "é", "𝔷"}

func TestTiesByIDBytewise(t *testing.T) {
	for _, k := range []int{1, 3, len(bytewise), 100} {
		s := selector(t, k, now)
		for i := len(bytewise) - 1; i >= 0; i-- { // worst first: every tie has to be decided
			s.Add(entry(bytewise[i], 0.5, 0))
		}
		want := bytewise[:min(k, len(bytewise))]
		if d := cmp.Diff(want, ids(s.Result())); d != "" {
			t.Errorf("max %d: ids (-want +got):\n%s", k, d)
		}
	}
}

func TestCap(t *testing.T) {
	in := []*grimoire.Entry{
		entry("e1", 0.9, 0), entry("e2", 0.8, 0), entry("e3", 0.7, 0), entry("e4", 0.6, 0), entry("e5", 0.5, 0),
		entry("soma", 1, 0, category(grimoire.CategoryDreamJournal)),
	}
	tests := []struct {
		name string
		max  int
		want []string
	}{
		{"zero is the default cap", 0, []string{"e1", "e2", "e3", "e4", "e5"}},
		{"one keeps the best", 1, []string{"e1"}},
		{"cap below the candidates keeps the best", 3, []string{"e1", "e2", "e3"}},
		{"cap at the candidates keeps all", 5, []string{"e1", "e2", "e3", "e4", "e5"}},
		{"cap above the candidates keeps all", 2048, []string{"e1", "e2", "e3", "e4", "e5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {2, 5, 0, 4, 1, 3}} {
				s := selector(t, tt.max, now)
				for _, i := range order {
					s.Add(in[i])
				}
				got := s.Result()
				if d := cmp.Diff(tt.want, ids(got)); d != "" {
					t.Errorf("order %v: ids (-want +got):\n%s", order, d)
				}
				for i, r := range got {
					if r.Rank != i+1 {
						t.Errorf("order %v: %s has rank %d, want %d", order, r.Entry.ID, r.Rank, i+1)
					}
				}
				if s.Entries() != 6 || s.Candidates() != 5 {
					t.Errorf("Entries, Candidates = %d, %d; want 6, 5", s.Entries(), s.Candidates())
				}
			}
		})
	}
}

func TestResultLeavesSelectorUsable(t *testing.T) {
	s := selector(t, 2, now)
	s.Add(entry("b", 0.5, 0))
	s.Add(entry("c", 0.4, 0))
	first := s.Result()
	if d := cmp.Diff([]string{"b", "c"}, ids(s.Result())); d != "" {
		t.Errorf("second Result (-want +got):\n%s", d)
	}
	s.Add(entry("a", 0.9, 0))
	if d := cmp.Diff([]string{"a", "b"}, ids(s.Result())); d != "" {
		t.Errorf("Result after Add (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"b", "c"}, ids(first)); d != "" {
		t.Errorf("earlier Result changed by Add (-want +got):\n%s", d)
	}
}

// TestCapRule: the one rule of every cap on entries. 0 means the
// default; below 0 or above the limit is refused, by the selectors too.
func TestCapRule(t *testing.T) {
	tests := []struct {
		name    string
		n, want int
		err     string
	}{
		{"zero is the default", 0, bottleneck.DefaultMaxEntries, ""},
		{"one", 1, 1, ""},
		{"the limit", bottleneck.MaxEntriesLimit, bottleneck.MaxEntriesLimit, ""},
		{"negative", -1, 0, "invalid max entries: -1 is outside [1, 65536] (0 means 2048)"},
		{"above the limit", bottleneck.MaxEntriesLimit + 1, 0, "invalid max entries: 65537 is outside [1, 65536] (0 means 2048)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bottleneck.Cap(tt.n)
			if tt.err != "" {
				if !errors.Is(err, bottleneck.ErrMaxEntries) || err.Error() != tt.err {
					t.Errorf("Cap(%d) = %d, %v; want an error %q", tt.n, got, err, tt.err)
				}
				if s, err := bottleneck.NewSelector(tt.n, now); s != nil || !errors.Is(err, bottleneck.ErrMaxEntries) {
					t.Errorf("NewSelector(%d) = %v, %v; want ErrMaxEntries", tt.n, s, err)
				}
				if s, err := bottleneck.NewSharingSelector(tt.n, now, 0.6); s != nil || !errors.Is(err, bottleneck.ErrMaxEntries) {
					t.Errorf("NewSharingSelector(%d) = %v, %v; want ErrMaxEntries", tt.n, s, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Cap(%d) = %d, %v; want %d", tt.n, got, err, tt.want)
			}
			if s := selector(t, tt.n, now); s.MaxEntries() != tt.want {
				t.Errorf("NewSelector(%d).MaxEntries() = %d, want %d", tt.n, s.MaxEntries(), tt.want)
			}
		})
	}
}

func TestSelectorKeepsParameters(t *testing.T) {
	s := selector(t, 7, now)
	if s.MaxEntries() != 7 || !s.Now().Equal(now) {
		t.Errorf("MaxEntries, Now = %d, %v; want 7, %v", s.MaxEntries(), s.Now(), now)
	}
}

// TestRanksByWrittenScore: the selection ranks by the score it writes,
// rounded to six digits (FORMAT.md orders entries by it, then by id): two
// scores equal to six digits are a tie, and the smaller id goes first.
func TestRanksByWrittenScore(t *testing.T) {
	structural := class(grimoire.DecayStructural)
	higher := entry("b-higher", 0.40000001, 0, structural)
	lower := entry("a-lower", 0.40000000, 0, structural)
	if s1, _ := bottleneck.Score(higher, now); s1 != 0.4 {
		t.Fatalf("Score(%v) = %v, want it rounded to 0.4", higher.QualityScore, s1)
	}
	for _, in := range [][]*grimoire.Entry{{higher, lower}, {lower, higher}} {
		s := selector(t, 2, now)
		for _, e := range in {
			s.Add(e)
		}
		r := s.Result()
		if got := ids(r); got[0] != "a-lower" || got[1] != "b-higher" {
			t.Errorf("order %v, want [a-lower b-higher]: a tie, by id", got)
		}
		if r[0].Score != 0.4 || r[1].Score != 0.4 {
			t.Errorf("scores %v, %v; want both written as 0.4", r[0].Score, r[1].Score)
		}
	}
}

// TestWorstKeptTiedByRounding: an entry whose raw quality is below the
// worst kept score but whose written score ties it (0.4999996 rounds to
// 0.5) competes by id, whichever line comes first: the skip before the
// decay must not compare a raw quality with a rounded score.
func TestWorstKeptTiedByRounding(t *testing.T) {
	structural := class(grimoire.DecayStructural)
	tests := []struct {
		name string
		a, b *grimoire.Entry
		want string
	}{
		{"raw quality just below, smaller id", entry("e-a", 0.4999996, 0, structural), entry("e-b", 0.5, 0, structural), "e-a"},
		{"raw quality at the half-unit, smaller id", entry("e-a", 0.49999950000000003, 0, structural), entry("e-b", 0.5, 0, structural), "e-a"},
		{"raw quality below the half-unit loses", entry("e-a", 0.4999994, 0, structural), entry("e-b", 0.5, 0, structural), "e-b"},
		{"tie at a decade boundary", entry("e-a", 0.09999996, 0, structural), entry("e-b", 0.1, 0, structural), "e-a"},
		{"decayed score ties", entry("e-a", 0.4999998, 0, structural), entry("e-b", 1, 7*day), "e-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, in := range [][]*grimoire.Entry{{tt.a, tt.b}, {tt.b, tt.a}} {
				s := selector(t, 1, now)
				for _, e := range in {
					s.Add(e)
				}
				if got := ids(s.Result()); len(got) != 1 || got[0] != tt.want {
					t.Errorf("lines %s, %s: selected %v, want [%s]", in[0].ID, in[1].ID, got, tt.want)
				}
			}
		})
	}
}
