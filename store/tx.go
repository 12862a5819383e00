package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrReadOnly is returned when a read-only store is asked to write.
var ErrReadOnly = errors.New("store is open read-only")

// writeTx is one write transaction: everything in it lands together or not at
// all.
type writeTx struct {
	tx    *sql.Tx
	s     *Store
	stmts map[string]*sql.Stmt // prepared once per transaction: parsing SQL is most of a row's cost
	tail  *vectorTail          // the embeddings it inserts, taken into blocks as they go in (vectors_tail.go); nil: read back at the end
	ready map[*Row]*restVector // rows' embeddings made ready for the store ahead of the transaction (an ingest's)
	// blocksChanged: the transaction wrote a vector block (writeBlock), so
	// a group may be due for clustering.
	blocksChanged bool
}

// exec runs a statement of the transaction, prepared on first use.
func (t *writeTx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := t.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// queryRow runs a one-row query of the transaction, prepared on first use.
func (t *writeTx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := t.prepared(ctx, query)
	if err != nil {
		return t.tx.QueryRowContext(ctx, query, args...) // reports the same error through Scan
	}
	return st.QueryRowContext(ctx, args...)
}

// prepared returns the transaction's statement for query; it is closed
// with the transaction.
func (t *writeTx) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := t.stmts[query]; ok {
		return st, nil
	}
	st, err := t.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[query] = st
	return st, nil
}

