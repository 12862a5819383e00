package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// PurgeCandidate is a row named for purging, and why it cannot be, if it
// cannot.
type PurgeCandidate struct {
	ID            string
	Category      string
	Status        string
	ContentDigest string   // "sha256:<hex>" of its content: what the purge keeps of it
	Refusals      []string // empty when it can be purged
}

// maxNamedRefs bounds the ids a refusal names.
const maxNamedRefs = 5

// PurgePlan analyses, read-only, whether the rows named could be purged:
// a row under legal hold, or one another row or record refers to — a row
// merged into it (same_as), a causal edge, a review candidate, a sighting
// of another Golem, a row derived from it — is refused. An id the store
// does not hold is ErrNoEntry.
func (s *Store) PurgePlan(ctx context.Context, ids []string) ([]PurgeCandidate, error) {
	var out []PurgeCandidate
	err := s.readTx(ctx, func(q querier) error {
		var err error
		out, err = purgePlan(ctx, q, uniqueIDs(ids))
		return err
	})
	return out, err
}

func purgePlan(ctx context.Context, q querier, ids []string) ([]PurgeCandidate, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("purge: no entry named")
	}
	out := make([]PurgeCandidate, 0, len(ids))
	for _, id := range ids {
		r, err := rowIn(ctx, q, id)
		if err != nil {
			return nil, err
		}
		c := PurgeCandidate{ID: id, Category: r.Category, Status: r.Status, ContentDigest: documentDigest(r.Content)}
		if r.LegalHold {
			c.Refusals = append(c.Refusals, "it is under legal hold (bardo unhold lifts it)")
		}
		for _, ref := range purgeReferences {
			found, err := queryStrings(ctx, q, ref.query, id)
			if err != nil {
				return nil, fmt.Errorf("entry %q: %s: %w", id, ref.what, err)
			}
			if len(found) > 0 {
				c.Refusals = append(c.Refusals, ref.what+": "+nameIDs(found))
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// purgeReferences are the references that keep a row from being purged:
// each query returns, for the row's id, what refers to it.
var purgeReferences = []struct{ what, query string }{
	{"entries are merged into it (same_as)",
		`SELECT id FROM grimoire_entries WHERE same_as=?1 ORDER BY id`},
	{"causal edges name it",
		`SELECT source_id || ' → ' || target_id FROM causal_edges WHERE source_id=?1 OR target_id=?1 ORDER BY source_id, target_id`},
	{"review candidates name it",
		`SELECT kind || ' candidate ' || id FROM review_candidates WHERE entry_id=?1 OR other_id=?1 ORDER BY id`},
	{"sightings of other Golems record it",
		`SELECT incoming_id || ' of ' || source_golem_id FROM sightings WHERE entry_id=?1 ORDER BY activity_id, incoming_id`},
	// The derivation review's relation: the reflection-born rows of a
	// bundle whose autopsy flagged this row draw on it.
	{"entries are derived from it (born of the death reflection of a bundle whose autopsy flagged it)",
		`SELECT DISTINCT g.id FROM entry_changes f
		JOIN activities a ON a.id=f.activity_id AND ` + appliedBundle + `
		JOIN grimoire_entries g ON g.bundle_digest=a.input_digest
		JOIN entry_changes c ON c.entry_id=g.id AND c.action='created' AND json_extract(c.detail, '$.kind')='reflection'
		WHERE f.entry_id=?1 AND f.action='flagged' AND g.id != ?1 ORDER BY g.id`},
}

// Purge deletes rows, the only operation that does: in one transaction
// recorded as a "purge" activity at now, which keeps each purged id and
// the digest of its content (its "purged" change), and only when every
// row named can go (PurgePlan); otherwise it returns a *RefusedError and
// nothing changes. A row's embedding and review flags go with it; the
// record of every change to it stays.
func (s *Store) Purge(ctx context.Context, ids []string, reason string, now time.Time) (int64, []PurgeCandidate, error) {
	ids = uniqueIDs(ids)
	var act int64
	var plan []PurgeCandidate
	err := s.writeTx(ctx, func(tx *writeTx) error {
		var err error
		if plan, err = purgePlan(ctx, tx.tx, ids); err != nil {
			return err
		}
		refused := &RefusedError{Op: ActivityPurge, Named: len(ids)}
		for _, c := range plan {
			if len(c.Refusals) > 0 {
				refused.Refusals = append(refused.Refusals, Refusal{ID: c.ID, Reasons: c.Refusals})
			}
		}
		if len(refused.Refusals) > 0 {
			return refused
		}
		params := map[string]any{"ids": ids}
		if reason != "" {
			params["reason"] = reason
		}
		if act, err = tx.recordActivity(ctx, Activity{Kind: ActivityPurge, At: now, Params: params,
			Counts: map[string]any{"purged": len(plan)}}); err != nil {
			return err
		}
		for _, c := range plan {
			if err := purgeRow(ctx, tx, c, reason, act); err != nil {
				return fmt.Errorf("entry %q: %w", c.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return act, plan, nil
}

func purgeRow(ctx context.Context, tx *writeTx, c PurgeCandidate, reason string, act int64) error {
	var createdBy int64
	if err := tx.queryRow(ctx, `SELECT created_by FROM grimoire_entries WHERE id=?`, c.ID).Scan(&createdBy); err != nil {
		return err
	}
	detail := map[string]any{"content_digest": c.ContentDigest, "category": c.Category, "status": c.Status, "created_by": createdBy}
	if reason != "" {
		detail["reason"] = reason
	}
	if err := tx.linkChange(ctx, act, c.ID, "purged", detail); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM review_flags WHERE entry_id=?`,
		`DELETE FROM embeddings WHERE entry_id=?`,
		`DELETE FROM grimoire_entries WHERE id=?`,
	} {
		if _, err := tx.exec(ctx, q, c.ID); err != nil {
			return err
		}
	}
	return nil
}

// queryStrings returns the first column of every row of query.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// nameIDs quotes up to maxNamedRefs ids, then says how many more.
func nameIDs(ids []string) string {
	var b strings.Builder
	for i, id := range ids[:min(len(ids), maxNamedRefs)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", id)
	}
	if len(ids) > maxNamedRefs {
		fmt.Fprintf(&b, " and %d more", len(ids)-maxNamedRefs)
	}
	return b.String()
}
