package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bardo-golem/bardo/maintain"
)

// Kinds of activity that maintenance and review record.
const (
	ActivityMaintain = "maintain"
	ActivityReview   = "review"
	ActivityArchive  = "archive"
	ActivityRestore  = "restore"
	ActivityRelease  = "release"
	ActivityHold     = "hold"
	ActivityUnhold   = "unhold"
	ActivityPurge    = "purge"
)

// phaseDone is the cursor's phase once every writing phase has run.
const phaseDone = "done"

// cycleState is a cycle's progress and totals, kept in its activity's
// counts and rewritten by every transaction of the cycle: where to resume
// (Phase, After) and what every run of it did. "candidates" is what Check
// counts against the review candidates the activity recorded.
type cycleState struct {
	Status       string             `json:"status"`
	Phase        string             `json:"phase"`
	After        string             `json:"after"` // the last row the phase finished; "" at its start
	Runs         int                `json:"runs"`
	Metabolized  int                `json:"metabolized"`
	Protected    int                `json:"protected"`
	Archived     int                `json:"archived"`
	FlaggedStale int                `json:"flagged_stale"`
	Contested    int                `json:"contested"`
	Candidates   int                `json:"candidates"`
	Reviewed     int                `json:"reviewed"`
	Writes       int                `json:"writes"`
	Transactions int                `json:"transactions"`
	Health       map[string]float64 `json:"health,omitempty"` // the signals at the end of the last run
}

func (st *cycleState) add(c maintain.Changes) {
	st.Metabolized += c.Metabolized
	st.Protected += c.Protected
	st.Archived += c.Archived
	st.FlaggedStale += c.FlaggedStale
	st.Contested += c.Contested
	st.Candidates += c.Contested
}

func (st *cycleState) changes() maintain.Changes {
	return maintain.Changes{Metabolized: st.Metabolized, Protected: st.Protected, Archived: st.Archived,
		FlaggedStale: st.FlaggedStale, Contested: st.Contested}
}

func (st *cycleState) counts() (map[string]any, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

func readCycleState(a *Activity) (cycleState, error) {
	var st cycleState
	b, err := json.Marshal(a.Counts)
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		return st, fmt.Errorf("maintenance activity %d: counts: %w", a.ID, err)
	}
	return st, nil
}

// cycleKey is a cycle's idempotency key: a cycle is its --now.
func cycleKey(now time.Time) string { return "maintain@" + formatTime(now) }

// cycle is one run of a maintenance cycle.
type cycle struct {
	s      *Store
	o      maintain.Options
	budget maintain.Budget
	rep    *maintain.Report
	act    int64
	state  cycleState

	// Loaded once per run, by the phase that needs them.
	contra      *maintain.Contradictions
	bundleRoots map[string][]maintain.Root
}

// Maintain runs one bounded maintenance cycle at o.Now (package maintain
// says what each phase decides), in batches of o.BatchSize rows, each one
// transaction that also records the cycle's progress in its activity, of
// kind "maintain", keyed by o.Now:
//
//   - a cycle that completed before changes nothing and records nothing
//     (Status replayed);
//   - a cycle an earlier run left unfinished — interrupted, or out of
//     budget — resumes where that run stopped, with the decay factor it
//     started with;
//   - when a budget runs out the run ends with Status deferred.
//
// Confidence is never changed; no row is deleted. The caller holds the
// store open for writing, whose lock keeps a second cycle out.
func (s *Store) Maintain(ctx context.Context, o maintain.Options) (*maintain.Report, error) {
	o, err := o.WithDefaults()
	if err != nil {
		return nil, err
	}
	if s.readOnly {
		return nil, ErrReadOnly
	}
	c := &cycle{s: s, o: o, budget: maintain.NewBudget(o), rep: &maintain.Report{Now: o.Now}}
	replayed, err := c.begin(ctx)
	if err != nil {
		return nil, err
	}
	if c.rep.Assessment, err = s.observe(ctx, o.Now, c.act); err != nil {
		return nil, err
	}
	if replayed {
		c.rep.Status = maintain.StatusReplayed
		c.rep.Cycle = c.state.changes()
		return c.rep, c.report(ctx, c.rep.Assessment)
	}
	for c.state.Phase != phaseDone && c.budget.Spent == "" {
		if err := c.batch(ctx); err != nil {
			return nil, fmt.Errorf("maintenance cycle %s, %s phase after %q: %w", formatTime(o.Now), c.state.Phase, c.state.After, err)
		}
	}
	health, err := s.observe(ctx, o.Now, c.act)
	if err != nil {
		return nil, err
	}
	if err := c.finish(ctx, health); err != nil {
		return nil, err
	}
	return c.rep, c.report(ctx, health)
}

