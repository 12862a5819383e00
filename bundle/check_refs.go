package bundle

import (
	"fmt"
	"slices"

	"github.com/bardo-golem/bardo/grimoire"
)

// ReflectionCategories are the names of the nine categories of the death
// reflection, in index order: an item of category i (1–9) has Index i and
// Name ReflectionCategories[i-1].
var ReflectionCategories = [9]string{
	"built_to_do", "learned", "got_wrong", "confused", "suspect",
	"tell_successor", "never_tested", "final_playbook", "causal_graph",
}

var refKinds = []string{RefEntry, RefHypothesis, RefDocument}

var recommendations = []string{RecommendDiscard, RecommendInvert, RecommendReinvestigate}

type category struct {
	index int
	name  string
	items []Item
}

// categories returns the nine categories in index order.
func (r *Reflection) categories() []category {
	lists := [9][]Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect,
		r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph}
	cs := make([]category, 9)
	for i := range cs {
		cs[i] = category{index: i + 1, name: ReflectionCategories[i], items: lists[i]}
	}
	return cs
}

// indexLeftOut records the declared left-out entries before the sections
// that refer to them are checked.
func (c *checker) indexLeftOut() {
	c.leftOut = make(map[string]bool, len(c.b.Body.LeftOut))
	c.referenced = make(map[string]bool)
	for _, r := range c.b.Body.LeftOut {
		if r.Kind == RefEntry {
			c.leftOut[r.ID] = true
		}
	}
}

// ref checks one reference a reflection item or toxic entry makes.
func (c *checker) ref(s string, r Ref) {
	if r.ID == "" {
		c.add(s, "", "reference id is empty")
		return
	}
	c.id(s, "reference id", r.ID)
	c.oneOf(s, r.ID, "kind", r.Kind, refKinds)
	if r.Kind != RefEntry {
		return
	}
	c.referenced[r.ID] = true
	if _, in := c.ids[r.ID]; !in && !c.leftOut[r.ID] {
		c.add(s, r.ID, "dangling reference: the entry is neither in body.entries nor in body.left_out")
	}
}

func (c *checker) reflection() {
	r := c.b.Body.Reflection
	if r == nil {
		return
	}
	for _, cat := range r.categories() {
		for i := range cat.items {
			it := &cat.items[i]
			s := fmt.Sprintf("body.reflection.%s[%d]", cat.name, i)
			if it.Index != cat.index || it.Name != cat.name {
				c.add(s, "", "index %d, name %q, but the item sits in category %d %q", it.Index, it.Name, cat.index, cat.name)
			}
			c.nonEmpty(s, "", "text", it.Text)
			c.unit(s, "", "novelty", it.Novelty)
			if f := it.Frame; f != nil {
				c.frame(s+".frame", f)
			}
			for j, ref := range it.Refs {
				c.ref(fmt.Sprintf("%s.refs[%d]", s, j), ref)
			}
			if v := it.Vector; v != nil {
				c.vector(s+".vector", v)
			}
		}
	}
}

func (c *checker) vector(s string, v *Vector) {
	c.nonEmpty(s, "", "space", v.Space)
	switch {
	case v.Dims <= 0:
		c.add(s, "", "dims %d is not a positive length", v.Dims)
	case len(v.Data) != 4*v.Dims:
		c.add(s, "", "data is %d bytes, want %d (dims %d × 4)", len(v.Data), 4*v.Dims, v.Dims)
	}
	if k := finiteF32(v.Data); k >= 0 {
		c.add(s, "", "data[%d] is not a finite number", k)
	}
}

