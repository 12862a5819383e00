package docs

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readDoc returns the text of a file of the repository, named from its
// root ("docs/EXPORT.md", "README.md").
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// slug is the anchor GitHub gives a heading: lower case, backticks and
// punctuation other than '-' and '_' dropped, spaces made '-'.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown text's headings (outside code
// blocks), a repeated heading's as GitHub numbers them ("x", "x-1", …).
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		s := slug(h)
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// section returns the text of the section under the heading whose line is
// heading ("## Limits", "### `entry`"), up to the next heading of the
// same or a higher level.
func section(t *testing.T, md, heading string) string {
	t.Helper()
	level := strings.IndexByte(heading, ' ')
	start := strings.Index(md, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("no heading %q", heading)
	}
	rest := md[start+len(heading)+2:]
	for i := 0; i < len(rest); {
		j := strings.IndexByte(rest[i:], '\n')
		line := rest[i:]
		if j >= 0 {
			line = rest[i : i+j]
		}
		if n := strings.IndexByte(line, ' '); strings.HasPrefix(line, "#") && n > 0 && n <= level && strings.Trim(line[:n], "#") == "" {
			return rest[:i]
		}
		if j < 0 {
			break
		}
		i += j + 1
	}
	return rest
}

// tables returns the rows of every Markdown table in text, header and
// separator rows left out, each row's cells trimmed. A "\|" in a cell is
// a "|" of the cell's text.
func tables(text string) [][][]string {
	var out [][][]string
	var cur [][]string
	row := -1
	for line := range strings.Lines(text + "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if cur != nil {
				out = append(out, cur)
			}
			cur, row = nil, -1
			continue
		}
		row++
		if row < 2 { // the header and the |---| line
			if cur == nil {
				cur = [][]string{}
			}
			continue
		}
		line = strings.ReplaceAll(line, `\|`, "\x00")
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
		}
		cur = append(cur, cells)
	}
	return out
}

// after returns the text of md after the line holding marker.
func after(t *testing.T, md, marker string) string {
	t.Helper()
	i := strings.Index(md, marker)
	if i < 0 {
		t.Fatalf("no %q", marker)
	}
	return md[i+len(marker):]
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// codeSpans returns the texts in backticks of a cell.
func codeSpans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

var number = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// numbers returns the numbers of a cell outside parentheses, in order.
func numbers(cell string) []float64 {
	var kept strings.Builder
	depth := 0
	for _, r := range cell {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0:
			kept.WriteRune(r)
		}
	}
	var out []float64
	for _, m := range number.FindAllString(kept.String(), -1) {
		f, _ := strconv.ParseFloat(m, 64)
		out = append(out, f)
	}
	return out
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		" Genomic bottleneck":           "genomic-bottleneck",
		" `causal_edge`":                "causal_edge",
		" bardo's extensions":           "bardos-extensions",
		" Confidence, decay and memory": "confidence-decay-and-memory",
		" The `--json` flag":            "the---json-flag",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