// begin finds the cycle's activity, or records it. It reports whether the
// cycle had completed before.
func (c *cycle) begin(ctx context.Context) (replayed bool, err error) {
	created := false
	err = c.s.writeTx(ctx, func(tx *writeTx) error {
		prev, err := findActivity(ctx, tx.tx, ActivityMaintain, cycleKey(c.o.Now))
		if err != nil {
			return err
		}
		if prev != nil {
			return c.resume(prev, &replayed)
		}
		c.state = cycleState{Status: maintain.StatusRunning, Phase: maintain.Phases[0], Runs: 1, Transactions: 1}
		counts, err := c.state.counts()
		if err != nil {
			return err
		}
		c.act, err = tx.recordActivity(ctx, Activity{
			Kind:        ActivityMaintain,
			At:          c.o.Now,
			InputDigest: cycleKey(c.o.Now),
			Params: map[string]any{
				"decay_factor":     c.o.DecayFactor,
				"strength_floor":   maintain.StrengthFloor,
				"retrieval_floor":  maintain.RetrievalFloor,
				"contested_cosine": maintain.ContestedCosine,
				"max_reviewed":     c.o.MaxReviewed,
				"max_writes":       c.o.MaxWrites,
				"batch_size":       c.o.BatchSize,
			},
			Counts: counts,
		})
		created = err == nil
		return err
	})
	if err != nil {
		return false, err
	}
	c.rep.Activity = c.act
	if created {
		c.rep.Transactions++
	}
	return replayed, nil
}

// resume takes up the cycle an earlier run recorded as prev.
func (c *cycle) resume(prev *Activity, replayed *bool) error {
	st, err := readCycleState(prev)
	if err != nil {
		return err
	}
	c.act, c.state = prev.ID, st
	if st.Status == maintain.StatusCompleted {
		*replayed = true
		return nil
	}
	c.rep.Resumed = true
	c.state.Runs++
	c.state.Status = maintain.StatusRunning
	if f, ok := prev.Params["decay_factor"].(float64); ok && f != c.o.DecayFactor {
		c.rep.Warnings = append(c.rep.Warnings, fmt.Sprintf(
			"the cycle at %s started with decay factor %g: resumed with it, not %g", formatTime(c.o.Now), f, c.o.DecayFactor))
		c.o.DecayFactor = f
	}
	return nil
}

// batch runs one transaction: up to BatchSize rows, through as many
// phases as they reach, and the cycle's progress.
func (c *cycle) batch(ctx context.Context) error {
	st := c.state
	var ch maintain.Changes
	reviewed, writes := c.budget.Reviewed, c.budget.Writes
	err := c.s.writeTx(ctx, func(tx *writeTx) error {
		left := c.o.BatchSize
		for left > 0 && st.Phase != phaseDone && c.budget.Spent == "" {
			n, done, err := c.phase(ctx, tx, &st, &ch, left)
			if err != nil {
				return err
			}
			left -= n
			if done {
				st.Phase, st.After = nextPhase(st.Phase), ""
			}
		}
		st.add(ch)
		st.Transactions++
		st.Reviewed += c.budget.Reviewed - reviewed
		st.Writes += c.budget.Writes - writes
		counts, err := st.counts()
		if err != nil {
			return err
		}
		return tx.setActivityCounts(ctx, c.act, counts)
	})
	if err != nil {
		return err
	}
	c.state = st
	c.rep.Changes.Add(ch)
	c.rep.Reviewed, c.rep.Writes = c.budget.Reviewed, c.budget.Writes
	c.rep.Transactions++
	return nil
}

// phase runs the current phase on at most limit rows after the cursor,
// moving it. It returns how many rows it took and whether the phase is
// over.
func (c *cycle) phase(ctx context.Context, tx *writeTx, st *cycleState, ch *maintain.Changes, limit int) (int, bool, error) {
	switch st.Phase {
	case maintain.PhaseMetabolism:
		return c.metabolize(ctx, tx, st, ch, limit)
	case maintain.PhaseContradiction:
		return c.contradict(ctx, tx, st, ch, limit)
	case maintain.PhaseDerivation:
		return c.derive(ctx, tx, st, ch, limit)
	case maintain.PhaseRetention:
		return c.retain(ctx, tx, st, ch, limit)
	}
	return 0, false, fmt.Errorf("maintenance activity %d: unknown phase %q", c.act, st.Phase)
}

func nextPhase(p string) string {
	for i, q := range maintain.Phases {
		if q == p && i+1 < len(maintain.Phases) {
			return maintain.Phases[i+1]
		}
	}
	return phaseDone
}

// finish records how the run ended, with the health it observed.
func (c *cycle) finish(ctx context.Context, health maintain.Observed) error {
	st := c.state
	st.Status = maintain.StatusCompleted
	if st.Phase != phaseDone {
		st.Status = maintain.StatusDeferred
		c.rep.Deferred = append(c.rep.Deferred, maintain.Deferral{Phase: st.Phase, After: st.After, Reason: c.budget.Spent})
		for p := nextPhase(st.Phase); p != phaseDone; p = nextPhase(p) {
			c.rep.Deferred = append(c.rep.Deferred, maintain.Deferral{Phase: p, Reason: "not reached: the " + st.Phase + " phase was deferred"})
		}
	}
	st.Health = map[string]float64{}
	for _, sg := range maintain.Health(health) {
		st.Health[sg.Name] = sg.Value
	}
	st.Transactions++
	err := c.s.writeTx(ctx, func(tx *writeTx) error {
		counts, err := st.counts()
		if err != nil {
			return err
		}
		return tx.setActivityCounts(ctx, c.act, counts)
	})
	if err != nil {
		return err
	}
	c.state = st
	c.rep.Status = st.Status
	c.rep.Transactions++
	c.rep.Cycle = st.changes()
	return nil
}

// report fills in the report's health and pending same_as candidates.
func (c *cycle) report(ctx context.Context, health maintain.Observed) error {
	c.rep.Health = maintain.Health(health)
	pairs, err := c.s.pendingPairs(ctx, "same_as", maintain.MaxListed)
	c.rep.SameAs = pairs
	return err
}
