package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

// Kinds of activity of the Library of Babel: a deposit into a library, an
// equip of a successor's store from one.
const (
	ActivityDeposit = "deposit"
	// ActivityDepositQuarantined is a deposit made under quarantine
	// (inherit.Trust.Quarantine), its own kind as ActivityInheritQuarantined
	// is: it never marks the source deposited for a trusted deposit of the
	// same digest, which applies properly and supersedes it.
	ActivityDepositQuarantined = "deposit_quarantined"
	ActivityEquip              = "equip"
)

var (
	// ErrAlreadyDeposited is returned by ApplyDeposit for a source the
	// library took before: nothing changed.
	ErrAlreadyDeposited = errors.New("source already deposited")
	// ErrAlreadyEquipped is returned by ApplyEquip for an equip the store
	// applied before (same library state, selection and successor):
	// nothing changed.
	ErrAlreadyEquipped = errors.New("already equipped")
	// ErrNotLibrary is returned for a deposit into a store that is not a
	// library.
	ErrNotLibrary = errors.New("not a library")
	// ErrIsLibrary is returned for an equip into a library: equip is for a
	// Golem's store.
	ErrIsLibrary = errors.New("is a library, not a Golem's store")
)

// ApplyDeposit applies a deposit to a library in one transaction,
// recorded as a "deposit" activity at now whose input digest is the
// source's and whose source is the depositing Golem: the rows it admits
// (each linked as created; merged ones also as merged), the sightings, the
// same_as candidates, the edges (a pair the library holds keeps its edge)
// and the playbook. Deposited rows keep no arrival confidence: a library
// is not an inheritance, and each row's confidence_at_creation is the
// confidence it was deposited at. It returns the activity's id.
//
// A deposit under quarantine (Plan.Trust.Quarantine) is recorded as a
// "deposit_quarantined" activity: it never marks the source deposited for
// a trusted deposit of the same digest, which applies properly and records
// the quarantined deposit it supersedes ("supersedes" in its params).
//
// A deposit is identified by its source's digest and its signer
// (Plan.Trust.SignedBy; "" unsigned): a stranger's re-signed copy of a
// bundle has the bundle's digest, and its deposit never makes the signed
// original "already deposited", nor its rows the original's (each
// signer's rows are kept apart: library.Apart). A source the library took
// from the same signer before (trusted, or under quarantine for a deposit
// under quarantine) is ErrAlreadyDeposited; a store that is not a
// library is ErrNotLibrary; either way nothing changes.
func (s *Store) ApplyDeposit(ctx context.Context, d *library.Deposit, now time.Time) (int64, error) {
	if s.meta.Kind != KindLibrary {
		return 0, fmt.Errorf("deposit into %s: a store of kind %q: %w", s.path, s.meta.Kind, ErrNotLibrary)
	}
	p := &d.Plan
	extra := map[string]any{
		"offered":        d.Offering.Offered,
		"left_out":       d.Offering.LeftOut,
		"edges_offered":  d.Offering.EdgesOffered,
		"edges_left_out": d.Offering.EdgesLeftOut,
	}
	k := kinds{kind: ActivityDeposit, blockers: []string{ActivityDeposit}, supersede: ActivityDepositQuarantined, bySigner: true}
	if p.Trust.Quarantine {
		k = kinds{kind: ActivityDepositQuarantined, blockers: []string{ActivityDeposit, ActivityDepositQuarantined}, bySigner: true}
	}
	return s.applyPlan(ctx, k, ErrAlreadyDeposited, p, now, func(a *applier, ctx context.Context) error {
		if err := a.admitDeposit(ctx); err != nil {
			return err
		}
		return a.depositVerdict(ctx)
	}, extra)
}

// FindDeposit returns the deposit of kind (ActivityDeposit or
// ActivityDepositQuarantined) of the source of digest that signer signed
// ("" for unsigned, and for a deposit made before schema 3, which kept no
// verdict), or nil: a deposit is identified by digest and signer.
func (s *Store) FindDeposit(ctx context.Context, kind, digest, signer string) (*Activity, error) {
	return findDeposit(ctx, s.db, kind, digest, signer)
}

