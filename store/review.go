package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bardo-golem/bardo/maintain"
)

// Kinds of review candidate.
const (
	CandidateSameAs    = "same_as"   // two rows that may be the same knowledge
	CandidateContested = "contested" // two rows of opposite polarity that say the same thing
)

// ErrNoCandidate is returned for a review candidate the store does not
// hold (of the kind asked for).
var ErrNoCandidate = errors.New("no such review candidate")

// Side is one row of a review candidate, as a person needs to see it.
type Side struct {
	ID, Content, Polarity, Status, GolemID string
	Confidence                             float64
	SameAs                                 string
}

// Candidate is a pair for review.
type Candidate struct {
	ID         int64
	Kind       string
	Entry      Side // same_as: the newer row, which would point to Other
	Other      Side
	Cosine     float64
	Status     string // pending | accepted | rejected
	RecordedBy int64  // the activity that found the pair
	ResolvedBy int64  // the activity that decided it; 0 while pending
}

// Candidates returns the review candidates of kind, by id: the pending
// ones, or with all every one.
func (s *Store) Candidates(ctx context.Context, kind string, all bool) ([]Candidate, error) {
	var out []Candidate
	err := s.readTx(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, candidateQuery+` WHERE c.kind=? AND (? OR c.status='pending') ORDER BY c.id`, kind, all)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanCandidate(rows)
			if err != nil {
				return err
			}
			out = append(out, *c)
		}
		return rows.Err()
	})
	return out, err
}

const candidateQuery = `SELECT c.id, c.kind, c.cosine, c.status, c.activity_id, COALESCE(c.resolved_by, 0),
	a.id, a.content, a.polarity, a.status, a.source_golem_id, a.confidence, COALESCE(a.same_as, ''),
	b.id, b.content, b.polarity, b.status, b.source_golem_id, b.confidence, COALESCE(b.same_as, '')
	FROM review_candidates c JOIN grimoire_entries a ON a.id=c.entry_id JOIN grimoire_entries b ON b.id=c.other_id`

func scanCandidate(r scanner) (*Candidate, error) {
	var c Candidate
	err := r.Scan(&c.ID, &c.Kind, &c.Cosine, &c.Status, &c.RecordedBy, &c.ResolvedBy,
		&c.Entry.ID, &c.Entry.Content, &c.Entry.Polarity, &c.Entry.Status, &c.Entry.GolemID, &c.Entry.Confidence, &c.Entry.SameAs,
		&c.Other.ID, &c.Other.Content, &c.Other.Polarity, &c.Other.Status, &c.Other.GolemID, &c.Other.Confidence, &c.Other.SameAs)
	return &c, err
}

// Decision is what deciding a review candidate did.
type Decision struct {
	Activity  int64
	Candidate Candidate // as it was before the decision
	Accepted  bool
	// SameAs is what the Entry row's same_as became ("" when it points
	// nowhere), for a same_as candidate.
	SameAs string
}

