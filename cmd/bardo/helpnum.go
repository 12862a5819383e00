package main

import (
	"strconv"
	"strings"
	"text/template"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundlediff"
	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/maintain"
	"github.com/bardo-golem/bardo/novelty"
)

// helpNumbers are the numbers the help cites, by package and constant, as
// the help writes them: a help text says {{.inherit.BasePredecessor}}
// (helpf), never 0.3, so that the text follows the rule when the rule
// changes. TestHelpCitesNumbersByName renders every help with each number
// replaced by its name and finds no number left but the examples'.
var helpNumbers = map[string]map[string]string{
	"autopsy": {
		"WindowTicks":       strconv.Itoa(autopsy.WindowTicks),
		"StalenessAccuracy": fixed(autopsy.StalenessAccuracy, 2),
		"MinUses":           strconv.Itoa(autopsy.MinUses),
		"InvertFailureRate": short(autopsy.InvertFailureRate),
	},
	"bottleneck": {
		"DefaultMaxEntries": strconv.Itoa(bottleneck.DefaultMaxEntries),
		"MaxEntriesLimit":   strconv.Itoa(bottleneck.MaxEntriesLimit),
	},
	"bundle": {
		"SnapshotEpisodes":        strconv.Itoa(bundle.SnapshotEpisodes),
		"SnapshotInsights":        strconv.Itoa(bundle.SnapshotInsights),
		"ShareThresholdThriving":  short(bundle.ShareThresholdThriving),
		"ShareThresholdDeclining": short(bundle.ShareThresholdDeclining),
		"ShareThresholdTerminal":  short(bundle.ShareThresholdTerminal),
	},
	"bundlediff": {
		"ContentThreshold": short(bundlediff.ContentThreshold),
	},
	"capsule": {
		"FormatVersion": capsule.FormatVersion,
	},
	"dedup": {
		"SkipAbove":  fixed(dedup.SkipAbove, 2),
		"SameAsFrom": fixed(dedup.SameAsFrom, 2),
	},
	"grimoire": {
		"DefaultSenescenceThreshold": short(grimoire.DefaultSenescenceThreshold),
	},
	"inherit": {
		"BasePredecessor":           short(inherit.BasePredecessor),
		"BaseReflection":            short(inherit.BaseReflection),
		"BaseAutopsy":               short(inherit.BaseAutopsy),
		"GenerationFactor":          short(inherit.GenerationFactor),
		"CladeCap":                  short(inherit.CladeCap),
		"CladeFactor":               fixed(inherit.CladeFactor, 2),
		"RetrievalFloor":            short(inherit.RetrievalFloor),
		"BloodstainRetrievalWeight": short(inherit.BloodstainRetrievalWeight),
		"BloodstainDemurrageWeight": fixed(inherit.BloodstainDemurrageWeight, 1),
	},
	"library": {
		"DeathMinConfidence":    short(library.DeathMinConfidence),
		"LiveMinConfidence":     short(library.LiveMinConfidence),
		"CladeFactor":           fixed(library.CladeFactor, 2),
		"EdgeMinWeight":         short(library.EdgeMinWeight),
		"EdgeMinEvidence":       strconv.Itoa(library.EdgeMinEvidence),
		"MultiplierDeath":       fixed(library.MultiplierDeath, 2),
		"MultiplierLive":        fixed(library.MultiplierLive, 2),
		"MultiplierOther":       fixed(library.MultiplierOther, 2),
		"EssentialGolems":       strconv.Itoa(library.EssentialGolems),
		"EssentialConfidence":   short(library.EssentialConfidence),
		"RecommendedConfidence": short(library.RecommendedConfidence),
		"RecallAbove":           short(library.RecallAbove),
	},
	"maintain": {
		"StrengthFloor":   short(maintain.StrengthFloor),
		"ContestedCosine": fixed(maintain.ContestedCosine, 2),
	},
	"novelty": {
		"UncertaintyBonus": short(novelty.UncertaintyBonus),
	},
}

// short writes x in the fewest digits that read back as x: 0.3, 1.2.
func short(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// fixed writes x with n decimals, as prose lists of numbers do: 0.80
// beside 0.85, 0.90 to 0.95.
func fixed(x float64, n int) string { return strconv.FormatFloat(x, 'f', n, 64) }

// helpf returns a help text, or a line of prose a person reads (a hint, a
// diff's summary), with the numbers it cites by name
// ({{.package.Constant}}) written in. A name helpNumbers lacks is a bug
// any test that builds the commands finds: helpf panics.
func helpf(text string) string {
	t := template.Must(template.New("help").Option("missingkey=error").Parse(text))
	var b strings.Builder
	if err := t.Execute(&b, helpNumbers); err != nil {
		panic(err)
	}
	return b.String()
}
