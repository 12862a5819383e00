package reflection

import (
	"strconv"
	"strings"
)

// Memoir renders the reflection as the Markdown memoir a person reads
// (`bardo reflect` prints it). The format:
//
//   - A title, "# Death reflection of GOLEM (generation N)".
//   - For each category in order, "## I. Title" (Titles), then its items,
//     or "_(none)_" when it has none. Category 6 first says whether the
//     advisor wrote it, when one was asked.
//   - An item whose text is one line is a list item: its lead (Item.Lead,
//     from its Frame) and the text, then in italics its novelty and
//     references, "- Suspected at 0.25: text *(novelty 0.42; entry `e-1`)*".
//   - An item whose text has several lines (STRATEGY.md, PLAYBOOK.md) is a
//     fenced block holding the text (without its final newline; a fence
//     longer than any run of backticks in it), then the same italic line,
//     after the lead in italics when the item has one.
//
// Item text is written as is: it is the Golem's own prose and Markdown.
// Blocks are separated by one blank line; the memoir ends with a newline.
func Memoir(r *Reflection) string {
	var b strings.Builder
	b.WriteString("# Death reflection")
	if r.GolemID != "" {
		b.WriteString(" of " + r.GolemID + " (generation " + strconv.Itoa(r.Generation) + ")")
	}
	b.WriteString("\n")
	for i, items := range r.Categories {
		b.WriteString("\n## " + strconv.Itoa(i+1) + ". " + Titles[i] + "\n\n")
		var blocks []string
		if i == 5 {
			switch {
			case r.AdvisorUsed:
				blocks = append(blocks, "_Written by the advisor._")
			case r.AdvisorError != "":
				blocks = append(blocks, "_The advisor's answer was not used ("+oneLine(r.AdvisorError)+"); this is the deterministic advice._")
			}
		}
		if len(items) == 0 {
			blocks = append(blocks, "_(none)_")
		}
		list := false // the last block is a list that the next one-line item joins
		for _, it := range items {
			if !strings.Contains(it.Text, "\n") {
				line := "- " + it.Framed() + " " + meta(it)
				if list {
					blocks[len(blocks)-1] += "\n" + line
				} else {
					blocks = append(blocks, line)
				}
				list = true
				continue
			}
			fence := strings.Repeat("`", max(3, longestRun(it.Text, '`')+1))
			text := strings.TrimSuffix(it.Text, "\n")
			m := meta(it)
			if lead := it.Lead(); lead != "" {
				m = "*" + lead + "* " + m
			}
			blocks = append(blocks, fence+"\n"+text+"\n"+fence, m)
			list = false
		}
		b.WriteString(strings.Join(blocks, "\n\n") + "\n")
	}
	return b.String()
}

// meta is an item's novelty and references: "*(novelty 0.42; entry `e-1`)*".
func meta(it Item) string {
	s := "*(novelty " + fixed2(it.Novelty)
	for i, ref := range it.Refs {
		if i == 0 {
			s += "; "
		} else {
			s += ", "
		}
		s += ref.Kind + " " + codeSpan(ref.ID)
	}
	return s + ")*"
}

// codeSpan writes s as an inline code span that no backtick in s can end
// early, padded where CommonMark would otherwise strip or merge.
func codeSpan(s string) string {
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ")) {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
