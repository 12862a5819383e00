package bundle

// The two bundles of the Death Protocol's legacy (seed 000, phase III,
// "Five Inflow Channels"): what a death gives beyond its successor.
//
// A clade push (KindClade) has a germline Body holding entries, PLAYBOOK.md
// and the causal edges among its entries, and nothing else: no reflection,
// autopsy or left-out closure. Its header says, in share, the sharing
// threshold its entries met. A marketplace listing (KindListing) has a
// ListingBody: reflection items, no entries.

// Sharing thresholds of a clade push by the header's phase (seed 000,
// "Terror Management Theory and Knowledge Legacy"): the nearer death, the
// more a Golem gives away.
const (
	ShareThresholdThriving     = 0.6 // thriving, stable and conservation
	ShareThresholdDeclining    = 0.3
	ShareThresholdTerminal     = 0.1
	ShareThresholdUnknownPhase = ShareThresholdThriving // a header without a phase is not yet dying
)

// ShareThreshold returns the sharing threshold of a phase: 0.6 for
// thriving, stable and conservation (and no phase), 0.3 for declining, 0.1
// for terminal. The second result is false for a phase that is not one of
// grimoire.Phases.
func ShareThreshold(phase string) (float64, bool) {
	switch phase {
	case "", "thriving", "stable", "conservation":
		return ShareThresholdThriving, true
	case "declining":
		return ShareThresholdDeclining, true
	case "terminal":
		return ShareThresholdTerminal, true
	}
	return 0, false
}

// Share records how a clade push chose its entries: every entry's
// confidence is at least Threshold.
type Share struct {
	// Threshold is the sharing threshold the push used: the phase's
	// (ShareThreshold), or the one the caller asked for.
	Threshold float64 `cbor:"threshold"`
	// Phase is the phase whose threshold it is; empty when the caller set
	// the threshold itself, or when the export names no phase (which
	// shares at ShareThresholdUnknownPhase).
	Phase string `cbor:"phase,omitempty"`
}

// ListingBody is the body of a marketplace listing (KindListing): the
// death-reflection items with the highest novelty against the clade
// sources the listing was scored against, by novelty descending, then
// category index ascending, then text (bytewise). header.bottleneck.
// max_entries is the cap (--top), header.counts.reflection_items the
// number of reflection items it chose from. The listing says nothing
// about price; whether a Golem may list at all is the caller's decision.
type ListingBody struct {
	Items []Item `cbor:"items"`
}

// ListingLess reports whether listing item a comes before b: higher
// novelty, then lower category index, then text bytewise.
func ListingLess(a, b *Item) bool {
	if a.Novelty != b.Novelty {
		return a.Novelty > b.Novelty
	}
	if a.Index != b.Index {
		return a.Index < b.Index
	}
	return a.Text < b.Text
}
