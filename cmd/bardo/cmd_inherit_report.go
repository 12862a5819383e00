package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/store"
)

// inheritResult is the --json document of inherit, bardo.inherit/v1.
// Counts is left out when nothing was planned (already applied); Plan is
// there with --dry-run only. Degraded is true for an insurance snapshot:
// no reflection or autopsy came with it, and its episodes never cross.
type inheritResult struct {
	Applied      bool           `json:"applied"`
	Reason       string         `json:"reason,omitempty"` // "already applied" | "dry run"
	Digest       string         `json:"digest"`
	Store        string         `json:"store"`
	Generation   int            `json:"generation"` // the store's
	Channel      string         `json:"channel"`
	Degraded     bool           `json:"degraded"`
	Counts       *inheritCounts `json:"counts,omitempty"`
	Warnings     []string       `json:"warnings"`
	GolemID      string         `json:"golem_id"` // the store's
	Bundle       string         `json:"bundle"`
	Source       inheritSource  `json:"source"`
	Trust        *inheritTrust  `json:"trust,omitempty"`   // left out when nothing was judged (already applied)
	Lineage      *inheritLine   `json:"lineage,omitempty"` // left out for a store the bundle creates, and when already applied
	CreatedStore bool           `json:"created_store"`
	Activity     int64          `json:"activity,omitempty"`
	Plan         *inheritPlan   `json:"plan,omitempty"`
}

type inheritSource struct {
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
}

// inheritTrust is what the store's trust policy said of the bundle.
type inheritTrust struct {
	Policy      string `json:"policy"`      // the mode it was judged by: open, or signed-only (the store's, or --require-signature)
	Signer      string `json:"signer"`      // the signing key's id; "" when unsigned
	Verdict     string `json:"verdict"`     // unsigned | trusted | untrusted
	Quarantined bool   `json:"quarantined"` // its entries arrive quarantined (--quarantine)
	Released    bool   `json:"released"`    // bardo release --bundle: a bundle held under quarantine, applied trusted
}

// inheritLine is what the lineage rules said of the bundle.
type inheritLine struct {
	Relation string `json:"relation"` // self | descendant | ancestor | kin | stranger | unknown (package lineage)
	Store    string `json:"store"`    // the store's lineage, named
	Bundle   string `json:"bundle"`   // the bundle's lineage, named
	Adopted  bool   `json:"adopted"`  // a bundle of another lineage taken as a predecessor (--adopt)
}

type inheritCounts struct {
	Reviewed           int `json:"reviewed"`
	Admitted           int `json:"admitted"`
	SkippedDuplicate   int `json:"skipped_duplicate"`
	SameAsCandidates   int `json:"same_as_candidates"`
	ArchivedBelowFloor int `json:"archived_below_floor"`
	FlaggedToxic       int `json:"flagged_toxic"`
	FlaggedLikelyStale int `json:"flagged_likely_stale"`
	Rederived          int `json:"rederived"`
	CausalEdges        int `json:"causal_edges"`
	Documents          int `json:"documents"`
}

// result is the report of plan p for a store of the given generation.
func (in *inheritRun) result(p *inherit.Plan, generation int) inheritResult {
	res := in.alreadyApplied(generation)
	res.Reason = ""
	res.GolemID = p.StoreGolemID
	c := p.Counts
	res.Counts = &inheritCounts{
		Reviewed: c.Reviewed, Admitted: c.Admitted, SkippedDuplicate: c.SkippedDuplicate,
		SameAsCandidates: c.SameAsCandidates, ArchivedBelowFloor: c.ArchivedBelowFloor, FlaggedToxic: c.FlaggedToxic,
		FlaggedLikelyStale: c.FlaggedLikelyStale, Rederived: c.Rederived, CausalEdges: len(p.Edges), Documents: len(p.Documents),
	}
	res.Warnings = emptyIfNil(c.Warnings)
	if l := p.Lineage; l.Relation != "" {
		res.Lineage = &inheritLine{Relation: l.Relation, Store: l.Store, Bundle: l.Bundle, Adopted: l.Adopted}
	}
	res.Trust = &inheritTrust{Policy: in.policy, Signer: in.verdict.KeyID, Verdict: in.verdict.Status(),
		Quarantined: p.Trust.Quarantine, Released: p.Trust.Released && !p.Trust.Quarantine}
	return res
}

// alreadyApplied is the report of a bundle the store applied before.
func (in *inheritRun) alreadyApplied(generation int) inheritResult {
	return inheritResult{
		Reason:     "already applied",
		Digest:     in.digest,
		Store:      in.o.Store.Path,
		Generation: generation,
		Channel:    in.o.Channel,
		Degraded:   in.b.Header.Kind == bundle.KindSnapshot,
		Warnings:   []string{},
		Bundle:     inputName(in.o.Bundle),
		Source:     inheritSource{GolemID: in.b.Header.GolemID, Generation: in.b.Header.Generation},
	}
}

// render prints the report: with --json one document; otherwise, for a
// dry run the plan's decisions (a summary on stderr), else a field/value
// table, the warnings on stderr.
func (in *inheritRun) render(res inheritResult, p *inherit.Plan) error {
	g := in.g
	if in.o.DryRun && p != nil {
		res.Plan = dryRunPlan(p)
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.inherit/v1", res)
	}
	for _, w := range res.Warnings {
		g.warnf("%s", w)
	}
	if res.Plan == nil {
		return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, inheritRows(res))
	}
	if err := writeTable(g.stdout, g.stdoutTerminal, decisionHeader, decisionRows(p)); err != nil {
		return err
	}
	c := res.Counts
	g.notef("dry run: %d reviewed, %d admitted (%d archived below the floor, %d same_as candidates), %d skipped as duplicates, %d flagged toxic; nothing written",
		c.Reviewed, c.Admitted, c.ArchivedBelowFloor, c.SameAsCandidates, c.SkippedDuplicate, c.FlaggedToxic)
	return nil
}

