package main

import (
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/store"
)

type reviewOptions struct {
	Store  storeFlags
	Now    time.Time // --now; zero: the clock, read once
	All    bool      // --all: decided candidates too
	Accept int64     // --accept ID; 0: none
	Reject int64     // --reject ID; 0: none
	Clear  []string  // review stale --clear ID, repeatable
}

func newReviewCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Review what maintenance leaves for a person: same_as, contested, stale",
		Long: `Review what neither inheritance nor maintenance decides alone: pairs that
may be the same knowledge (same-as), pairs of opposite polarity that say
the same thing (contested), and entries drawing on an autopsy-flagged root
(stale). Each subcommand lists what is pending; a decision is one
transaction recorded as a "review" activity. No decision deletes an entry
or changes a confidence.

` + exitStatus(),
		Example: `  bardo review same-as --store grimoire.db
  bardo review contested --json | jq '.candidates[] | [.entry.id, .other.id]'
  bardo review stale`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(c, args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return usagef(c.CommandPath(), "missing subcommand: same-as, contested or stale")
		},
	}
	cmd.AddCommand(
		newReviewPairsCmd(g, nil, store.CandidateSameAs),
		newReviewPairsCmd(g, nil, store.CandidateContested),
		newReviewStaleCmd(g, nil),
	)
	return cmd
}

// reviewPairsDoc is what differs between review same-as and review
// contested.
var reviewPairsDoc = map[string]struct{ use, short, long, accept, reject, example string }{
	store.CandidateSameAs: {
		use:   "same-as",
		short: "List and decide same_as candidates: non-destructive merges",
		long: `List the pending same_as candidates: pairs of entries, cosine {{.dedup.SameAsFrom}} to {{.dedup.SkipAbove}},
that inheritance kept both of and may be the same knowledge. Nothing
merges them by itself.

--accept ID merges non-destructively: both entries stay, and the first
(the later arrival) points to the second through same_as. A merge into an
entry that leads back to the first is refused, as is one of an entry
merged elsewhere already. --reject ID records that they are different
knowledge (and clears a same_as an inherit --on-similar merge set).`,
		accept: "merge the candidate `ID`: the entry points to the other, both stay",
		reject: "record that candidate `ID`'s entries are different knowledge",
		example: `  bardo review same-as --store grimoire.db
  bardo review same-as --accept 12
  bardo review same-as --reject 13 --json`,
	},
	store.CandidateContested: {
		use:   "contested",
		short: "List and audit contested pairs: contradictions kept as coexisting",
		long: `List the pending contested pairs bardo maintain found: entries of opposite
polarity whose cosine is at least {{.maintain.ContestedCosine}}, with who asserted each. Both sides
always stay: contradiction is not corruption, and different Golems'
disagreement is not supersession.

--accept ID records the pair as audited: both stay as coexisting and keep
their "contested" flag. --reject ID records that they do not contradict
each other; an entry loses its "contested" flag when no other pair it is
in stands.`,
		accept: "record contested pair `ID` as audited: both stay, contested",
		reject: "record that pair `ID` is no contradiction",
		example: `  bardo review contested --store grimoire.db
  bardo review contested --accept 4`,
	},
}

