package main

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bardo-golem/bardo/bundlediff"
)

// diffView is what a person asked to see of a diff: every change (all),
// or the expected ones summed up; some sections and fields only.
type diffView struct {
	all      bool
	sections []string // empty: every section
	fields   []string // empty: every field
}

func (v *diffView) section(name string) bool {
	return len(v.sections) == 0 || slices.Contains(v.sections, name)
}

func (v *diffView) field(name string) bool {
	return len(v.fields) == 0 || slices.Contains(v.fields, name)
}

// changes keeps the changes of the fields asked for, and, unless all,
// drops the expected ones.
func (v *diffView) changes(cs []bundlediff.Change) []bundlediff.Change {
	var out []bundlediff.Change
	for _, c := range cs {
		if v.field(c.Field) && (v.all || !c.Expected) {
			out = append(out, c)
		}
	}
	return out
}

// diffWidth is the width every line of a diff fits in, but the
// playbook's own lines.
const diffWidth = 100

// writeDiff prints a Result for a person: a table of the two bundles,
// then each section that changed, in the order autopsy, reflection,
// PLAYBOOK.md, causal graph, entries, left-out references, under a
// heading with its counts. When B descends from A, the changes that
// inheritance explains are summed up in one line per rule, unless
// v.all. A line starts with "+" (in B only), "-" (in A only), "~"
// (changed, its changes indented below) or "=" (re-minted: an entry of A
// under B's id). Lines are sorted by id, bytewise, and cut to 100
// columns; the playbook prints as a unified diff.
func writeDiff(w io.Writer, r *bundlediff.Result, v diffView) error {
	var sb strings.Builder
	writeDiffSides(&sb, r)
	if r.Empty() {
		// Only a bundle out of FORMAT.md's order can get here: every field
		// inside the digest is compared.
		sb.WriteString("\nno difference in content, yet the digests differ: a bundle is out of FORMAT.md's order (see bardo verify --deep)\n")
		_, err := io.WriteString(w, sb.String())
		return err
	}
	stats := r.Stats()
	count := func(section string) bundlediff.Stat {
		i := slices.IndexFunc(stats, func(s bundlediff.Stat) bool { return s.Section == section })
		if i < 0 {
			return bundlediff.Stat{Section: section} // a section of the other kind of bundle
		}
		return stats[i]
	}

	s := diffSection{view: &v}
	var headerExpected int
	for _, c := range r.Header {
		if c.Expected {
			headerExpected++
		}
	}
	for _, c := range v.changes(r.Header) {
		s.add("", 0, "~ "+c.String())
	}
	if headerExpected > 0 && !v.all {
		s.summary(fmt.Sprintf("%d fields that always change, as expected (generation, golem_id, parents, counts, …)", headerExpected))
	}
	s.write(&sb, "header", count("header"))

	a := &r.Autopsy
	if v.all || !a.Expected {
		for _, c := range v.changes(a.Changes) {
			s.add("", 0, "~ "+c.String())
		}
		if v.field("") {
			for _, x := range a.Removed {
				s.add(x.ID, 0, "- "+diffToxicLine(x))
			}
			for _, x := range a.Added {
				s.add(x.ID, 1, "+ "+diffToxicLine(x))
			}
		}
		for _, x := range a.Changed {
			if cs := v.changes(x.Changes); len(cs) > 0 {
				s.add(x.ID, 2, "~ toxic "+x.ID, cs...)
			}
		}
		if a.Reordered && v.field("") {
			s.add("\xff", 3, "~ toxic entries in another order")
		}
	} else {
		s.summary(fmt.Sprintf("B's own autopsy, as expected: %d changed; A's %d toxic entries arrived as entries",
			count("autopsy").Changed+count("autopsy.toxic_entries").Changed, len(a.Removed)))
	}
	autopsy, toxic := count("autopsy"), count("autopsy.toxic_entries")
	s.write(&sb, "autopsy", bundlediff.Stat{Added: toxic.Added, Removed: toxic.Removed, Changed: autopsy.Changed + toxic.Changed})

	f := &r.Reflection
	if v.all || !f.Expected {
		for _, c := range v.changes(f.Changes) {
			s.add("", 0, "~ "+c.String())
		}
		if v.field("") {
			for _, x := range f.Removed {
				s.add(diffItemKey(x.Index, x.Refs, x.Text), 0, "- "+diffItemLine(x.Category, x.Text, x.Refs))
			}
			for _, x := range f.Added {
				s.add(diffItemKey(x.Index, x.Refs, x.Text), 1, "+ "+diffItemLine(x.Category, x.Text, x.Refs))
			}
		}
		for _, x := range f.Changed {
			if cs := v.changes(x.Changes); len(cs) > 0 {
				s.add(diffItemKey(x.Index, x.Refs, x.Text), 2, "~ "+diffItemLine(x.Category, x.Text, x.Refs), cs...)
			}
		}
		if v.field("") {
			for _, name := range f.Reordered {
				s.add("\xff", 3, "~ "+name+": items in another order")
			}
		}
	} else {
		// The counts of the heading: items changed, the reflection's own
		// fields and the categories in another order are all "changed".
		st := count("reflection")
		s.summary(fmt.Sprintf("B's own reflection, as expected: %d added, %d removed, %d changed (--all lists them)",
			st.Added, st.Removed, st.Changed))
	}
	s.write(&sb, "reflection", count("reflection"))

	if p := &r.Playbook; v.section("playbook") && (len(p.Changes) > 0 || p.Unified != "") {
		fmt.Fprintf(&sb, "\nplaybook: %s added, %s removed\n", diffLineCount(p.LinesAdded), diffLineCount(p.LinesRemoved))
		for _, c := range v.changes(p.Changes) {
			fmt.Fprintf(&sb, "  ~ %s\n", fitDiff(c.String(), diffWidth-4))
		}
		if v.field("") || v.field("lines") {
			sb.WriteString(p.Unified)
		}
	}

	edgesSummed := map[string]int{}
	if v.field("") {
		for _, x := range r.CausalGraph.Removed {
			if x.Expected && !v.all {
				edgesSummed[x.Rule]++
			} else {
				s.add(x.SourceID+"\x00"+x.TargetID, 0, "- "+diffEdgeLine(x))
			}
		}
		for _, x := range r.CausalGraph.Added {
			if x.Expected && !v.all {
				edgesSummed[x.Rule+"+"]++
			} else {
				s.add(x.SourceID+"\x00"+x.TargetID, 1, "+ "+diffEdgeLine(x))
			}
		}
	}
	if n := edgesSummed[bundlediff.RuleCut]; n > 0 {
		s.summary(fmt.Sprintf("%s edges of A cut with an end by B's bottleneck, as expected", humanCount(n)))
	}
	if n, m := edgesSummed[bundlediff.RuleSighting], edgesSummed[bundlediff.RuleSighting+"+"]; n+m > 0 {
		s.summary(fmt.Sprintf("%s edges of A moved onto the entries their ends were sightings of (%s in B), as expected",
			humanCount(n), humanCount(m)))
	}
	for _, x := range r.CausalGraph.Changed {
		if cs := v.changes(x.Changes); len(cs) > 0 {
			s.add(x.SourceID+"\x00"+x.TargetID, 2, fmt.Sprintf("~ %s → %s", x.SourceID, x.TargetID), cs...)
		}
	}
	s.write(&sb, "causal_graph", count("causal_graph"))

	e := &r.Entries
	summed := map[string]int{}
	for _, x := range e.Removed {
		if x.Expected && !v.all {
			summed[x.Rule]++
		} else if v.field("") {
			s.add(x.ID, 0, "- "+diffEntryLine(x))
		}
	}
	for _, x := range e.Added {
		if x.Expected && !v.all {
			summed[x.Rule]++
		} else if v.field("") {
			s.add(x.ID, 1, "+ "+diffEntryLine(x))
		}
	}
	for _, x := range e.Changed {
		if x.Expected && !v.all {
			summed[x.Rule]++
			continue
		}
		if cs := v.changes(x.Changes); len(cs) > 0 {
			s.add(x.ID, 2, "~ "+x.ID, cs...)
		}
	}
	for _, x := range e.Reminted {
		if cs := v.changes(x.Changes); v.field("") || len(cs) > 0 {
			s.add(x.A, 3, fmt.Sprintf("= %s → %s  cosine %s in %s", x.A, x.B, strconv.FormatFloat(x.Cosine, 'f', 4, 64), x.Space), cs...)
		}
	}
	for _, rule := range []struct{ name, text string }{
		{bundlediff.RuleDiscount, helpf("entries discounted by inheritance, as expected (min(source, {{.inherit.BasePredecessor}})·{{.inherit.GenerationFactor}}^(h−1))")},
		{bundlediff.RuleBookkeeping, "entries with provenance and source bookkeeping only, as expected"},
		{bundlediff.RuleArchive, helpf("entries archived below the retrieval floor {{.inherit.RetrievalFloor}}, as expected")},
		{bundlediff.RuleArrival, "reflection items and autopsy markers of A arrived as entries, as expected"},
		{bundlediff.RuleCut, "entries of A below B's bottleneck cut (B is full), as expected"},
		{bundlediff.RuleSighting, helpf("entries of A that inheritance took for sightings of another entry (cosine > {{.dedup.SkipAbove}}), as expected")},
	} {
		if n := summed[rule.name]; n > 0 {
			s.summary(fmt.Sprintf("%s %s", humanCount(n), rule.text))
		}
	}
	entries := "entries"
	if r.Snapshot != nil {
		entries = "insights"
	}
	s.write(&sb, entries, count("entries"), fmt.Sprintf("%d re-minted", len(e.Reminted)))

	if l := &r.LeftOut; l.Expected && !v.all {
		s.summary(fmt.Sprintf("B's own reflection's references left out, as expected: %d added, %d removed (--all lists them)",
			len(l.Added), len(l.Removed)))
	} else if v.field("") {
		for _, x := range l.Removed {
			s.add(x, 0, "- "+x)
		}
		for _, x := range l.Added {
			s.add(x, 1, "+ "+x)
		}
	}
	s.write(&sb, "left_out", count("left_out"))
	writeSnapshotDiff(&sb, &s, r.Snapshot, count)

	_, err := io.WriteString(w, shortDigests(sb.String()))
	return err
}

