package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// ChannelSelf is the channel of an entry this Golem learned itself (an
// ingest of its own export). The other channels an entry arrives in a
// store by belong to the packages that decide them: a bundle's
// (inherit.ChannelPredecessor, inherit.ChannelClade,
// inherit.ChannelSnapshot), an equip's (library.EquipChannel), and in a
// library a deposit's (library.ChannelDeath, library.ChannelLive,
// inherit.ChannelClade, library.ChannelMarketplace, library.ChannelManual).
const ChannelSelf = "self"

// Row is one grimoire_entries row with its embedding. Entry.Store carries
// the store state that exports write back out.
type Row struct {
	grimoire.Entry
	EmbeddingModel    string // space of Entry.Embedding; "" when none
	ToxicContribution *float64
	SameAs            string
	LegalHold         bool
	LastMetabolizedAt *time.Time
	CreatedBy         int64
	UpdatedBy         int64
}

// ErrNoEntry is returned for an id the store does not hold.
var ErrNoEntry = errors.New("no such entry")

const entryColumns = `id, golem_id, category, content, confidence, confidence_at_creation, quality_score,
	decay_class, market_regime, domain, tags, created_at, last_accessed_at, valid_from, valid_until,
	strength, validated_count, contradicted_count, provenance, source_golem_id, source_generation,
	source_confidence, arrival_confidence, channel, bundle_digest, is_bloodstain, polarity, status,
	requires_investigation, memory_strength, retrieval_weight, demurrage_weight, toxic_recommendation,
	toxic_contribution, same_as, legal_hold, last_metabolized_at, created_by, updated_by`

// insertEntry adds a row created by activity, with its embedding, and
// links the row to the activity as "created", with detail.
func (t *writeTx) insertEntry(ctx context.Context, r *Row, activity int64, detail map[string]any) error {
	args, err := t.entryArgs(r, activity)
	if err != nil {
		return err
	}
	e := &r.Entry
	if _, err = t.exec(ctx, insertEntriesSQL(1), args...); err != nil {
		return fmt.Errorf("entry %q: %w", e.ID, err)
	}
	if len(e.Embedding) > 0 {
		if r.EmbeddingModel == "" {
			return fmt.Errorf("entry %q: embedding without a model", e.ID)
		}
		if _, err := t.exec(ctx, insertEmbeddingsSQL(1), embeddingArgs(r)...); err != nil {
			return fmt.Errorf("entry %q: embedding: %w", e.ID, err)
		}
	}
	if st := e.Store; st != nil {
		for _, f := range st.ReviewFlags {
			if err := t.Flag(ctx, e.ID, f, "arrived flagged", activity); err != nil {
				return err
			}
		}
	}
	return t.linkChange(ctx, activity, e.ID, "created", detail)
}

// entryArgs are the values of r's grimoire_entries row, in entryColumns'
// order.
func (t *writeTx) entryArgs(r *Row, activity int64) ([]any, error) {
	e := &r.Entry
	st := e.Store
	if st == nil {
		st = &grimoire.StoreState{}
	}
	tags, err := json.Marshal(orEmptyStrings(e.Tags))
	if err != nil {
		return nil, err
	}
	src := e.Source
	if src == nil {
		src = &grimoire.Source{GolemID: t.s.meta.GolemID, Generation: t.s.meta.Generation, Confidence: e.Confidence}
	}
	cac := e.Confidence
	if e.ConfidenceAtCreation != nil {
		cac = *e.ConfidenceAtCreation
	}
	return []any{
		e.ID, t.s.meta.GolemID, e.Category, e.Content, e.Confidence, cac, e.QualityScore,
		e.DecayClass, nullString(e.MarketRegime), defaultString(e.Domain, "general"), string(tags),
		timeOrNil(e.CreatedAt), formatTime(e.LastAccessedAt), timeOrNil(e.ValidFrom), timeOrNil(e.ValidUntil),
		max(e.Strength, 1), e.ValidatedCount, e.ContradictedCount, defaultString(e.Provenance, grimoire.ProvenanceSelfLearned),
		src.GolemID, src.Generation, src.Confidence, st.ArrivalConfidence, nullString(st.Channel), nullString(st.Bundle),
		e.IsBloodstain, defaultString(e.Polarity, grimoire.PolarityPositive), defaultString(e.Status, grimoire.StatusActive),
		e.RequiresInvestigation, floatOr(st.MemoryStrength, 1), floatOr(st.RetrievalWeight, 1), floatOr(st.DemurrageWeight, 1),
		nullString(st.ToxicRecommendation), r.ToxicContribution, nullString(r.SameAs), r.LegalHold,
		timeOrNil(r.LastMetabolizedAt), activity, activity,
	}, nil
}

// embeddingArgs are the values of r's embeddings row.
func embeddingArgs(r *Row) []any {
	return []any{r.ID, r.EmbeddingModel, len(r.Embedding), packF32(r.Embedding)}
}

// entryColumnCount is how many values a grimoire_entries row takes.
var entryColumnCount = strings.Count(entryColumns, ",") + 1

