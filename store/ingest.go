package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// ErrForeignExport is returned by Ingest for an export of another Golem
// than the store's: a store learns only from its own Golem.
var ErrForeignExport = errors.New("export is not of the store's Golem")

// IngestStats says what an ingest did.
type IngestStats struct {
	// Applied is false when the same export bytes were ingested before:
	// nothing changed, and Activity is that earlier ingest.
	Applied  bool
	Activity int64

	Entries   int // entry records read
	Created   int // new ids, admitted as learned by this Golem
	Updated   int // ids the store held whose confidence, counts or status changed
	Unchanged int // ids the store held, as the export has them
	ReEarned  int // inherited entries whose confidence rose above what they arrived with

	EdgesAdded, EdgesUpdated, EdgesKept int
	EdgesSkipped                        int // an end is neither in the export nor in the store

	DocumentsWritten, DocumentsUnchanged int

	// Ignored counts records a store does not keep: episodes and the rest
	// of the soma, documents other than PLAYBOOK.md and STRATEGY.md.
	Ignored  int
	Warnings []string
}

// Ingest brings a living Golem's own learning into its store, in one
// transaction, idempotent by digest (grimoire.ContentDigest of the export,
// computed by the caller, who reads them).
//
// An id the store lacks is admitted as learned by this Golem: its source is
// the store's Golem and generation at the entry's confidence, whatever the
// export says, and it has no arrival confidence. An id the store holds
// takes the export's confidence and quality_score, and its counts
// (validated, contradicted, strength) and last_accessed_at unless they
// would go back: that is how an inherited entry is re-earned, its
// confidence rising above what it arrived with. Its source, arrival,
// content and store state never change. A status moves only away from
// active (an export's archived or quarantined entry is archived or
// quarantined; the store's archived and quarantined entries stay so:
// restoring is an explicit act). Causal edges are written when both ends
// exist; PLAYBOOK.md and STRATEGY.md are written; the soma is skipped and
// counted.
//
// The export must be of the store's Golem and generation
// (ErrForeignExport). A malformed export ingests nothing.
func (s *Store) Ingest(ctx context.Context, r *grimoire.Reader, digest string, now time.Time) (IngestStats, error) {
	var st IngestStats
	if digest == "" {
		return st, errors.New("ingest: the export's digest is empty")
	}
	h := r.Header()
	if h.GolemID != s.meta.GolemID || h.Generation != s.meta.Generation {
		return st, fmt.Errorf("export of golem %q generation %d, store of golem %q generation %d: %w",
			h.GolemID, h.Generation, s.meta.GolemID, s.meta.Generation, ErrForeignExport)
	}
	err := s.Tx(ctx, func(tx *Tx) error {
		prev, err := findActivity(ctx, tx.tx, ActivityIngest, digest)
		if err != nil {
			return err
		}
		if prev != nil {
			st.Activity = prev.ID
			return nil
		}
		if err := tx.deferForeignKeys(ctx); err != nil {
			return err
		}
		in := &ingest{tx: tx, stats: &st, warn: &warnings{}}
		if h.Embedding != nil {
			in.model = h.Embedding.Model
		}
		gen := h.Generation
		if in.activity, err = tx.RecordActivity(ctx, Activity{
			Kind:             ActivityIngest,
			At:               now,
			InputDigest:      digest,
			SourceGolemID:    h.GolemID,
			SourceGeneration: &gen,
			Channel:          ChannelSelf,
			Params:           map[string]any{"exported_at": formatTime(h.ExportedAt)},
		}); err != nil {
			return err
		}
		if err := in.records(ctx, r); err != nil {
			return err
		}
		if err := in.edges(ctx); err != nil {
			return err
		}
		st.Applied, st.Activity = true, in.activity
		st.Warnings = in.warn.result()
		return tx.SetActivityCounts(ctx, in.activity, st.counts())
	})
	if err != nil {
		return IngestStats{}, err
	}
	return st, nil
}