// writeDiffSides prints the table of the two bundles: golem, generation,
// digest and parents, short, and whether B descends from A.
func writeDiffSides(sb *strings.Builder, r *bundlediff.Result) {
	rows := [][3]string{
		{"", "a", "b"},
		{"golem", r.A.GolemID, r.B.GolemID},
		{"generation", strconv.Itoa(r.A.Generation), strconv.Itoa(r.B.Generation)},
		{"digest", r.A.Digest, r.B.Digest},
	}
	wa := 0
	for _, row := range rows {
		wa = max(wa, utf8.RuneCountInString(shortDigests(row[1])))
	}
	for _, row := range rows {
		a := shortDigests(row[1])
		line := fmt.Sprintf("%-10s  %s%s  %s", row[0], a, strings.Repeat(" ", wa-utf8.RuneCountInString(a)), shortDigests(row[2]))
		sb.WriteString(fitDiff(strings.TrimRight(line, " "), diffWidth) + "\n")
	}
	if r.Descends {
		sb.WriteString("b descends from a: changes inheritance explains are summed up (--all lists them)\n")
	}
}

var digestRE = regexp.MustCompile(`sha256:([0-9a-f]{8})[0-9a-f]{56}`)

// shortDigests writes every digest as its first 8 hex digits and "…".
func shortDigests(s string) string { return digestRE.ReplaceAllString(s, "sha256:$1…") }

