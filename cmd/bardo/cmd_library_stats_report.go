package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bardo-golem/bardo/library"
)

// statsResult is the --json document of library stats,
// bardo.library-stats/v1.
type statsResult struct {
	Library     string         `json:"library"`
	GolemID     string         `json:"golem_id"` // the library's
	SizeBytes   int64          `json:"size_bytes"`
	Entries     int            `json:"entries"`
	Active      int            `json:"active"`
	Archived    int            `json:"archived"`
	Quarantined int            `json:"quarantined"`
	Warnings    int            `json:"warnings"`
	Bloodstains int            `json:"bloodstains"`
	CausalEdges int            `json:"causal_edges"`
	Documents   int            `json:"documents"`
	Deposits    int            `json:"deposits"`
	Sightings   int            `json:"sightings"`
	Tiers       statsTiers     `json:"tiers"`
	Review      []statsPending `json:"review"` // pending candidates by kind
	Golems      []statsGolem   `json:"golems"`
}

type statsTiers struct {
	Essential   int `json:"essential"`
	Recommended int `json:"recommended"`
	Optional    int `json:"optional"`
}

type statsPending struct {
	Kind    string `json:"kind"`
	Pending int    `json:"pending"`
}

type statsGolem struct {
	GolemID    string     `json:"golem_id"`
	Generation int        `json:"generation"`
	Deposits   int        `json:"deposits"`
	Channels   []string   `json:"channels"`
	Entries    int        `json:"entries"`
	Sightings  int        `json:"sightings"`
	Tiers      statsTiers `json:"tiers"`
}

func newStatsResult(path, golem string, size int64, st library.Stats, edges, documents int, pending map[string]int) statsResult {
	res := statsResult{
		Library: path, GolemID: golem, SizeBytes: size,
		Entries: st.Entries, Active: st.Active, Archived: st.Archived, Quarantined: st.Quarantined,
		Warnings: st.Warnings, Bloodstains: st.Bloodstains, CausalEdges: edges, Documents: documents,
		Deposits: st.Deposits, Sightings: st.Sightings, Tiers: statsTiers(st.Tiers),
		Review: []statsPending{}, Golems: []statsGolem{},
	}
	kinds := make([]string, 0, len(pending))
	for k := range pending {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		res.Review = append(res.Review, statsPending{k, pending[k]})
	}
	for _, g := range st.Golems {
		res.Golems = append(res.Golems, statsGolem{g.GolemID, g.Generation, g.Deposits, emptyIfNil(g.Channels), g.Entries, g.Sightings, statsTiers(g.Tiers)})
	}
	return res
}

// rows is the report as a section/name/value table: the library, its
// tiers, its pending review, then one section per Golem and generation.
func (r statsResult) rows() [][]string {
	var out [][]string
	add := func(section, name, value string) { out = append(out, []string{section, name, value}) }
	num := func(section, name string, n int) { add(section, name, strconv.Itoa(n)) }
	add("library", "path", r.Library)
	add("library", "golem_id", r.GolemID)
	add("library", "size_bytes", strconv.FormatInt(r.SizeBytes, 10))
	for _, x := range []struct {
		name string
		n    int
	}{{"entries", r.Entries}, {"active", r.Active}, {"archived", r.Archived}, {"quarantined", r.Quarantined},
		{"warnings", r.Warnings}, {"bloodstains", r.Bloodstains}, {"causal_edges", r.CausalEdges},
		{"documents", r.Documents}, {"deposits", r.Deposits}, {"sightings", r.Sightings}} {
		num("library", x.name, x.n)
	}
	num("tier", "essential", r.Tiers.Essential)
	num("tier", "recommended", r.Tiers.Recommended)
	num("tier", "optional", r.Tiers.Optional)
	if len(r.Review) == 0 {
		num("review", "pending", 0)
	}
	for _, p := range r.Review {
		num("review", p.Kind+"_pending", p.Pending)
	}
	for _, g := range r.Golems {
		section := fmt.Sprintf("golem %s g%d", g.GolemID, g.Generation)
		num(section, "deposits", g.Deposits)
		add(section, "channels", strings.Join(g.Channels, ","))
		num(section, "entries", g.Entries)
		num(section, "sightings", g.Sightings)
		add(section, "tiers", fmt.Sprintf("%d essential, %d recommended, %d optional", g.Tiers.Essential, g.Tiers.Recommended, g.Tiers.Optional))
	}
	return out
}
