package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// ExportOptions say how to export a store.
type ExportOptions struct {
	// Now stamps exported_at; zero means the time of the store's latest
	// activity, so that exporting an unchanged store twice gives identical
	// bytes.
	Now time.Time
}

// ExportStats counts what an export wrote.
type ExportStats struct {
	Entries            int
	EmbeddingsDropped  int // entries whose embedding is in another space than the export's
	CausalEdges        int
	Documents          int
	ReEarned           int // entries whose source is now this Golem, because it re-earned them
	PassedOn           int // entries whose source passes on unchanged
	EmbeddingModel     string
	EmbeddingDims      int
	ExportedAt         time.Time
	QuarantinedEntries int
}

// Export writes the store as a bardo.grimoire-export/v1, so that the
// successor can live, export and die in turn.
//
// Sources: an entry this Golem learned, or whose confidence rose above the
// confidence it arrived with (re-earned), names this Golem at its generation
// and current confidence; any other entry passes its source on unchanged,
// so generational decay is never applied twice.
//
// One export has one embedding space: the model most entries' embeddings
// are in (ties by name). Embeddings of other spaces are left out, and those
// entries meet others through bardo-text/v1.
//
// The whole export reads one snapshot of the store, so that a writer
// committing meanwhile cannot tear it.
func (s *Store) Export(ctx context.Context, w io.Writer, o ExportOptions) (ExportStats, error) {
	var st ExportStats
	err := s.readTx(ctx, func(q querier) error {
		var err error
		st, err = s.export(ctx, q, w, o)
		return err
	})
	return st, err
}

func (s *Store) export(ctx context.Context, q querier, w io.Writer, o ExportOptions) (ExportStats, error) {
	var st ExportStats
	now := o.Now
	if now.IsZero() {
		var err error
		if now, err = latestActivityTime(ctx, q); err != nil {
			return st, fmt.Errorf("finding the latest activity: %w", err)
		}
	}
	st.ExportedAt = now.UTC()
	model, dims, err := dominantSpace(ctx, q)
	if err != nil {
		return st, err
	}
	st.EmbeddingModel, st.EmbeddingDims = model, dims
	m := s.meta
	h := &grimoire.Header{
		Format:       grimoire.Format,
		GolemID:      m.GolemID,
		Generation:   m.Generation,
		LineageID:    m.LineageID,
		ExportedAt:   st.ExportedAt,
		ParentBundle: m.ParentBundle,
	}
	if len(m.Ancestry) > 0 {
		h.Store = &grimoire.HeaderStore{Ancestry: m.Ancestry}
	}
	if model != "" {
		h.Embedding = &grimoire.EmbeddingSpace{Model: model, Dims: dims}
	}
	gw := grimoire.NewWriter(w)
	if err := gw.WriteHeader(h); err != nil {
		return st, err
	}
	err = eachEntry(ctx, q, func(r *Row) error {
		e := s.exportEntry(r, model, &st)
		st.Entries++
		if e.Status == grimoire.StatusQuarantined {
			st.QuarantinedEntries++
		}
		return gw.Write(e)
	})
	if err != nil {
		return st, err
	}
	if st.CausalEdges, err = exportEdges(ctx, q, gw); err != nil {
		return st, err
	}
	if st.Documents, err = exportDocuments(ctx, q, gw); err != nil {
		return st, err
	}
	return st, gw.Flush()
}

func (s *Store) exportEntry(r *Row, model string, st *ExportStats) *grimoire.Entry {
	e := r.Entry
	if len(e.Embedding) > 0 && r.EmbeddingModel != model {
		e.Embedding = nil
		st.EmbeddingsDropped++
	}
	src := *e.Source
	learnedHere := src.GolemID == s.meta.GolemID && src.Generation == s.meta.Generation
	arrival := e.Store.ArrivalConfidence
	switch {
	case learnedHere:
		src.Confidence = e.Confidence
	case arrival != nil && e.Confidence > *arrival:
		src = grimoire.Source{GolemID: s.meta.GolemID, Generation: s.meta.Generation, Confidence: e.Confidence}
		st.ReEarned++
	default:
		st.PassedOn++
	}
	e.Source = &src
	return &e
}

// dominantSpace returns the embedding model most entries use, ties by name.
func dominantSpace(ctx context.Context, q querier) (string, int, error) {
	rows, err := q.QueryContext(ctx, "SELECT model, dims, count(*) FROM embeddings GROUP BY model, dims")
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	type space struct {
		model string
		dims  int
		n     int
	}
	var spaces []space
	for rows.Next() {
		var sp space
		if err := rows.Scan(&sp.model, &sp.dims, &sp.n); err != nil {
			return "", 0, err
		}
		spaces = append(spaces, sp)
	}
	if err := rows.Err(); err != nil || len(spaces) == 0 {
		return "", 0, err
	}
	sort.Slice(spaces, func(i, j int) bool {
		if spaces[i].n != spaces[j].n {
			return spaces[i].n > spaces[j].n
		}
		if spaces[i].model != spaces[j].model {
			return spaces[i].model < spaces[j].model
		}
		return spaces[i].dims < spaces[j].dims
	})
	return spaces[0].model, spaces[0].dims, nil
}

func exportEdges(ctx context.Context, q querier, gw *grimoire.Writer) (int, error) {
	rows, err := q.QueryContext(ctx, "SELECT source_id, target_id, weight, evidence, lag, mechanism FROM causal_edges ORDER BY source_id, target_id")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		e := &grimoire.CausalEdge{}
		var lag sql.NullInt64
		var mech sql.NullString
		if err := rows.Scan(&e.SourceID, &e.TargetID, &e.Weight, &e.Evidence, &lag, &mech); err != nil {
			return n, err
		}
		if lag.Valid {
			e.Lag = &lag.Int64
		}
		e.Mechanism = mech.String
		if err := gw.Write(e); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

func exportDocuments(ctx context.Context, q querier, gw *grimoire.Writer) (int, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, text FROM documents ORDER BY name")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		d := &grimoire.Document{}
		if err := rows.Scan(&d.Name, &d.Text); err != nil {
			return n, err
		}
		if err := gw.Write(d); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}