// fitDiff cuts s to width columns, ending it with "…" when cut.
func fitDiff(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// humanCount writes n with thousands separated: 1,977.
func humanCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// diffSection collects the lines of one section, to sort them before they
// are written.
type diffSection struct {
	view   *diffView
	lines  []diffSectionLine
	summed []string // the summary lines of expected change
}

// summary adds a line that sums up expected change.
func (s *diffSection) summary(text string) { s.summed = append(s.summed, text) }

type diffSectionLine struct {
	key     string // the id the line is sorted by; "" keeps the lines first, in the order added
	kind    int    // 0 removed, 1 added, 2 changed, 3 re-minted: the order of one id's lines
	text    string
	changes []bundlediff.Change
}

func (s *diffSection) add(key string, kind int, text string, changes ...bundlediff.Change) {
	s.lines = append(s.lines, diffSectionLine{key, kind, text, changes})
}

// write prints the section, if it holds anything, and empties it. The
// heading counts what changed: "entries: 2 added, 1 removed", and more
// counts in extra when they are not zero.
func (s *diffSection) write(sb *strings.Builder, name string, st bundlediff.Stat, extra ...string) {
	defer func() { s.lines, s.summed = s.lines[:0], s.summed[:0] }()
	if len(s.lines)+len(s.summed) == 0 || (s.view != nil && !s.view.section(name)) {
		return
	}
	var counts []string
	for _, c := range []struct {
		n    int
		word string
	}{{st.Added, "added"}, {st.Removed, "removed"}, {st.Changed, "changed"}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.word))
		}
	}
	for _, x := range extra {
		if !strings.HasPrefix(x, "0 ") {
			counts = append(counts, x)
		}
	}
	slices.SortStableFunc(s.lines, func(x, y diffSectionLine) int {
		if c := cmp.Compare(x.key, y.key); c != 0 {
			return c
		}
		return cmp.Compare(x.kind, y.kind)
	})
	fmt.Fprintf(sb, "\n%s: %s\n", name, strings.Join(counts, ", "))
	for _, l := range s.summed {
		fmt.Fprintf(sb, "  %s\n", fitDiff(l, diffWidth-2))
	}
	for _, l := range s.lines {
		fmt.Fprintf(sb, "  %s\n", fitDiff(shortDigests(l.text), diffWidth-2))
		for _, c := range l.changes {
			fmt.Fprintf(sb, "      %s\n", fitDiff(shortDigests(c.String()), diffWidth-6))
		}
	}
}