// counts is what the ingest activity records; "created" is what Check
// verifies against the rows linked to it.
func (st *IngestStats) counts() map[string]any {
	return map[string]any{
		"entries":             st.Entries,
		"created":             st.Created,
		"updated":             st.Updated,
		"unchanged":           st.Unchanged,
		"re_earned":           st.ReEarned,
		"edges_added":         st.EdgesAdded,
		"edges_updated":       st.EdgesUpdated,
		"edges_kept":          st.EdgesKept,
		"edges_skipped":       st.EdgesSkipped,
		"documents_written":   st.DocumentsWritten,
		"documents_unchanged": st.DocumentsUnchanged,
		"ignored":             st.Ignored,
		"warnings":            orEmptyStrings(st.Warnings),
	}
}

// ingest is one ingest in progress.
type ingest struct {
	tx       *Tx
	activity int64
	model    string // the export's embedding space
	stats    *IngestStats
	warn     *warnings
	pending  []*grimoire.CausalEdge // written once every entry is in
}

func (in *ingest) records(ctx context.Context, r *grimoire.Reader) error {
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch rec := rec.(type) {
		case *grimoire.Entry:
			in.stats.Entries++
			if err := in.entry(ctx, rec); err != nil {
				return err
			}
		case *grimoire.CausalEdge:
			in.pending = append(in.pending, rec)
		case *grimoire.Document:
			if rec.Name != grimoire.DocPlaybook && rec.Name != grimoire.DocStrategy {
				in.stats.Ignored++
				continue
			}
			written, err := in.tx.putDocument(ctx, rec.Name, rec.Text, in.activity)
			if err != nil {
				return err
			}
			if written {
				in.stats.DocumentsWritten++
			} else {
				in.stats.DocumentsUnchanged++
			}
		default:
			in.stats.Ignored++
		}
	}
}

func (in *ingest) entry(ctx context.Context, e *grimoire.Entry) error {
	cur, err := in.tx.ingestState(ctx, e.ID)
	if errors.Is(err, ErrNoEntry) {
		return in.admit(ctx, e)
	}
	if err != nil {
		return err
	}
	return in.update(ctx, e, cur)
}

// admit inserts an id the store lacks as this Golem's own learning.
func (in *ingest) admit(ctx context.Context, e *grimoire.Entry) error {
	m := in.tx.s.meta
	r := &Row{Entry: *e}
	r.Source = &grimoire.Source{GolemID: m.GolemID, Generation: m.Generation, Confidence: e.Confidence}
	r.Store = &grimoire.StoreState{Channel: ChannelSelf}
	if len(e.Embedding) > 0 {
		r.EmbeddingModel = in.model
	}
	if err := in.tx.InsertEntry(ctx, r, in.activity); err != nil {
		return err
	}
	in.stats.Created++
	return nil
}

// ingestRow is the part of a row that an ingest may change or compare.
type ingestRow struct {
	content                 string
	confidence, quality     float64
	validated, contradicted int64
	strength                int64
	lastAccessed            time.Time
	status                  string
	selfLearned             bool // its source is the store's Golem and generation
	arrival                 sql.NullFloat64
}

func (t *Tx) ingestState(ctx context.Context, id string) (*ingestRow, error) {
	var r ingestRow
	var srcGolem, lastAccessed string
	var srcGen int
	err := t.queryRow(ctx, `SELECT content, confidence, quality_score, validated_count, contradicted_count,
		strength, last_accessed_at, status, source_golem_id, source_generation, arrival_confidence
		FROM grimoire_entries WHERE id=?`, id).Scan(&r.content, &r.confidence, &r.quality, &r.validated, &r.contradicted,
		&r.strength, &lastAccessed, &r.status, &srcGolem, &srcGen, &r.arrival)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("entry %q: %w", id, ErrNoEntry)
	}
	if err != nil {
		return nil, fmt.Errorf("entry %q: %w", id, err)
	}
	if r.lastAccessed, err = time.Parse(time.RFC3339Nano, lastAccessed); err != nil {
		return nil, fmt.Errorf("entry %q: last_accessed_at: %w", id, err)
	}
	r.selfLearned = srcGolem == t.s.meta.GolemID && srcGen == t.s.meta.Generation
	return &r, nil
}

