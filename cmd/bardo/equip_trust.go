package main

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
	"github.com/bardo-golem/bardo/trust"
)

// What bardo library equip does with the successor's trusted keys: each
// library row keeps the verdict of the deposit it came from (the signer's
// key id, or unsigned), and the successor's policy judges it by the rule
// bardo inherit applies to a bundle (trust.Policy.CheckKey): a row the
// policy does not accept is refused — counted and named in the report —
// or, with --quarantine, equipped quarantined.

// equipJudge judges library rows under the successor's policy.
type equipJudge struct {
	policy     trust.Policy
	verdicts   map[int64]store.DepositVerdict // by the deposit's activity
	quarantine bool

	refused     []string        // ids, sorted when reported
	quarantined map[string]bool // library ids of the records equipped quarantined
}

func newEquipJudge(ctx context.Context, lib, succ *store.Store, succPath string, quarantine bool) (*equipJudge, error) {
	pol, err := storePolicy(ctx, succ, succPath)
	if err != nil {
		return nil, err
	}
	verdicts, err := lib.DepositVerdicts(ctx)
	if err != nil {
		return nil, err
	}
	return &equipJudge{policy: pol.Policy(false), verdicts: verdicts, quarantine: quarantine,
		quarantined: map[string]bool{}}, nil
}

// admit reports whether r may be offered to the selection. A quarantined
// record is: the selection never takes one, so the policy refuses none.
func (j *equipJudge) admit(r *library.Record) (bool, error) {
	if r.Entry.Status == grimoire.StatusQuarantined {
		return true, nil
	}
	digest := ""
	if r.Entry.Store != nil {
		digest = r.Entry.Store.Bundle
	}
	v := j.verdicts[r.Origin.Activity]
	_, err := j.policy.CheckKey(digest, v.SignedBy)
	switch {
	case errors.Is(err, trust.ErrUntrusted) && j.quarantine:
		j.quarantined[r.Entry.ID] = true
		return true, nil
	case errors.Is(err, trust.ErrUntrusted):
		j.refused = append(j.refused, r.Entry.ID)
		return false, nil
	}
	return err == nil, err
}

// mark tells the selection which records arrive quarantined.
func (j *equipJudge) mark(selected []library.Selected) {
	for i := range selected {
		selected[i].Quarantine = j.quarantined[selected[i].Record.Entry.ID]
	}
}

// note tells what the policy refused or quarantined.
func (j *equipJudge) note(eq *library.Equip, succPath string) {
	quarantined := eq.Quarantined
	if n := len(j.refused); n > 0 {
		sort.Strings(j.refused)
		shown := j.refused[:min(n, 10)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(" and %d more", n-len(shown))
		}
		eq.Plan.Counts.Warnings = append(eq.Plan.Counts.Warnings, fmt.Sprintf(
			"trust: %d library entries refused: their deposits are not signed by a key %s trusts (%v%s); equip with --quarantine to review them",
			n, succPath, shown, more))
	}
	if quarantined > 0 {
		eq.Plan.Counts.Warnings = append(eq.Plan.Counts.Warnings, fmt.Sprintf(
			"quarantine: %d entries arrive quarantined, their deposits not signed by a key %s trusts, until bardo release", quarantined, succPath))
	}
}
