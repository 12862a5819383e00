package library

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// DepositRecord is one deposit a library recorded: its activity.
type DepositRecord struct {
	Activity   int64
	At         time.Time
	Channel    string
	Digest     string
	GolemID    string
	Generation int
	Admitted   int // rows it created
	Sightings  int // sightings it recorded
}

// Stats summarizes a library.
type Stats struct {
	Entries     int
	Active      int
	Archived    int
	Quarantined int
	Warnings    int // entries of category warning
	Bloodstains int // entries carrying bloodstain provenance, or flagged is_bloodstain
	Deposits    int
	Sightings   int
	Tiers       TierCounts
	Golems      []GolemStats // by golem id bytewise, then generation
}

// TierCounts counts entries per tier.
type TierCounts struct{ Essential, Recommended, Optional int }

func (t *TierCounts) add(tier string) {
	switch tier {
	case TierEssential:
		t.Essential++
	case TierRecommended:
		t.Recommended++
	default:
		t.Optional++
	}
}

// GolemStats is what one Golem of one generation gave a library.
type GolemStats struct {
	GolemID    string
	Generation int
	Deposits   int
	Channels   []string // the channels of its deposits, sorted
	Entries    int      // rows its deposits created
	Sightings  int      // sightings its deposits recorded
	Tiers      TierCounts
}

// Summarize counts a library's records and deposits: per tier, and per
// depositing Golem and generation.
func Summarize(recs []Record, deposits []DepositRecord) Stats {
	var st Stats
	type key struct {
		golem string
		gen   int
	}
	by := map[key]*GolemStats{}
	golem := func(id string, gen int) *GolemStats {
		k := key{id, gen}
		g := by[k]
		if g == nil {
			g = &GolemStats{GolemID: id, Generation: gen}
			by[k] = g
		}
		return g
	}
	for _, d := range deposits {
		g := golem(d.GolemID, d.Generation)
		g.Deposits++
		if !slices.Contains(g.Channels, d.Channel) {
			g.Channels = append(g.Channels, d.Channel)
			slices.Sort(g.Channels)
		}
		st.Deposits++
	}
	for i := range recs {
		r := &recs[i]
		e := &r.Entry
		st.Entries++
		switch e.Status {
		case grimoire.StatusArchived:
			st.Archived++
		case grimoire.StatusQuarantined:
			st.Quarantined++
		default:
			st.Active++
		}
		if e.Category == grimoire.CategoryWarning {
			st.Warnings++
		}
		if BloodstainProvenance(e) || e.IsBloodstain {
			st.Bloodstains++
		}
		tier := r.Tier()
		st.Tiers.add(tier)
		if d := r.Deposit; d != nil {
			g := golem(d.GolemID, d.Generation)
			g.Entries++
			g.Tiers.add(tier)
		}
		for _, s := range r.Sightings {
			golem(s.GolemID, s.Generation).Sightings++
			st.Sightings++
		}
	}
	for _, g := range by {
		st.Golems = append(st.Golems, *g)
	}
	slices.SortFunc(st.Golems, func(a, b GolemStats) int {
		return cmp.Or(strings.Compare(a.GolemID, b.GolemID), cmp.Compare(a.Generation, b.Generation))
	})
	return st
}