// statusRank orders statuses by how far from active they are: an ingest
// moves a status only up.
var statusRank = map[string]int{grimoire.StatusActive: 0, grimoire.StatusArchived: 1, grimoire.StatusQuarantined: 2}

// update gives an id the store holds the export's epistemic state.
func (in *ingest) update(ctx context.Context, e *grimoire.Entry, cur *ingestRow) error {
	next := *cur
	next.confidence = e.Confidence
	next.quality = e.QualityScore
	next.validated = max(cur.validated, e.ValidatedCount)
	next.contradicted = max(cur.contradicted, e.ContradictedCount)
	next.strength = max(cur.strength, e.Strength)
	if e.LastAccessedAt.After(cur.lastAccessed) {
		next.lastAccessed = e.LastAccessedAt
	}
	if statusRank[e.Status] > statusRank[cur.status] {
		next.status = e.Status
	}
	if e.Content != cur.content {
		in.warn.add("entry %q: the export's content differs from the store's, which keeps its own", e.ID)
	}

	detail := map[string]any{}
	change := func(field string, old, new any) {
		if old != new {
			detail[field] = []any{old, new}
		}
	}
	change("confidence", cur.confidence, next.confidence)
	change("quality_score", cur.quality, next.quality)
	change("validated_count", cur.validated, next.validated)
	change("contradicted_count", cur.contradicted, next.contradicted)
	change("strength", cur.strength, next.strength)
	change("last_accessed_at", formatTime(cur.lastAccessed), formatTime(next.lastAccessed))
	change("status", cur.status, next.status)
	if len(detail) == 0 {
		in.stats.Unchanged++
		return nil
	}
	if a := cur.arrival; a.Valid && cur.confidence <= a.Float64 && next.confidence > a.Float64 {
		in.stats.ReEarned++
		detail["re_earned"] = true
	}
	// The source of an entry learned here follows its confidence; an
	// inherited entry's source is where it was last earned, which only
	// export may move (Export names this Golem once it is re-earned).
	_, err := in.tx.exec(ctx, `UPDATE grimoire_entries SET confidence=?, quality_score=?, validated_count=?,
		contradicted_count=?, strength=?, last_accessed_at=?, status=?,
		source_confidence=CASE WHEN ? THEN ? ELSE source_confidence END, updated_by=? WHERE id=?`,
		next.confidence, next.quality, next.validated, next.contradicted, next.strength, formatTime(next.lastAccessed),
		next.status, cur.selfLearned, next.confidence, in.activity, e.ID)
	if err != nil {
		return fmt.Errorf("entry %q: %w", e.ID, err)
	}
	in.stats.Updated++
	return in.tx.LinkChange(ctx, in.activity, e.ID, "updated", detail)
}

// edges writes the export's causal edges whose two ends the store holds.
func (in *ingest) edges(ctx context.Context) error {
	for _, e := range in.pending {
		ok, err := in.tx.hasEntries(ctx, e.SourceID, e.TargetID)
		if err != nil {
			return err
		}
		if !ok {
			in.stats.EdgesSkipped++
			in.warn.add("causal edge %q → %q: an end is neither in the export nor in the store", e.SourceID, e.TargetID)
			continue
		}
		res, err := in.tx.putEdge(ctx, e, in.activity)
		if err != nil {
			return err
		}
		switch res {
		case edgeAdded:
			in.stats.EdgesAdded++
		case edgeUpdated:
			in.stats.EdgesUpdated++
		default:
			in.stats.EdgesKept++
		}
	}
	return nil
}

// maxWarnings bounds the warnings an activity lists; the rest are counted.
const maxWarnings = 20

// warnings keeps the first maxWarnings messages and counts the others.
type warnings struct {
	list []string
	more int
}

func (w *warnings) add(format string, args ...any) {
	if len(w.list) < maxWarnings {
		w.list = append(w.list, fmt.Sprintf(format, args...))
		return
	}
	w.more++
}

func (w *warnings) result() []string {
	if w.more > 0 {
		return append(w.list, fmt.Sprintf("and %d more", w.more))
	}
	return w.list
}
