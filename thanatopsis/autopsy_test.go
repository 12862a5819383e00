package thanatopsis_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// healthy is a Golem no death clock condemns: 8 of 10 predictions right,
// fitness 0.8. h-bad failed 2 of its 3 uses, the quarantined h-q both of
// its 2, and h-ghost, which has no record, its 1.
const healthy = "testdata/healthy.jsonl"

func TestNoClockFired(t *testing.T) {
	a := analyze(t, healthy, thanatopsis.Options{})
	if a.Autopsy.Ran {
		t.Fatalf("the autopsy ran: %s", a.Autopsy.Reason)
	}
	acc, fit := 0.8, 0.8
	want := &bundle.Autopsy{
		WindowStartTick:     -399,
		WindowEndTick:       100,
		Known:               10,
		Correct:             8,
		Accuracy:            &acc,
		Fitness:             &fit,
		SenescenceThreshold: 0.35,
		ToxicEntries:        []bundle.ToxicEntry{},
	}
	if d := cmp.Diff(want, a.Bundle.Body.Autopsy); d != "" {
		t.Errorf("autopsy that did not run (-want +got):\n%s", d)
	}
	if a.Bundle.Header.Counts.ToxicEntries != 0 || a.Passes != 1 {
		t.Errorf("toxic entries %d, passes %d; want 0 and 1", a.Bundle.Header.Counts.ToxicEntries, a.Passes)
	}
	if s := a.Reflection.Items(reflection.NameTellSuccessor); len(s) == 0 {
		t.Error("tell_successor is empty: it still has the open questions")
	}
}

func TestForcedAutopsy(t *testing.T) {
	for _, tt := range []struct {
		name       string
		maxEntries int
		passes     int
		leftOut    []bundle.Ref
	}{
		{"every candidate selected", 0, 1, nil},
		{"the toxic entry left out", 1, 2, []bundle.Ref{{Kind: bundle.RefEntry, ID: "h-bad"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := analyze(t, healthy, thanatopsis.Options{MaxEntries: tt.maxEntries, Force: true})
			ba := a.Bundle.Body.Autopsy
			if !slices.Equal(ba.Clocks, []string{"forced"}) {
				t.Errorf("clocks %q, want [forced]", ba.Clocks)
			}
			// Share 2/2, rate 2/3, confidence 0.6: ∛0.4.
			want := []bundle.ToxicEntry{{
				Entry:                 bundle.Ref{Kind: bundle.RefEntry, ID: "h-bad"},
				Content:               "Funding flips predict nothing",
				ContributionToFailure: math.Cbrt(1 * (2.0 / 3) * 0.6),
				ConfidenceAtFailure:   0.6,
				Recommendation:        bundle.RecommendReinvestigate,
				FailureRate:           2.0 / 3,
				Uses:                  3,
				Failures:              2,
				DecayClass:            "tactical",
				Domain:                "lending",
				Reason:                ba.ToxicEntries[0].Reason,
			}}
			if d := cmp.Diff(want, ba.ToxicEntries); d != "" {
				t.Errorf("toxic entries (-want +got):\n%s", d)
			}
			// The quarantined h-q may not cross, and h-ghost has no record:
			// both count as unrecorded.
			if ba.UnrecordedToxic != 2 {
				t.Errorf("unrecorded_toxic %d, want 2 (h-q withheld, h-ghost without a record)", ba.UnrecordedToxic)
			}
			if a.Passes != tt.passes {
				t.Errorf("%d passes, want %d", a.Passes, tt.passes)
			}
			if d := cmp.Diff(tt.leftOut, a.Bundle.Body.LeftOut); d != "" {
				t.Errorf("left_out (-want +got):\n%s", d)
			}
			if got := a.Reflection.Items(reflection.NameGotWrong); len(got) == 0 || got[0].Refs[0].ID != "h-bad" {
				t.Errorf("got_wrong does not open with the toxic h-bad: %+v", got)
			}
		})
	}
}

func TestAdvisor(t *testing.T) {
	plain := build(t, healthy, thanatopsis.Options{Force: true})
	for _, tt := range []struct {
		name    string
		tell    reflection.TellFunc
		used    bool
		reason  string
		advised []string // texts of category 6; nil: the deterministic advice
	}{
		{"its items become category 6",
			func(r *reflection.Reflection) ([]reflection.Item, error) {
				if len(r.Items(reflection.NameTellSuccessor)) != 0 {
					return nil, errors.New("the advisor saw category 6 filled")
				}
				return []reflection.Item{{Text: "Trust h-good.", Refs: []reflection.Ref{{Kind: reflection.RefEntry, ID: "h-good"}}}, {Text: "Sleep."}}, nil
			},
			true, "", []string{"Trust h-good.", "Sleep."}},
		{"a failed advisor leaves the deterministic advice",
			func(*reflection.Reflection) ([]reflection.Item, error) {
				return nil, errors.New("timed out after 2s")
			},
			false, "timed out after 2s", nil},
		{"an answer naming a record the reflection never saw is refused",
			func(*reflection.Reflection) ([]reflection.Item, error) {
				return []reflection.Item{{Text: "Trust h-q.", Refs: []reflection.Ref{{Kind: reflection.RefEntry, ID: "h-q"}}}}, nil
			},
			false, `advisor item 1: reference entry "h-q" is not drawn on by the reflection or the autopsy`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := build(t, healthy, thanatopsis.Options{Force: true, Advisor: &thanatopsis.Advisor{Command: "llm --brief", Tell: tt.tell}})
			want := &bundle.Advisor{Command: "llm --brief", Used: tt.used, Reason: tt.reason}
			if d := cmp.Diff(want, b.Header.Advisor); d != "" {
				t.Errorf("header.advisor (-want +got):\n%s", d)
			}
			var texts []string
			for _, it := range b.Body.Reflection.TellSuccessor {
				texts = append(texts, it.Text)
			}
			if tt.advised == nil {
				if d := cmp.Diff(plain.Body.Reflection.TellSuccessor, b.Body.Reflection.TellSuccessor); d != "" {
					t.Errorf("tell_successor is not the deterministic advice (-plain +advised):\n%s", d)
				}
			} else if d := cmp.Diff(tt.advised, texts); d != "" {
				t.Errorf("tell_successor (-advisor +got):\n%s", d)
			}
		})
	}
	if plain.Header.Advisor != nil {
		t.Errorf("a bundle without an advisor records one: %+v", plain.Header.Advisor)
	}
}

