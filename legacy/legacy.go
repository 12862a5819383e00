// Package legacy builds what a dying Golem gives beyond its successor (seed
// 000, the Death Protocol's phase III: "Novelty-Prioritized Packaging",
// "Terror Management Theory and Knowledge Legacy", "Five Inflow
// Channels"): the clade push, shared with its siblings at its phase's
// sharing threshold, and the marketplace listing of its most novel death
// reflection items. Both are bundles (bundle.KindClade, bundle.KindListing,
// bundle/FORMAT.md), made by one run of the death pipeline (package
// thanatopsis) over the export.
//
// # Clade push
//
// The push holds the genomic bottleneck's candidates whose confidence is
// at or above the sharing threshold (bundle.ShareThreshold: 0.6 thriving,
// stable and conservation, 0.3 declining, 0.1 terminal; the export
// header's phase unless Options.Phase, or Options.Threshold whatever the
// phase), ranked and capped exactly as the bottleneck ranks
// (bottleneck.NewSharingSelector), with the causal edges among them and
// PLAYBOOK.md. Soma never crosses: entries lose what a death bundle's
// entries lose (bundle.EntryOf).
//
// # Listing
//
// The listing holds the Top reflection items of the death reflection with
// the highest novelty against Options.Clade (scored as bardo reflect
// --clade scores them), ties by category index, then text
// (bundle.ListingLess), each with its category, text, references, vector
// and novelty. Whether a Golem may list (the seed's Verified+ tier) is the
// caller's decision; a listing says nothing about price.
//
// # Determinism
//
// Like every bundle: the same export and Options give the same bytes.
package legacy

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/snapshot"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// DefaultTop is how many reflection items a listing holds by default.
const DefaultTop = 10

// MaxTop bounds Options.Top: a death reflection holds far fewer items.
const MaxTop = 4096

// File name endings of the two bundles, after the snapshot naming rule
// (snapshot.NameWith).
const (
	ExtClade   = ".clade"
	ExtListing = ".listing"
)

// Options are the choices of a legacy run.
type Options struct {
	// Pipeline runs the death pipeline: its MaxEntries is the push's cap
	// too, its Clade the sources of the listing's novelty.
	Pipeline thanatopsis.Options
	// Phase overrides the export header's phase for the sharing threshold.
	Phase string
	// Threshold, when set, is the sharing threshold whatever the phase.
	Threshold *float64
	// Top caps the listing: 0 means DefaultTop.
	Top int
}

// ErrTop is matched by the error for a Top out of range.
var ErrTop = errors.New("invalid listing size")

// Legacy is what a run made.
type Legacy struct {
	// Clade is the clade push (bundle.KindClade).
	Clade *bundle.Bundle
	// Listing is the marketplace listing (bundle.KindListing).
	Listing *bundle.Bundle
	// Analysis is the death pipeline's run both came from.
	Analysis *thanatopsis.Analysis
}

// Build reads the export src once through the death pipeline (twice when
// its autopsy needs it) and returns the clade push and the listing.
func Build(src *grimoire.Input, o Options) (*Legacy, error) {
	top := o.Top
	if top == 0 {
		top = DefaultTop
	}
	if top < 1 || top > MaxTop {
		return nil, fmt.Errorf("%w: %d is outside [1, %d]", ErrTop, o.Top, MaxTop)
	}
	opts := o.Pipeline
	opts.Share = &thanatopsis.Share{Phase: o.Phase, Threshold: o.Threshold, MaxEntries: opts.MaxEntries}
	a, err := thanatopsis.Analyze(src, opts)
	if err != nil {
		return nil, err
	}
	return &Legacy{Clade: a.Push, Listing: Listing(a.Bundle, top), Analysis: a}, nil
}

// Listing returns the marketplace listing of a death bundle: the top
// items of its reflection by bundle.ListingLess. Its header is the death
// bundle's but for the kind, the cap (bottleneck.max_entries = top), the
// embedding (a listing has no entries; each item's vector names its
// space) and the counts (reflection_items: the items it chose from).
func Listing(death *bundle.Bundle, top int) *bundle.Bundle {
	var items []bundle.Item
	if r := death.Body.Reflection; r != nil {
		for _, cat := range [][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect,
			r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
			items = append(items, cat...)
		}
	}
	total := len(items)
	slices.SortStableFunc(items, func(a, b bundle.Item) int {
		switch {
		case bundle.ListingLess(&a, &b):
			return -1
		case bundle.ListingLess(&b, &a):
			return 1
		}
		return 0
	})
	items = slices.Clone(items[:min(top, len(items))])
	h := death.Header
	h.Kind = bundle.KindListing
	h.Embedding = nil
	h.Share = nil
	h.Bottleneck.MaxEntries = top
	h.Counts = bundle.Counts{ReflectionItems: total}
	return &bundle.Bundle{Header: h, Listing: &bundle.ListingBody{Items: items}}
}

// FileName returns the file name of a clade push or a listing:
// "<golem id>-<exported_at>-<12 hex of the digest>.clade" (or .listing),
// named like a snapshot.
func FileName(b *bundle.Bundle, digest string) (string, error) {
	ext := ""
	switch b.Header.Kind {
	case bundle.KindClade:
		ext = ExtClade
	case bundle.KindListing:
		ext = ExtListing
	default:
		return "", fmt.Errorf("bundle kind %q is not a legacy bundle", b.Header.Kind)
	}
	at, err := time.Parse(time.RFC3339Nano, b.Header.ExportedAt)
	if err != nil {
		return "", fmt.Errorf("header.exported_at %q: %w", b.Header.ExportedAt, err)
	}
	return snapshot.NameWith(b.Header.GolemID, at, digest, ext)
}