func (c *checker) autopsy() {
	a := c.b.Body.Autopsy
	if a == nil {
		return
	}
	for i, clock := range a.Clocks {
		s := fmt.Sprintf("body.autopsy.clocks[%d]", i)
		c.oneOf(s, "", "clock", clock, DeathClocks)
		if slices.Contains(a.Clocks[:i], clock) {
			c.add(s, "", "clock %q is listed twice", clock)
		}
	}
	if a.WindowStartTick > a.WindowEndTick {
		c.add("body.autopsy", "", "window_start_tick %d is after window_end_tick %d", a.WindowStartTick, a.WindowEndTick)
	}
	if a.Known < 0 || a.Correct < 0 || a.Correct > a.Known {
		c.add("body.autopsy", "", "correct %d and known %d: want 0 ≤ correct ≤ known", a.Correct, a.Known)
	}
	if a.Accuracy != nil {
		c.unit("body.autopsy.accuracy", "", "accuracy", *a.Accuracy)
	}
	if a.Fitness != nil {
		c.unit("body.autopsy.fitness", "", "fitness", *a.Fitness)
	}
	c.unit("body.autopsy.senescence_threshold", "", "senescence_threshold", a.SenescenceThreshold)
	if a.UnrecordedToxic < 0 {
		c.add("body.autopsy", "", "unrecorded_toxic %d is negative", a.UnrecordedToxic)
	}
	seen := make(map[string]int, len(a.ToxicEntries))
	for i := range a.ToxicEntries {
		t := &a.ToxicEntries[i]
		s := fmt.Sprintf("body.autopsy.toxic_entries[%d]", i)
		id := t.Entry.ID
		if t.Entry.Kind != RefEntry {
			c.add(s+".entry", id, "kind %q: a toxic entry refers to an entry", t.Entry.Kind)
		} else {
			c.ref(s+".entry", t.Entry)
		}
		if j, dup := seen[id]; dup {
			c.add(s, id, "duplicate toxic entry: also body.autopsy.toxic_entries[%d]", j)
		}
		seen[id] = i
		c.nonEmpty(s, id, "content", t.Content)
		c.unit(s, id, "contribution_to_failure", t.ContributionToFailure)
		c.unit(s, id, "confidence_at_failure", t.ConfidenceAtFailure)
		c.oneOf(s, id, "recommendation", t.Recommendation, recommendations)
		c.unit(s, id, "failure_rate", t.FailureRate)
		if t.DecayClass != "" {
			c.oneOf(s, id, "decay_class", t.DecayClass, grimoire.DecayClasses)
		}
		if t.Failures < 0 || t.Failures > t.Uses {
			c.add(s, id, "failures %d and uses %d: want 0 ≤ failures ≤ uses", t.Failures, t.Uses)
		}
	}
}

// leftOut checks the declared closure: body.left_out lists, once and in id
// order, exactly the entries that are referred to but not in the bundle.
func (c *checker) leftOutSection() {
	for i, r := range c.b.Body.LeftOut {
		s := fmt.Sprintf("body.left_out[%d]", i)
		switch {
		case r.Kind != RefEntry:
			c.add(s, r.ID, "kind %q: only entries are left out", r.Kind)
			continue
		case r.ID == "":
			c.add(s, "", "id is empty")
			continue
		}
		c.entryID(s, "id", r.ID)
		if i > 0 {
			if p := c.b.Body.LeftOut[i-1]; p.ID == r.ID {
				c.add(s, r.ID, "listed twice")
			} else if p.ID > r.ID {
				c.add(s, r.ID, "out of order: after %q (left_out sorts by id)", p.ID)
			}
		}
		if j, in := c.ids[r.ID]; in {
			c.add(s, r.ID, "declared left out, but it is body.entries[%d]", j)
		}
		if !c.referenced[r.ID] {
			c.add(s, r.ID, "declared left out, but no reflection item or toxic entry refers to it")
		}
	}
}

func (c *checker) frame(s string, f *Frame) {
	if *f == (Frame{}) {
		c.add(s, "", "frame says nothing: it must be absent")
	}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"confidence", f.Confidence}, {"confidence_at_creation", f.ConfidenceAtCreation}, {"contribution", f.Contribution}} {
		if p.v != nil {
			c.unit(s, "", p.name, *p.v)
		}
	}
	if f.Recommendation != "" {
		c.oneOf(s, "", "recommendation", f.Recommendation, []string{RecommendDiscard, RecommendInvert, RecommendReinvestigate})
	}
	if f.Recommendation == "" && (f.Contribution != nil || f.Reason != "") {
		c.add(s, "", "contribution or reason without a recommendation")
	}
	if f.Validated < 0 || f.Contradicted < 0 {
		c.add(s, "", "counts %d validated, %d contradicted: negative", f.Validated, f.Contradicted)
	}
	if !f.Contested && (f.Validated != 0 || f.Contradicted != 0) {
		c.add(s, "", "counts without contested")
	}
}
