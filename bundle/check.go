package bundle

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// GermlineCategories are the entry categories that may cross the Weismann
// barrier; dream_journal entries stay soma.
var GermlineCategories = []string{
	grimoire.CategoryInsight, grimoire.CategoryHeuristic, grimoire.CategoryWarning,
	grimoire.CategoryCausalLink, grimoire.CategoryStrategyFragment, grimoire.CategoryAntiKnowledge,
}

// DeathClocks are the clocks an autopsy may say fired.
var DeathClocks = []string{"staleness", "senescence", "forced"}

// A CheckError is one rule of the format that a bundle breaks: the section,
// the full id of the entry, edge or reference concerned (empty when it has
// none), and the rule.
type CheckError struct {
	Section string
	ID      string
	Err     error
}

func (e *CheckError) Error() string {
	if e.ID == "" {
		return "bundle: " + e.Section + ": " + e.Err.Error()
	}
	return fmt.Sprintf("bundle: %s %q: %s", e.Section, e.ID, e.Err)
}

// Unwrap returns the rule broken.
func (e *CheckError) Unwrap() error { return e.Err }

// Is makes every CheckError match ErrCorrupt.
func (e *CheckError) Is(target error) bool { return target == ErrCorrupt }

// Check checks every rule of the format that Decode does not: value
// ranges and vocabularies, rank order, unique ids, edge ends, references
// and the left-out closure, reflection categories, the playbook digest and
// the header's counts; for a snapshot, the rules of its body (orders,
// counts, and its pressures, notes and trajectory against its numbers).
// It returns every problem, in section order; none means the bundle is
// sound. It includes what Decode checks, so a bundle built in memory can
// be checked before it is written.
func (b *Bundle) Check() []error {
	c := &checker{b: b, ids: make(map[string]int, len(b.Body.Entries))}
	if err := validate(b); err != nil {
		c.errs = append(c.errs, err)
	}
	c.header()
	c.share()
	switch b.Header.Kind {
	case KindSnapshot:
		c.snapshot()
		return c.errs
	case KindListing:
		c.listing()
		return c.errs
	case KindClade:
		c.cladeBody()
	}
	c.entries()
	c.edges()
	c.playbook()
	c.indexLeftOut()
	c.reflection()
	c.autopsy()
	c.leftOutSection()
	c.counts()
	return c.errs
}

type checker struct {
	b    *Bundle
	errs []error
	ids  map[string]int // entry id → index in body.entries
	// leftOut and referenced close the references: every entry a
	// reflection item or toxic entry names is in the bundle or left out,
	// and every left-out entry is named.
	leftOut    map[string]bool
	referenced map[string]bool
}

func (c *checker) add(section, id string, format string, args ...any) {
	c.errs = append(c.errs, &CheckError{Section: section, ID: id, Err: fmt.Errorf(format, args...)})
}

func (c *checker) unit(section, id, name string, v float64) {
	if !(v >= 0 && v <= 1) {
		c.add(section, id, "%s %v is outside [0,1]", name, v)
	}
}

func (c *checker) oneOf(section, id, name, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		c.add(section, id, "%s %q is not one of %s", name, v, strings.Join(allowed, ", "))
	}
}

// id checks a non-empty id by the id rule (grimoire.CheckID, FORMAT.md
// "Ids"): it is named by its section, not quoted as the subject, since it
// may not print as itself.
func (c *checker) id(section, name, v string) {
	if v == "" {
		return
	}
	if err := grimoire.CheckID(v); err != nil {
		c.add(section, "", "%s %q %v", name, v, err)
	}
}

// entryID checks an entry's id: the id rule, and no set-aside form
// (grimoire.IsSetAside, FORMAT.md "Ids"): that form is a store's own, for
// a row it keeps beside another holding the same id, and a bundle carrying
// one could hold the id a store sets a row aside under.
func (c *checker) entryID(section, name, v string) {
	c.id(section, name, v)
	if grimoire.IsSetAside(v) {
		c.add(section, "", "%s %q begins with %q or %q, the forms a store keeps for the rows it sets aside: a bundle never carries one", name, v, grimoire.AsidePrefix, grimoire.ApartPrefix)
	}
}