// insertEntriesSQL inserts n grimoire_entries rows in one statement.
func insertEntriesSQL(n int) string {
	return "INSERT INTO grimoire_entries(" + entryColumns + ") VALUES" + placeholders(n, entryColumnCount)
}

// insertEmbeddingsSQL inserts n embeddings rows in one statement.
func insertEmbeddingsSQL(n int) string {
	return "INSERT INTO embeddings(entry_id, model, dims, vector) VALUES" + placeholders(n, 4)
}

// placeholders is n groups of cols question marks: "(?,?),(?,?)".
func placeholders(n, cols int) string {
	return repeatGroup(n, "("+strings.Repeat("?,", cols-1)+"?)")
}

// idBatch is how many ids one statement of inBatches takes: one
// statement per batch, not per id, and well below SQLite's limit on a
// statement's parameters.
const idBatch = 256

// inBatches calls fn for each run of at most idBatch of ids, in order,
// with the run as an IN list, "(?,?,…)", and its arguments.
func inBatches[T any](ids []T, fn func(in string, args []any) error) error {
	for len(ids) > 0 {
		part := ids[:min(idBatch, len(ids))]
		ids = ids[len(part):]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		if err := fn("("+strings.Repeat("?,", len(part)-1)+"?)", args); err != nil {
			return err
		}
	}
	return nil
}

// repeatGroup is n copies of group, comma-separated.
func repeatGroup(n int, group string) string {
	return strings.Repeat(group+",", n-1) + group
}