func findDeposit(ctx context.Context, q querier, kind, digest, signer string) (*Activity, error) {
	row := q.QueryRowContext(ctx,
		`SELECT a.id, a.kind, a.at, COALESCE(a.input_digest,''), COALESCE(a.source_golem_id,''), a.source_generation, COALESCE(a.channel,''), a.params, a.counts
		 FROM activities a LEFT JOIN deposit_verdicts v ON v.activity_id=a.id
		 WHERE a.kind=? AND a.input_digest=? AND COALESCE(v.signed_by, '')=? ORDER BY a.id LIMIT 1`, kind, digest, signer)
	a, err := scanActivity(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return a, err
}

// DepositVerdict is the verdict of a deposit's source under the library's
// trust policy, kept for every row it brought.
type DepositVerdict struct {
	Signature   string // inherit.Trust.Signature: unsigned, trusted or untrusted
	SignedBy    string // the signing key's id; "" when unsigned
	Quarantined bool
}

// depositVerdict records the deposit's verdict for the rows it brought.
func (a *applier) depositVerdict(ctx context.Context) error {
	t := a.p.Trust
	_, err := a.tx.exec(ctx, `INSERT INTO deposit_verdicts(source_digest, activity_id, signature, signed_by, quarantined)
		VALUES(?,?,?,?,?)`, a.p.BundleDigest, a.activity, cmp.Or(t.Signature, "unsigned"), t.SignedBy, t.Quarantine)
	if err != nil {
		return fmt.Errorf("recording the verdict of deposit %s: %w", a.p.BundleDigest, err)
	}
	return nil
}

// DepositVerdicts returns the verdict of every deposit of the library, by
// the deposit's activity (a row's library.Record Origin.Activity): one
// source's digest may be the digest of two deposits, an unsigned copy
// quarantined and the signed original, each with its own verdict. A
// deposit made before schema 3 has none: its rows count as unsigned.
func (s *Store) DepositVerdicts(ctx context.Context) (map[int64]DepositVerdict, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT activity_id, signature, signed_by, quarantined FROM deposit_verdicts")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[int64]DepositVerdict{}
	for rows.Next() {
		var d int64
		var v DepositVerdict
		if err := rows.Scan(&d, &v.Signature, &v.SignedBy, &v.Quarantined); err != nil {
			return nil, err
		}
		out[d] = v
	}
	return out, classify(rows.Err())
}

// depositSigners returns, by activity, the key that signed each signed
// deposit: what keeps each signer's knowledge apart (Existing.Signer,
// library.Apart). An unsigned deposit, a deposit made before schema 3,
// and any other activity are not in it. It grows with the deposits, not
// with their rows.
func depositSigners(ctx context.Context, q querier) (map[int64]string, error) {
	out := map[int64]string{}
	keys := map[string]string{} // one string per key, not per deposit
	err := eachRow(ctx, q, "SELECT activity_id, signed_by FROM deposit_verdicts WHERE signed_by!=''", func(rs *sql.Rows) error {
		var a int64
		var by string
		if err := rs.Scan(&a, &by); err != nil {
			return err
		}
		if k, ok := keys[by]; ok {
			by = k
		} else {
			keys[by] = by
		}
		out[a] = by
		return nil
	})
	return out, classify(err)
}

// ApplyEquip applies an equip to a successor's store in one transaction,
// recorded as an "equip" activity at now whose input digest is the
// equip's key and whose source is the library: the rows it admits, at
// their arrival confidences, the sightings of the store's rows, the
// same_as candidates and the edges. It returns the activity's id.
//
// An equip the store applied before is ErrAlreadyEquipped; a library, or
// a plan made for another store, is an error; either way nothing changes.
func (s *Store) ApplyEquip(ctx context.Context, eq *library.Equip, now time.Time) (int64, error) {
	p := &eq.Plan
	switch {
	case s.meta.Kind == KindLibrary:
		return 0, fmt.Errorf("equip %s: %w", s.path, ErrIsLibrary)
	case p.StoreGeneration != s.meta.Generation:
		return 0, fmt.Errorf("equip %s: planned for a store of generation %d, this store is generation %d", eq.Key, p.StoreGeneration, s.meta.Generation)
	case p.StoreGolemID != s.meta.GolemID:
		return 0, fmt.Errorf("equip %s: planned for golem %q, this store is golem %q", eq.Key, p.StoreGolemID, s.meta.GolemID)
	}
	k := kinds{kind: ActivityEquip, blockers: []string{ActivityEquip}}
	return s.applyPlan(ctx, k, ErrAlreadyEquipped, p, now, (*applier).admit, map[string]any{"selected": len(eq.Choices)})
}

// kinds say what activity a plan is recorded as: its kind, the kinds of
// activity that applied the same digest before and so make it
// ErrAlready… (bySigner: only a deposit by the plan's signer, as
// FindDeposit finds it), and the kind of one it supersedes ("" none).
type kinds struct {
	kind      string
	blockers  []string
	supersede string
	bySigner  bool
}

// applyPlan applies p as an activity of k.kind, keyed by p.BundleDigest,
// in one transaction: admit writes the rows, then the sightings, the
// same_as candidates, the flags, the edges, the documents and the links,
// as ApplyInherit does. extra is added to the activity's counts.
func (s *Store) applyPlan(ctx context.Context, k kinds, already error, p *inherit.Plan, now time.Time,
	admit func(*applier, context.Context) error, extra map[string]any) (int64, error) {
	kind := k.kind
	if p.BundleDigest == "" {
		return 0, fmt.Errorf("%s: the plan names no input digest", kind)
	}
	var id int64
	err := s.writeTx(ctx, func(tx *writeTx) error {
		for _, b := range k.blockers {
			var prev *Activity
			var err error
			if k.bySigner {
				prev, err = findDeposit(ctx, tx.tx, b, p.BundleDigest, p.Trust.SignedBy)
			} else {
				prev, err = findActivity(ctx, tx.tx, b, p.BundleDigest)
			}
			if err != nil {
				return err
			}
			if prev != nil {
				return fmt.Errorf("%s %s: %w (activity %d, %s)", kind, p.BundleDigest, already, prev.ID, formatTime(prev.At))
			}
		}
		if err := tx.deferForeignKeys(ctx); err != nil {
			return err
		}
		params := maps.Clone(p.Params)
		if params == nil {
			params = map[string]any{}
		}
		params["source_kind"] = p.Kind
		if k.supersede != "" {
			prev, err := findActivity(ctx, tx.tx, k.supersede, p.BundleDigest)
			if err != nil {
				return err
			}
			if prev != nil {
				params["supersedes"] = prev.ID
			}
		}
		gen := p.SourceGeneration
		a := Activity{Kind: kind, At: now, InputDigest: p.BundleDigest, SourceGolemID: p.SourceGolemID, Channel: p.Channel, Params: params}
		if kind != ActivityEquip {
			a.SourceGeneration = &gen
		}
		var err error
		if id, err = tx.recordActivity(ctx, a); err != nil {
			return err
		}
		ap := &applier{tx: tx, p: p, activity: id, links: map[linkKey]map[string]any{}}
		steps := []func(context.Context) error{ap.rekeys, func(ctx context.Context) error { return admit(ap, ctx) },
			ap.sightings, ap.sameAs, ap.flags, ap.edges, ap.documents, ap.writeLinks}
		for _, step := range steps {
			if err := step(ctx); err != nil {
				return err
			}
		}
		counts := ap.counts()
		maps.Copy(counts, extra)
		return tx.setActivityCounts(ctx, id, counts)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// admitDeposit inserts a deposit's rows as the plan has them: with their
// channel, source digest and weights, and no arrival confidence.
func (a *applier) admitDeposit(ctx context.Context) error {
	for i := range a.p.Admit {
		ar := &a.p.Admit[i]
		st := grimoire.StoreState{}
		if ar.Entry.Store != nil {
			st = *ar.Entry.Store
		}
		st.ArrivalConfidence = nil
		if st.Channel == "" {
			st.Channel = a.p.Channel
		}
		if st.Bundle == "" {
			st.Bundle = a.p.BundleDigest
		}
		r := &Row{Entry: ar.Entry, EmbeddingModel: ar.EmbeddingModel, ToxicContribution: ar.ToxicContribution, SameAs: ar.SameAs}
		r.Store = &st
		detail := map[string]any{"kind": ar.Kind, "channel": st.Channel}
		if ar.Original != "" {
			detail[apartOf] = ar.Original // the library's record of the row's own id (library.OwnID)
		}
		if err := a.tx.insertEntry(ctx, r, a.activity, detail); err != nil {
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