// diffLineCount counts lines: "1 line", "2 lines".
func diffLineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

func diffEntryLine(e bundlediff.Entry) string {
	return fmt.Sprintf("%s  %s  confidence %.4g  %s", e.ID, e.Category, e.Confidence, strconv.Quote(e.Content))
}

func diffEdgeLine(e bundlediff.Edge) string {
	s := fmt.Sprintf("%s → %s  weight %.3f", e.SourceID, e.TargetID, e.Weight)
	if e.Mechanism != "" {
		s += "  " + strconv.Quote(e.Mechanism)
	}
	return s
}

func diffItemLine(category, text string, refs []string) string {
	s := category + "  " + strconv.Quote(text)
	if len(refs) > 0 {
		s += "  [" + strings.Join(refs, ", ") + "]"
	}
	return s
}

// diffItemKey sorts reflection items by category index, then references,
// then text, as bundlediff lists them.
func diffItemKey(index int, refs []string, text string) string {
	return fmt.Sprintf("%02d\x00%s\x00\x00%s", index, strings.Join(refs, "\x00"), text)
}

func diffToxicLine(t bundlediff.Toxic) string {
	return fmt.Sprintf("toxic %s  %s  contribution %.3f  %s", t.ID, t.Recommendation, t.ContributionToFailure, strconv.Quote(t.Content))
}
