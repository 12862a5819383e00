package decay_test

import (
	"math"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
)

var now = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// entry returns an active, self-learned entry of quality 0.5 last accessed
// age before now; edit fills in the rest.
func entry(age time.Duration, class string, edit func(*grimoire.Entry)) *grimoire.Entry {
	e := &grimoire.Entry{
		ID:             "e",
		Category:       grimoire.CategoryInsight,
		Confidence:     0.8,
		QualityScore:   0.5,
		DecayClass:     class,
		LastAccessedAt: now.Add(-age),
		Strength:       1,
		Provenance:     grimoire.ProvenanceSelfLearned,
	}
	if edit != nil {
		edit(e)
	}
	return e
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

func TestOf(t *testing.T) {
	strength := func(n int64) func(*grimoire.Entry) { return func(e *grimoire.Entry) { e.Strength = n } }
	quality := func(q float64) func(*grimoire.Entry) { return func(e *grimoire.Entry) { e.QualityScore = q } }
	bloodstain := func(e *grimoire.Entry) { e.IsBloodstain = true }
	testament := func(e *grimoire.Entry) { e.Provenance = grimoire.ProvenanceDeathReflection }

	tests := []struct {
		name  string
		age   time.Duration
		class string
		edit  func(*grimoire.Entry)
		want  float64
	}{
		{"tactical at one half-life", 7 * day, grimoire.DecayTactical, nil, 0.5},
		{"tactical at two half-lives", 14 * day, grimoire.DecayTactical, nil, 0.25},
		{"ephemeral at one day", day, grimoire.DecayEphemeral, nil, 0.5},
		{"regime conditional at fourteen days", 14 * day, grimoire.DecayRegimeConditional, nil, 0.5},
		{"procedural at thirty days", 30 * day, grimoire.DecayProcedural, nil, 0.5},
		{"procedural at half a half-life", 15 * day, grimoire.DecayProcedural, nil, math.Sqrt2 / 2},
		{"accessed at now has not decayed", 0, grimoire.DecayEphemeral, nil, 1},
		{"future access counts as zero", -time.Hour, grimoire.DecayEphemeral, nil, 1},
		{"structural never decays", 9000 * time.Hour, grimoire.DecayStructural, nil, 1},
		{"structural bloodstain of low quality never decays", 9000 * time.Hour, grimoire.DecayStructural,
			func(e *grimoire.Entry) { e.IsBloodstain = true; e.QualityScore = 0.1 }, 1},
		{"strength 2 doubles the half-life", 14 * day, grimoire.DecayTactical, strength(2), 0.5},
		{"strength 3 triples the half-life", 21 * day, grimoire.DecayTactical, strength(3), 0.5},
		{"strength 0 is read as 1", 7 * day, grimoire.DecayTactical, strength(0), 0.5},
		{"bloodstain has three half-lives", 21 * day, grimoire.DecayTactical, bloodstain, 0.5},
		{"death reflection has three half-lives", 21 * day, grimoire.DecayTactical, testament, 0.5},
		{"bloodstain death reflection counts three once", 21 * day, grimoire.DecayTactical,
			func(e *grimoire.Entry) { bloodstain(e); testament(e) }, 0.5},
		{"quality below 0.3 halves the half-life", 3*day + 12*time.Hour, grimoire.DecayTactical, quality(0.29), 0.5},
		{"quality of exactly 0.3 keeps the half-life", 7 * day, grimoire.DecayTactical, quality(0.3), 0.5},
		{"quality of zero halves the half-life", 7 * day, grimoire.DecayTactical, quality(0), 0.25},
		{"factors multiply", 21 * day, grimoire.DecayTactical,
			func(e *grimoire.Entry) { e.Strength = 2; bloodstain(e); e.QualityScore = 0.1 }, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entry(tt.age, tt.class, tt.edit)
			if got := decay.Of(e, now); !near(got, tt.want) {
				t.Errorf("Of = %.17g, want %.17g", got, tt.want)
			}
			if got, want := decay.EffectiveWeight(e, now), e.Confidence*tt.want; !near(got, want) {
				t.Errorf("EffectiveWeight = %.17g, want %.17g", got, want)
			}
		})
	}
}

func TestOfIsInUnitInterval(t *testing.T) {
	for _, class := range grimoire.DecayClasses {
		for _, age := range []time.Duration{-1000 * day, 0, time.Nanosecond, time.Hour, 365 * day, 100000 * day} {
			got := decay.Of(entry(age, class, nil), now)
			if !(got >= 0 && got <= 1) {
				t.Errorf("%s at %v: Of = %v, outside [0,1]", class, age, got)
			}
		}
	}
}