func (c *checker) nonEmpty(section, id, name, v string) {
	if v == "" {
		c.add(section, id, "%s is empty", name)
	}
}

// errNotUTC is the rule every time in a bundle follows.
var errNotUTC = errors.New("is not an RFC 3339 time in UTC (…Z)")

func (c *checker) time(section, id, name, v string, optional bool) {
	if v == "" && optional {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, v); err != nil || !strings.HasSuffix(v, "Z") {
		c.add(section, id, "%s %q %v", name, v, errNotUTC)
	}
}

func (c *checker) header() {
	h := &c.b.Header
	c.nonEmpty("header.golem_id", "", "golem id", h.GolemID)
	c.id("header.golem_id", "golem id", h.GolemID)
	c.id("header.lineage_id", "lineage id", h.LineageID)
	if h.Generation < 0 {
		c.add("header.generation", "", "generation %d is negative", h.Generation)
	}
	for i, p := range h.Parents {
		if !isDigest(p) {
			c.add(fmt.Sprintf("header.parents[%d]", i), "", "%q is not \"sha256:\" and 64 lower-case hex digits", p)
		}
	}
	c.ancestry()
	c.time("header.exported_at", "", "exported_at", h.ExportedAt, false)
	if h.Phase != "" {
		c.oneOf("header.phase", "", "phase", h.Phase, grimoire.Phases)
	}
	if d := h.Death; d != nil {
		c.oneOf("header.death.cause", "", "cause", d.Cause, grimoire.DeathCauses)
		c.time("header.death.at", "", "at", d.At, false)
	}
	if h.Bottleneck.MaxEntries <= 0 {
		c.add("header.bottleneck.max_entries", "", "%d is not a positive cap", h.Bottleneck.MaxEntries)
	}
	c.time("header.bottleneck.now", "", "now", h.Bottleneck.Now, false)
	if a := h.Advisor; a != nil {
		c.nonEmpty("header.advisor.command", "", "command", a.Command)
		if !a.Used && a.Reason == "" {
			c.add("header.advisor.reason", "", "the advisor's output was not used and no reason says why")
		}
	}
}

// counts checks the header's counts against the body.
func (c *checker) counts() {
	n := &c.b.Header.Counts
	body := &c.b.Body
	items := 0
	if r := body.Reflection; r != nil {
		for _, cat := range r.categories() {
			items += len(cat.items)
		}
	}
	toxic := 0
	if a := body.Autopsy; a != nil {
		toxic = len(a.ToxicEntries)
	}
	for _, k := range []struct {
		key        string
		got, inner int
		what       string
	}{
		{"entries", n.Entries, len(body.Entries), "body.entries"},
		{"causal_edges", n.CausalEdges, len(body.CausalGraph), "body.causal_graph"},
		{"reflection_items", n.ReflectionItems, items, "the items of body.reflection"},
		{"toxic_entries", n.ToxicEntries, toxic, "body.autopsy.toxic_entries"},
		{"left_out", n.LeftOut, len(body.LeftOut), "body.left_out"},
	} {
		if k.got != k.inner {
			c.add("header.counts."+k.key, "", "%d, but %s holds %d", k.got, k.what, k.inner)
		}
	}
	c.nonNegativeCounts()
	if n.Entries > n.Candidates {
		c.add("header.counts.candidates", "", "%d candidates cannot yield %d entries", n.Candidates, n.Entries)
	}
}

// nonNegativeCounts checks the counts no section of the body holds.
func (c *checker) nonNegativeCounts() {
	n := &c.b.Header.Counts
	for _, k := range []struct {
		key string
		v   int
	}{
		{"candidates", n.Candidates}, {"soma_entries", n.SomaEntries},
		{"edges_left_out", n.EdgesLeftOut}, {"episodes", n.Episodes},
	} {
		if k.v < 0 {
			c.add("header.counts."+k.key, "", "%d is negative", k.v)
		}
	}
}
