package reflection

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
)

// Bounds of the deterministic advice in category 6.
const (
	tellToxic      = 5 // top toxic entries advised on
	tellQuestions  = 8 // open questions of category 4
	tellHypotheses = 8 // untested hypotheses of category 7
	tellLines      = 3 // implicated playbook lines quoted
)

// MaxAdvisorItems is the most items an advisor may write in category 6.
const MaxAdvisorItems = 32

// tellSuccessor synthesizes category 6 from the others, in this order:
// advice on the top toxic entries, the regime transition, the playbook
// lines that rest on toxic entries, the open questions of category 4 not
// already advised on, and the untested hypotheses of category 7.
func tellSuccessor(a AutopsyInput, pb *annotatedPlaybook, confused []pick, untested []*grimoire.Hypothesis) []Item {
	items := []Item{}
	top := a.Toxic[:min(len(a.Toxic), tellToxic)]
	advised := make(map[string]bool, len(top))
	var toxicRefs []Ref
	for i := range top {
		t := &top[i]
		items = append(items, textItem(6, toxicAdvice(t), []Ref{{RefEntry, t.Entry.ID}}))
		advised[t.Entry.ID] = true
		toxicRefs = append(toxicRefs, Ref{RefEntry, t.Entry.ID})
	}
	if s := transition(a); s != "" {
		items = append(items, textItem(6, s, toxicRefs))
	}
	if pb != nil && len(pb.lines) > 0 {
		items = append(items, textItem(6, revisePlaybook(pb.lines), slices.Clone(pb.refs)))
	}
	n := 0
	for _, p := range confused {
		if n == tellQuestions {
			break
		}
		if advised[p.entry.ID] {
			continue
		}
		items = append(items, textItem(6, openQuestion(p), []Ref{{RefEntry, p.entry.ID}}))
		n++
	}
	for _, h := range untested[:min(len(untested), tellHypotheses)] {
		kind := "hypothesis"
		if o := oneLine(h.Origin); o != "" {
			kind = o + " hypothesis"
		}
		text := "Test this " + kind + " I never had time for: " + quote(h.Content) + "."
		items = append(items, textItem(6, text, []Ref{{RefHypothesis, h.ID}}))
	}
	return items
}

// toxicAdvice turns the autopsy's verdict into an instruction:
//
//	Do not trust "…": invert it (failed 9 of 10 uses in crisis; contribution to failure 0.82).
func toxicAdvice(t *Toxic) string {
	var s string
	switch t.Recommendation {
	case RecommendInvert:
		s = "Do not trust " + quote(t.Entry.Content) + ": invert it"
	case RecommendDiscard:
		s = "Discard " + quote(t.Entry.Content) + ": it drove my failed predictions"
	default:
		s = "Re-test " + quote(t.Entry.Content) + " before you rely on it"
	}
	s += " ("
	if r := oneLine(t.Reason); r != "" {
		s += r + "; "
	}
	return s + "contribution to failure " + fixed2(t.Contribution) + ")."
}

// transition says what the regime change means for the successor, then
// the autopsy's hypothesis; "" when the autopsy did not run or knows
// neither regime nor hypothesis.
func transition(a AutopsyInput) string {
	if !a.Ran {
		return ""
	}
	last, failed := oneLine(a.LastValidRegime), oneLine(a.FailureRegime)
	var s string
	switch {
	case last != "" && failed != "" && last == failed:
		s = "My predictions held in " + last + " and later failed in it: the regime alone does not explain my failure."
	case last != "" && failed != "":
		s = "What held in " + last + " failed in " + failed + ": re-validate regime-conditional knowledge before you trust it in " + failed + "."
	case failed != "":
		s = "My predictions failed in " + failed + ": treat what I learned in other regimes as unproven there."
	case last != "":
		s = "My predictions last held in " + last + ": expect my knowledge to fail outside it."
	}
	if h := oneLine(a.Hypothesis); h != "" {
		if s != "" {
			s += " "
		}
		s += sentence(h)
	}
	return s
}

func revisePlaybook(lines []string) string {
	var s string
	if len(lines) == 1 {
		s = "Revise PLAYBOOK.md: 1 line rests on toxic entries ("
	} else {
		s = "Revise PLAYBOOK.md: " + strconv.Itoa(len(lines)) + " lines rest on toxic entries ("
	}
	shown := lines[:min(len(lines), tellLines)]
	for i, l := range shown {
		if i > 0 {
			s += "; "
		}
		s += quote(l)
	}
	if more := len(lines) - len(shown); more > 0 {
		s += "; and " + strconv.Itoa(more) + " more"
	}
	return s + ")."
}

func openQuestion(p pick) string {
	e := p.entry
	switch {
	case p.toxic != nil:
		return toxicAdvice(p.toxic)
	case e.RequiresInvestigation:
		return "Investigate what I never resolved: " + quote(e.Content) + "."
	default:
		return "Find out when this holds and when it fails (contradicted " + times(e.ContradictedCount) +
			", validated " + times(e.ValidatedCount) + "): " + quote(e.Content) + "."
	}
}

func quote(s string) string { return `"` + oneLine(s) + `"` }

// sentence ends s with a full stop unless it already ends a sentence.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// acceptAdvice judges an advisor's category 6. Its items must be 1 to
// MaxAdvisorItems, each with text, and may only reference what the rest
// of the reflection or the autopsy draws on: an advisor cannot make the
// bundle name records it never saw. Index, name and vector are set here
// (the vector is bardo-text/v1 of the text) and novelty is reset.
func acceptAdvice(r *Reflection, a AutopsyInput, items []Item) ([]Item, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("the advisor wrote no items")
	}
	if len(items) > MaxAdvisorItems {
		return nil, fmt.Errorf("the advisor wrote %d items, more than %d", len(items), MaxAdvisorItems)
	}
	known := make(map[Ref]bool)
	for _, cat := range r.Categories {
		for _, it := range cat {
			for _, ref := range it.Refs {
				known[ref] = true
			}
		}
	}
	for _, t := range a.Toxic {
		known[Ref{RefEntry, t.Entry.ID}] = true
	}
	out := make([]Item, len(items))
	for i, it := range items {
		if strings.TrimSpace(it.Text) == "" {
			return nil, fmt.Errorf("advisor item %d: empty text", i+1)
		}
		for _, ref := range it.Refs {
			if !known[ref] {
				return nil, fmt.Errorf("advisor item %d: reference %s %q is not drawn on by the reflection or the autopsy", i+1, ref.Kind, ref.ID)
			}
		}
		out[i] = textItem(6, it.Text, slices.Clone(it.Refs))
	}
	return out, nil
}
