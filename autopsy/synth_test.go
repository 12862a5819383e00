package autopsy_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
)

// synthReasons maps the plan's rule names to the start of this package's
// reasons.
var synthReasons = map[string]string{
	synth.ReasonThinEvidence:      "thin evidence:",
	synth.ReasonRegimeDependent:   "regime-dependent, not wrong:",
	synth.ReasonConsistentlyWrong: "consistently wrong:",
	synth.ReasonOther:             "wrong more often than the window:",
}

// TestSynthPlanted runs the autopsy over the synthetic Golem of
// fixtures/synth, read back through grimoire's reader as the command does,
// and checks what its Plan says was planted.
func TestSynthPlanted(t *testing.T) {
	p := synth.Small()
	plan, err := synth.Planted(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Toxic) < 4 || len(plan.Healthy) == 0 {
		t.Fatalf("the plan has %d toxic and %d healthy entries; the test needs the four planted toxic ones and some healthy", len(plan.Toxic), len(plan.Healthy))
	}
	var buf bytes.Buffer
	if err := synth.Generate(&buf, p); err != nil {
		t.Fatal(err)
	}
	r, err := grimoire.NewReader(&buf, grimoire.ReadOptions{Name: "synth.jsonl", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := autopsy.NewCollector(r.Header())
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch rec := rec.(type) {
		case *grimoire.Entry:
			c.AddEntry(rec)
		case *grimoire.Episode:
			c.AddEpisode(rec)
		case *grimoire.Fitness:
			c.AddFitness(rec)
		}
	}
	a := c.Result(autopsy.Options{})

	if !a.Ran || !slices.Contains(a.Clocks, autopsy.ClockStaleness) {
		t.Errorf("Ran %v, Clocks %v; want staleness", a.Ran, a.Clocks)
	}
	gotWindow := window{a.WindowStart, a.WindowEnd, a.Episodes, a.Known, a.Correct}
	wantWindow := window{plan.Window.FromTick + 1, plan.Window.ToTick, plan.Window.Episodes, plan.Window.Known, plan.Window.Correct}
	if d := diff(wantWindow, gotWindow); d != "" {
		t.Errorf("window (-plan +got):\n%s", d)
	}
	if a.FailureRegime != plan.FailureRegime || a.LastValidRegime != plan.LastValidRegime {
		t.Errorf("failure regime %q, last valid %q; plan %q, %q", a.FailureRegime, a.LastValidRegime, plan.FailureRegime, plan.LastValidRegime)
	}

	// The plan's toxic list is complete: the autopsy must find exactly
	// those, with their counts and recommendations.
	type toxic struct {
		ID, Recommendation, Reason string
		Uses, Failures             int
	}
	var want, got []toxic
	for _, e := range plan.Toxic {
		want = append(want, toxic{e.ID, e.Recommendation, synthReasons[e.Reason], e.WindowUses, e.WindowFailures})
	}
	for _, e := range a.ToxicEntries {
		reason, _, _ := strings.Cut(e.Reason, ":")
		got = append(got, toxic{e.EntryID, e.Recommendation, reason + ":", e.Uses, e.Failures})
	}
	byID := func(x, y toxic) int { return strings.Compare(x.ID, y.ID) }
	slices.SortFunc(want, byID)
	slices.SortFunc(got, byID)
	if d := diff(want, got); d != "" {
		t.Errorf("toxic entries (-plan +got):\n%s", d)
	}
	for _, u := range append(plan.Healthy, plan.AlwaysUsed) {
		if e := toxicByID(a, u.ID); e != nil {
			t.Errorf("healthy %s (%d of %d uses failed) is toxic: %+v", u.ID, u.WindowFailures, u.WindowUses, *e)
		}
	}
}
