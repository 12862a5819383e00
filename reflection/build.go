package reflection

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/textembed"
)

// Recommendations the epistemic autopsy gives a toxic entry.
const (
	RecommendDiscard       = "discard"
	RecommendInvert        = "invert"
	RecommendReinvestigate = "reinvestigate"
)

// Toxic is one entry the autopsy found driving failed predictions.
type Toxic struct {
	Entry          *grimoire.Entry // the full record (the pipeline may find it on a second pass)
	Recommendation string          // RecommendDiscard, RecommendInvert or RecommendReinvestigate
	Contribution   float64         // contribution_to_failure, in [0,1]
	Reason         string          // the autopsy's why, e.g. "failed 9 of 10 uses in crisis"
}

// AutopsyInput is what the reflection takes from the epistemic autopsy.
type AutopsyInput struct {
	Ran             bool    // false: no death clock fired, and Toxic is empty
	Toxic           []Toxic // ranked by the autopsy, most to blame first
	FailureRegime   string
	LastValidRegime string
	Hypothesis      string // the regime transition hypothesis, a sentence
}

// Reinvestigate returns the toxic entries the autopsy recommends
// reinvestigating (they belong in category 4 too), in rank order.
func (a AutopsyInput) Reinvestigate() []Toxic {
	var out []Toxic
	for _, t := range a.Toxic {
		if t.Recommendation == RecommendReinvestigate {
			out = append(out, t)
		}
	}
	return out
}

// Edge is one edge of the germline causal graph, with the contents of the
// entries at its ends when the pipeline knows them.
type Edge struct {
	SourceID, TargetID     string
	Weight                 float64
	Evidence               int64
	Mechanism              string
	SourceText, TargetText string
}

// TellFunc lets an external advisor write category 6. It receives the
// reflection with categories 1–5 and 7–9 assembled and category 6 empty,
// and must not modify it. Running the advisor (timeouts, exit codes) is
// the caller's business; Build only judges the items it returns.
type TellFunc func(r *Reflection) ([]Item, error)

// Build assembles the reflection from what the collector kept, the
// autopsy's findings and the germline causal graph. With a non-nil tell,
// category 6 is the advisor's when its answer is acceptable, and the
// deterministic advice otherwise; AdvisorUsed and AdvisorError say which.
// Build does not change the collector and may be called again.
func (c *Collector) Build(a AutopsyInput, graph []Edge, tell TellFunc) (*Reflection, error) {
	if err := checkAutopsy(a); err != nil {
		return nil, err
	}
	if err := checkGraph(graph); err != nil {
		return nil, err
	}
	r := &Reflection{}
	if c.header != nil {
		r.GolemID, r.Generation = c.header.GolemID, c.header.Generation
	}
	for i := range r.Categories {
		r.Categories[i] = []Item{}
	}

	if c.strategy != nil {
		r.Categories[0] = []Item{textItem(1, c.strategy.Text, []Ref{{RefDocument, c.strategy.Name}})}
	}
	for _, e := range c.learned.Sorted() {
		r.Categories[1] = append(r.Categories[1], c.entryItem(2, Frame{Confidence: ptr(e.Confidence)}, e))
	}
	for _, p := range c.gotWrongPicks(a) {
		r.Categories[2] = append(r.Categories[2], c.entryItem(3, p.gotWrongFrame(), p.entry))
	}
	confused := c.confusedPicks(a)
	for _, p := range confused {
		r.Categories[3] = append(r.Categories[3], c.entryItem(4, p.confusedFrame(), p.entry))
	}
	for _, e := range c.suspect.Sorted() {
		r.Categories[4] = append(r.Categories[4], c.entryItem(5, Frame{Confidence: ptr(e.Confidence)}, e))
	}
	untested := c.untested.Sorted()
	for _, h := range untested {
		r.Categories[6] = append(r.Categories[6], c.hypothesisItem(h))
	}
	var pb *annotatedPlaybook
	if c.playbook != nil {
		pb = annotatePlaybook(c.playbook, a.Toxic)
		r.Categories[7] = []Item{textItem(8, pb.text, pb.refs)}
	}
	r.Categories[8] = graphItems(graph, c.limits.CausalGraph)

	advice := tellSuccessor(a, pb, confused, untested)
	if tell == nil {
		r.Categories[5] = advice
		return r, nil
	}
	items, err := tell(r)
	if err == nil {
		items, err = acceptAdvice(r, a, items)
	}
	if err != nil {
		r.Categories[5] = advice
		r.AdvisorError = err.Error()
		return r, nil
	}
	r.Categories[5] = items
	r.AdvisorUsed = true
	return r, nil
}

func checkAutopsy(a AutopsyInput) error {
	if !a.Ran && len(a.Toxic) > 0 {
		return fmt.Errorf("autopsy did not run but has toxic entries (%d)", len(a.Toxic))
	}
	seen := make(map[string]bool, len(a.Toxic))
	for i, t := range a.Toxic {
		if t.Entry == nil {
			return fmt.Errorf("autopsy toxic entry %d: no entry record", i+1)
		}
		id := t.Entry.ID
		switch t.Recommendation {
		case RecommendDiscard, RecommendInvert, RecommendReinvestigate:
		default:
			return fmt.Errorf("autopsy toxic entry %q: recommendation %q is not discard, invert or reinvestigate", id, t.Recommendation)
		}
		if !(t.Contribution >= 0 && t.Contribution <= 1) {
			return fmt.Errorf("autopsy toxic entry %q: contribution to failure %v is outside [0,1]", id, t.Contribution)
		}
		if seen[id] {
			return fmt.Errorf("autopsy toxic entry %q: listed twice", id)
		}
		seen[id] = true
	}
	return nil
}