func TestOfDecreasesWithAge(t *testing.T) {
	prev := 2.0
	for _, age := range []time.Duration{0, time.Hour, day, 7 * day, 30 * day, 365 * day} {
		got := decay.Of(entry(age, grimoire.DecayProcedural, nil), now)
		if got >= prev {
			t.Errorf("at %v: Of = %v, not below %v at a smaller age", age, got, prev)
		}
		prev = got
	}
}

func TestHalfLife(t *testing.T) {
	tests := []struct {
		name   string
		params decay.Params
		want   float64 // hours
	}{
		{"ephemeral", decay.Params{DecayClass: grimoire.DecayEphemeral, Strength: 1, QualityScore: 1}, 24},
		{"tactical", decay.Params{DecayClass: grimoire.DecayTactical, Strength: 1, QualityScore: 1}, 168},
		{"regime conditional", decay.Params{DecayClass: grimoire.DecayRegimeConditional, Strength: 1, QualityScore: 1}, 336},
		{"procedural", decay.Params{DecayClass: grimoire.DecayProcedural, Strength: 1, QualityScore: 1}, 720},
		{"structural is infinite", decay.Params{DecayClass: grimoire.DecayStructural, Strength: 1}, math.Inf(1)},
		{"unknown class is infinite", decay.Params{DecayClass: "eternal", Strength: 1}, math.Inf(1)},
		{"strength multiplies", decay.Params{DecayClass: grimoire.DecayEphemeral, Strength: 5, QualityScore: 1}, 120},
		{"negative strength is read as 1", decay.Params{DecayClass: grimoire.DecayEphemeral, Strength: -4, QualityScore: 1}, 24},
		{"death testament times three", decay.Params{DecayClass: grimoire.DecayEphemeral, Strength: 1, DeathTestament: true, QualityScore: 1}, 72},
		{"low quality halves", decay.Params{DecayClass: grimoire.DecayEphemeral, Strength: 1, QualityScore: 0.2}, 12},
		{"all factors", decay.Params{DecayClass: grimoire.DecayTactical, Strength: 2, DeathTestament: true, QualityScore: 0.2}, 504},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.params.HalfLife(); got != tt.want {
				t.Errorf("HalfLife = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParamsOf(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(*grimoire.Entry)
		testament bool
	}{
		{"self learned", nil, false},
		{"bloodstain", func(e *grimoire.Entry) { e.IsBloodstain = true }, true},
		{"death reflection", func(e *grimoire.Entry) { e.Provenance = grimoire.ProvenanceDeathReflection }, true},
		{"predecessor", func(e *grimoire.Entry) { e.Provenance = grimoire.ProvenancePredecessor }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entry(day, grimoire.DecayTactical, tt.edit)
			p := decay.ParamsOf(e)
			if p.DeathTestament != tt.testament {
				t.Errorf("DeathTestament = %v, want %v", p.DeathTestament, tt.testament)
			}
			if p.DecayClass != e.DecayClass || p.Strength != e.Strength || p.QualityScore != e.QualityScore || !p.LastAccessedAt.Equal(e.LastAccessedAt) {
				t.Errorf("ParamsOf = %+v, does not carry the entry's fields", p)
			}
		})
	}
}

func TestClassHalfLife(t *testing.T) {
	tests := []struct {
		name  string
		class string
		want  time.Duration
		ok    bool
	}{
		{"ephemeral is a day", grimoire.DecayEphemeral, 24 * time.Hour, true},
		{"tactical is a week", grimoire.DecayTactical, 7 * day, true},
		{"regime conditional is two weeks", grimoire.DecayRegimeConditional, 14 * day, true},
		{"procedural is thirty days", grimoire.DecayProcedural, 30 * day, true},
		{"structural never decays", grimoire.DecayStructural, 0, false},
		{"empty class never decays", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := decay.ClassHalfLife(tt.class)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ClassHalfLife(%q) = %v, %v; want %v, %v", tt.class, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestDemurrageWeightMakesATestament(t *testing.T) {
	w := 3.0
	now := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	e := &grimoire.Entry{DecayClass: grimoire.DecayTactical, Strength: 1, QualityScore: 0.9,
		LastAccessedAt: now.Add(-21 * 24 * time.Hour), Store: &grimoire.StoreState{DemurrageWeight: &w}}
	if got := decay.Of(e, now); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("tactical entry with demurrage weight 3 at 21 days: decay %v, want 0.5", got)
	}
}
