package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/store"
	"github.com/bardo-golem/bardo/trust"
)

// What bardo inherit does with the store's trusted keys (package trust):
// a bundle the policy does not accept is refused (exit 77) before anything
// is written, unless --quarantine asks for it to arrive confined.

// judge checks the bundle against the store's trust policy (a store this
// inherit creates is open and trusts no key) and --require-signature. It
// records the policy and the verdict in the run.
func (in *inheritRun) judge(ctx context.Context, s *store.Store) error {
	pol, err := storePolicy(ctx, s, in.o.Store.Path)
	if err != nil {
		return err
	}
	p := pol.Policy(in.o.RequireSignature)
	in.policy = p.Effective()
	v, err := p.Check(in.b, in.digest)
	in.verdict = v
	switch {
	case errors.Is(err, trust.ErrUntrusted) && (in.o.Quarantine || in.released):
		// Quarantined, or released by a person after review.
		return nil
	case errors.Is(err, trust.ErrUntrusted):
		return &hintedError{err: in.planError(err), hint: untrustedHint(in.o.Store.Path, in.digest, v, pol)}
	case err != nil:
		return in.planError(err)
	}
	return nil
}

func untrustedHint(storePath, digest string, v trust.Verdict, pol *store.TrustPolicy) string {
	h := "inherit it with --quarantine to review its entries first (then bardo release --store " + storePath + " --bundle " + digest + ")"
	if v.Signed {
		h += ", or trust its key " + v.KeyID + " with bardo trust add"
	}
	if pol.Mode == trust.ModeSignedOnly && len(pol.Keys) == 0 {
		h += "; the store is signed-only and trusts no key: it accepts no bundle as it is until a key is trusted, or its owner opens it with bardo trust open --store " + storePath
	}
	return h
}

// storePolicy reads the trust policy of s, or for a store the run creates
// (s nil) a new store's: open, trusting no key.
func storePolicy(ctx context.Context, s *store.Store, path string) (*store.TrustPolicy, error) {
	if s == nil {
		return store.NewStorePolicy(), nil
	}
	p, err := s.TrustPolicy(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the trust policy of %s: %w", path, err)
	}
	return p, nil
}

// arrival is how the verdict makes the bundle arrive: an input of the
// planner (inherit.Trust), which confines a quarantined plan itself.
func (in *inheritRun) arrival() inherit.Trust {
	return inherit.Trust{Signature: in.verdict.Status(), SignedBy: in.verdict.KeyID, Quarantine: in.o.Quarantine, Released: in.released}
}

// quarantineNote adds the warning that tells how to release a quarantined
// arrival.
func (in *inheritRun) quarantineNote(p *inherit.Plan) {
	if !in.o.Quarantine {
		return
	}
	if n := len(p.Admit); n > 0 {
		p.Counts.Warnings = append(p.Counts.Warnings, fmt.Sprintf(
			"quarantine: %d entries arrive quarantined: out of recall, of the germline and of clade novelty until bardo release --store %s --bundle %s",
			n, in.o.Store.Path, in.digest))
	}
}

// supersededView shows the planner of a trusted arrival the rows that the
// bundle's own quarantined apply brought and a person released or archived
// one by one since as what they are, the bundle's quarantined copy
// (store.SupersededRows): never a row of the store the arrival sights or
// dedups against. The store quarantines them again as it applies.
func (in *inheritRun) supersededView(ctx context.Context, s *store.Store, existing []inherit.Existing) error {
	if in.o.Quarantine {
		return nil
	}
	ids, err := s.SupersededRows(ctx, in.digest)
	if err != nil || len(ids) == 0 {
		return err
	}
	copied := make(map[string]bool, len(ids))
	for _, id := range ids {
		copied[id] = true
	}
	for i := range existing {
		if copied[existing[i].ID] {
			existing[i].Status = grimoire.StatusQuarantined
		}
	}
	return nil
}