func TestAdvisorWithoutCommand(t *testing.T) {
	tell := func(*reflection.Reflection) ([]reflection.Item, error) { return nil, nil }
	for _, adv := range []*thanatopsis.Advisor{{Tell: tell}, {Command: "llm"}} {
		if _, err := thanatopsis.Analyze(nil, thanatopsis.Options{Advisor: adv}); err == nil {
			t.Errorf("Analyze with advisor %+v succeeded", adv)
		}
	}
}

// TestLimits: the reflection's caps reach the reflection collector, and
// what they cut is no longer referred to, so not left out either.
func TestLimits(t *testing.T) {
	full := build(t, fixture, thanatopsis.Options{MaxEntries: 16})
	capped := build(t, fixture, thanatopsis.Options{MaxEntries: 16, Limits: reflection.Limits{Learned: 2, Suspect: 1}})
	r := capped.Body.Reflection
	if len(r.Learned) != 2 || len(r.Suspect) != 1 {
		t.Errorf("learned %d, suspect %d; want 2 and 1", len(r.Learned), len(r.Suspect))
	}
	if len(r.GotWrong) != len(full.Body.Reflection.GotWrong) {
		t.Errorf("got_wrong %d, want the uncapped %d", len(r.GotWrong), len(full.Body.Reflection.GotWrong))
	}
	if len(capped.Body.LeftOut) >= len(full.Body.LeftOut) {
		t.Errorf("left_out %d with caps, %d without: the caps should name fewer entries", len(capped.Body.LeftOut), len(full.Body.LeftOut))
	}
	graph := build(t, fixture, thanatopsis.Options{Limits: reflection.Limits{CausalGraph: 3}})
	if n := len(graph.Body.Reflection.CausalGraph); n != 3 || len(graph.Body.CausalGraph) <= 3 {
		t.Errorf("causal_graph holds %d items of %d edges, want 3", n, len(graph.Body.CausalGraph))
	}
}
