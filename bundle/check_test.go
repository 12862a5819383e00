package bundle_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

func TestCheckSound(t *testing.T) {
	for name, b := range map[string]*bundle.Bundle{
		"minimal": testkit.Minimal(), "full": testkit.Full(), "signed": testkit.Signed(), "large": testkit.Large(50, 8),
		"snapshot minimal": testkit.SnapshotMinimal(), "snapshot": testkit.Snapshot(), "snapshot signed": testkit.SnapshotSigned(),
	} {
		if errs := b.Check(); len(errs) > 0 {
			t.Errorf("%s: Check() = %v", name, errors.Join(errs...))
		}
	}
}

// TestCheckRules breaks one rule per row on the full bundle and expects
// one problem (or the few the edit cannot help causing), naming the
// section and the id and saying what is wrong.
func TestCheckRules(t *testing.T) {
	type B = *bundle.Bundle
	entry := func(b B, i int) *bundle.Entry { return &b.Body.Entries[i] }
	for _, tc := range []struct {
		name string
		edit func(B)
		want string // a substring of one of the errors
	}{
		// header
		{"golem id empty", func(b B) { b.Header.GolemID = "" }, "header.golem_id: golem id is empty"},
		{"generation negative", func(b B) { b.Header.Generation, b.Header.Ancestry = -1, nil }, "header.generation: generation -1 is negative"},
		{"parent not a digest", func(b B) { b.Header.Parents[0], b.Header.Ancestry = "sha256:ABC", nil }, `header.parents[0]: "sha256:ABC" is not`},
		// ancestry (issue 16)
		{"ancestry not starting at the parent", func(b B) { b.Header.Ancestry = b.Header.Ancestry[1:] },
			"header.ancestry[0]: ancestor sha256:0000000000000000000000000000000000000000000000000000000000000ab0 is not the first parent"},
		{"ancestry generations not descending", func(b B) { b.Header.Ancestry[1].Generation = 1 },
			"header.ancestry[1]: generation 1 is not below 1, the generation after it"},
		{"ancestor at the bundle's own generation", func(b B) { b.Header.Ancestry[0].Generation = 2 },
			"header.ancestry[0]: generation 2 is not below 2"},
		{"ancestor named twice", func(b B) { b.Header.Ancestry[1].Digest = b.Header.Ancestry[0].Digest },
			"header.ancestry[1]: ancestor sha256:0000000000000000000000000000000000000000000000000000000000000abc is named twice"},
		{"ancestor without golem id", func(b B) { b.Header.Ancestry[1].GolemID = "" }, "header.ancestry[1]: golem id is empty"},
		{"ancestor digest malformed", func(b B) { b.Header.Ancestry[1].Digest = "sha1:00" }, `header.ancestry[1]: digest "sha1:00" is not`},
		{"exported_at not UTC", func(b B) { b.Header.ExportedAt = "2026-11-02T12:00:00+01:00" }, "header.exported_at: exported_at"},
		{"phase unknown", func(b B) { b.Header.Phase = "zombie" }, `header.phase: phase "zombie" is not one of`},
		{"death cause unknown", func(b B) { b.Header.Death.Cause = "boredom" }, `header.death.cause: cause "boredom"`},
		{"max entries not positive", func(b B) { b.Header.Bottleneck.MaxEntries = 0 },
			"header.bottleneck.max_entries: 0 is not a positive cap"},
		{"advisor unused without reason", func(b B) { b.Header.Advisor.Reason = "" }, "header.advisor.reason"},
		// counts
		{"count of entries", func(b B) { b.Header.Counts.Entries = 4; b.Header.Counts.Candidates = 9 }, "header.counts.entries: 4, but body.entries holds 3"},
		{"count of edges", func(b B) { b.Header.Counts.CausalEdges = 1 }, "header.counts.causal_edges: 1, but body.causal_graph holds 2"},
		{"count of reflection items", func(b B) { b.Header.Counts.ReflectionItems = 9 }, "header.counts.reflection_items: 9"},
		{"count of toxic entries", func(b B) { b.Header.Counts.ToxicEntries = 0 }, "header.counts.toxic_entries: 0"},
		{"count of left out", func(b B) { b.Header.Counts.LeftOut = 2 }, "header.counts.left_out: 2"},
		{"count negative", func(b B) { b.Header.Counts.Episodes = -1 }, "header.counts.episodes: -1 is negative"},
		{"more entries than candidates", func(b B) { b.Header.Counts.Candidates = 2 }, "2 candidates cannot yield 3 entries"},
		// entries
		{"entry id empty", func(b B) { entry(b, 2).ID = "" }, "body.entries[2]: id is empty"},
		// the id rule (issue 12, item 10)
		{"entry id with a bidi override", func(b B) { entry(b, 2).ID = "e3\u202e" }, `body.entries[2]: id "e3\u202e" holds U+202E at byte 2`},
		{"entry id with NUL", func(b B) { entry(b, 2).ID = "e3\x00" }, `body.entries[2]: id "e3\x00" holds U+0000`},
		{"entry id zero-width", func(b B) { entry(b, 2).ID = "e3\u200b" }, `body.entries[2]: id "e3\u200b" holds U+200B`},
		{"entry id too long", func(b B) { entry(b, 2).ID = "e3" + strings.Repeat("x", 300) }, "is 302 bytes, more than the 256-byte limit"},
		{"golem id with a control", func(b B) { b.Header.GolemID = "golem\x1b[2J" }, `header.golem_id: golem id "golem\x1b[2J" holds U+001B`},
		{"source golem id with a control", func(b B) { entry(b, 0).Source.GolemID = "g\n" }, `body.entries[0]: source.golem_id "g\n" holds U+000A`},
		{"source generation negative", func(b B) { entry(b, 0).Source.Generation = -5 }, "source.generation -5 is negative"},
		{"left out id with a bidi override", func(b B) { b.Body.LeftOut[0].ID += "\u202e" }, `holds U+202E`},
		{"entry id duplicate", func(b B) { entry(b, 2).ID = "e2"; entry(b, 2).Score = 0.4 }, `body.entries[2] "e2": duplicate id: also body.entries[1]`},
		{"more entries than the cap", func(b B) { b.Header.Bottleneck.MaxEntries = 2 }, "body.entries: 3 entries exceed header.bottleneck.max_entries 2"},
		{"rank order by score", func(b B) { entry(b, 2).Score = 0.95; entry(b, 2).QualityScore = 0.95 }, `body.entries[2] "e3": out of rank order`},
		{"rank order ties by id", func(b B) {
			entry(b, 1).ID, entry(b, 2).ID = "e3", "e2"
			b.Body.CausalGraph = nil
			b.Header.Counts.CausalEdges = 0
		},
			`body.entries[2] "e2": out of rank order`},
		{"category soma", func(b B) { entry(b, 0).Category = "dream_journal" }, `category "dream_journal" is soma`},
		{"category unknown", func(b B) { entry(b, 0).Category = "gossip" }, `category "gossip" is not one of`},
		{"content empty", func(b B) { entry(b, 0).Content = "" }, `body.entries[0] "e1": content is empty`},
		{"confidence above 1", func(b B) { entry(b, 0).Confidence = 1.7 }, `body.entries[0] "e1": confidence 1.7 is outside [0,1]`},
		{"confidence at creation negative", func(b B) { entry(b, 0).ConfidenceAtCreation = -0.1 }, "confidence_at_creation -0.1 is outside [0,1]"},
		{"quality above 1", func(b B) { entry(b, 1).QualityScore = 2 }, "quality_score 2 is outside [0,1]"},
		{"score NaN", func(b B) { entry(b, 2).Score = math.NaN() }, "score NaN is outside [0,1]"},
		{"decay above 1", func(b B) { entry(b, 0).Decay = 1.5 }, "decay 1.5 is outside [0,1]"},
		{"source confidence above 1", func(b B) { entry(b, 0).Source.Confidence = 3 }, "source.confidence 3 is outside [0,1]"},
		{"counts negative", func(b B) { entry(b, 0).ContradictedCount = -1 }, "contradicted_count -1"},
		{"decay class unknown", func(b B) { entry(b, 0).DecayClass = "eternal" }, `decay_class "eternal" is not one of`},
		{"market regime unknown", func(b B) { entry(b, 0).MarketRegime = "moon" }, `market_regime "moon"`},
		{"domain empty", func(b B) { entry(b, 0).Domain = "" }, "domain is empty"},
		{"last access not a time", func(b B) { entry(b, 0).LastAccessedAt = "yesterday" }, `last_accessed_at "yesterday" is not an RFC 3339 time`},
		{"valid until not a time", func(b B) { entry(b, 2).ValidUntil = "2027-01-01" }, `valid_until "2027-01-01"`},
		{"strength below 1", func(b B) { entry(b, 0).Strength = 0 }, "strength 0 is below 1"},
		{"provenance unknown", func(b B) { entry(b, 0).Provenance = "rumor" }, `provenance "rumor"`},
		{"source golem empty", func(b B) { entry(b, 0).Source.GolemID = "" }, "source.golem_id is empty"},
		{"polarity unknown", func(b B) { entry(b, 0).Polarity = "neutral" }, `polarity "neutral"`},
		{"status quarantined", func(b B) { entry(b, 0).Status = "quarantined" }, "quarantined entries are never candidates"},
		{"status unknown", func(b B) { entry(b, 0).Status = "zombie" }, `status "zombie" is not one of`},
		{"set-aside id", func(b B) {
			entry(b, 2).ID = "quarantined:0123456789ab:e3"
			b.Body.CausalGraph[1].TargetID = "quarantined:0123456789ab:e3"
		}, `body.entries[2]: id "quarantined:0123456789ab:e3" begins with "quarantined:" or "apart:", the forms a store keeps for the rows it sets aside`},
		{"embedding not finite", func(b B) { entry(b, 0).Embedding = bundle.PackF32([]float32{0, float32(math.NaN()), 0, 0}) }, "embedding[1] is not a finite number"},
		// edges
		{"edge out of order", func(b B) { g := b.Body.CausalGraph; g[0], g[1] = g[1], g[0] }, `body.causal_graph[1] "e1 -> e2": out of order`},
		{"edge duplicate", func(b B) { b.Body.CausalGraph[1] = b.Body.CausalGraph[0] }, `body.causal_graph[1] "e1 -> e2": duplicate edge`},
		{"edge end outside", func(b B) { b.Body.CausalGraph[1].TargetID = "soma-9" }, `target_id "soma-9" is not an entry of the bundle`},
		{"edge weight above 1", func(b B) { b.Body.CausalGraph[0].Weight = 1.5 }, "weight 1.5 is outside [0,1]"},
		{"edge evidence negative", func(b B) { b.Body.CausalGraph[0].Evidence = -4 }, "evidence -4 is negative"},
		// playbook
		{"playbook digest", func(b B) { b.Body.Playbook.Text += "- one more line\n" }, "body.playbook.digest"},
		{"playbook name", func(b B) { b.Body.Playbook.Name = "STRATEGY.md" }, `body.playbook.name: "STRATEGY.md" is not "PLAYBOOK.md"`},
		// reflection
		{"item index", func(b B) { b.Body.Reflection.Learned[0].Index = 3 }, `body.reflection.learned[0]: index 3, name "learned", but the item sits in category 2 "learned"`},
		{"item name", func(b B) { b.Body.Reflection.GotWrong[0].Name = "learned" }, `body.reflection.got_wrong[0]: index 3, name "learned"`},
		{"item text empty", func(b B) { b.Body.Reflection.Learned[0].Text = "" }, "body.reflection.learned[0]: text is empty"},
		{"frame saying nothing", func(b B) { b.Body.Reflection.Learned[0].Frame = &bundle.Frame{} },
			"body.reflection.learned[0].frame: frame says nothing"},
		{"frame confidence above 1", func(b B) { x := 1.5; b.Body.Reflection.Learned[0].Frame.Confidence = &x },
			"body.reflection.learned[0].frame: confidence 1.5 is outside [0,1]"},
		{"frame recommendation unknown", func(b B) { b.Body.Reflection.GotWrong[0].Frame.Recommendation = "shrug" },
			`body.reflection.got_wrong[0].frame: recommendation "shrug" is not one of`},
		{"frame reason without a verdict", func(b B) { f := b.Body.Reflection.GotWrong[0].Frame; f.Recommendation, f.Contribution = "", nil },
			"contribution or reason without a recommendation"},
		{"frame counts without contested", func(b B) { b.Body.Reflection.Learned[0].Frame.Validated = 2 }, "counts without contested"},
		{"item novelty above 1", func(b B) { b.Body.Reflection.Learned[0].Novelty = 1.15 }, "novelty 1.15 is outside [0,1]"},
		{"ref kind unknown", func(b B) { b.Body.Reflection.NeverTested[0].Refs[0].Kind = "rumor" }, `body.reflection.never_tested[0].refs[0] "h-12": kind "rumor"`},
		{"ref id empty", func(b B) { b.Body.Reflection.NeverTested[0].Refs[0].ID = "" }, "reference id is empty"},
		{"ref dangling", func(b B) { b.Body.Reflection.Learned[0].Refs[0].ID = "ghost" }, `body.reflection.learned[0].refs[0] "ghost": dangling reference`},
		{"vector length", func(b B) { b.Body.Reflection.Learned[0].Vector.Dims = 3 }, "body.reflection.learned[0].vector: data is 8 bytes, want 12"},
		{"vector dims", func(b B) { b.Body.Reflection.Learned[0].Vector.Dims = 0 }, "dims 0 is not a positive length"},
		{"vector space empty", func(b B) { b.Body.Reflection.Learned[0].Vector.Space = "" }, "space is empty"},
		{"vector not finite", func(b B) {
			b.Body.Reflection.Learned[0].Vector.Data = bundle.PackF32([]float32{float32(math.Inf(-1)), 0})
		}, "data[0] is not a finite number"},
		// autopsy
		{"clock unknown", func(b B) { b.Body.Autopsy.Clocks = []string{"midnight"} }, `body.autopsy.clocks[0]: clock "midnight"`},
		{"clock twice", func(b B) { b.Body.Autopsy.Clocks = []string{"staleness", "staleness"} }, `clock "staleness" is listed twice`},
		{"window reversed", func(b B) { b.Body.Autopsy.WindowStartTick = 4000 }, "window_start_tick 4000 is after window_end_tick 3000"},
		{"more correct than known", func(b B) { b.Body.Autopsy.Correct = 41 }, "correct 41 and known 40"},
		{"accuracy above 1", func(b B) { *b.Body.Autopsy.Accuracy = 1.25 }, "body.autopsy.accuracy: accuracy 1.25"},
		{"fitness negative", func(b B) { *b.Body.Autopsy.Fitness = -1 }, "body.autopsy.fitness: fitness -1"},
		{"toxic ref kind", func(b B) { b.Body.Autopsy.ToxicEntries[1].Entry.Kind = bundle.RefHypothesis },
			`body.autopsy.toxic_entries[1].entry "e2": kind "hypothesis": a toxic entry refers to an entry`},
		{"toxic dangling", func(b B) { b.Body.Autopsy.ToxicEntries[1].Entry.ID = "ghost" }, `body.autopsy.toxic_entries[1].entry "ghost": dangling reference`},
		{"toxic duplicate", func(b B) { b.Body.Autopsy.ToxicEntries[1].Entry.ID = "soma-9" }, `body.autopsy.toxic_entries[1] "soma-9": duplicate toxic entry`},
		{"toxic recommendation", func(b B) { b.Body.Autopsy.ToxicEntries[0].Recommendation = "ignore" }, `recommendation "ignore" is not one of discard, invert, reinvestigate`},
		{"toxic contribution", func(b B) { b.Body.Autopsy.ToxicEntries[0].ContributionToFailure = 1.01 }, `"soma-9": contribution_to_failure 1.01 is outside [0,1]`},
		{"toxic confidence", func(b B) { b.Body.Autopsy.ToxicEntries[0].ConfidenceAtFailure = -1 }, "confidence_at_failure -1"},
		{"toxic failure rate", func(b B) { b.Body.Autopsy.ToxicEntries[0].FailureRate = 1.5 }, `"soma-9": failure_rate 1.5 is outside [0,1]`},
		{"toxic decay class", func(b B) { b.Body.Autopsy.ToxicEntries[0].DecayClass = "eternal" }, `decay_class "eternal"`},
		{"senescence threshold", func(b B) { b.Body.Autopsy.SenescenceThreshold = 2 }, "senescence_threshold 2 is outside [0,1]"},
		{"toxic failures above uses", func(b B) { b.Body.Autopsy.ToxicEntries[0].Failures = 11 }, "failures 11 and uses 10"},
		{"toxic content empty", func(b B) { b.Body.Autopsy.ToxicEntries[0].Content = "" }, `"soma-9": content is empty`},
		// left_out
		{"left out but in the bundle", func(b B) {
			b.Body.LeftOut = []bundle.Ref{{Kind: bundle.RefEntry, ID: "e1"}, {Kind: bundle.RefEntry, ID: "soma-9"}}
			b.Header.Counts.LeftOut = 2
		}, `body.left_out[0] "e1": declared left out, but it is body.entries[0]`},
		{"left out under a set-aside id", func(b B) {
			b.Body.LeftOut[0].ID = "apart:x:soma-9"
			b.Body.Autopsy.ToxicEntries[0].Entry.ID = "apart:x:soma-9"
			b.Body.Reflection.GotWrong[0].Refs[0].ID = "apart:x:soma-9"
		}, `body.left_out[0]: id "apart:x:soma-9" begins with`},
		{"left out unreferenced", func(b B) {
			b.Body.LeftOut = append(b.Body.LeftOut, bundle.Ref{Kind: bundle.RefEntry, ID: "zzz"})
			b.Header.Counts.LeftOut = 2
		}, `body.left_out[1] "zzz": declared left out, but no reflection item or toxic entry refers to it`},
		{"left out not an entry", func(b B) {
			b.Body.LeftOut[0].Kind = bundle.RefHypothesis
			b.Body.Autopsy = nil
			b.Body.Reflection.GotWrong = nil
			fixCounts(b)
		},
			`body.left_out[0] "soma-9": kind "hypothesis": only entries are left out`},
		{"left out twice", func(b B) { b.Body.LeftOut = append(b.Body.LeftOut, b.Body.LeftOut[0]); b.Header.Counts.LeftOut = 2 }, `body.left_out[1] "soma-9": listed twice`},
		{"left out order", func(b B) {
			b.Body.LeftOut = []bundle.Ref{{Kind: bundle.RefEntry, ID: "zzz"}, {Kind: bundle.RefEntry, ID: "soma-9"}}
			b.Body.Reflection.Learned[0].Refs = append(b.Body.Reflection.Learned[0].Refs, bundle.Ref{Kind: bundle.RefEntry, ID: "zzz"})
			b.Header.Counts.LeftOut = 2
		}, `body.left_out[1] "soma-9": out of order: after "zzz"`},
		{"left out missing", func(b B) { b.Body.LeftOut = nil; b.Header.Counts.LeftOut = 0 }, `"soma-9": dangling reference`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testkit.Full()
			tc.edit(b)
			errs := b.Check()
			if len(errs) == 0 {
				t.Fatalf("Check() found nothing, want %q", tc.want)
			}
			var msgs []string
			for _, err := range errs {
				msgs = append(msgs, err.Error())
				if !errors.Is(err, bundle.ErrCorrupt) {
					t.Errorf("%q does not wrap ErrCorrupt", err)
				}
			}
			all := strings.Join(msgs, "\n")
			if n := max(cascades[tc.name], 1); len(errs) != n || !strings.Contains(all, tc.want) {
				t.Errorf("Check() =\n%s\nwant %d problem(s), one saying %q", all, n, tc.want)
			}
		})
	}
}

