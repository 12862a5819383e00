package bundlediff

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bardo-golem/bardo/bundle"
)

// Autopsy is what changed in the epistemic autopsy: its own fields
// (Changes: presence, clocks, window, accuracy, regimes, …), and its toxic
// entries, known by the id of the entry they name. Reordered is true when
// the toxic entries of both bundles come in another order.
type Autopsy struct {
	Changes   []Change      `json:"changes"`
	Added     []Toxic       `json:"added"`
	Removed   []Toxic       `json:"removed"`
	Changed   []ToxicChange `json:"changed"`
	Reordered bool          `json:"reordered"`
	// Expected is true when B descends from A and the autopsy's changes
	// are B's own life's (its fields, toxic entries no longer named, which
	// arrived as entries); a toxic entry added or changed is unexpected.
	Expected bool   `json:"expected"`
	Rule     string `json:"rule,omitempty"`
}

func (a *Autopsy) empty() bool {
	return len(a.Changes)+len(a.Added)+len(a.Removed)+len(a.Changed) == 0 && !a.Reordered
}

// Toxic sums up a toxic entry that one bundle's autopsy holds.
type Toxic struct {
	ID                    string  `json:"id"`
	Recommendation        string  `json:"recommendation"`
	ContributionToFailure float64 `json:"contribution_to_failure"`
	Content               string  `json:"content"`
}

// ToxicChange is a toxic entry of both autopsies that differs.
type ToxicChange struct {
	ID      string   `json:"id"`
	Changes []Change `json:"changes"`
}

// diffAutopsy compares two autopsies; an absent one compares as an
// autopsy with every field at its zero value, after a "present" change.
func diffAutopsy(a, b *bundle.Autopsy) (Autopsy, error) {
	var zero bundle.Autopsy
	var c changes
	c.present("present", a != nil, b != nil)
	if a == nil {
		a = &zero
	}
	if b == nil {
		b = &zero
	}
	c.strs("clocks", a.Clocks, b.Clocks)
	c.int("window_start_tick", a.WindowStartTick, b.WindowStartTick)
	c.int("window_end_tick", a.WindowEndTick, b.WindowEndTick)
	c.int("known", int64(a.Known), int64(b.Known))
	c.int("correct", int64(a.Correct), int64(b.Correct))
	c.optFloat("accuracy", a.Accuracy, b.Accuracy)
	c.optFloat("fitness", a.Fitness, b.Fitness)
	c.float("senescence_threshold", a.SenescenceThreshold, b.SenescenceThreshold)
	c.int("unrecorded_toxic", int64(a.UnrecordedToxic), int64(b.UnrecordedToxic))
	c.optStr("failure_regime", a.FailureRegime, b.FailureRegime)
	c.optStr("last_valid_regime", a.LastValidRegime, b.LastValidRegime)
	c.optStr("regime_transition_hypothesis", a.RegimeTransitionHypothesis, b.RegimeTransitionHypothesis)
	out := Autopsy{Changes: nonNil(c)}

	ai, err := toxicIndex("a", a.ToxicEntries)
	if err != nil {
		return Autopsy{}, err
	}
	bi, err := toxicIndex("b", b.ToxicEntries)
	if err != nil {
		return Autopsy{}, err
	}
	last := -1
	for i := range a.ToxicEntries {
		t := &a.ToxicEntries[i]
		j, ok := bi[t.Entry.ID]
		if !ok {
			out.Removed = append(out.Removed, toxic(t))
			continue
		}
		if j < last {
			out.Reordered = true
		}
		last = max(last, j)
		if c := diffToxic(t, &b.ToxicEntries[j]); len(c) > 0 {
			out.Changed = append(out.Changed, ToxicChange{ID: t.Entry.ID, Changes: c})
		}
	}
	for j := range b.ToxicEntries {
		if _, ok := ai[b.ToxicEntries[j].Entry.ID]; !ok {
			out.Added = append(out.Added, toxic(&b.ToxicEntries[j]))
		}
	}
	byID := func(x, y Toxic) int { return cmp.Compare(x.ID, y.ID) }
	slices.SortFunc(out.Added, byID)
	slices.SortFunc(out.Removed, byID)
	slices.SortFunc(out.Changed, func(x, y ToxicChange) int { return cmp.Compare(x.ID, y.ID) })
	out.Added, out.Removed, out.Changed = nonNil(out.Added), nonNil(out.Removed), nonNil(out.Changed)
	return out, nil
}

func toxic(t *bundle.ToxicEntry) Toxic {
	return Toxic{ID: t.Entry.ID, Recommendation: t.Recommendation, ContributionToFailure: t.ContributionToFailure, Content: t.Content}
}

func diffToxic(a, b *bundle.ToxicEntry) []Change {
	var c changes
	c.str("entry.kind", a.Entry.Kind, b.Entry.Kind)
	c.str("content", a.Content, b.Content)
	c.float("contribution_to_failure", a.ContributionToFailure, b.ContributionToFailure)
	c.float("confidence_at_failure", a.ConfidenceAtFailure, b.ConfidenceAtFailure)
	c.str("recommendation", a.Recommendation, b.Recommendation)
	c.float("failure_rate", a.FailureRate, b.FailureRate)
	c.int("uses", int64(a.Uses), int64(b.Uses))
	c.int("failures", int64(a.Failures), int64(b.Failures))
	c.optStr("decay_class", a.DecayClass, b.DecayClass)
	c.optStr("domain", a.Domain, b.Domain)
	c.optStr("reason", a.Reason, b.Reason)
	return c
}

// toxicIndex maps the id of each toxic entry's entry to its index,
// refusing an entry twice.
func toxicIndex(side string, toxic []bundle.ToxicEntry) (map[string]int, error) {
	index := make(map[string]int, len(toxic))
	for i := range toxic {
		id := toxic[i].Entry.ID
		if j, ok := index[id]; ok {
			return nil, duplicate(side, "body.autopsy.toxic_entries", j, i, fmt.Sprintf("entry %q", id))
		}
		index[id] = i
	}
	return index, nil
}
