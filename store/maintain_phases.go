package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bardo-golem/bardo/maintain"
)

// The phases of a maintenance cycle that write. Each takes at most limit
// rows after the cursor st.After, in id order (bytewise), moves the cursor
// past each row it finishes, and reports whether the phase is over. A row
// whose change does not fit the budget is left for the next run.

func (c *cycle) metabolize(ctx context.Context, tx *writeTx, st *cycleState, ch *maintain.Changes, limit int) (int, bool, error) {
	rows, err := activeRowsAfter(ctx, tx.tx, st.After, limit)
	if err != nil {
		return 0, false, err
	}
	n := 0
	for _, r := range rows {
		if !c.budget.Review() {
			return n, false, nil
		}
		m := maintain.Metabolize(&r.Entry, r.LastMetabolizedAt, c.o.Now, c.o.DecayFactor)
		switch m.Action {
		case maintain.Metabolized:
			if !c.budget.Write() {
				c.budget.Unreview()
				return n, false, nil
			}
			if _, err := tx.exec(ctx, `UPDATE grimoire_entries SET memory_strength=?, last_metabolized_at=?, updated_by=? WHERE id=?`,
				m.To, formatTime(c.o.Now), c.act, r.ID); err != nil {
				return n, false, fmt.Errorf("entry %q: %w", r.ID, err)
			}
			if err := tx.linkChange(ctx, c.act, r.ID, "metabolized", map[string]any{"memory_strength": m.To, "was": m.From}); err != nil {
				return n, false, err
			}
			ch.Metabolized++
		case maintain.Protected:
			ch.Protected++
		}
		st.After = r.ID
		n++
	}
	return n, len(rows) < limit, nil
}

func (c *cycle) retain(ctx context.Context, tx *writeTx, st *cycleState, ch *maintain.Changes, limit int) (int, bool, error) {
	rows, err := activeRowsAfter(ctx, tx.tx, st.After, limit)
	if err != nil {
		return 0, false, err
	}
	n := 0
	for _, r := range rows {
		if !c.budget.Review() {
			return n, false, nil
		}
		if rt := maintain.Retain(&r.Entry, r.restored, c.o.Now); rt.Archive {
			if !c.budget.Write() {
				c.budget.Unreview()
				return n, false, nil
			}
			if err := setStatus(ctx, tx, r.ID, "archived", c.act); err != nil {
				return n, false, err
			}
			if err := tx.linkChange(ctx, c.act, r.ID, "archived", map[string]any{
				"reason": rt.Reason, "effective_weight": rt.Weight, "temporal_decay": rt.Decay,
				"confidence": r.Confidence, "retrieval_floor": maintain.RetrievalFloor,
			}); err != nil {
				return n, false, err
			}
			ch.Archived++
		}
		st.After = r.ID
		n++
	}
	return n, len(rows) < limit, nil
}

func (c *cycle) contradict(ctx context.Context, tx *writeTx, st *cycleState, ch *maintain.Changes, limit int) (int, bool, error) {
	if c.contra == nil {
		negs, err := contenders(ctx, tx.tx, "g.polarity='negative'", "", -1)
		if err != nil {
			return 0, false, err
		}
		if c.contra, err = maintain.NewContradictions(negs); err != nil {
			return 0, false, err
		}
	}
	if c.contra.Negatives() == 0 {
		return 0, true, nil
	}
	rows, err := contenders(ctx, tx.tx, "g.polarity!='negative'", st.After, limit)
	if err != nil {
		return 0, false, err
	}
	n := 0
	for _, p := range rows {
		if !c.budget.Review() {
			return n, false, nil
		}
		for _, ct := range c.contra.Against(p) {
			known, err := contestKnown(ctx, tx, ct)
			if err != nil {
				return n, false, err
			}
			if known {
				continue
			}
			// A row left halfway is taken up again by the next run: the
			// pairs recorded already are known then.
			if !c.budget.Write() {
				c.budget.Unreview()
				return n, false, nil
			}
			if err := c.contest(ctx, tx, ct); err != nil {
				return n, false, err
			}
			ch.Contested++
		}
		st.After = p.ID
		n++
	}
	return n, len(rows) < limit, nil
}

