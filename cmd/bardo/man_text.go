package main

import (
	"strings"
)

// exitStatusHeading heads the EXIT STATUS section of every runnable
// command's help (exitStatus writes it); the man pages make it a section.
const exitStatusHeading = "EXIT STATUS"

// cobra's man page generator reads a command's Long help as Markdown, and
// bardo's help is plain text written for a terminal: "*/10 * * * *" would
// turn to emphasis, "<golem id>" would vanish as HTML, and the EXIT STATUS
// table would run into one paragraph. manMarkdown says, in Markdown, what
// the plain text shows.

// manMarkdown returns the plain help text as Markdown: every run of lines
// indented by two spaces or more (tables, commands, the exit statuses) is
// a code block, kept as written; the EXIT STATUS line heads its own
// section of the page; every other line has the characters Markdown would
// read escaped, so that it prints as written.
func manMarkdown(text string) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != "" {
			if !inCode {
				b.WriteString("\n```\n")
				inCode = true
			}
			b.WriteString(strings.TrimPrefix(line, "  "))
			b.WriteByte('\n')
			continue
		}
		if inCode {
			b.WriteString("```\n")
			inCode = false
		}
		if line == exitStatusHeading {
			b.WriteString("\n# " + exitStatusHeading + "\n")
			continue
		}
		b.WriteString(escapeMarkdown(line))
		b.WriteByte('\n')
	}
	if inCode {
		b.WriteString("```\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// markdownEscaper escapes what Markdown (blackfriday, under go-md2man)
// reads as markup anywhere in a line. A line that starts like a list item
// or a heading is escaped by escapeMarkdown.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `\<`, `>`, `\>`, `|`, `\|`, `~`, `\~`, `&`, `\&`,
)

func escapeMarkdown(line string) string {
	line = markdownEscaper.Replace(line)
	switch {
	case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "+ "), strings.HasPrefix(line, "- "), strings.HasPrefix(line, "="):
		return `\` + line
	}
	// "1. " starts an ordered list.
	if i := strings.IndexFunc(line, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && strings.HasPrefix(line[i:], ". ") {
		return line[:i] + `\` + line[i:]
	}
	return line
}