func checkGraph(graph []Edge) error {
	for i, e := range graph {
		if e.SourceID == "" || e.TargetID == "" {
			return fmt.Errorf("causal graph edge %d (%q → %q): an end has no id", i+1, e.SourceID, e.TargetID)
		}
		if math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) {
			return fmt.Errorf("causal graph edge %q → %q: weight %v is not a finite number", e.SourceID, e.TargetID, e.Weight)
		}
	}
	return nil
}

// pick is an entry chosen for category 3 or 4, with the autopsy's verdict
// when it has one.
type pick struct {
	entry *grimoire.Entry
	toxic *Toxic
}

// gotWrongPicks: the toxic entries in the autopsy's order, then the
// entries felt as losses (already ranked), skipping ids listed before,
// capped at Limits.GotWrong. The collector kept Limits.GotWrong entries,
// enough to fill whatever the toxic ones leave.
func (c *Collector) gotWrongPicks(a AutopsyInput) []pick {
	var toxic []pick
	for i := range a.Toxic {
		toxic = append(toxic, pick{a.Toxic[i].Entry, &a.Toxic[i]})
	}
	return mergePicks(toxic, c.gotWrong.Sorted(), c.limits.GotWrong)
}

// confusedPicks: the reinvestigate entries in the autopsy's order, then
// the confused entries, skipping ids listed before, capped at
// Limits.Confused.
func (c *Collector) confusedPicks(a AutopsyInput) []pick {
	var first []pick
	for i := range a.Toxic {
		if a.Toxic[i].Recommendation == RecommendReinvestigate {
			first = append(first, pick{a.Toxic[i].Entry, &a.Toxic[i]})
		}
	}
	return mergePicks(first, c.confused.Sorted(), c.limits.Confused)
}

func mergePicks(first []pick, rest []*grimoire.Entry, limit int) []pick {
	out := make([]pick, 0, limit)
	seen := make(map[string]bool, len(first))
	for _, p := range first {
		if len(out) == limit {
			return out
		}
		out = append(out, p)
		seen[p.entry.ID] = true
	}
	for _, e := range rest {
		if len(out) == limit {
			break
		}
		if !seen[e.ID] {
			out = append(out, pick{entry: e})
		}
	}
	return out
}

// gotWrongFrame says why the entry is here: the autopsy's verdict, and how
// sure the Golem was of something that hurt.
func (p pick) gotWrongFrame() Frame {
	var f Frame
	p.toxic.frame(&f)
	if isGotWrong(p.entry) {
		f.ConfidenceAtCreation = ptr(confidenceAtCreation(p.entry))
		// Say that it hurt, never how much: the emotional tag is soma and
		// its values must not cross into the germline.
		f.Loss = p.entry.EmotionalTag != nil && p.entry.EmotionalTag.Pleasure < 0
		f.Negative = p.entry.Polarity == grimoire.PolarityNegative
	}
	return f
}

func (p pick) confusedFrame() Frame {
	var f Frame
	p.toxic.frame(&f)
	f.OpenQuestion = p.entry.RequiresInvestigation
	if contested(p.entry) {
		f.Contested, f.Validated, f.Contradicted = true, p.entry.ValidatedCount, p.entry.ContradictedCount
	}
	return f
}

// frame copies the autopsy's finding into f; a nil t leaves f as it is.
func (t *Toxic) frame(f *Frame) {
	if t == nil {
		return
	}
	f.Recommendation, f.Contribution, f.Reason = t.Recommendation, ptr(t.Contribution), t.Reason
}

// entryItem is an item drawing on one entry: its content as the text, the
// framing as fields, and the entry's vector.
func (c *Collector) entryItem(index int, f Frame, e *grimoire.Entry) Item {
	f.Reborn = c.reborn(e)
	return Item{
		Index:  index,
		Name:   Names[index-1],
		Text:   e.Content,
		Frame:  f,
		Refs:   []Ref{{RefEntry, e.ID}},
		Vector: c.recordVector(e.Embedding, e.Content),
	}
}

func (c *Collector) hypothesisItem(h *grimoire.Hypothesis) Item {
	return Item{
		Index:  7,
		Name:   NameNeverTested,
		Text:   h.Content,
		Frame:  Frame{Origin: h.Origin},
		Refs:   []Ref{{RefHypothesis, h.ID}},
		Vector: c.recordVector(h.Embedding, h.Content),
	}
}

// recordVector is the vector of an item that is one record: the record's
// embedding in the export's space, or else bardo-text/v1 of its content
// (not of the item text, whose lead would pull every item of a category
// toward the same words).
func (c *Collector) recordVector(v grimoire.Vector, content string) Vector {
	if h := c.header; h != nil && h.Embedding != nil && len(v) > 0 && len(v) == h.Embedding.Dims {
		return Vector{Space: h.Embedding.Model, Data: v}
	}
	return Vector{Space: textembed.Space, Data: textembed.Embed(content)}
}

// textItem is an item that is not one record: its vector is bardo-text/v1
// of its text.
func textItem(index int, text string, refs []Ref) Item {
	return Item{
		Index:  index,
		Name:   Names[index-1],
		Text:   text,
		Refs:   refs,
		Vector: Vector{Space: textembed.Space, Data: textembed.Embed(text)},
	}
}

func fixed2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func times(n int64) string {
	if n == 1 {
		return "1 time"
	}
	return strconv.FormatInt(n, 10) + " times"
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// oneLine collapses runs of white space, newlines included, to one space,
// so record text can sit inside a sentence.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