// Decide records a person's decision on a pending review candidate of
// kind, in one transaction recorded as a "review" activity at now.
//
// A same_as candidate accepted merges non-destructively: both rows stay,
// and the Entry row points to the Other through same_as (refused when it
// points elsewhere already, or when the merge would make a cycle); one
// rejected is not the same knowledge, and a same_as pointer an inherit
// set between the two is cleared. A contested pair accepted is audited:
// both rows stay as coexisting and keep their "contested" flags; one
// rejected is no contradiction, and a row loses its "contested" flag when
// no other contested pair it is in stands. Confidence never changes.
func (s *Store) Decide(ctx context.Context, kind string, id int64, accept bool, now time.Time) (*Decision, error) {
	d := &Decision{Accepted: accept}
	err := s.writeTx(ctx, func(tx *writeTx) error {
		c, err := scanCandidate(tx.queryRow(ctx, candidateQuery+` WHERE c.id=? AND c.kind=?`, id, kind))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s candidate %d: %w", kind, id, ErrNoCandidate)
		}
		if err != nil {
			return err
		}
		d.Candidate, d.SameAs = *c, c.Entry.SameAs
		if why := c.refusal(accept); why != "" {
			return &RefusedError{Op: "review", Named: 1, Refusals: []Refusal{{ID: c.Entry.ID, Reasons: []string{why}}}}
		}
		if kind == CandidateSameAs && accept {
			if err := checkMergeCycle(ctx, tx, c.Entry.ID, c.Other.ID); err != nil {
				return err
			}
		}
		status := "rejected"
		if accept {
			status = "accepted"
		}
		if d.Activity, err = tx.recordActivity(ctx, Activity{Kind: ActivityReview, At: now,
			Params: map[string]any{"kind": kind, "candidate": id, "decision": status},
			Counts: map[string]any{"decided": 1}}); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `UPDATE review_candidates SET status=?, resolved_by=? WHERE id=?`, status, d.Activity, id); err != nil {
			return err
		}
		for _, side := range []string{c.Entry.ID, c.Other.ID} {
			if err := tx.linkChange(ctx, d.Activity, side, "reviewed",
				map[string]any{"candidate": id, "kind": kind, "decision": status}); err != nil {
				return err
			}
		}
		switch kind {
		case CandidateSameAs:
			return d.applySameAs(ctx, tx)
		case CandidateContested:
			if !accept {
				return uncontest(ctx, tx, c)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// refusal says why the candidate cannot be decided so, or "".
func (c *Candidate) refusal(accept bool) string {
	switch {
	case c.Status != "pending":
		return fmt.Sprintf("%s candidate %d was %s by activity %d", c.Kind, c.ID, c.Status, c.ResolvedBy)
	case c.Kind == CandidateSameAs && accept && c.Entry.SameAs != "" && c.Entry.SameAs != c.Other.ID:
		return fmt.Sprintf("it is merged into entry %q already", c.Entry.SameAs)
	}
	return ""
}

// applySameAs sets or clears the Entry row's same_as pointer.
func (d *Decision) applySameAs(ctx context.Context, tx *writeTx) error {
	c := &d.Candidate
	to := ""
	if d.Accepted {
		to = c.Other.ID
	}
	if c.Entry.SameAs == to || (!d.Accepted && c.Entry.SameAs != c.Other.ID) {
		return nil
	}
	if _, err := tx.exec(ctx, `UPDATE grimoire_entries SET same_as=?, updated_by=? WHERE id=?`,
		nullString(to), d.Activity, c.Entry.ID); err != nil {
		return fmt.Errorf("entry %q: %w", c.Entry.ID, err)
	}
	d.SameAs = to
	action, detail := "merged", map[string]any{"same_as": to, "candidate": c.ID}
	if to == "" {
		action, detail = "unmerged", map[string]any{"was": c.Other.ID, "candidate": c.ID}
	}
	return tx.linkChange(ctx, d.Activity, c.Entry.ID, action, detail)
}

// checkMergeCycle refuses a merge of from into to when to already leads,
// through same_as pointers, back to from.
func checkMergeCycle(ctx context.Context, tx *writeTx, from, to string) error {
	seen := map[string]bool{}
	for at := to; at != ""; {
		if at == from {
			return &RefusedError{Op: "review", Named: 1, Refusals: []Refusal{{ID: from,
				Reasons: []string{fmt.Sprintf("merging it into entry %q would make a same_as cycle", to)}}}}
		}
		if seen[at] {
			return nil // a cycle that does not pass through from: not this merge's
		}
		seen[at] = true
		var next sql.NullString
		if err := tx.queryRow(ctx, `SELECT same_as FROM grimoire_entries WHERE id=?`, at).Scan(&next); err != nil {
			return fmt.Errorf("entry %q: %w", at, err)
		}
		at = next.String
	}
	return nil
}

// uncontest removes the "contested" flag of a rejected pair's rows that
// no other standing (pending or accepted) contested pair names.
func uncontest(ctx context.Context, tx *writeTx, c *Candidate) error {
	for _, id := range []string{c.Entry.ID, c.Other.ID} {
		_, err := tx.exec(ctx, `DELETE FROM review_flags WHERE entry_id=?1 AND flag=?2 AND NOT EXISTS (
			SELECT 1 FROM review_candidates r WHERE r.kind=?3 AND r.status!='rejected' AND (r.entry_id=?1 OR r.other_id=?1))`,
			id, maintain.ContestedFlag, CandidateContested)
		if err != nil {
			return fmt.Errorf("entry %q: %w", id, err)
		}
	}
	return nil
}

// StaleEntry is a row flagged stale, with why.
type StaleEntry struct {
	ID, Content, Status string
	Reason              string
	FlaggedBy           int64 // the activity that flagged it
}

// StaleEntries returns the rows flagged stale, by id.
func (s *Store) StaleEntries(ctx context.Context) ([]StaleEntry, error) {
	var out []StaleEntry
	err := s.readTx(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT g.id, g.content, g.status, f.reason, f.activity_id
			FROM review_flags f JOIN grimoire_entries g ON g.id=f.entry_id WHERE f.flag=? ORDER BY g.id`, maintain.StaleFlag)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e StaleEntry
			if err := rows.Scan(&e.ID, &e.Content, &e.Status, &e.Reason, &e.FlaggedBy); err != nil {
				return err
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, err
}

// ClearStale records that a person reviewed stale rows against the roots
// they were flagged for and found them still good: the flag goes, and the
// "revalidated" change keeps those roots, so that derivation review never
// flags the row for them again (a new root flags it anew). One
// transaction, one "review" activity at now; a row not flagged stale is
// refused, an unknown id is ErrNoEntry, and either way nothing changes.
func (s *Store) ClearStale(ctx context.Context, ids []string, now time.Time) (int64, error) {
	ids = uniqueIDs(ids)
	if len(ids) == 0 {
		return 0, errors.New("review stale: no entry named")
	}
	var act int64
	err := s.writeTx(ctx, func(tx *writeTx) error {
		type flagged struct {
			id, reason string
			roots      []string
		}
		var todo []flagged
		refused := &RefusedError{Op: "review stale", Named: len(ids)}
		for _, id := range ids {
			if _, err := rowIn(ctx, tx.tx, id); err != nil {
				return err
			}
			var reason, detail string
			err := tx.queryRow(ctx, `SELECT f.reason, COALESCE((SELECT c.detail FROM entry_changes c WHERE c.entry_id=f.entry_id
				AND c.action='flagged' AND json_extract(c.detail, '$.flag')=f.flag ORDER BY c.activity_id DESC LIMIT 1), '{}')
				FROM review_flags f WHERE f.entry_id=? AND f.flag=?`, id, maintain.StaleFlag).Scan(&reason, &detail)
			if errors.Is(err, sql.ErrNoRows) {
				refused.Refusals = append(refused.Refusals, Refusal{ID: id, Reasons: []string{"it is not flagged stale"}})
				continue
			}
			if err != nil {
				return err
			}
			var d struct{ Roots []string }
			if err := json.Unmarshal([]byte(detail), &d); err != nil {
				return fmt.Errorf("entry %q: stale flag's change: %w", id, err)
			}
			todo = append(todo, flagged{id, reason, d.Roots})
		}
		if len(refused.Refusals) > 0 {
			return refused
		}
		var err error
		if act, err = tx.recordActivity(ctx, Activity{Kind: ActivityReview, At: now,
			Params: map[string]any{"kind": maintain.StaleFlag, "ids": ids, "decision": "revalidated"},
			Counts: map[string]any{"revalidated": len(todo)}}); err != nil {
			return err
		}
		for _, f := range todo {
			if _, err := tx.exec(ctx, `DELETE FROM review_flags WHERE entry_id=? AND flag=?`, f.id, maintain.StaleFlag); err != nil {
				return fmt.Errorf("entry %q: %w", f.id, err)
			}
			if err := tx.linkChange(ctx, act, f.id, "revalidated", map[string]any{"roots": orEmptyStrings(f.roots), "reason": f.reason}); err != nil {
				return err
			}
		}
		return nil
	})
	return act, err
}
