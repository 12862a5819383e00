package library_test

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

// manual.jsonl: golem-legacy, generation 1, entries at confidences 0.0999
// to 0.95 (t-…), a quarantined entry and a dream journal entry, three
// causal edges.
func picked(t *testing.T, picks ...string) (*library.Offering, error) {
	t.Helper()
	f, err := os.Open("testdata/manual.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := grimoire.NewReader(f, grimoire.ReadOptions{Name: "manual.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return library.FromExportPicked(r, picks)
}

// TestManualPullSelection: exactly the picked entries, whatever their
// confidence or category, in file order, without soma; the qualifying
// edges among them; deposited at their confidence on the manual channel.
func TestManualPullSelection(t *testing.T) {
	src, err := picked(t, "t-high", "t-below-01", "t-at-06", "t-high", "d-dream")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range src.Entries {
		got = append(got, o.Entry.ID)
		if o.Entry.EmotionalTag != nil || o.Entry.ParentEpisodeIDs != nil || o.Entry.Store != nil {
			t.Errorf("%s keeps its soma or store state", o.Entry.ID)
		}
	}
	if d := cmp.Diff([]string{"t-below-01", "t-at-06", "t-high", "d-dream"}, got); d != "" {
		t.Errorf("picked entries (-want +got):\n%s", d)
	}
	if len(src.Edges) != 1 || src.Edges[0].SourceID != "t-at-06" || src.Edges[0].TargetID != "t-high" {
		t.Errorf("edges %+v, want t-at-06 -> t-high only", src.Edges)
	}
	if src.Channel != library.ChannelManual || src.Playbook != nil || src.Offered != 10 || src.LeftOut != 6 || src.EdgesLeftOut != 2 {
		t.Errorf("source %+v", src)
	}
	if src.Digest != library.ManualDigest(manualExportDigest(t), []string{"d-dream", "t-at-06", "t-below-01", "t-high"}) {
		t.Errorf("digest %s is not the manual digest of the sorted, distinct picks", src.Digest)
	}
	dep, err := library.PlanDeposit(src, nil, library.DepositOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"t-below-01": 0.0999, "t-at-06": 0.6, "t-high": 0.9, "d-dream": 0.99}
	for _, a := range dep.Plan.Admit {
		e := &a.Entry
		if !near(e.Confidence, want[e.ID]) || e.Store.Channel != library.ChannelManual || e.Store.RetrievalWeight != nil {
			t.Errorf("%s deposited at %v on %q (retrieval weight %v), want %v on manual without bloodstain weights",
				e.ID, e.Confidence, e.Store.Channel, e.Store.RetrievalWeight, want[e.ID])
		}
		if e.Source == nil || e.Source.GolemID != "golem-legacy" || e.Source.Generation != 1 {
			t.Errorf("%s: source %+v", e.ID, e.Source)
		}
	}
	if len(dep.Plan.Admit) != 4 || len(dep.Plan.Edges) != 1 {
		t.Errorf("%d admitted, %d edges", len(dep.Plan.Admit), len(dep.Plan.Edges))
	}
}

func TestManualPullRefusals(t *testing.T) {
	for _, tc := range []struct {
		name        string
		picks       []string
		missing     []string
		quarantined []string
		msg         string
	}{
		{"unknown id", []string{"t-high", "nope"}, []string{"nope"}, nil,
			`picked "nope": no entry of the export has this id; nothing deposited`},
		{"two unknown ids", []string{"z", "a", "t-high"}, []string{"a", "z"}, nil,
			`picked "a", "z": no entry of the export has these ids; nothing deposited`},
		{"quarantined entry", []string{"q-quarantined"}, nil, []string{"q-quarantined"},
			`picked "q-quarantined": quarantined, and quarantined knowledge is never deposited; nothing deposited`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := picked(t, tc.picks...)
			var pe *library.PickError
			if src != nil || !errors.As(err, &pe) || !errors.Is(err, library.ErrPick) {
				t.Fatalf("got %v, %v; want a PickError", src, err)
			}
			if d := cmp.Diff(tc.missing, pe.Missing); d != "" {
				t.Errorf("missing (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.quarantined, pe.Quarantined); d != "" {
				t.Errorf("quarantined (-want +got):\n%s", d)
			}
			if err.Error() != tc.msg {
				t.Errorf("error %q, want %q", err, tc.msg)
			}
		})
	}
	if _, err := picked(t); !errors.Is(err, library.ErrPick) {
		t.Errorf("no picks: %v", err)
	}
}

// TestManualEquipConfidence: min(confidence × 0.50, 0.3) × 0.85^(hops−1).
func TestManualEquipConfidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		conf float64
		hops int
		want float64
	}{
		{"low confidence, one hop", 0.26, 1, 0.13},
		{"capped at the base", 0.9, 1, 0.3},
		{"at the cap exactly", 0.6, 1, 0.3},
		{"two hops", 0.4, 2, 0.2 * 0.85},
		{"capped, three hops", 0.95, 3, 0.3 * 0.85 * 0.85},
	} {
		if got := library.EquipConfidence(tc.conf, library.ChannelManual, tc.hops); !near(got, tc.want) {
			t.Errorf("%s: EquipConfidence(%v, manual, %d) = %v, want %v", tc.name, tc.conf, tc.hops, got, tc.want)
		}
	}
	s := selector(t, library.EquipOptions{Now: now})
	r := record("m", grimoire.CategoryInsight, library.ChannelManual, 0.5, 1, vec(1))
	s.Add(&r)
	eq, err := library.PlanEquip("library", "activity 1", s.Result(), nil, inherit.Target{GolemID: "heir", Generation: 3}, library.EquipOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if c := eq.Choices[0]; !near(c.Arrival, 0.25*0.85) || c.Hops != 2 || c.Multiplier != library.MultiplierOther {
		t.Errorf("equipped at %v, %d hops, multiplier %v; want %v, 2, 0.5", c.Arrival, c.Hops, c.Multiplier, 0.25*0.85)
	}
}

// manualExportDigest is testdata/manual.jsonl's content digest.
func manualExportDigest(t *testing.T) string {
	t.Helper()
	f, err := os.Open("testdata/manual.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := grimoire.ContentDigest(f, "manual.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return d
}
