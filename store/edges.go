package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bardo-golem/bardo/grimoire"
)

// Edge writes: what writing one causal edge did.
type edgeResult int

const (
	edgeKept    edgeResult = iota // the store's edge stays as it was
	edgeAdded                     // a new edge
	edgeUpdated                   // the store's edge took the new weight, evidence, lag, mechanism
)

// addEdge inserts e unless the store holds an edge between the same ends,
// which stays as it is: inheritance never rewrites the successor's graph.
func (t *writeTx) addEdge(ctx context.Context, e *grimoire.CausalEdge, activity int64) (edgeResult, error) {
	res, err := t.exec(ctx, `INSERT INTO causal_edges(source_id, target_id, weight, evidence, lag, mechanism, created_by, updated_by)
		VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(source_id, target_id) DO NOTHING`,
		e.SourceID, e.TargetID, e.Weight, e.Evidence, e.Lag, nullString(e.Mechanism), activity, activity)
	if err != nil {
		return edgeKept, fmt.Errorf("causal edge %q → %q: %w", e.SourceID, e.TargetID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return edgeKept, err
	}
	return edgeAdded, nil
}

// putEdge inserts e, or gives the store's edge between the same ends e's
// weight, evidence, lag and mechanism: the Golem's own graph is the
// authority on its own learning.
func (t *writeTx) putEdge(ctx context.Context, e *grimoire.CausalEdge, activity int64) (edgeResult, error) {
	var weight float64
	var evidence int64
	var lag sql.NullInt64
	var mech sql.NullString
	err := t.queryRow(ctx, "SELECT weight, evidence, lag, mechanism FROM causal_edges WHERE source_id=? AND target_id=?",
		e.SourceID, e.TargetID).Scan(&weight, &evidence, &lag, &mech)
	if errors.Is(err, sql.ErrNoRows) {
		return t.addEdge(ctx, e, activity)
	}
	if err != nil {
		return edgeKept, fmt.Errorf("causal edge %q → %q: %w", e.SourceID, e.TargetID, err)
	}
	sameLag := (e.Lag == nil && !lag.Valid) || (e.Lag != nil && lag.Valid && *e.Lag == lag.Int64)
	if weight == e.Weight && evidence == e.Evidence && sameLag && mech.String == e.Mechanism {
		return edgeKept, nil
	}
	_, err = t.exec(ctx, `UPDATE causal_edges SET weight=?, evidence=?, lag=?, mechanism=?, updated_by=?
		WHERE source_id=? AND target_id=?`,
		e.Weight, e.Evidence, e.Lag, nullString(e.Mechanism), activity, e.SourceID, e.TargetID)
	if err != nil {
		return edgeKept, fmt.Errorf("causal edge %q → %q: %w", e.SourceID, e.TargetID, err)
	}
	return edgeUpdated, nil
}

// hasEntries reports whether the store holds entries of every id given.
func (t *writeTx) hasEntries(ctx context.Context, ids ...string) (bool, error) {
	for _, id := range ids {
		var one int
		err := t.queryRow(ctx, "SELECT 1 FROM grimoire_entries WHERE id=?", id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}