// LinkChange records that activity changed entry, and how.
func (t *writeTx) linkChange(ctx context.Context, activity int64, entryID, action string, detail map[string]any) error {
	b, err := json.Marshal(orEmpty(detail))
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO entry_changes(activity_id, entry_id, action, detail) VALUES(?,?,?,?)
		ON CONFLICT(activity_id, entry_id, action) DO UPDATE SET detail=excluded.detail`, activity, entryID, action, string(b))
	return err
}

// Flag sets a review flag on an entry (a flag, never a retraction).
func (t *writeTx) Flag(ctx context.Context, entryID, flag, reason string, activity int64) error {
	_, err := t.exec(ctx, `INSERT INTO review_flags(entry_id, flag, reason, activity_id) VALUES(?,?,?,?)
		ON CONFLICT(entry_id, flag) DO NOTHING`, entryID, flag, reason, activity)
	return err
}

// Entry returns one row.
func (s *Store) Entry(ctx context.Context, id string) (*Row, error) {
	r, err := rowIn(ctx, s.db, id)
	if err != nil {
		return nil, err
	}
	if err := s.loadEmbedding(ctx, r); err != nil {
		return nil, err
	}
	return r, s.loadFlags(ctx, r)
}

// EachEntry calls fn for every row in id order (bytewise), embeddings and
// review flags included. Rows stream: memory does not grow with the store.
func (s *Store) EachEntry(ctx context.Context, fn func(*Row) error) error {
	return eachEntry(ctx, s.db, fn)
}

// EachKnowledge calls fn for every row in id order (bytewise) with what
// clade knowledge takes of it (package clade): an entry holding only its
// id, content and status, and its embedding, with the embedding's model
// ("" when it has none). Each entry and embedding is fresh, fn's to keep.
// It reads four columns where EachEntry reads every one and each row's
// review flags: for novelty against a large store.
func (s *Store) EachKnowledge(ctx context.Context, fn func(e *grimoire.Entry, model string) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT g.id, g.content, g.status, m.model, m.vector
		FROM grimoire_entries g LEFT JOIN embeddings m ON m.entry_id=g.id ORDER BY g.id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		e := &grimoire.Entry{Type: grimoire.TypeEntry}
		var model sql.NullString
		var vec sql.RawBytes // unpacked before the next row: no copy of the bytes
		if err := rows.Scan(&e.ID, &e.Content, &e.Status, &model, &vec); err != nil {
			return err
		}
		if model.Valid {
			if e.Embedding, err = unpackF32(vec); err != nil {
				return fmt.Errorf("entry %q: embedding: %w", e.ID, err)
			}
		}
		if err := fn(e, model.String); err != nil {
			return err
		}
	}
	return rows.Err()
}

func eachEntry(ctx context.Context, q querier, fn func(*Row) error) error {
	return eachEntryWhere(ctx, q, "", fn)
}

// eachEntryWhere is eachEntry of the rows that meet the condition where
// (on g, the entry, and m, its embedding; "": every row), with args.
func eachEntryWhere(ctx context.Context, q querier, where string, fn func(*Row) error, args ...any) error {
	if where != "" {
		where = " WHERE " + where
	}
	rows, err := q.QueryContext(ctx, `SELECT `+prefixed("g.", entryColumns)+`, m.model, m.vector,
		(SELECT json_group_array(flag) FROM (SELECT flag FROM review_flags f WHERE f.entry_id=g.id ORDER BY flag))
		FROM grimoire_entries g LEFT JOIN embeddings m ON m.entry_id=g.id`+where+` ORDER BY g.id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var model sql.NullString
		var vec sql.RawBytes // unpacked before the next row: no copy of the bytes
		var flags string
		r, err := scanRow(rows, &model, &vec, &flags)
		if err != nil {
			return err
		}
		if model.Valid {
			r.EmbeddingModel = model.String
			if r.Embedding, err = unpackF32(vec); err != nil {
				return fmt.Errorf("entry %q: embedding: %w", r.ID, err)
			}
		}
		if err := json.Unmarshal([]byte(flags), &r.Store.ReviewFlags); err != nil {
			return err
		}
		if len(r.Store.ReviewFlags) == 0 {
			r.Store.ReviewFlags = nil
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s *Store) loadEmbedding(ctx context.Context, r *Row) error {
	var vec []byte
	err := s.db.QueryRowContext(ctx, "SELECT model, vector FROM embeddings WHERE entry_id=?", r.ID).Scan(&r.EmbeddingModel, &vec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	r.Embedding, err = unpackF32(vec)
	return err
}

func (s *Store) loadFlags(ctx context.Context, r *Row) error {
	rows, err := s.db.QueryContext(ctx, "SELECT flag FROM review_flags WHERE entry_id=? ORDER BY flag", r.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			return err
		}
		r.Store.ReviewFlags = append(r.Store.ReviewFlags, f)
	}
	return rows.Err()
}

func scanRow(rs scanner, extra ...any) (*Row, error) {
	r := &Row{}
	e := &r.Entry
	e.Type = grimoire.TypeEntry
	st := &grimoire.StoreState{}
	e.Store = st
	var golemID, tags, lastAccessed string
	var marketRegime, createdAt, validFrom, validUntil, channel, bundle, toxicRec, sameAs, metabolized sql.NullString
	var cac, memStrength, retrieval, demurrage float64
	var arrival, toxicContribution sql.NullFloat64
	src := &grimoire.Source{}
	dest := []any{&e.ID, &golemID, &e.Category, &e.Content, &e.Confidence, &cac, &e.QualityScore,
		&e.DecayClass, &marketRegime, &e.Domain, &tags, &createdAt, &lastAccessed, &validFrom, &validUntil,
		&e.Strength, &e.ValidatedCount, &e.ContradictedCount, &e.Provenance, &src.GolemID, &src.Generation,
		&src.Confidence, &arrival, &channel, &bundle, &e.IsBloodstain, &e.Polarity, &e.Status,
		&e.RequiresInvestigation, &memStrength, &retrieval, &demurrage, &toxicRec,
		&toxicContribution, &sameAs, &r.LegalHold, &metabolized, &r.CreatedBy, &r.UpdatedBy}
	if err := rs.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	e.ConfidenceAtCreation = &cac
	e.Source = src
	e.MarketRegime = marketRegime.String
	if err := json.Unmarshal([]byte(tags), &e.Tags); err != nil {
		return nil, fmt.Errorf("entry %q: tags: %w", e.ID, err)
	}
	if len(e.Tags) == 0 {
		e.Tags = nil
	}
	var err error
	if e.LastAccessedAt, err = time.Parse(time.RFC3339Nano, lastAccessed); err != nil {
		return nil, fmt.Errorf("entry %q: last_accessed_at: %w", e.ID, err)
	}
	for _, p := range []struct {
		s   sql.NullString
		dst **time.Time
	}{{createdAt, &e.CreatedAt}, {validFrom, &e.ValidFrom}, {validUntil, &e.ValidUntil}, {metabolized, &r.LastMetabolizedAt}} {
		if !p.s.Valid {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, p.s.String)
		if err != nil {
			return nil, fmt.Errorf("entry %q: time %q: %w", e.ID, p.s.String, err)
		}
		*p.dst = &t
	}
	if arrival.Valid {
		st.ArrivalConfidence = &arrival.Float64
	}
	st.Channel = channel.String
	st.Bundle = bundle.String
	st.MemoryStrength = &memStrength
	st.RetrievalWeight = &retrieval
	st.DemurrageWeight = &demurrage
	st.ToxicRecommendation = toxicRec.String
	if toxicContribution.Valid {
		r.ToxicContribution = &toxicContribution.Float64
	}
	r.SameAs = sameAs.String
	return r, nil
}

func prefixed(p, cols string) string {
	out := make([]byte, 0, len(cols)*2)
	start := true
	for i := 0; i < len(cols); i++ {
		c := cols[i]
		if start && c != ' ' && c != '\t' && c != '\n' {
			out = append(out, p...)
			start = false
		}
		if c == ',' {
			start = true
		}
		out = append(out, c)
	}
	return string(out)
}

func packF32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func unpackF32(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector of %d bytes is not a whole number of float32", len(b))
	}
	return unpackF32Into(make([]float32, len(b)/4), b), nil
}

// unpackF32Into decodes b, little-endian float32, into dst (len(b)/4
// long) and returns it.
func unpackF32Into(dst []float32, b []byte) []float32 {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func timeOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return formatTime(*t)
}

func defaultString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func floatOr(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

func orEmptyStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
