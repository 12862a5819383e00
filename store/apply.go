package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// ErrAlreadyApplied is returned by ApplyInherit for a bundle the store has
// applied before: nothing changed.
var ErrAlreadyApplied = errors.New("bundle already applied")

// ToxicFlag is the review flag an autopsy marker sets on a row.
const ToxicFlag = "toxic"

// vectorChunk is how many float32 DedupView allocates at once for the
// rows' vectors (1 MiB).
const vectorChunk = 1 << 18

// DedupView returns every row of the store as the planner sees it, in id
// order (bytewise): its status, polarity, its content's sum (Sum: the
// content stays in the store, read through Vectors when a review needs
// it), and its vector's space and handle at rest (Ref, Dims: the vector
// stays in the store, searched through Vectors), or none; in a library,
// the key that signed the deposit that brought it (Signer). What it holds
// per row is a few words and the id, however long the row's text and
// vector: a million rows are about 150 MB.
func (s *Store) DedupView(ctx context.Context) ([]inherit.Existing, error) {
	var out []inherit.Existing
	// One snapshot: the rows and the deposits that signed them.
	err := s.readTx(ctx, func(q querier) error {
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM grimoire_entries").Scan(&n); err != nil {
			return err
		}
		signers, err := depositSigners(ctx, q)
		if err != nil {
			return err
		}
		out = make([]inherit.Existing, 0, n)
		// A store has a handful of statuses, polarities and spaces: one
		// string of each, not one per row.
		words := map[string]string{}
		word := func(b []byte) string {
			if w, ok := words[string(b)]; ok {
				return w
			}
			w := string(b)
			words[w] = w
			return w
		}
		return eachRow(ctx, q, `SELECT g.id, g.content, g.status, g.polarity, g.created_by, m.model, m.dims, m.seq
			FROM grimoire_entries g LEFT JOIN embeddings m ON m.entry_id=g.id ORDER BY g.id`, func(rs *sql.Rows) error {
			var e inherit.Existing
			var content, status, polarity, model sql.RawBytes // read in place
			var dims, seq sql.NullInt64
			var by int64
			if err := rs.Scan(&e.ID, &content, &status, &polarity, &by, &model, &dims, &seq); err != nil {
				return err
			}
			e.Signer = signers[by]
			if len(content) > 0 {
				e.Sum = dedup.ContentSum(content)
			}
			e.Status, e.Polarity = word(status), word(polarity)
			if seq.Valid {
				e.Space, e.Dims, e.Ref = word(model), int(dims.Int64), seq.Int64
			}
			out = append(out, e)
			return nil
		})
	})
	return out, err
}

