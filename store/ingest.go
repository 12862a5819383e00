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
	// of the soma, documents other than PLAYBOOK.md and STRATEGY.md, an
	// entry of an id of a set-aside form (grimoire.IsSetAside) that the
	// store does not hold.
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
	if digest == "" {
		return IngestStats{}, errors.New("ingest: the export's digest is empty")
	}
	return s.ingest(ctx, r, digest, now)
}

// IngestRead is Ingest of an export read once: its digest is the reader's
// (grimoire.Reader.ContentDigest), known only once every record is read,
// so that whether the same export was ingested before is decided then:
// if it was, the transaction is rolled back and the stats are those of an
// ingest not applied. The store ends as Ingest with the digest would
// leave it.
func (s *Store) IngestRead(ctx context.Context, r *grimoire.Reader, now time.Time) (IngestStats, error) {
	return s.ingest(ctx, r, "", now)
}

// ingestedBefore ends the transaction of an IngestRead whose export was
// ingested before, by activity.
type ingestedBefore struct{ activity int64 }

func (*ingestedBefore) Error() string { return "ingest: the export was ingested before" }

// ingest is Ingest, or IngestRead when digest is "".
func (s *Store) ingest(ctx context.Context, r *grimoire.Reader, digest string, now time.Time) (IngestStats, error) {
	var st IngestStats
	h := r.Header()
	if h.GolemID != s.meta.GolemID || h.Generation != s.meta.Generation {
		return st, fmt.Errorf("export of golem %q generation %d, store of golem %q generation %d: %w",
			h.GolemID, h.Generation, s.meta.GolemID, s.meta.Generation, ErrForeignExport)
	}
	err := s.writeTx(ctx, func(tx *writeTx) error {
		if digest != "" {
			prev, err := findActivity(ctx, tx.tx, ActivityIngest, digest)
			if err != nil {
				return err
			}
			if prev != nil {
				st.Activity = prev.ID
				return nil
			}
		}
		if err := tx.deferForeignKeys(ctx); err != nil {
			return err
		}
		in := &ingest{tx: tx, stats: &st, warn: &warnings{}, ready: map[*grimoire.Entry]*restVector{}}
		tx.ready = map[*Row]*restVector{}
		if ingestTakesVectors {
			tx.tail = &vectorTail{}
		}
		if h.Embedding != nil {
			in.model = h.Embedding.Model
		}
		gen := h.Generation
		var err error
		if in.activity, err = tx.recordActivity(ctx, Activity{
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
			if digest == "" {
				// An export the store took before is "already applied",
				// as Ingest says, even if it no longer reads (a stricter
				// reader) or no longer goes in; its digest is known when
				// the reader reached its end (a *grimoire.ValidationError).
				if derr := in.digested(ctx, r); errors.As(derr, new(*ingestedBefore)) {
					return derr
				}
			}
			return err
		}
		if digest == "" {
			if err := in.digested(ctx, r); err != nil {
				return err
			}
		}
		if err := in.edges(ctx); err != nil {
			return err
		}
		st.Applied, st.Activity = true, in.activity
		st.Warnings = in.warn.result()
		return tx.setActivityCounts(ctx, in.activity, st.counts())
	})
	var before *ingestedBefore
	if errors.As(err, &before) {
		return IngestStats{Activity: before.activity}, nil
	}
	if err != nil {
		return IngestStats{}, err
	}
	return st, nil
}

// digested gives the ingest's activity the export's digest, now that the
// reader has read it all, unless an ingest of the same export is recorded
// (*ingestedBefore).
func (in *ingest) digested(ctx context.Context, r *grimoire.Reader) error {
	digest, err := r.ContentDigest()
	if err != nil {
		return err
	}
	prev, err := findActivity(ctx, in.tx.tx, ActivityIngest, digest)
	if err != nil {
		return err
	}
	if prev != nil {
		return &ingestedBefore{prev.ID}
	}
	_, err = in.tx.tx.ExecContext(ctx, `UPDATE activities SET input_digest=? WHERE id=?`, digest, in.activity)
	return err
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
	tx       *writeTx
	activity int64
	model    string // the export's embedding space
	stats    *IngestStats
	warn     *warnings
	pending  []*grimoire.CausalEdge          // written once every entry is in
	ready    map[*grimoire.Entry]*restVector // the batch's embeddings, made ready by readAhead
}

// ingestBatch is how many entries an ingest reads before it looks their
// ids up in one query and writes the new ones in multi-row inserts: SQL
// statements, not rows, are most of an ingest's cost.
const ingestBatch = 256

// insertChunk is how many rows one multi-row insert writes (39 values a
// row, well below SQLite's limit on a statement's parameters).
const insertChunk = 64

func (in *ingest) records(ctx context.Context, r *grimoire.Reader) error {
	stop := make(chan struct{})
	runs := readAhead(r, stop)
	defer func() {
		close(stop)
		for range runs { // the reader is the caller's again once Ingest returns
		}
	}()
	batch := make([]*grimoire.Entry, 0, ingestBatch)
	for run := range runs {
		for i, rec := range run.recs {
			var err error
			if batch, err = in.record(ctx, rec, run.rest[i], batch); err != nil {
				return err
			}
		}
		if errors.Is(run.err, io.EOF) {
			return in.entries(ctx, batch)
		}
		if run.err != nil {
			return run.err
		}
	}
	return errors.New("ingest: the export's records ended without an end") // not reached: readAhead ends every stream with an error
}

// decoded is a run of records read ahead of the transaction, and the
// error that ended the export (io.EOF at its end) after the last run.
type decoded struct {
	recs []grimoire.Record
	rest []*restVector // by record: an entry's embedding made ready for the store; nil for others
	err  error
}

// readAheadRuns is how many runs of ingestBatch records readAhead decodes
// before the transaction has taken them.
const readAheadRuns = 4

// readAhead decodes r's records on a goroutine of its own, in runs of
// ingestBatch, so that decoding the export and writing the store overlap:
// on two cores an ingest takes the longer of the two, not their sum. The
// channel is closed after the run carrying the export's ending error, or
// once stop is closed: at most one run more than the buffered ones, the
// one that was waiting for room when stop closed, arrives after it. The
// same goroutine makes each embedding ready for the store (prepareVector),
// work the transaction's goroutine would otherwise do.
func readAhead(r *grimoire.Reader, stop <-chan struct{}) <-chan decoded {
	out := make(chan decoded, readAheadRuns)
	go func() {
		defer close(out)
		for {
			// A stop already seen wins over a free slot: select picks at
			// random among ready cases, so without this check every run
			// the consumer frees room for after stop could still be sent.
			select {
			case <-stop:
				return
			default:
			}
			d := decoded{recs: make([]grimoire.Record, 0, ingestBatch), rest: make([]*restVector, 0, ingestBatch)}
			for d.err == nil && len(d.recs) < ingestBatch {
				var rec grimoire.Record
				if rec, d.err = r.Next(); d.err == nil {
					var rv *restVector
					if e, ok := rec.(*grimoire.Entry); ok && len(e.Embedding) > 0 {
						rv = prepareVector(e.Embedding)
					}
					d.recs = append(d.recs, rec)
					d.rest = append(d.rest, rv)
				}
			}
			select {
			case out <- d:
			case <-stop:
				return
			}
			if d.err != nil {
				return
			}
		}
	}()
	return out
}

// record takes one of the export's records: entries join the batch, which
// is brought in when full; rest is an entry's embedding made ready.
func (in *ingest) record(ctx context.Context, rec grimoire.Record, rest *restVector, batch []*grimoire.Entry) ([]*grimoire.Entry, error) {
	switch rec := rec.(type) {
	case *grimoire.Entry:
		in.stats.Entries++
		if rest != nil {
			in.ready[rec] = rest
		}
		if batch = append(batch, rec); len(batch) == ingestBatch {
			if err := in.entries(ctx, batch); err != nil {
				return batch, err
			}
			batch = batch[:0]
		}
	case *grimoire.CausalEdge:
		in.pending = append(in.pending, rec)
	case *grimoire.Document:
		if rec.Name != grimoire.DocPlaybook && rec.Name != grimoire.DocStrategy {
			in.stats.Ignored++
			return batch, nil
		}
		written, err := in.tx.putDocument(ctx, rec.Name, rec.Text, in.activity)
		if err != nil {
			return batch, err
		}
		if written {
			in.stats.DocumentsWritten++
		} else {
			in.stats.DocumentsUnchanged++
		}
	default:
		in.stats.Ignored++
	}
	return batch, nil
}

// entries brings a batch of the export's entries in, in the export's
// order: the ids the store lacks are admitted, the ones it holds updated.
// Every table's rows are written in the order one entry at a time would
// write them.
func (in *ingest) entries(ctx context.Context, batch []*grimoire.Entry) error {
	if len(batch) == 0 {
		return nil
	}
	defer clear(in.ready)
	held, err := in.tx.ingestStates(ctx, batch)
	if err != nil {
		return err
	}
	var admit []*Row
	for _, e := range batch {
		cur, ok := held[e.ID]
		if !ok && grimoire.IsSetAside(e.ID) {
			// A set-aside id is the store's own, for a row it keeps beside
			// another holding the same id: an export never brings a new one.
			in.stats.Ignored++
			in.warn.add("entry %q: an id of the form the store gives the rows it sets aside (%s…, %s…), which it does not hold: left out", e.ID, grimoire.AsidePrefix, grimoire.ApartPrefix)
			continue
		}
		if !ok {
			admit = append(admit, in.admitted(e))
			continue
		}
		if err := in.tx.insertCreated(ctx, admit, in.activity); err != nil {
			return err
		}
		admit = admit[:0]
		if err := in.update(ctx, e, cur); err != nil {
			return err
		}
	}
	return in.tx.insertCreated(ctx, admit, in.activity)
}

// admitted is the row of an id the store lacks: this Golem's own learning.
func (in *ingest) admitted(e *grimoire.Entry) *Row {
	m := in.tx.s.meta
	r := &Row{Entry: *e}
	if rv := in.ready[e]; rv != nil {
		in.tx.ready[r] = rv
	}
	r.Source = &grimoire.Source{GolemID: m.GolemID, Generation: m.Generation, Confidence: e.Confidence}
	r.Store = &grimoire.StoreState{Channel: ChannelSelf}
	if len(e.Embedding) > 0 {
		r.EmbeddingModel = in.model
	}
	in.stats.Created++
	return r
}

// insertCreated inserts rows created by activity, as insertEntry would one
// by one, in multi-row statements of insertChunk rows. A statement that
// fails writes nothing (SQLite undoes the statement, not the transaction):
// its rows are then inserted one by one, so that the error names the entry.
func (t *writeTx) insertCreated(ctx context.Context, rows []*Row, activity int64) error {
	for len(rows) > 0 {
		n := min(len(rows), insertChunk)
		err := t.insertChunk(ctx, rows[:n], activity)
		for _, r := range rows[:n] {
			delete(t.ready, r) // written, or about to be one by one, as any row is
		}
		var retry *retryOneByOne
		if errors.As(err, &retry) {
			for _, r := range rows[:n] {
				if err := t.insertEntry(ctx, r, activity, nil); err != nil {
					return err
				}
			}
		} else if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// retryOneByOne is insertChunk's answer when its rows are better
// inserted by insertEntry: the chunk wrote nothing, and either a row failed
// (one by one, the error names it) or rows are flagged (insertEntry writes
// the flags between the entries, as one row at a time does).
type retryOneByOne struct{ err error }

func (e *retryOneByOne) Error() string { return e.err.Error() }

// insertChunk writes rows' entries, then their embeddings, then their
// "created" links, each table in one statement.
func (t *writeTx) insertChunk(ctx context.Context, rows []*Row, activity int64) error {
	args := make([]any, 0, len(rows)*entryColumnCount)
	var emb []any
	for _, r := range rows {
		if r.Store != nil && len(r.Store.ReviewFlags) > 0 {
			return &retryOneByOne{errors.New("flagged rows")}
		}
		a, err := t.entryArgs(r, activity)
		if err != nil {
			return err
		}
		args = append(args, a...)
		if len(r.Embedding) > 0 {
			if r.EmbeddingModel == "" {
				return fmt.Errorf("entry %q: embedding without a model", r.ID)
			}
			if rv := t.ready[r]; rv != nil {
				emb = append(emb, r.ID, r.EmbeddingModel, len(r.Embedding), rv.packed)
			} else {
				emb = append(emb, embeddingArgs(r)...)
			}
		}
	}
	if _, err := t.exec(ctx, insertEntriesSQL(len(rows)), args...); err != nil {
		return &retryOneByOne{err}
	}
	if len(emb) > 0 {
		if err := t.insertEmbeddings(ctx, rows, emb); err != nil {
			return err
		}
	}
	links := make([]any, 0, 2*len(rows))
	for _, r := range rows {
		links = append(links, activity, r.ID)
	}
	_, err := t.exec(ctx, `INSERT INTO entry_changes(activity_id, entry_id, action, detail) VALUES`+
		repeatGroup(len(rows), "(?,?,'created','{}')"), links...)
	return err
}

// insertEmbeddings writes the embeddings of rows (their values emb, four
// a row with one) in one statement. With a tail, the transaction's blocks
// take them by the seqs the statement gave them.
func (t *writeTx) insertEmbeddings(ctx context.Context, rows []*Row, emb []any) error {
	q := insertEmbeddingsSQL(len(emb) / 4)
	if ok, err := t.hasTail(ctx); err != nil || !ok {
		if err == nil {
			_, err = t.exec(ctx, q, emb...)
		}
		return err
	}
	st, err := t.prepared(ctx, q+" RETURNING seq, entry_id")
	if err != nil {
		return err
	}
	rs, err := st.QueryContext(ctx, emb...)
	if err != nil {
		return err
	}
	defer rs.Close()
	byID := make(map[string]*Row, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	ins := make([]tailRow, 0, len(emb)/4)
	for rs.Next() {
		var seq int64
		var id string
		if err := rs.Scan(&seq, &id); err != nil {
			return err
		}
		r := byID[id]
		if r == nil || len(r.Embedding) == 0 {
			return fmt.Errorf("inserting embeddings: the statement returned entry %q, which it was not given", id)
		}
		ins = append(ins, tailRow{seq: seq, row: r})
	}
	if err := rs.Err(); err != nil {
		return err
	}
	rs.Close()
	if len(ins) != len(emb)/4 {
		return fmt.Errorf("inserting embeddings: %d rows returned for %d inserted", len(ins), len(emb)/4)
	}
	return t.takeInserted(ctx, ins)
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

// ingestStates returns the rows the store holds of the entries' ids, by id,
// in one query.
func (t *writeTx) ingestStates(ctx context.Context, entries []*grimoire.Entry) (map[string]*ingestRow, error) {
	ids := make([]any, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	st, err := t.prepared(ctx, `SELECT id, content, confidence, quality_score, validated_count, contradicted_count,
		strength, last_accessed_at, status, source_golem_id, source_generation, arrival_confidence
		FROM grimoire_entries WHERE id IN (`+repeatGroup(len(ids), "?")+`)`)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, ids...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	held := make(map[string]*ingestRow)
	for rows.Next() {
		var r ingestRow
		var id, srcGolem, lastAccessed string
		var srcGen int
		if err := rows.Scan(&id, &r.content, &r.confidence, &r.quality, &r.validated, &r.contradicted,
			&r.strength, &lastAccessed, &r.status, &srcGolem, &srcGen, &r.arrival); err != nil {
			return nil, err
		}
		if r.lastAccessed, err = time.Parse(time.RFC3339Nano, lastAccessed); err != nil {
			return nil, fmt.Errorf("entry %q: last_accessed_at: %w", id, err)
		}
		r.selfLearned = srcGolem == t.s.meta.GolemID && srcGen == t.s.meta.Generation
		held[id] = &r
	}
	return held, rows.Err()
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
	return in.tx.linkChange(ctx, in.activity, e.ID, "updated", detail)
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
