package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/maintain"
)

// The reads of a maintenance cycle. None of them writes: reading never
// bumps an access counter or a last_accessed_at.

// activeRow is an active row, and whether a person restored it since it
// was last archived.
type activeRow struct {
	*Row
	restored bool
}

// activeRowsAfter returns at most limit active rows whose id is after
// after, in id order, each with whether a person restored it since it was
// last archived (restoredRows).
func activeRowsAfter(ctx context.Context, q querier, after string, limit int) ([]activeRow, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+entryColumns+`
		FROM grimoire_entries WHERE status='active' AND id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []activeRow
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, activeRow{Row: r})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	ids := make([]string, len(out))
	for i, r := range out {
		ids[i] = r.ID
	}
	restored, err := restoredRows(ctx, q, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].restored = restored[out[i].ID]
	}
	return out, nil
}

// contenders returns the active rows matching where (a condition on g),
// with their vectors, after after in id order, at most limit (−1: all).
func contenders(ctx context.Context, q querier, where, after string, limit int) ([]maintain.Contender, error) {
	rows, err := q.QueryContext(ctx, `SELECT g.id, g.content, g.polarity, g.source_golem_id, m.model, m.vector
		FROM grimoire_entries g LEFT JOIN embeddings m ON m.entry_id=g.id
		WHERE g.status='active' AND `+where+` AND g.id > ? ORDER BY g.id LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []maintain.Contender
	for rows.Next() {
		var c maintain.Contender
		var model sql.NullString
		var vec sql.RawBytes // unpacked before the next row: no copy of the bytes
		if err := rows.Scan(&c.ID, &c.Content, &c.Polarity, &c.GolemID, &model, &vec); err != nil {
			return nil, err
		}
		if model.Valid {
			c.Space = model.String
			if c.Vector, err = unpackF32(vec); err != nil {
				return nil, fmt.Errorf("entry %q: embedding: %w", c.ID, err)
			}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// appliedBundle is the SQL condition on an activity a that applied a
// bundle whose autopsy may flag rows: an inherit, or a library's deposit.
const appliedBundle = `a.kind IN ('` + ActivityInherit + `', '` + ActivityDeposit + `') AND a.input_digest IS NOT NULL`

// bundleRoots returns, by bundle digest, the rows the autopsy of that
// bundle flagged when it was applied (the "flagged" changes of the
// activity that applied it), with the recommendation the autopsy gave.
func bundleRoots(ctx context.Context, q querier) (map[string][]maintain.Root, error) {
	rows, err := q.QueryContext(ctx, `SELECT a.input_digest, c.entry_id, COALESCE(json_extract(c.detail, '$.recommendation'), '')
		FROM entry_changes c JOIN activities a ON a.id=c.activity_id
		WHERE c.action='flagged' AND `+appliedBundle+`
		ORDER BY a.input_digest, c.entry_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]maintain.Root{}
	for rows.Next() {
		var digest string
		var r maintain.Root
		if err := rows.Scan(&digest, &r.ID, &r.Recommendation); err != nil {
			return nil, err
		}
		out[digest] = append(out[digest], r)
	}
	return out, rows.Err()
}

// derivationsAfter returns what the store records of where each row
// comes from — every row, whatever its status — for at most limit rows
// after after, in id order. A row is reflection-born when the activity
// that created it recorded it so (kind "reflection").
func derivationsAfter(ctx context.Context, q querier, after string, limit int, roots map[string][]maintain.Root) ([]maintain.Derivation, error) {
	rows, err := q.QueryContext(ctx, `SELECT g.id, COALESCE(g.bundle_digest, ''), g.toxic_recommendation IS NOT NULL,
		COALESCE(g.same_as, ''), COALESCE(t.toxic_recommendation, ''),
		EXISTS (SELECT 1 FROM review_flags f WHERE f.entry_id=g.id AND f.flag=?),
		EXISTS (SELECT 1 FROM entry_changes c WHERE c.entry_id=g.id AND c.action='created'
			AND json_extract(c.detail, '$.kind')='reflection'),
		(SELECT json_group_array(json_extract(c.detail, '$.roots')) FROM entry_changes c
			WHERE c.entry_id=g.id AND c.action='revalidated')
		FROM grimoire_entries g LEFT JOIN grimoire_entries t ON t.id=g.same_as
		WHERE g.id > ? ORDER BY g.id LIMIT ?`, maintain.StaleFlag, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []maintain.Derivation
	for rows.Next() {
		var d maintain.Derivation
		var sameAsRec, revalidated string
		if err := rows.Scan(&d.ID, &d.Bundle, &d.Flagged, &d.SameAs, &sameAsRec, &d.Stale, &d.ReflectionBorn, &revalidated); err != nil {
			return nil, err
		}
		if d.ReflectionBorn && d.Bundle != "" {
			d.BundleRoots = roots[d.Bundle]
		}
		if sameAsRec != "" {
			d.SameAsRoot = &maintain.Root{ID: d.SameAs, Recommendation: sameAsRec}
		}
		var lists []json.RawMessage
		if err := json.Unmarshal([]byte(revalidated), &lists); err != nil {
			return nil, fmt.Errorf("entry %q: revalidations: %w", d.ID, err)
		}
		for _, l := range lists {
			var ids []string
			if err := json.Unmarshal(l, &ids); err != nil {
				return nil, fmt.Errorf("entry %q: revalidated roots: %w", d.ID, err)
			}
			d.Revalidated = append(d.Revalidated, ids...)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// observe counts, on one snapshot, what the health report judges at now.
// current is the running cycle's activity: not an unfinished one.
func (s *Store) observe(ctx context.Context, now time.Time, current int64) (maintain.Observed, error) {
	var o maintain.Observed
	err := s.readTx(ctx, func(q querier) error {
		var avg sql.NullFloat64
		err := q.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM grimoire_entries),
			(SELECT count(*) FROM grimoire_entries WHERE status='active'),
			(SELECT count(*) FROM grimoire_entries WHERE status='archived'),
			(SELECT count(*) FROM grimoire_entries WHERE status='quarantined'),
			(SELECT count(*) FROM review_candidates WHERE kind='same_as' AND status='pending'),
			(SELECT count(*) FROM review_candidates WHERE kind='contested' AND status='pending'),
			(SELECT count(*) FROM review_flags WHERE flag=?),
			(SELECT count(*) FROM activities WHERE kind=? AND id != ? AND json_extract(counts, '$.status')=?),
			(SELECT avg(memory_strength) FROM grimoire_entries WHERE status='active')`,
			maintain.StaleFlag, ActivityMaintain, current, maintain.StatusRunning).Scan(
			&o.Entries, &o.Active, &o.Archived, &o.Quarantined, &o.SameAsPending, &o.ContestedPending,
			&o.StaleFlagged, &o.UnfinishedCycles, &avg)
		if err != nil {
			return err
		}
		o.AverageStrength = avg.Float64
		o.BelowFloor, err = belowFloor(ctx, q, now)
		return err
	})
	return o, err
}

// belowFloor counts the active rows whose effective weight at now is
// below the retrieval floor: what retention would archive. It reads each
// active row once, in no order, and the rows a person restored since
// they were last archived from one pass over the archive changes — not a
// lookup per row, which took a million-row store 10 s.
func belowFloor(ctx context.Context, q querier, now time.Time) (int, error) {
	restored, err := restoredRows(ctx, q, nil)
	if err != nil {
		return 0, err
	}
	// Every column maintain.Retain reads (decay.ParamsOf), no more: a
	// row's demurrage weight makes it a death testament as its bloodstain
	// flag does (a library's death deposits).
	rows, err := q.QueryContext(ctx, `SELECT id, confidence, decay_class, strength, is_bloodstain, provenance,
		demurrage_weight, quality_score, last_accessed_at FROM grimoire_entries WHERE +status='active'`) // +: a scan of the table, not a lookup per row through the status index
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	var id, accessed sql.RawBytes // read in place: only a row's verdict is kept
	var st grimoire.StoreState
	var demurrage float64
	for rows.Next() {
		e := grimoire.Entry{Status: grimoire.StatusActive, Store: &st}
		if err := rows.Scan(&id, &e.Confidence, &e.DecayClass, &e.Strength, &e.IsBloodstain, &e.Provenance,
			&demurrage, &e.QualityScore, &accessed); err != nil {
			return 0, err
		}
		st.DemurrageWeight = &demurrage
		if e.LastAccessedAt, err = time.Parse(time.RFC3339Nano, string(accessed)); err != nil {
			return 0, fmt.Errorf("entry %q: last_accessed_at: %w", id, err)
		}
		if maintain.Retain(&e, restored[string(id)], now).Archive {
			n++
		}
	}
	return n, rows.Err()
}

// restoredRows returns which of ids a person restored since they were
// last archived — the rows whose last archive change (archived or
// restored, by activity) restored them — or, for nil ids, every such row.
// It is the one place that rule is read: retention spares the rows it
// names (maintain.Retain), the health report does not count them below
// the floor.
func restoredRows(ctx context.Context, q querier, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	// SQLite takes a bare column of a max() aggregate from the row of the
	// maximum: the action of each entry's last archive change.
	const last = `SELECT entry_id, action, max(activity_id) FROM entry_changes WHERE `
	take := func(rs *sql.Rows) error {
		var id, action string
		var act int64
		if err := rs.Scan(&id, &action, &act); err != nil {
			return err
		}
		if action == "restored" {
			out[id] = true
		}
		return nil
	}
	if ids == nil {
		// Every row: the changes scanned once through their covering
		// primary key (+), not looked up one by one through
		// entry_changes_entry.
		return out, eachRow(ctx, q, last+`+action IN ('archived', 'restored') GROUP BY +entry_id`, take)
	}
	// Each batch's ids looked up through entry_changes_entry.
	return out, inBatches(ids, func(in string, args []any) error {
		return eachRow(ctx, q, last+`entry_id IN `+in+` AND action IN ('archived', 'restored') GROUP BY entry_id`, take, args...)
	})
}

// pendingPairs returns the first limit pending review candidates of kind,
// by id.
func (s *Store) pendingPairs(ctx context.Context, kind string, limit int) ([]maintain.Pair, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, entry_id, other_id, cosine FROM review_candidates
		WHERE kind=? AND status='pending' ORDER BY id LIMIT ?`, kind, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []maintain.Pair
	for rows.Next() {
		var p maintain.Pair
		if err := rows.Scan(&p.ID, &p.EntryID, &p.OtherID, &p.Cosine); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