// inheritRows are the field/value rows of the report.
func inheritRows(res inheritResult) [][]string {
	rows := [][]string{{"applied", strconv.FormatBool(res.Applied)}}
	if res.Reason != "" {
		rows = append(rows, []string{"reason", res.Reason})
	}
	rows = append(rows,
		[]string{"store", res.Store},
		[]string{"generation", strconv.Itoa(res.Generation)},
		[]string{"bundle", res.Bundle},
		[]string{"digest", res.Digest},
		[]string{"source", fmt.Sprintf("%s generation %d", res.Source.GolemID, res.Source.Generation)},
		[]string{"channel", res.Channel},
	)
	if t := res.Trust; t != nil {
		v := t.Verdict
		if t.Signer != "" {
			v += " (" + t.Signer + ")"
		}
		switch {
		case t.Quarantined:
			v += ", quarantined"
		case t.Released:
			v += ", released"
		}
		rows = append(rows, []string{"trust", t.Policy + ": " + v})
	}
	if l := res.Lineage; l != nil {
		v := l.Relation + ": " + l.Bundle
		if l.Adopted {
			v = "adopted: " + l.Bundle + ", into " + l.Store
		}
		rows = append(rows, []string{"lineage", v})
	}
	if res.Degraded {
		rows = append(rows, []string{"degraded", "true"})
	}
	if res.GolemID != "" {
		rows = append(rows, []string{"golem_id", res.GolemID})
	}
	if res.CreatedStore {
		rows = append(rows, []string{"created_store", "true"})
	}
	if res.Activity != 0 {
		rows = append(rows, []string{"activity", strconv.FormatInt(res.Activity, 10)})
	}
	if c := res.Counts; c != nil {
		for _, r := range []struct {
			name string
			n    int
		}{
			{"reviewed", c.Reviewed}, {"admitted", c.Admitted}, {"skipped_duplicate", c.SkippedDuplicate},
			{"same_as_candidates", c.SameAsCandidates}, {"archived_below_floor", c.ArchivedBelowFloor},
			{"flagged_toxic", c.FlaggedToxic}, {"flagged_likely_stale", c.FlaggedLikelyStale}, {"rederived", c.Rederived}, {"causal_edges", c.CausalEdges},
			{"documents", c.Documents}, {"warnings", len(res.Warnings)},
		} {
			if r.name == "flagged_likely_stale" && !res.Degraded {
				continue // only a snapshot's notes flag anything stale
			}
			rows = append(rows, []string{r.name, strconv.Itoa(r.n)})
		}
	}
	return rows
}

// ask resolves --on-similar ask: each same_as candidate is shown on
// stderr and answered on stdin (y merges; anything else keeps both).
// contents reads the texts of the store's rows it shows (nil: no store).
func (in *inheritRun) ask(p *inherit.Plan, contents func(ids []string) (map[string]string, error)) error {
	if in.o.OnSimilar != inherit.OnSimilarAsk || len(p.SameAs) == 0 {
		return nil
	}
	texts := map[string]string{}
	if contents != nil {
		ids := make([]string, len(p.SameAs))
		for i, s := range p.SameAs {
			ids[i] = s.ExistingID
		}
		var err error
		if texts, err = contents(ids); err != nil {
			return fmt.Errorf("reading the rows of the same_as candidates: %w", err)
		}
	}
	for _, a := range p.Admit {
		texts[a.Entry.ID] = a.Entry.Content
	}
	// A question starts on a clean line: a bar still drawn (planning,
	// reading) ends before it.
	in.g.progress.done()
	return askSameAs(bufio.NewReader(in.g.stdin), in.g.stderr, p, texts)
}

// errNoAnswer is standard input ending before every question is answered:
// nothing is applied.
var errNoAnswer = errors.New("standard input ended before every same_as candidate was answered: nothing applied")

// askSameAs asks, for each same_as candidate of p, whether to merge the
// new row into the old one, and resolves p with the answers.
func askSameAs(r *bufio.Reader, w io.Writer, p *inherit.Plan, texts map[string]string) error {
	merge := make(map[string]bool, len(p.SameAs))
	for i, s := range p.SameAs {
		fmt.Fprintf(w, "same_as candidate %d of %d, cosine %s:\n  new %s: %s\n  old %s: %s\nmerge the new row into the old (both stay; the new points to the old)? [y/N] ",
			i+1, len(p.SameAs), formatFloat(s.Cosine), s.NewID, oneLine(texts[s.NewID]), s.ExistingID, oneLine(texts[s.ExistingID]))
		line, err := r.ReadString('\n')
		if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
			fmt.Fprintln(w)
			return errNoAnswer
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			merge[s.NewID] = true
		}
	}
	p.Resolve(func(s inherit.SameAs) bool { return merge[s.NewID] })
	return nil
}

// oneLine quotes a text on one line, cut to 100 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return strconv.Quote(s)
}

// apply applies the plan to s, with a line on stderr that says so while the
// transaction runs (progress.go: a terminal only, not with --quiet).
func (in *inheritRun) apply(ctx context.Context, s *store.Store, p *inherit.Plan) (int64, error) {
	line := in.g.newProgress(fmt.Sprintf("applying %d rows to %s", len(p.Admit), in.o.Store.Path), -1, false)
	defer line.done()
	return s.ApplyInherit(ctx, p, in.now)
}