func newReviewPairsCmd(g *globals, runF func(reviewOptions) error, kind string) *cobra.Command {
	var o reviewOptions
	doc := reviewPairsDoc[kind]
	cmd := &cobra.Command{
		Use:   doc.use,
		Short: doc.short,
		Long: helpf(doc.long) + `

Prints the candidates (an id/status/cosine/entry/other/... table), or the
decision (a field/value table); with --json a bardo.review/v1 document.

` + exitStatus(
			status{exitBad, "refused: the candidate was decided before, or the merge would make a cycle or remerge an entry"},
			status{exitDataErr, "not a store, a store of another schema, or a damaged one"},
			status{exitNoInput, "the store cannot be opened, or holds no such candidate"},
			status{exitIOErr, "I/O error writing the store, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: doc.example,
		Args:    positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if o.Accept < 0 || o.Reject < 0 || (o.Accept > 0 && o.Reject > 0) {
				return usagef(c.CommandPath(), "give one of --accept ID and --reject ID, a candidate id ≥ 1")
			}
			if runF != nil {
				return runF(o)
			}
			return runReviewPairs(c, g, o, kind)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for a decision, RFC 3339 (default: the clock)")
	f.BoolVar(&o.All, "all", false, "list decided candidates too")
	f.Int64Var(&o.Accept, "accept", 0, doc.accept)
	f.Int64Var(&o.Reject, "reject", 0, doc.reject)
	return cmd
}

// The --json documents of review, bardo.review/v1: the candidates or
// stale entries listed, or the decision made.
type (
	reviewResult struct {
		Store string `json:"store"`
		Kind  string `json:"kind"` // same_as | contested | stale
	}
	reviewPairsList struct {
		reviewResult
		Candidates []reviewCandidate `json:"candidates"`
	}
	reviewStaleList struct {
		reviewResult
		Stale []reviewStale `json:"stale"`
	}
	reviewDecided struct {
		reviewResult
		Decision reviewDecision `json:"decision"`
	}
)

type reviewCandidate struct {
	ID         int64      `json:"id"`
	Status     string     `json:"status"`
	Cosine     float64    `json:"cosine"`
	Entry      reviewSide `json:"entry"`
	Other      reviewSide `json:"other"`
	RecordedBy int64      `json:"recorded_by"`
	ResolvedBy int64      `json:"resolved_by,omitempty"`
}

type reviewSide struct {
	ID         string  `json:"id"`
	Content    string  `json:"content"`
	Polarity   string  `json:"polarity"`
	Status     string  `json:"status"`
	GolemID    string  `json:"golem_id"`
	Confidence float64 `json:"confidence"`
	SameAs     string  `json:"same_as,omitempty"`
}

type reviewDecision struct {
	Candidate int64    `json:"candidate,omitempty"`
	Entries   []string `json:"entries,omitempty"` // review stale --clear
	Decision  string   `json:"decision"`          // accepted | rejected | revalidated
	Activity  int64    `json:"activity"`
	SameAs    *string  `json:"same_as,omitempty"` // same_as: where the entry points now ("" nowhere)
}

func runReviewPairs(c *cobra.Command, g *globals, o reviewOptions, kind string) error {
	decide := o.Accept > 0 || o.Reject > 0
	s, err := openStore(c.Context(), o.Store, decide)
	if err != nil {
		return err
	}
	defer s.Close()
	res := reviewResult{Store: o.Store.Path, Kind: kind}
	if decide {
		return decidePair(c, g, s, o, res)
	}
	cands, err := s.Candidates(c.Context(), kind, o.All)
	if err != nil {
		return err
	}
	list := reviewPairsList{reviewResult: res, Candidates: []reviewCandidate{}}
	rows := make([][]string, 0, len(cands))
	for _, cd := range cands {
		side := func(x store.Side) reviewSide {
			return reviewSide{x.ID, x.Content, x.Polarity, x.Status, x.GolemID, x.Confidence, x.SameAs}
		}
		list.Candidates = append(list.Candidates, reviewCandidate{cd.ID, cd.Status, cd.Cosine, side(cd.Entry), side(cd.Other), cd.RecordedBy, cd.ResolvedBy})
		rows = append(rows, []string{strconv.FormatInt(cd.ID, 10), cd.Status, formatFloat(cd.Cosine),
			cd.Entry.ID, cd.Entry.GolemID, cd.Entry.Polarity, cd.Other.ID, cd.Other.GolemID, cd.Other.Polarity,
			cd.Entry.Content, cd.Other.Content})
	}
	g.notef("%d %s candidates", len(cands), kind)
	if g.json {
		return writeJSON(g.stdout, "bardo.review/v1", list)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"id", "status", "cosine", "entry", "entry_golem", "entry_polarity",
		"other", "other_golem", "other_polarity", "entry_content", "other_content"}, rows)
}

func decidePair(c *cobra.Command, g *globals, s *store.Store, o reviewOptions, res reviewResult) error {
	now := nowOr(o.Now)
	id, accept := o.Accept, true
	if o.Reject > 0 {
		id, accept = o.Reject, false
	}
	d, err := s.Decide(c.Context(), res.Kind, id, accept, now)
	if err != nil {
		return unknownID(err)
	}
	dec := reviewDecision{Candidate: id, Decision: "rejected", Activity: d.Activity}
	if accept {
		dec.Decision = "accepted"
	}
	rows := [][]string{
		{"candidate", strconv.FormatInt(id, 10)},
		{"decision", dec.Decision},
		{"entry", d.Candidate.Entry.ID},
		{"other", d.Candidate.Other.ID},
	}
	if res.Kind == store.CandidateSameAs {
		dec.SameAs = &d.SameAs
		rows = append(rows, []string{"same_as", d.SameAs})
	}
	rows = append(rows, []string{"activity", strconv.FormatInt(d.Activity, 10)})
	g.notef("%s candidate %d %s (activity %d)", res.Kind, id, dec.Decision, d.Activity)
	if g.json {
		return writeJSON(g.stdout, "bardo.review/v1", reviewDecided{res, dec})
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, rows)
}