// writeTx runs fn in one write transaction, committing when it returns nil.
func (s *Store) writeTx(ctx context.Context, fn func(*writeTx) error) error {
	if s.readOnly {
		return ErrReadOnly
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	t := &writeTx{tx: tx, s: s}
	if err := t.cacheKiB(ctx, writeCacheKiB); err != nil {
		tx.Rollback()
		return classify(err)
	}
	// The cache of reads again, once the transaction has ended (the
	// pages it holds are released; the transaction's stay cached).
	defer s.db.ExecContext(context.WithoutCancel(ctx), "PRAGMA cache_size=-"+strconv.Itoa(readCacheKiB))
	if err := fn(t); err != nil {
		tx.Rollback()
		return classify(err)
	}
	// Every write ends by bringing the vectors at rest up to date, in the
	// same transaction (vectors.go).
	if err := t.syncVectors(ctx); err != nil {
		tx.Rollback()
		return classify(err)
	}
	return classify(tx.Commit())
}

// Kinds of activity this package records.
const (
	ActivityInit    = "init"
	ActivityInherit = "inherit"
	// ActivityInheritQuarantined is a bundle applied under quarantine
	// (inherit.Trust.Quarantine). It is its own kind, so that it never
	// marks the bundle applied for a trusted arrival of the same digest.
	ActivityInheritQuarantined = "inherit_quarantined"
	ActivityIngest             = "ingest"
)

// Activity is one recorded operation.
type Activity struct {
	ID               int64
	Kind             string
	At               time.Time
	InputDigest      string // idempotency key; "" for none
	SourceGolemID    string
	SourceGeneration *int
	Channel          string
	Params           map[string]any
	Counts           map[string]any
}

// RecordActivity inserts an activity and returns its id.
func (t *writeTx) recordActivity(ctx context.Context, a Activity) (int64, error) {
	params, err := json.Marshal(orEmpty(a.Params))
	if err != nil {
		return 0, err
	}
	counts, err := json.Marshal(orEmpty(a.Counts))
	if err != nil {
		return 0, err
	}
	res, err := t.tx.ExecContext(ctx,
		`INSERT INTO activities(kind, at, input_digest, source_golem_id, source_generation, channel, params, counts)
		 VALUES(?, ?, ?, ?, ?, ?, ?, ?)`,
		a.Kind, a.At.UTC().Format(time.RFC3339Nano), nullString(a.InputDigest), nullString(a.SourceGolemID),
		a.SourceGeneration, nullString(a.Channel), string(params), string(counts))
	if err != nil {
		return 0, fmt.Errorf("recording %s activity: %w", a.Kind, err)
	}
	return res.LastInsertId()
}

// readTx runs fn on one read snapshot of the store.
func (s *Store) readTx(ctx context.Context, fn func(querier) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback() // nothing to commit
	return classify(fn(tx))
}

// cacheKiB sets the page cache of the transaction's connection.
func (t *writeTx) cacheKiB(ctx context.Context, kib int) error {
	_, err := t.tx.ExecContext(ctx, "PRAGMA cache_size=-"+strconv.Itoa(kib))
	return err
}

// deferForeignKeys lets the transaction's rows refer to each other in any
// order: foreign keys are checked at commit (a new row's same_as may name a
// row inserted after it).
func (t *writeTx) deferForeignKeys(ctx context.Context) error {
	_, err := t.tx.ExecContext(ctx, "PRAGMA defer_foreign_keys=ON")
	return err
}

// SetActivityCounts replaces an activity's counts (known only once its
// work is done, inside the same transaction).
func (t *writeTx) setActivityCounts(ctx context.Context, id int64, counts map[string]any) error {
	b, err := json.Marshal(orEmpty(counts))
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(ctx, "UPDATE activities SET counts=? WHERE id=?", string(b), id)
	return err
}

// FindActivity returns the activity of kind that applied inputDigest, or
// nil.
func (s *Store) FindActivity(ctx context.Context, kind, inputDigest string) (*Activity, error) {
	return findActivity(ctx, s.db, kind, inputDigest)
}

func findActivity(ctx context.Context, q querier, kind, inputDigest string) (*Activity, error) {
	row := q.QueryRowContext(ctx,
		`SELECT id, kind, at, COALESCE(input_digest,''), COALESCE(source_golem_id,''), source_generation, COALESCE(channel,''), params, counts
		 FROM activities WHERE kind=? AND input_digest=?`, kind, inputDigest)
	a, err := scanActivity(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return a, err
}

// Activities returns every activity, oldest first.
func (s *Store) Activities(ctx context.Context) ([]Activity, error) {
	return activities(ctx, s.db)
}

func activities(ctx context.Context, q querier) ([]Activity, error) {
	rows, err := q.QueryContext(ctx,
		`SELECT id, kind, at, COALESCE(input_digest,''), COALESCE(source_golem_id,''), source_generation, COALESCE(channel,''), params, counts
		 FROM activities ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Activity
	for rows.Next() {
		a, err := scanActivity(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, rows.Err()
}

type scanner interface{ Scan(...any) error }

func scanActivity(r scanner) (*Activity, error) {
	var a Activity
	var at, params, counts string
	var gen sql.NullInt64
	if err := r.Scan(&a.ID, &a.Kind, &at, &a.InputDigest, &a.SourceGolemID, &gen, &a.Channel, &params, &counts); err != nil {
		return nil, err
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return nil, fmt.Errorf("activity %d: at %q: %w", a.ID, at, err)
	}
	a.At = t
	if gen.Valid {
		g := int(gen.Int64)
		a.SourceGeneration = &g
	}
	if err := json.Unmarshal([]byte(params), &a.Params); err != nil {
		return nil, fmt.Errorf("activity %d: params: %w", a.ID, err)
	}
	if err := json.Unmarshal([]byte(counts), &a.Counts); err != nil {
		return nil, fmt.Errorf("activity %d: counts: %w", a.ID, err)
	}
	return &a, nil
}

// latestActivityTime is the time of the newest activity: what export
// stamps as exported_at, so an unchanged store exports identical bytes.
// It compares parsed times, not the stored strings: RFC
// 3339 with trimmed fractions does not sort as text ("12:00:00.5Z" <
// "12:00:00Z").
func latestActivityTime(ctx context.Context, q querier) (time.Time, error) {
	rows, err := q.QueryContext(ctx, "SELECT id, at FROM activities")
	if err != nil {
		return time.Time{}, err
	}
	defer rows.Close()
	var latest time.Time
	for rows.Next() {
		var id int64
		var at string
		if err := rows.Scan(&id, &at); err != nil {
			return time.Time{}, err
		}
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return time.Time{}, fmt.Errorf("activity %d: at %q: %w", id, at, err)
		}
		if t.After(latest) {
			latest = t
		}
	}
	if err := rows.Err(); err != nil {
		return time.Time{}, err
	}
	if latest.IsZero() {
		return time.Time{}, errors.New("the store records no activity")
	}
	return latest.UTC(), nil
}

// querier is what reads need: the database, or a transaction that gives
// them one snapshot.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
