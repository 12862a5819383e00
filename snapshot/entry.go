package snapshot

import (
	"time"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// entry converts an insight as a death bundle converts a germline entry:
// its emotional tag, parent episode ids and store state stay behind, and
// Score and Decay are the bottleneck's (bottleneck.Score) at now, so a successor reads a
// snapshot's insights as it reads a death bundle's entries.
func entry(e *grimoire.Entry, h *grimoire.Header, now time.Time) bundle.Entry {
	score, d := bottleneck.Score(e, now)
	return bundle.EntryOf(e, h, score, d)
}