// contestKnown reports whether a contested pair was recorded before, by
// this cycle or an earlier one, whatever a person decided about it.
func contestKnown(ctx context.Context, tx *writeTx, ct maintain.Contest) (bool, error) {
	var one int
	err := tx.queryRow(ctx, `SELECT 1 FROM review_candidates WHERE kind='contested' AND entry_id=? AND other_id=?`,
		ct.EntryID, ct.OtherID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// contest records a contested pair: a review candidate, the "contested"
// review flag on both rows, and the pair in both rows' changes. Both rows
// stay as they are: contradiction is not corruption.
func (c *cycle) contest(ctx context.Context, tx *writeTx, ct maintain.Contest) error {
	res, err := tx.exec(ctx, `INSERT INTO review_candidates(kind, entry_id, other_id, cosine, activity_id) VALUES('contested',?,?,?,?)`,
		ct.EntryID, ct.OtherID, ct.Cosine, c.act)
	if err != nil {
		return fmt.Errorf("contested pair %q ~ %q: %w", ct.EntryID, ct.OtherID, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	what := "different Golems disagree"
	if ct.Disagreement == maintain.SameGolem {
		what = "one Golem changed its belief"
	}
	for _, side := range [][2]string{{ct.EntryID, ct.OtherID}, {ct.OtherID, ct.EntryID}} {
		reason := fmt.Sprintf("opposite polarity to entry %q, cosine %.4f in %s: %s; both kept", side[1], ct.Cosine, ct.Space, what)
		if err := tx.Flag(ctx, side[0], maintain.ContestedFlag, reason, c.act); err != nil {
			return fmt.Errorf("entry %q: %w", side[0], err)
		}
		if err := appendChange(ctx, tx, c.act, side[0], "contested", "pairs", map[string]any{
			"candidate": id, "other_id": side[1], "cosine": ct.Cosine, "space": ct.Space, "disagreement": ct.Disagreement,
		}); err != nil {
			return err
		}
	}
	return nil
}

func (c *cycle) derive(ctx context.Context, tx *writeTx, st *cycleState, ch *maintain.Changes, limit int) (int, bool, error) {
	if c.bundleRoots == nil {
		var err error
		if c.bundleRoots, err = bundleRoots(ctx, tx.tx); err != nil {
			return 0, false, err
		}
	}
	rows, err := derivationsAfter(ctx, tx.tx, st.After, limit, c.bundleRoots)
	if err != nil {
		return 0, false, err
	}
	n := 0
	for _, d := range rows {
		if !c.budget.Review() {
			return n, false, nil
		}
		if s, stale := maintain.Review(d); stale {
			if !c.budget.Write() {
				c.budget.Unreview()
				return n, false, nil
			}
			if err := tx.Flag(ctx, d.ID, maintain.StaleFlag, s.Reason, c.act); err != nil {
				return n, false, fmt.Errorf("entry %q: %w", d.ID, err)
			}
			roots := make([]string, len(s.Roots))
			for i, r := range s.Roots {
				roots[i] = r.ID
			}
			if err := tx.linkChange(ctx, c.act, d.ID, "flagged", map[string]any{
				"flag": maintain.StaleFlag, "roots": roots, "reason": s.Reason,
			}); err != nil {
				return n, false, err
			}
			ch.FlaggedStale++
		}
		st.After = d.ID
		n++
	}
	return n, len(rows) < limit, nil
}

// appendChange adds item to the list under key in the detail of the
// change (activity, entry, action), creating it: a row contested with
// several others in one cycle keeps every pair.
func appendChange(ctx context.Context, tx *writeTx, activity int64, entry, action, key string, item map[string]any) error {
	var raw string
	err := tx.queryRow(ctx, `SELECT detail FROM entry_changes WHERE activity_id=? AND entry_id=? AND action=?`,
		activity, entry, action).Scan(&raw)
	d := map[string]any{}
	switch {
	case err == nil:
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			return fmt.Errorf("entry %q: %s change of activity %d: %w", entry, action, activity, err)
		}
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	list, _ := d[key].([]any)
	d[key] = append(list, item)
	return tx.linkChange(ctx, activity, entry, action, d)
}

// setStatus moves a row to status, as activity.
func setStatus(ctx context.Context, tx *writeTx, id, status string, activity int64) error {
	if _, err := tx.exec(ctx, `UPDATE grimoire_entries SET status=?, updated_by=? WHERE id=?`, status, activity, id); err != nil {
		return fmt.Errorf("entry %q: %w", id, err)
	}
	return nil
}
