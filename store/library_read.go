package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
)

// EachRecord calls fn for every row of the store in id order (bytewise),
// on one read snapshot, as package library sees it: the row with its
// embedding and store state, the activity that created it, the depositing
// Golem's attestation when a deposit created it (its confidence the row's
// confidence at creation), and its sightings in the order they were
// recorded. Memory holds the activities and the sightings, not the rows.
func (s *Store) EachRecord(ctx context.Context, fn func(*library.Record) error) error {
	return s.readTx(ctx, func(q querier) error {
		byID, err := activitiesByID(ctx, q)
		if err != nil {
			return err
		}
		sighted, err := sightingsByEntry(ctx, q)
		if err != nil {
			return err
		}
		origins, err := apartOrigins(ctx, q, "")
		if err != nil {
			return err
		}
		return eachEntry(ctx, q, func(r *Row) error {
			rec := recordOf(r, byID, sighted[r.ID])
			rec.ApartOf = origins[r.ID]
			return fn(rec)
		})
	})
}

// RecordsOf returns the records of the rows ids names (those the store
// holds), in id order, as EachRecord makes them: it reads just those rows
// and their sightings.
func (s *Store) RecordsOf(ctx context.Context, ids []string) ([]library.Record, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var out []library.Record
	err := s.readTx(ctx, func(q querier) error {
		if len(ids) == 0 {
			return nil
		}
		byID, err := activitiesByID(ctx, q)
		if err != nil {
			return err
		}
		return inBatches(ids, func(in string, args []any) error {
			sighted := map[string][]library.Attestation{}
			if err := eachRow(ctx, q, `SELECT entry_id, source_golem_id, source_generation, confidence FROM sightings
				WHERE entry_id IN `+in+` ORDER BY entry_id, activity_id, incoming_id`, func(rs *sql.Rows) error {
				var id string
				var a library.Attestation
				err := rs.Scan(&id, &a.GolemID, &a.Generation, &a.Confidence)
				sighted[id] = append(sighted[id], a)
				return err
			}, args...); err != nil {
				return err
			}
			origins, err := apartOrigins(ctx, q, "AND entry_id IN "+in, args...)
			if err != nil {
				return err
			}
			return eachEntryWhere(ctx, q, "g.id IN "+in, func(r *Row) error {
				rec := recordOf(r, byID, sighted[r.ID])
				rec.ApartOf = origins[r.ID]
				out = append(out, *rec)
				return nil
			}, args...)
		})
	})
	return out, err
}

// apartOf is the key of a deposit's "created" link that records the id a
// row it kept apart (library.KeepApart) has in its source.
const apartOf = "apart_of"

// apartOrigins returns, by row id, the id each row a deposit kept apart
// has in its source, as the deposit recorded it (library.Record.ApartOf);
// where narrows the links read ("AND entry_id IN (…)" with its args). It
// reads the links of the rows under grimoire.ApartPrefix, where every row
// kept apart is: as many as there are such rows, not every link.
func apartOrigins(ctx context.Context, q querier, where string, args ...any) (map[string]string, error) {
	out := map[string]string{}
	// The ids from "apart:" up to "apart;", the next byte after ':'.
	lo, hi := grimoire.ApartPrefix, strings.TrimSuffix(grimoire.ApartPrefix, ":")+";"
	err := eachRow(ctx, q, `SELECT entry_id, json_extract(detail, '$.`+apartOf+`') FROM entry_changes
		WHERE entry_id >= ? AND entry_id < ? AND action='created' AND json_extract(detail, '$.`+apartOf+`') IS NOT NULL `+where,
		func(rs *sql.Rows) error {
			var id, orig string
			err := rs.Scan(&id, &orig)
			out[id] = orig
			return err
		}, append([]any{lo, hi}, args...)...)
	return out, classify(err)
}

// errFound stops a walk that found what it looked for.
var errFound = errors.New("found")

// RecallSpaces returns the model spaces in which some recall candidate
// (library.Reasons) has a vector of dims components, by name: what
// library.ChooseSpace chooses from. It reads a space's rows until the
// first candidate.
func (s *Store) RecallSpaces(ctx context.Context, dims int) ([]string, error) {
	var out []string
	err := s.readTx(ctx, func(q querier) error {
		// The spaces of the blocks and of the vectors not in one yet:
		// every vector is in one or the other (vectors.go).
		through, err := vectorsThrough(ctx, q)
		if err != nil {
			return err
		}
		var models []string
		if err := eachRow(ctx, q, `SELECT DISTINCT model FROM vector_blocks WHERE dims=?
			UNION SELECT DISTINCT model FROM embeddings WHERE dims=? AND seq > ? ORDER BY model`, func(rs *sql.Rows) error {
			var m string
			err := rs.Scan(&m)
			models = append(models, m)
			return err
		}, dims, dims, through); err != nil {
			return err
		}
		for _, m := range models {
			if !library.IsCandidateSpace(m) {
				continue
			}
			err := eachEntryWhere(ctx, q, "m.model=? AND m.dims=?", func(r *Row) error {
				if len(library.Reasons(&r.Entry)) > 0 {
					return errFound
				}
				return nil
			}, m, dims)
			switch {
			case errors.Is(err, errFound):
				out = append(out, m)
			case err != nil:
				return err
			}
		}
		return nil
	})
	return out, err
}

// activitiesByID returns every activity by id.
func activitiesByID(ctx context.Context, q querier) (map[int64]*Activity, error) {
	acts, err := activities(ctx, q)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*Activity, len(acts))
	for i := range acts {
		byID[acts[i].ID] = &acts[i]
	}
	return byID, nil
}

