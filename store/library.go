package store

import (
	"cmp"
	"context"
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
	ActivityEquip   = "equip"
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
// A source the library took before is ErrAlreadyDeposited; a store that is
// not a library is ErrNotLibrary; either way nothing changes.
func (s *Store) ApplyDeposit(ctx context.Context, d *library.Deposit, now time.Time) (int64, error) {
	if s.meta.Kind != KindLibrary {
		return 0, fmt.Errorf("deposit into %s: a store of kind %q: %w", s.path, s.meta.Kind, ErrNotLibrary)
	}
	p := &d.Plan
	extra := map[string]any{
		"offered":        d.Source.Offered,
		"left_out":       d.Source.LeftOut,
		"edges_offered":  d.Source.EdgesOffered,
		"edges_left_out": d.Source.EdgesLeftOut,
	}
	return s.applyPlan(ctx, ActivityDeposit, ErrAlreadyDeposited, p, now, func(a *applier, ctx context.Context) error {
		if err := a.admitDeposit(ctx); err != nil {
			return err
		}
		return a.depositVerdict(ctx)
	}, extra)
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
// its source's digest (a row's Store.Bundle). A deposit made before schema
// 3 has none: its rows count as unsigned.
func (s *Store) DepositVerdicts(ctx context.Context) (map[string]DepositVerdict, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT source_digest, signature, signed_by, quarantined FROM deposit_verdicts")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[string]DepositVerdict{}
	for rows.Next() {
		var d string
		var v DepositVerdict
		if err := rows.Scan(&d, &v.Signature, &v.SignedBy, &v.Quarantined); err != nil {
			return nil, err
		}
		out[d] = v
	}
	return out, classify(rows.Err())
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
	return s.applyPlan(ctx, ActivityEquip, ErrAlreadyEquipped, p, now, (*applier).admit, map[string]any{"selected": len(eq.Choices)})
}

// applyPlan applies p as an activity of kind, keyed by p.BundleDigest, in
// one transaction: admit writes the rows, then the sightings, the same_as
// candidates, the flags, the edges, the documents and the links, as
// ApplyInherit does. extra is added to the activity's counts.
func (s *Store) applyPlan(ctx context.Context, kind string, already error, p *inherit.Plan, now time.Time,
	admit func(*applier, context.Context) error, extra map[string]any) (int64, error) {
	if p.BundleDigest == "" {
		return 0, fmt.Errorf("%s: the plan names no input digest", kind)
	}
	var id int64
	err := s.Tx(ctx, func(tx *Tx) error {
		prev, err := findActivity(ctx, tx.tx, kind, p.BundleDigest)
		if err != nil {
			return err
		}
		if prev != nil {
			return fmt.Errorf("%s %s: %w (activity %d, %s)", kind, p.BundleDigest, already, prev.ID, formatTime(prev.At))
		}
		if err := tx.deferForeignKeys(ctx); err != nil {
			return err
		}
		params := maps.Clone(p.Params)
		if params == nil {
			params = map[string]any{}
		}
		params["source_kind"] = p.Kind
		gen := p.SourceGeneration
		a := Activity{Kind: kind, At: now, InputDigest: p.BundleDigest, SourceGolemID: p.SourceGolemID, Channel: p.Channel, Params: params}
		if kind == ActivityDeposit {
			a.SourceGeneration = &gen
		}
		if id, err = tx.RecordActivity(ctx, a); err != nil {
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
		return tx.SetActivityCounts(ctx, id, counts)
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
		if err := a.tx.insertEntry(ctx, r, a.activity, map[string]any{"kind": ar.Kind, "channel": st.Channel}); err != nil {
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
