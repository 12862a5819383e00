package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/bardo-golem/bardo/bundlediff"
)

// writeDiff prints a Result for a person: the two bundles, then each
// section that changed, under a heading with its counts. A line starts
// with "+" (in B only), "-" (in A only), "~" (changed, its changes
// indented below) or "=" (re-minted: an entry of A under B's id). Lines
// are sorted by id, bytewise; the playbook prints as a unified diff.
func writeDiff(w io.Writer, r *bundlediff.Result) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "a: %s, generation %d, %s\n", r.A.GolemID, r.A.Generation, r.A.Digest)
	fmt.Fprintf(&sb, "b: %s, generation %d, %s\n", r.B.GolemID, r.B.Generation, r.B.Digest)
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

	var s diffSection
	for _, c := range r.Header {
		s.add("", 0, "~ "+c.String())
	}
	s.write(&sb, "header", count("header"))

	e := &r.Entries
	for _, x := range e.Removed {
		s.add(x.ID, 0, "- "+diffEntryLine(x))
	}
	for _, x := range e.Added {
		s.add(x.ID, 1, "+ "+diffEntryLine(x))
	}
	for _, x := range e.Changed {
		s.add(x.ID, 2, "~ "+x.ID, x.Changes...)
	}
	for _, x := range e.Reminted {
		s.add(x.A, 3, fmt.Sprintf("= %s → %s  cosine %s in %s", x.A, x.B, strconv.FormatFloat(x.Cosine, 'f', 6, 64), x.Space), x.Changes...)
	}
	entries := "entries"
	if r.Snapshot != nil {
		entries = "insights"
	}
	s.write(&sb, entries, count("entries"), fmt.Sprintf("%d re-minted", len(e.Reminted)))

	if p := &r.Playbook; len(p.Changes) > 0 || p.Unified != "" {
		fmt.Fprintf(&sb, "\nplaybook: %s added, %s removed\n", diffLineCount(p.LinesAdded), diffLineCount(p.LinesRemoved))
		for _, c := range p.Changes {
			fmt.Fprintf(&sb, "  ~ %s\n", c)
		}
		sb.WriteString(p.Unified)
	}

	for _, x := range r.CausalGraph.Removed {
		s.add(x.SourceID+"\x00"+x.TargetID, 0, "- "+diffEdgeLine(x))
	}
	for _, x := range r.CausalGraph.Added {
		s.add(x.SourceID+"\x00"+x.TargetID, 1, "+ "+diffEdgeLine(x))
	}
	for _, x := range r.CausalGraph.Changed {
		s.add(x.SourceID+"\x00"+x.TargetID, 2, fmt.Sprintf("~ %s → %s", x.SourceID, x.TargetID), x.Changes...)
	}
	s.write(&sb, "causal_graph", count("causal_graph"))

	f := &r.Reflection
	for _, c := range f.Changes {
		s.add("", 0, "~ "+c.String())
	}
	for _, x := range f.Removed {
		s.add(diffItemKey(x.Index, x.Refs, x.Text), 0, "- "+diffItemLine(x.Category, x.Text, x.Refs))
	}
	for _, x := range f.Added {
		s.add(diffItemKey(x.Index, x.Refs, x.Text), 1, "+ "+diffItemLine(x.Category, x.Text, x.Refs))
	}
	for _, x := range f.Changed {
		s.add(diffItemKey(x.Index, x.Refs, x.Text), 2, "~ "+diffItemLine(x.Category, x.Text, x.Refs), x.Changes...)
	}
	for _, name := range f.Reordered {
		s.add("\xff", 3, "~ "+name+": items in another order")
	}
	s.write(&sb, "reflection", count("reflection"))

	a := &r.Autopsy
	for _, c := range a.Changes {
		s.add("", 0, "~ "+c.String())
	}
	for _, x := range a.Removed {
		s.add(x.ID, 0, "- "+diffToxicLine(x))
	}
	for _, x := range a.Added {
		s.add(x.ID, 1, "+ "+diffToxicLine(x))
	}
	for _, x := range a.Changed {
		s.add(x.ID, 2, "~ toxic "+x.ID, x.Changes...)
	}
	if a.Reordered {
		s.add("\xff", 3, "~ toxic entries in another order")
	}
	autopsy, toxic := count("autopsy"), count("autopsy.toxic_entries")
	s.write(&sb, "autopsy", bundlediff.Stat{Added: toxic.Added, Removed: toxic.Removed, Changed: autopsy.Changed + toxic.Changed})

	for _, x := range r.LeftOut.Removed {
		s.add(x, 0, "- "+x)
	}
	for _, x := range r.LeftOut.Added {
		s.add(x, 1, "+ "+x)
	}
	s.write(&sb, "left_out", count("left_out"))
	writeSnapshotDiff(&sb, &s, r.Snapshot, count)

	_, err := io.WriteString(w, sb.String())
	return err
}

// diffSection collects the lines of one section, to sort them before they
// are written.
type diffSection struct {
	lines []diffSectionLine
}

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
	defer func() { s.lines = s.lines[:0] }()
	if len(s.lines) == 0 {
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
	for _, l := range s.lines {
		fmt.Fprintf(sb, "  %s\n", l.text)
		for _, c := range l.changes {
			fmt.Fprintf(sb, "      %s\n", c)
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
	return fmt.Sprintf("%s  %s  confidence %.3f  %s", e.ID, e.Category, e.Confidence, strconv.Quote(e.Content))
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
