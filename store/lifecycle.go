package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// ErrRefused marks a change the store refused: nothing changed.
var ErrRefused = errors.New("refused")

// Refusal says why one row cannot take a change.
type Refusal struct {
	ID      string
	Reasons []string
}

// RefusedError is a change refused for some of the rows named; it changed
// none of them. It matches ErrRefused.
type RefusedError struct {
	Op       string // the command: "purge", "restore", ...
	Named    int    // rows named
	Refusals []Refusal
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s refused for %d of %d entries, nothing changed", e.Op, len(e.Refusals), e.Named)
	for _, r := range e.Refusals {
		fmt.Fprintf(&b, "\nentry %q: %s", r.ID, strings.Join(r.Reasons, "; "))
	}
	return b.String()
}

// Is makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Transition is what a lifecycle command did to one row.
type Transition struct {
	ID       string
	From, To string // statuses, or "held" / "not held"
	Changed  bool   // false: the row was in To already
}

// Lifecycle is what a lifecycle command did.
type Lifecycle struct {
	Activity int64        // 0 when no row changed: nothing is recorded
	Rows     []Transition // each id once, in the order first named
}

// Hold states, as Transition names them.
const (
	Held    = "held"
	NotHeld = "not held"
)

// lifecycleOp is one of the commands that move rows between states:
// statuses (archive, restore, release) or legal hold.
type lifecycleOp struct {
	kind   string // the activity's kind
	action string // the entry_changes action
	to     string
	refuse map[string]string // state → why a row in it is refused
	state  func(*Row) string // the row's state this op moves
	set    func(context.Context, *writeTx, string, int64) error
}

func statusOp(kind, action, to string, refuse map[string]string) lifecycleOp {
	return lifecycleOp{kind: kind, action: action, to: to, refuse: refuse,
		state: func(r *Row) string { return r.Status },
		set: func(ctx context.Context, tx *writeTx, id string, act int64) error {
			return setStatus(ctx, tx, id, to, act)
		}}
}

func holdOp(kind, action string, hold bool) lifecycleOp {
	to := NotHeld
	if hold {
		to = Held
	}
	return lifecycleOp{kind: kind, action: action, to: to,
		state: func(r *Row) string {
			if r.LegalHold {
				return Held
			}
			return NotHeld
		},
		set: func(ctx context.Context, tx *writeTx, id string, act int64) error {
			_, err := tx.exec(ctx, `UPDATE grimoire_entries SET legal_hold=?, updated_by=? WHERE id=?`, hold, act, id)
			return err
		}}
}

// Archive moves rows out of ordinary recall: active or quarantined rows
// become archived. Archive is not retraction: the rows stay, keep their
// confidence, export with their status and come back with Restore.
func (s *Store) Archive(ctx context.Context, ids []string, reason string, now time.Time) (*Lifecycle, error) {
	return s.lifecycle(ctx, statusOp(ActivityArchive, "archived", grimoire.StatusArchived, nil), ids, reason, now)
}

// Restore brings archived rows back to active. A quarantined row is an
// import under review: it is released (Release), not restored.
func (s *Store) Restore(ctx context.Context, ids []string, now time.Time) (*Lifecycle, error) {
	return s.lifecycle(ctx, statusOp(ActivityRestore, "restored", grimoire.StatusActive, map[string]string{
		grimoire.StatusQuarantined: "it is quarantined: a person releases an import under review (bardo release), restore is for archived rows",
	}), ids, "", now)
}

// Release admits quarantined rows, after a person reviewed them, as
// active. Trust is never elevated automatically: only this does it.
func (s *Store) Release(ctx context.Context, ids []string, now time.Time) (*Lifecycle, error) {
	return s.lifecycle(ctx, statusOp(ActivityRelease, "released", grimoire.StatusActive, map[string]string{
		grimoire.StatusArchived: "it is archived, not quarantined: restore it (bardo restore)",
	}), ids, "", now)
}

// Hold puts rows under legal hold: no purge removes them.
func (s *Store) Hold(ctx context.Context, ids []string, reason string, now time.Time) (*Lifecycle, error) {
	return s.lifecycle(ctx, holdOp(ActivityHold, "held", true), ids, reason, now)
}

// Unhold lifts the legal hold of rows.
func (s *Store) Unhold(ctx context.Context, ids []string, now time.Time) (*Lifecycle, error) {
	return s.lifecycle(ctx, holdOp(ActivityUnhold, "unheld", false), ids, "", now)
}

// lifecycle applies op to the rows named, in one transaction recorded as
// one activity at now, each changed row linked to it. An id the store
// does not hold is ErrNoEntry and a row op refuses a *RefusedError; either
// way nothing changes. When every row is in op's state already nothing is
// recorded.
func (s *Store) lifecycle(ctx context.Context, op lifecycleOp, ids []string, reason string, now time.Time) (*Lifecycle, error) {
	ids = uniqueIDs(ids)
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no entry named", op.kind)
	}
	out := &Lifecycle{}
	err := s.writeTx(ctx, func(tx *writeTx) error {
		out.Rows = out.Rows[:0]
		refused := &RefusedError{Op: op.kind, Named: len(ids)}
		changed := 0
		for _, id := range ids {
			r, err := rowIn(ctx, tx.tx, id)
			if err != nil {
				return err
			}
			from := op.state(r)
			if why, ok := op.refuse[from]; ok {
				refused.Refusals = append(refused.Refusals, Refusal{ID: id, Reasons: []string{why}})
				continue
			}
			tr := Transition{ID: id, From: from, To: op.to, Changed: from != op.to}
			if tr.Changed {
				changed++
			}
			out.Rows = append(out.Rows, tr)
		}
		if len(refused.Refusals) > 0 {
			return refused
		}
		if changed == 0 {
			return nil
		}
		params := map[string]any{"ids": ids}
		if reason != "" {
			params["reason"] = reason
		}
		act, err := tx.recordActivity(ctx, Activity{Kind: op.kind, At: now, Params: params,
			Counts: map[string]any{"changed": changed, "unchanged": len(ids) - changed}})
		if err != nil {
			return err
		}
		for _, tr := range out.Rows {
			if !tr.Changed {
				continue
			}
			if err := op.set(ctx, tx, tr.ID, act); err != nil {
				return fmt.Errorf("entry %q: %w", tr.ID, err)
			}
			detail := map[string]any{"from": tr.From, "to": tr.To}
			if reason != "" {
				detail["reason"] = reason
			}
			if err := tx.linkChange(ctx, act, tr.ID, op.action, detail); err != nil {
				return err
			}
		}
		out.Activity = act
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rowIn reads one row inside a transaction (the store's one connection is
// the transaction's while it runs).
func rowIn(ctx context.Context, q querier, id string) (*Row, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+entryColumns+" FROM grimoire_entries WHERE id=?", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("entry %q: %w", id, ErrNoEntry)
	}
	r, err := scanRow(rows)
	if err != nil {
		return nil, err
	}
	return r, rows.Close()
}

// uniqueIDs returns ids without repeats, in the order first named.
func uniqueIDs(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