// recordOf is row r as package library sees it, with the activities by id
// and the row's sightings.
func recordOf(r *Row, byID map[int64]*Activity, sighted []library.Attestation) *library.Record {
	rec := &library.Record{Entry: r.Entry, EmbeddingModel: r.EmbeddingModel, SameAs: r.SameAs, Sightings: sighted}
	if a := byID[r.CreatedBy]; a != nil {
		rec.Origin = library.Origin{Activity: a.ID, Kind: a.Kind, GolemID: a.SourceGolemID, Generation: a.SourceGeneration,
			Channel: a.Channel, Digest: a.InputDigest, At: a.At}
		if isDeposit(a.Kind) && a.SourceGeneration != nil {
			conf := r.Confidence
			if r.ConfidenceAtCreation != nil {
				conf = *r.ConfidenceAtCreation
			}
			rec.Deposit = &library.Attestation{GolemID: a.SourceGolemID, Generation: *a.SourceGeneration, Confidence: conf}
		}
	}
	return rec
}

func sightingsByEntry(ctx context.Context, q querier) (map[string][]library.Attestation, error) {
	rows, err := q.QueryContext(ctx, `SELECT entry_id, source_golem_id, source_generation, confidence FROM sightings
		ORDER BY entry_id, activity_id, incoming_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]library.Attestation{}
	for rows.Next() {
		var id string
		var a library.Attestation
		if err := rows.Scan(&id, &a.GolemID, &a.Generation, &a.Confidence); err != nil {
			return nil, err
		}
		out[id] = append(out[id], a)
	}
	return out, rows.Err()
}

// Deposits returns the deposits a library recorded, oldest first, with
// the rows each created and the sightings each recorded.
func (s *Store) Deposits(ctx context.Context) ([]library.DepositRecord, error) {
	acts, err := s.Activities(ctx)
	if err != nil {
		return nil, err
	}
	var out []library.DepositRecord
	for _, a := range acts {
		if !isDeposit(a.Kind) {
			continue
		}
		d := library.DepositRecord{Activity: a.ID, At: a.At, Channel: a.Channel, Digest: a.InputDigest, GolemID: a.SourceGolemID,
			Admitted: countOf(a.Counts, "created"), Sightings: countOf(a.Counts, "sightings")}
		if a.SourceGeneration != nil {
			d.Generation = *a.SourceGeneration
		}
		out = append(out, d)
	}
	return out, nil
}

// isDeposit reports whether an activity of kind is a deposit: trusted, or
// under quarantine.
func isDeposit(kind string) bool {
	return kind == ActivityDeposit || kind == ActivityDepositQuarantined
}

func countOf(counts map[string]any, key string) int {
	n, _ := counts[key].(float64)
	return int(n)
}

// Edges returns every causal edge of the store, by (source, target)
// bytewise.
func (s *Store) Edges(ctx context.Context) ([]grimoire.CausalEdge, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT source_id, target_id, weight, evidence, lag, mechanism FROM causal_edges
		ORDER BY source_id, target_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []grimoire.CausalEdge
	for rows.Next() {
		e := grimoire.CausalEdge{Type: grimoire.TypeCausalEdge}
		var lag sql.NullInt64
		var mech sql.NullString
		if err := rows.Scan(&e.SourceID, &e.TargetID, &e.Weight, &e.Evidence, &lag, &mech); err != nil {
			return nil, err
		}
		if lag.Valid {
			e.Lag = &lag.Int64
		}
		e.Mechanism = mech.String
		out = append(out, e)
	}
	return out, rows.Err()
}

// State names the store's state: its latest activity (id and time). A
// store changes only through activities, so two equal states are the same
// content.
func (s *Store) State(ctx context.Context) (string, error) {
	var id int64
	var at string
	err := s.db.QueryRowContext(ctx, "SELECT id, at FROM activities ORDER BY id DESC LIMIT 1").Scan(&id, &at)
	if err != nil {
		return "", fmt.Errorf("%s: latest activity: %w", s.path, err)
	}
	return fmt.Sprintf("activity %d at %s", id, at), nil
}

// PendingReview counts the pending review candidates by kind (same_as,
// contested, ...).
func (s *Store) PendingReview(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT kind, count(*) FROM review_candidates WHERE status='pending' GROUP BY kind ORDER BY kind")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// SightingRecord is one recorded sighting of an entry.
type SightingRecord struct {
	Activity   int64
	At         time.Time
	Digest     string // the input of the activity that recorded it
	IncomingID string
	GolemID    string
	Generation int
	Confidence float64
	Cosine     float64
}

// RecordSightings returns the sightings of one entry with when and by
// which activity each was recorded, for a person to read.
func (s *Store) RecordSightings(ctx context.Context, id string) ([]SightingRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.activity_id, a.at, s.incoming_id, s.source_golem_id, s.source_generation,
		s.confidence, s.cosine, COALESCE(a.input_digest, '') FROM sightings s JOIN activities a ON a.id=s.activity_id
		WHERE s.entry_id=? ORDER BY s.activity_id, s.incoming_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SightingRecord
	for rows.Next() {
		var r SightingRecord
		var at string
		if err := rows.Scan(&r.Activity, &at, &r.IncomingID, &r.GolemID, &r.Generation, &r.Confidence, &r.Cosine, &r.Digest); err != nil {
			return nil, err
		}
		if r.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("activity %d: at %q: %w", r.Activity, at, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