// LoadedDedupView is DedupView with every vector loaded: for tests that
// hold the search at rest to the search in memory.
func (s *Store) LoadedDedupView(ctx context.Context) ([]inherit.Existing, error) {
	signers, err := depositSigners(ctx, s.db)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT g.id, g.content, g.status, g.polarity, g.created_by, m.model, m.vector
		FROM grimoire_entries g LEFT JOIN embeddings m ON m.entry_id=g.id ORDER BY g.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []inherit.Existing
	var arena []float32 // the vectors, a chunk at a time: few objects for a large store
	for rows.Next() {
		var e inherit.Existing
		var model sql.NullString
		var vec sql.RawBytes // read in place: no copy of every vector's bytes
		var by int64
		if err := rows.Scan(&e.ID, &e.Content, &e.Status, &e.Polarity, &by, &model, &vec); err != nil {
			return nil, err
		}
		e.Signer = signers[by]
		if model.Valid {
			e.Space = model.String
			if len(vec)%4 != 0 {
				return nil, fmt.Errorf("entry %q: embedding: vector of %d bytes is not a whole number of float32", e.ID, len(vec))
			}
			n := len(vec) / 4
			if n > cap(arena)-len(arena) {
				arena = make([]float32, 0, max(n, vectorChunk))
			}
			e.Vector = unpackF32Into(arena[len(arena):len(arena)+n:len(arena)+n], vec)
			arena = arena[:len(arena)+n]
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ApplyInherit applies a plan in one transaction, recorded as an "inherit"
// activity at now whose input digest is the bundle's: the rows it admits
// (each linked to the activity as created; merged ones also as merged),
// the sightings (linked to the row sighted), the same_as review candidates
// (linked to the row the new one may duplicate), the autopsy's flags, the
// causal edges (a pair the store holds keeps its edge) and the documents.
// It returns the activity's id.
//
// A flag never deletes or lowers anything: it sets the row's toxic
// recommendation and contribution, unless the row holds a recommendation
// of greater contribution, and adds the "toxic" review flag; confidence
// and status stay.
//
// A bundle the store applied before is ErrAlreadyApplied; a plan made for
// another store, or one that names a row that does not exist, is an error;
// either way nothing changes.
func (s *Store) ApplyInherit(ctx context.Context, p *inherit.Plan, now time.Time) (int64, error) {
	switch {
	case p == nil:
		return 0, errors.New("apply: no plan")
	case p.BundleDigest == "":
		return 0, errors.New("apply: the plan names no bundle digest")
	case p.StoreGeneration != s.meta.Generation:
		return 0, fmt.Errorf("apply bundle %s: planned for a store of generation %d, this store is generation %d",
			p.BundleDigest, p.StoreGeneration, s.meta.Generation)
	case p.StoreGolemID != "" && p.StoreGolemID != s.meta.GolemID:
		return 0, fmt.Errorf("apply bundle %s: planned for golem %q, this store is golem %q",
			p.BundleDigest, p.StoreGolemID, s.meta.GolemID)
	}
	var id int64
	err := s.writeTx(ctx, func(tx *writeTx) error {
		// A trusted arrival is applied once; a quarantined one once, and
		// never after the bundle arrived trusted. A quarantined apply
		// never marks the digest applied for a trusted one: that applies
		// properly, and supersedes the quarantined copy.
		kind := ActivityInherit
		seen := []string{ActivityInherit}
		if p.Trust.Quarantine {
			kind = ActivityInheritQuarantined
			seen = append(seen, ActivityInheritQuarantined)
		}
		for _, k := range seen {
			prev, err := findActivity(ctx, tx.tx, k, p.BundleDigest)
			if err != nil {
				return err
			}
			if prev != nil {
				return fmt.Errorf("bundle %s: %w (activity %d, %s)", p.BundleDigest, ErrAlreadyApplied, prev.ID, formatTime(prev.At))
			}
		}
		if err := tx.deferForeignKeys(ctx); err != nil {
			return err
		}
		params := maps.Clone(p.Params)
		if params == nil {
			params = map[string]any{}
		}
		params["bundle_kind"] = p.Kind
		var superseded int64
		if !p.Trust.Quarantine {
			prev, err := findActivity(ctx, tx.tx, ActivityInheritQuarantined, p.BundleDigest)
			if err != nil {
				return err
			}
			if prev != nil {
				params["supersedes"] = prev.ID
				superseded = prev.ID
			}
		}
		gen := p.SourceGeneration
		var err error
		if id, err = tx.recordActivity(ctx, Activity{
			Kind:             kind,
			At:               now,
			InputDigest:      p.BundleDigest,
			SourceGolemID:    p.SourceGolemID,
			SourceGeneration: &gen,
			Channel:          p.Channel,
			Params:           params,
		}); err != nil {
			return err
		}
		if p.Trust.Quarantine && p.Kept != nil {
			if _, err := tx.exec(ctx, `INSERT INTO quarantined_bundles(digest, activity_id, channel, on_similar, bundle)
				VALUES(?,?,?,?,?)`, p.BundleDigest, id, p.Channel, cmp.Or(p.OnSimilar, inherit.OnSimilarKeep), p.Kept); err != nil {
				return fmt.Errorf("keeping bundle %s under quarantine: %w", p.BundleDigest, err)
			}
		}
		a := &applier{tx: tx, p: p, activity: id, links: map[linkKey]map[string]any{}, superseded: superseded}
		for _, step := range []func(context.Context) error{a.requarantine, a.rekeys, a.admit, a.sightings, a.sameAs, a.flags, a.edges, a.documents, a.writeLinks} {
			if err := step(ctx); err != nil {
				return err
			}
		}
		counts := a.counts()
		if a.requarantined > 0 {
			counts["requarantined"] = a.requarantined
		}
		return tx.setActivityCounts(ctx, id, counts)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// applier is one ApplyInherit in progress.
type applier struct {
	tx       *writeTx
	p        *inherit.Plan
	activity int64
	links    map[linkKey]map[string]any // entry_changes to write, beyond "created"
	// superseded is the quarantined apply of the same bundle a trusted
	// one supersedes (0 none).
	superseded int64

	created, merged, sighted, candidates, flagged int
	movedAside, requarantined                     int
	edgesAdded, edgesKept                         int
	documentsWritten, documentsUnchanged          int
}

type linkKey struct{ entry, action string }

// link returns the detail of the change (entry, action), to fill in.
func (a *applier) link(entry, action string) map[string]any {
	k := linkKey{entry, action}
	d := a.links[k]
	if d == nil {
		d = map[string]any{}
		a.links[k] = d
	}
	return d
}

// requarantine makes the quarantined copy of the bundle a trusted apply
// supersedes a quarantined copy again: every row its quarantined apply
// brought that a person released (bardo release ID) or archived since is
// quarantined, each change linked as "superseded", so that the store
// holds exactly what the trusted arrival makes — the planner saw those
// rows as quarantined (SupersededRows) and moves aside the ones whose ids
// the trusted rows take. Nothing is removed.
func (a *applier) requarantine(ctx context.Context) error {
	if a.superseded == 0 {
		return nil
	}
	ids, from, err := supersededRows(ctx, a.tx.tx, a.superseded)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if err := setStatus(ctx, a.tx, id, grimoire.StatusQuarantined, a.activity); err != nil {
			return err
		}
		d := a.link(id, "superseded")
		d["from"], d["to"], d["quarantined_by"] = from[i], grimoire.StatusQuarantined, a.superseded
		a.requarantined++
	}
	return nil
}

// SupersededRows returns the ids of the rows that the quarantined apply of
// the bundle of digest brought and that are no longer quarantined (a
// person released or archived them one by one), bytewise in order: a
// trusted arrival of that bundle (bardo release --bundle, or the signed
// original) supersedes its quarantined copy, and plans against them as
// against the copy's other rows, quarantined (ApplyInherit quarantines
// them again).
func (s *Store) SupersededRows(ctx context.Context, digest string) ([]string, error) {
	prev, err := findActivity(ctx, s.db, ActivityInheritQuarantined, digest)
	if err != nil || prev == nil {
		return nil, err
	}
	ids, _, err := supersededRows(ctx, s.db, prev.ID)
	return ids, err
}

func supersededRows(ctx context.Context, q querier, activity int64) (ids, statuses []string, err error) {
	rows, err := q.QueryContext(ctx, "SELECT id, status FROM grimoire_entries WHERE created_by=? AND status!=? ORDER BY id",
		activity, grimoire.StatusQuarantined)
	if err != nil {
		return nil, nil, classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, st string
		if err := rows.Scan(&id, &st); err != nil {
			return nil, nil, err
		}
		ids, statuses = append(ids, id), append(statuses, st)
	}
	return ids, statuses, classify(rows.Err())
}

// rekeys moves aside each quarantined row a trusted row of the plan takes
// the id of (inherit.AsideID): the row keeps everything, its bundle
// included, under its new id, and every reference to it follows; an
// entry change records the move. Nothing is overwritten.
func (a *applier) rekeys(ctx context.Context) error {
	for _, k := range a.p.Rekeys {
		var status string
		err := a.tx.queryRow(ctx, "SELECT status FROM grimoire_entries WHERE id=?", k.From).Scan(&status)
		if err != nil {
			return fmt.Errorf("moving aside entry %q: %w", k.From, err)
		}
		if status != grimoire.StatusQuarantined {
			return fmt.Errorf("moving aside entry %q: it is %s, and only a quarantined row gives way", k.From, status)
		}
		for _, q := range []string{
			"UPDATE grimoire_entries SET id=? WHERE id=?",
			"UPDATE grimoire_entries SET same_as=? WHERE same_as=?",
			"UPDATE embeddings SET entry_id=? WHERE entry_id=?",
			"UPDATE causal_edges SET source_id=? WHERE source_id=?",
			"UPDATE causal_edges SET target_id=? WHERE target_id=?",
			"UPDATE entry_changes SET entry_id=? WHERE entry_id=?",
			"UPDATE sightings SET entry_id=? WHERE entry_id=?",
			"UPDATE review_candidates SET entry_id=? WHERE entry_id=?",
			"UPDATE review_candidates SET other_id=? WHERE other_id=?",
			"UPDATE review_flags SET entry_id=? WHERE entry_id=?",
		} {
			if _, err := a.tx.exec(ctx, q, k.To, k.From); err != nil {
				return fmt.Errorf("moving aside entry %q to %q: %w", k.From, k.To, err)
			}
		}
		a.link(k.To, "moved_aside")["from"] = k.From
		a.movedAside++
	}
	return nil
}

func (a *applier) admit(ctx context.Context) error {
	for i := range a.p.Admit {
		ar := &a.p.Admit[i]
		r := &Row{Entry: ar.Entry, EmbeddingModel: ar.EmbeddingModel, ToxicContribution: ar.ToxicContribution, SameAs: ar.SameAs}
		// The store state export relies on: how and in what the row
		// arrived, and at what confidence.
		st := grimoire.StoreState{}
		if ar.Entry.Store != nil {
			st = *ar.Entry.Store
		}
		st.Channel = cmp.Or(st.Channel, a.p.Channel)
		st.Bundle = cmp.Or(st.Bundle, a.p.BundleDigest)
		if st.ArrivalConfidence == nil {
			c := ar.Entry.Confidence
			st.ArrivalConfidence = &c
		}
		r.Store = &st
		if err := a.tx.insertEntry(ctx, r, a.activity, map[string]any{"kind": ar.Kind}); err != nil {
			return err
		}
		a.created++
		if ar.SameAs != "" {
			a.merged++
			a.link(ar.Entry.ID, "merged")["same_as"] = ar.SameAs
		}
	}
	return nil
}

func (a *applier) sightings(ctx context.Context) error {
	for _, sg := range a.p.Sightings {
		if _, err := a.tx.exec(ctx, `INSERT INTO sightings(entry_id, activity_id, incoming_id, source_golem_id,
			source_generation, confidence, cosine) VALUES(?,?,?,?,?,?,?)`,
			sg.ExistingID, a.activity, sg.IncomingID, sg.SourceGolemID, sg.SourceGeneration, sg.Confidence, sg.Cosine); err != nil {
			return fmt.Errorf("sighting of entry %q by %q: %w", sg.ExistingID, sg.IncomingID, err)
		}
		a.sighted++
		d := a.link(sg.ExistingID, "sighted")
		list, _ := d["sightings"].([]any)
		d["sightings"] = append(list, map[string]any{
			"incoming_id": sg.IncomingID, "cosine": sg.Cosine,
			"source_golem_id": sg.SourceGolemID, "source_generation": sg.SourceGeneration, "confidence": sg.Confidence,
		})
	}
	return nil
}

func (a *applier) sameAs(ctx context.Context) error {
	for _, c := range a.p.SameAs {
		if _, err := a.tx.exec(ctx, `INSERT INTO review_candidates(kind, entry_id, other_id, cosine, activity_id)
			VALUES('same_as',?,?,?,?)`, c.NewID, c.ExistingID, c.Cosine, a.activity); err != nil {
			return fmt.Errorf("same_as candidate %q ~ %q: %w", c.NewID, c.ExistingID, err)
		}
		a.candidates++
		d := a.link(c.ExistingID, "candidate")
		list, _ := d["same_as_candidates"].([]any)
		d["same_as_candidates"] = append(list, map[string]any{"entry_id": c.NewID, "cosine": c.Cosine, "merged": c.Merged})
		if c.Merged {
			a.link(c.NewID, "merged")["cosine"] = c.Cosine
		}
	}
	return nil
}

func (a *applier) flags(ctx context.Context) error {
	reason := fmt.Sprintf("autopsy of %s generation %d (bundle %s)", a.p.SourceGolemID, a.p.SourceGeneration, a.p.BundleDigest)
	for _, f := range a.p.Flags {
		var rec sql.NullString
		var contrib sql.NullFloat64
		err := a.tx.queryRow(ctx, "SELECT toxic_recommendation, toxic_contribution FROM grimoire_entries WHERE id=?",
			f.EntryID).Scan(&rec, &contrib)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("autopsy flag on entry %q: %w", f.EntryID, ErrNoEntry)
		}
		if err != nil {
			return fmt.Errorf("autopsy flag on entry %q: %w", f.EntryID, err)
		}
		d := a.link(f.EntryID, "flagged")
		d["recommendation"], d["contribution"] = f.Recommendation, f.Contribution
		// A weaker marker never replaces a stronger one: the row keeps the
		// recommendation of the greatest contribution to failure.
		if rec.Valid && contrib.Valid && contrib.Float64 > f.Contribution && rec.String != f.Recommendation {
			d["kept"] = map[string]any{"recommendation": rec.String, "contribution": contrib.Float64}
		} else if _, err := a.tx.exec(ctx, `UPDATE grimoire_entries SET toxic_recommendation=?, toxic_contribution=?,
			updated_by=? WHERE id=?`, f.Recommendation, f.Contribution, a.activity, f.EntryID); err != nil {
			return fmt.Errorf("autopsy flag on entry %q: %w", f.EntryID, err)
		}
		if err := a.tx.Flag(ctx, f.EntryID, ToxicFlag, reason, a.activity); err != nil {
			return fmt.Errorf("autopsy flag on entry %q: %w", f.EntryID, err)
		}
		a.flagged++
	}
	return nil
}

func (a *applier) edges(ctx context.Context) error {
	for i := range a.p.Edges {
		e := &a.p.Edges[i]
		ok, err := a.tx.hasEntries(ctx, e.SourceID, e.TargetID)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("causal edge %q → %q: an end is not in the store: %w", e.SourceID, e.TargetID, ErrNoEntry)
		}
		res, err := a.tx.addEdge(ctx, e, a.activity)
		if err != nil {
			return err
		}
		if res == edgeAdded {
			a.edgesAdded++
		} else {
			a.edgesKept++
		}
	}
	return nil
}

func (a *applier) documents(ctx context.Context) error {
	for _, d := range a.p.Documents {
		written, err := a.tx.putDocument(ctx, d.Name, d.Text, a.activity)
		if err != nil {
			return err
		}
		if written {
			a.documentsWritten++
		} else {
			a.documentsUnchanged++
		}
	}
	return nil
}

// writeLinks writes the changes collected, in (entry, action) order.
func (a *applier) writeLinks(ctx context.Context) error {
	keys := slices.SortedFunc(maps.Keys(a.links), func(x, y linkKey) int {
		return cmp.Or(strings.Compare(x.entry, y.entry), strings.Compare(x.action, y.action))
	})
	for _, k := range keys {
		if err := a.tx.linkChange(ctx, a.activity, k.entry, k.action, a.links[k]); err != nil {
			return fmt.Errorf("entry %q: %s link: %w", k.entry, k.action, err)
		}
	}
	return nil
}

// counts is what the activity records: the plan's counts, and what the
// store wrote ("created", "sightings" and "candidates" are what Check
// verifies against the rows).
func (a *applier) counts() map[string]any {
	c := a.p.Counts
	return map[string]any{
		"reviewed":             c.Reviewed,
		"admitted":             c.Admitted,
		"skipped_duplicate":    c.SkippedDuplicate,
		"same_as_candidates":   c.SameAsCandidates,
		"archived_below_floor": c.ArchivedBelowFloor,
		"flagged_toxic":        c.FlaggedToxic,
		"rederived":            c.Rederived,
		"warnings":             orEmptyStrings(c.Warnings),
		"created":              a.created,
		"moved_aside":          a.movedAside,
		"merged":               a.merged,
		"sightings":            a.sighted,
		"candidates":           a.candidates,
		"flagged":              a.flagged,
		"edges_added":          a.edgesAdded,
		"edges_kept":           a.edgesKept,
		"documents_written":    a.documentsWritten,
		"documents_unchanged":  a.documentsUnchanged,
	}
}