// cascades are the rows whose edit cannot help breaking more than one
// rule: an empty or duplicate id also loses the edges and references to
// it, a NaN score is also out of rank order, a cap of 0 is also exceeded.
var cascades = map[string]int{
	"max entries not positive": 2,
	"entry id empty":           3,
	"entry id duplicate":       2,
	"score NaN":                2,
	"left out missing":         2,
	// an id that breaks the id rule is still an id: the edge to it dangles
	"entry id with a bidi override":    2,
	"entry id with NUL":                2,
	"entry id zero-width":              2,
	"entry id too long":                2,
	"left out id with a bidi override": 4,
}

// fixCounts makes the header's counts agree with the body after an edit.
func fixCounts(b *bundle.Bundle) {
	c := &b.Header.Counts
	c.Entries, c.CausalEdges, c.LeftOut = len(b.Body.Entries), len(b.Body.CausalGraph), len(b.Body.LeftOut)
	c.ToxicEntries, c.ReflectionItems = 0, 0
	if a := b.Body.Autopsy; a != nil {
		c.ToxicEntries = len(a.ToxicEntries)
	}
	if r := b.Body.Reflection; r != nil {
		for _, items := range [][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect, r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
			c.ReflectionItems += len(items)
		}
	}
}

func TestCheckReportsEveryProblem(t *testing.T) {
	b := testkit.Full()
	b.Body.Entries[0].Confidence = 2
	b.Body.Entries[1].Category = "gossip"
	b.Body.CausalGraph[0].Weight = -1
	errs := b.Check()
	if len(errs) != 3 {
		t.Fatalf("Check() = %d problems, want 3: %v", len(errs), errors.Join(errs...))
	}
	var ce *bundle.CheckError
	if !errors.As(errs[0], &ce) || ce.Section != "body.entries[0]" || ce.ID != "e1" {
		t.Errorf("first problem = %#v, want section body.entries[0], id e1", errs[0])
	}
	want := `bundle: body.entries[0] "e1": confidence 2 is outside [0,1]`
	if got := fmt.Sprint(errs[0]); got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

func TestCheckIncludesDecodeRules(t *testing.T) {
	b := testkit.Full()
	b.Header.Format = "bardo.bundle/v9"
	errs := b.Check()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "header.format") {
		t.Errorf("Check() = %v, want the header.format problem", errs)
	}
}
