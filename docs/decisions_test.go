package docs

import (
	"testing"
	"time"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/maintain"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/snapshot"
)

func hours(d time.Duration) float64 { return d.Hours() }

// TestNumbers: every number of DECISIONS.md's table is the constant it
// names (durations in hours), and every settled constant has its row.
func TestNumbers(t *testing.T) {
	constants := map[string]float64{
		"decay.Ephemeral":                     hours(decay.Ephemeral),
		"decay.Tactical":                      hours(decay.Tactical),
		"decay.RegimeConditional":             hours(decay.RegimeConditional),
		"decay.Procedural":                    hours(decay.Procedural),
		"decay.DeathTestamentFactor":          decay.DeathTestamentFactor,
		"decay.LowQualityFactor":              decay.LowQualityFactor,
		"decay.LowQuality":                    decay.LowQuality,
		"decay.RetrievalFloor":                decay.RetrievalFloor,
		"decay.Digits":                        decay.Digits,
		"bottleneck.DefaultMaxEntries":        bottleneck.DefaultMaxEntries,
		"bottleneck.MaxEntriesLimit":          bottleneck.MaxEntriesLimit,
		"autopsy.WindowTicks":                 autopsy.WindowTicks,
		"autopsy.StalenessAccuracy":           autopsy.StalenessAccuracy,
		"autopsy.MinUses":                     autopsy.MinUses,
		"autopsy.InvertFailureRate":           autopsy.InvertFailureRate,
		"grimoire.DefaultSenescenceThreshold": grimoire.DefaultSenescenceThreshold,
		"novelty.UncertaintyBonus":            novelty.UncertaintyBonus,
		"reflection.PlaybookThreshold":        reflection.PlaybookThreshold,
		"inherit.BasePredecessor":             inherit.BasePredecessor,
		"inherit.BaseReflection":              inherit.BaseReflection,
		"inherit.BaseAutopsy":                 inherit.BaseAutopsy,
		"inherit.GenerationFactor":            inherit.GenerationFactor,
		"inherit.CladeCap":                    inherit.CladeCap,
		"inherit.CladeFactor":                 inherit.CladeFactor,
		"inherit.BaseClade":                   inherit.BaseClade,
		"inherit.BloodstainRetrievalWeight":   inherit.BloodstainRetrievalWeight,
		"inherit.BloodstainDemurrageWeight":   inherit.BloodstainDemurrageWeight,
		"dedup.SkipAbove":                     dedup.SkipAbove,
		"dedup.SameAsFrom":                    dedup.SameAsFrom,
		"snapshot.DefaultInterval":            hours(snapshot.DefaultInterval),
		"snapshot.LowCreditsShare":            snapshot.LowCreditsShare,
		"snapshot.LowCreditsTicks":            snapshot.LowCreditsTicks,
		"bundle.SnapshotEpisodes":             bundle.SnapshotEpisodes,
		"bundle.SnapshotInsights":             bundle.SnapshotInsights,
		"bundle.EpistemicPressureFactor":      bundle.EpistemicPressureFactor,
		"bundle.StalenessPressureAccuracy":    bundle.StalenessPressureAccuracy,
		"bundle.LikelyStaleDecay":             bundle.LikelyStaleDecay,
		"bundle.TrajectoryBucketTicks":        bundle.TrajectoryBucketTicks,
		"bundle.ShareThresholdThriving":       bundle.ShareThresholdThriving,
		"bundle.ShareThresholdDeclining":      bundle.ShareThresholdDeclining,
		"bundle.ShareThresholdTerminal":       bundle.ShareThresholdTerminal,
		"maintain.DefaultDecayFactor":         maintain.DefaultDecayFactor,
		"maintain.StrengthFloor":              maintain.StrengthFloor,
		"maintain.ContestedCosine":            maintain.ContestedCosine,
		"library.DeathMinConfidence":          library.DeathMinConfidence,
		"library.LiveMinConfidence":           library.LiveMinConfidence,
		"library.CladeFactor":                 library.CladeFactor,
		"library.EdgeMinWeight":               library.EdgeMinWeight,
		"library.EdgeMinEvidence":             library.EdgeMinEvidence,
		"library.MultiplierDeath":             library.MultiplierDeath,
		"library.MultiplierLive":              library.MultiplierLive,
		"library.MultiplierOther":             library.MultiplierOther,
		"library.EssentialGolems":             library.EssentialGolems,
		"library.EssentialConfidence":         library.EssentialConfidence,
		"library.RecommendedConfidence":       library.RecommendedConfidence,
		"library.RecallAbove":                 library.RecallAbove,
	}
	tbls := tables(after(t, readDoc(t, "docs/DECISIONS.md"), "<!-- numbers:"))
	if len(tbls) == 0 {
		t.Fatal("DECISIONS.md: no table after the numbers marker")
	}
	checkNumbers(t, "DECISIONS.md", tbls[0], constants)
}
