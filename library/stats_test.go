package library_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

func TestSummarize(t *testing.T) {
	by := func(golem string, gen int, conf float64) library.Attestation {
		return library.Attestation{GolemID: golem, Generation: gen, Confidence: conf}
	}
	recs := []library.Record{
		record("w", grimoire.CategoryWarning, library.ChannelDeath, 0.2, 0, nil),
		record("shared", grimoire.CategoryInsight, library.ChannelDeath, 0.7, 0, nil),
		record("lone", grimoire.CategoryInsight, library.ChannelLive, 0.55, 1, nil),
		record("weak", grimoire.CategoryInsight, inherit.ChannelClade, 0.48, 1, nil),
	}
	recs[0].Deposit = &library.Attestation{GolemID: "a", Generation: 0, Confidence: 0.2}
	recs[1].Deposit = &library.Attestation{GolemID: "a", Generation: 0, Confidence: 0.7}
	recs[1].Sightings = []library.Attestation{by("b", 1, 0.8), by("c", 1, 0.6)}
	recs[2].Deposit = &library.Attestation{GolemID: "b", Generation: 1, Confidence: 0.55}
	recs[3].Deposit = &library.Attestation{GolemID: "c", Generation: 1, Confidence: 0.48}
	recs[3].Entry.Status = grimoire.StatusArchived
	deposits := []library.DepositRecord{
		{GolemID: "a", Generation: 0, Channel: library.ChannelDeath},
		{GolemID: "b", Generation: 1, Channel: library.ChannelLive},
		{GolemID: "b", Generation: 1, Channel: library.ChannelDeath},
		{GolemID: "c", Generation: 1, Channel: inherit.ChannelClade},
	}
	want := library.Stats{
		Entries: 4, Active: 3, Archived: 1, Warnings: 1, Bloodstains: 2, Deposits: 4, Sightings: 2,
		Tiers: library.TierCounts{Essential: 2, Recommended: 1, Optional: 1},
		Golems: []library.GolemStats{
			{GolemID: "a", Generation: 0, Deposits: 1, Channels: []string{"death"}, Entries: 2, Tiers: library.TierCounts{Essential: 2}},
			{GolemID: "b", Generation: 1, Deposits: 2, Channels: []string{"death", "live"}, Entries: 1, Sightings: 1, Tiers: library.TierCounts{Recommended: 1}},
			{GolemID: "c", Generation: 1, Deposits: 1, Channels: []string{"clade"}, Entries: 1, Sightings: 1, Tiers: library.TierCounts{Optional: 1}},
		},
	}
	if d := cmp.Diff(want, library.Summarize(recs, deposits)); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
}
