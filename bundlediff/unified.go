package bundlediff

import (
	"fmt"
	"strings"
)

// Context is the number of unchanged lines a hunk of a unified diff shows
// around each change, as diff -u does.
const Context = 3

// noNewline follows a line that does not end in a newline, as in diff -u.
const noNewline = "\\ No newline at end of file\n"

// Unified returns the unified diff of the texts a and b, labelled aName
// and bName, in the form of diff -u --label aName --label bName: a "---"
// and a "+++" line, then hunks "@@ -l,n +l,n @@" with Context lines of
// context around the changes, deleted lines before inserted ones. Lines
// are compared with their newlines, so a last line without one differs
// from the same line with one, and is marked "\ No newline at end of
// file". Equal texts give "".
func Unified(aName, bName, a, b string) string {
	text, _, _ := unified(aName, bName, a, b)
	return text
}

// unified is Unified, and the numbers of lines it deletes and inserts.
func unified(aName, bName, a, b string) (text string, deleted, inserted int) {
	if a == b {
		return "", 0, 0
	}
	al, bl := splitLines(a), splitLines(b)
	del, ins := lineDiff(al, bl)
	ops := script(del, ins)
	for _, o := range ops {
		switch o.kind {
		case '-':
			deleted++
		case '+':
			inserted++
		}
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", aName, bName)
	for lo := 0; lo < len(ops); {
		// A hunk starts Context lines before a change and runs until
		// more than 2×Context unchanged lines follow one.
		first := lo
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		start := max(lo, first-Context)
		end := first
		for end < len(ops) {
			next := end
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next == len(ops) || next-end > 2*Context {
				end = min(len(ops), end+Context)
				break
			}
			for next < len(ops) && ops[next].kind != ' ' {
				next++
			}
			end = next
		}
		writeHunk(&sb, ops[start:end], al, bl)
		lo = end
	}
	return sb.String(), deleted, inserted
}

// op is one line of an edit script: ' ' common, '-' deleted from a, '+'
// inserted from b.
type op struct {
	kind byte
	i, j int // the next line of a and of b at this point of the script
}

// script walks the two marked texts in step: the deleted lines of a run
// of changes come before its inserted lines, as diff -u prints them.
func script(deleted, inserted []bool) []op {
	var ops []op
	i, j := 0, 0
	for i < len(deleted) || j < len(inserted) {
		switch {
		case i < len(deleted) && deleted[i]:
			ops = append(ops, op{'-', i, j})
			i++
		case j < len(inserted) && inserted[j]:
			ops = append(ops, op{'+', i, j})
			j++
		default:
			ops = append(ops, op{' ', i, j})
			i, j = i+1, j+1
		}
	}
	return ops
}

// writeHunk prints one hunk: its header, then its lines.
func writeHunk(sb *strings.Builder, ops []op, al, bl []string) {
	var na, nb int
	for _, o := range ops {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(ops[0].i, na), hunkRange(ops[0].j, nb))
	for _, o := range ops {
		var line string
		if o.kind == '+' {
			line = bl[o.j]
		} else {
			line = al[o.i]
		}
		sb.WriteByte(o.kind)
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n" + noNewline)
		}
	}
}

// hunkRange is one side of a hunk header: "l,n" from 1, "l" alone when n
// is 1, and for an empty side the line before it, "l,0".
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines cuts text after each newline; the last line may have none.
func splitLines(text string) []string {
	var lines []string
	for line := range strings.Lines(text) {
		lines = append(lines, line)
	}
	return lines
}
