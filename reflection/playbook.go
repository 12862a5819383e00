package reflection

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/textembed"
)

// PlaybookThreshold is the bardo-text/v1 cosine between a PLAYBOOK.md line
// and a toxic entry's content at or above which the line implicates the
// entry.
const PlaybookThreshold = 0.8

// MarkerPrefix starts every annotation line the reflection adds to
// PLAYBOOK.md in category 8.
const MarkerPrefix = "> ⚠ implicates toxic entry "

// annotatedPlaybook is category 8 before it becomes an item, plus what
// category 6 says about it.
type annotatedPlaybook struct {
	text  string
	refs  []Ref    // the document, then the implicated entries in the autopsy's order
	lines []string // the implicated lines, in document order
}

// implication is one toxic entry a playbook line implicates.
type implication struct {
	index  int     // into the autopsy's toxic entries
	named  bool    // the line names the entry's id
	cosine float64 // bardo-text/v1 cosine of the line to the entry's content
}

// annotatePlaybook copies the playbook and, after each line that
// implicates toxic entries, adds one marker line per entry, in the
// autopsy's rank order:
//
//	> ⚠ implicates toxic entry "e-17" (invert, contribution to failure 0.82): names its id
//	> ⚠ implicates toxic entry "e-3" (discard, contribution to failure 0.40): cosine 0.87 to its content
//
// Lines are otherwise unchanged, and so is the final newline or its
// absence. Lines are split at "\n"; a "\r" before it is ignored when
// matching, and a marker after such a line ends with "\r\n" too.
func annotatePlaybook(doc *grimoire.Document, toxic []Toxic) *annotatedPlaybook {
	pb := &annotatedPlaybook{refs: []Ref{{RefDocument, doc.Name}}}
	if len(toxic) == 0 {
		pb.text = doc.Text
		return pb
	}
	vecs := make([][]float32, len(toxic))
	for i, t := range toxic {
		vecs[i] = textembed.Embed(t.Entry.Content)
	}
	implicated := make([]bool, len(toxic))
	body, final := strings.CutSuffix(doc.Text, "\n")
	var b strings.Builder
	for i, line := range strings.Split(body, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		bare, cr := strings.CutSuffix(line, "\r")
		found := implications(bare, toxic, vecs)
		if len(found) > 0 {
			pb.lines = append(pb.lines, bare)
		}
		for _, f := range found {
			b.WriteByte('\n')
			b.WriteString(f.marker(toxic))
			if cr {
				b.WriteByte('\r')
			}
			implicated[f.index] = true
		}
	}
	if final {
		b.WriteByte('\n')
	}
	pb.text = b.String()
	for j, ok := range implicated {
		if ok {
			pb.refs = append(pb.refs, Ref{RefEntry, toxic[j].Entry.ID})
		}
	}
	return pb
}

func implications(line string, toxic []Toxic, vecs [][]float32) []implication {
	var found []implication
	lv := textembed.Embed(line)
	for i := range toxic {
		named := namesID(line, toxic[i].Entry.ID)
		cos := cosine(lv, vecs[i])
		if named || cos >= PlaybookThreshold {
			found = append(found, implication{i, named, cos})
		}
	}
	return found
}

func (f implication) marker(toxic []Toxic) string {
	t := &toxic[f.index]
	var why []string
	if f.named {
		why = append(why, "names its id")
	}
	if f.cosine >= PlaybookThreshold {
		why = append(why, "cosine "+fixed2(f.cosine)+" to its content")
	}
	return MarkerPrefix + `"` + t.Entry.ID + `" (` + t.Recommendation +
		", contribution to failure " + fixed2(t.Contribution) + "): " + strings.Join(why, "; ")
}

// namesID reports whether line contains id as a whole token: the runes
// next to the occurrence, if any, are not letters, digits, '-' or '_', so
// "e1" is not named by "e10" nor "pre-e1".
func namesID(line, id string) bool {
	if id == "" {
		return false
	}
	for off := 0; ; {
		i := strings.Index(line[off:], id)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(id)
		before, _ := utf8.DecodeLastRuneInString(line[:start])
		after, _ := utf8.DecodeRuneInString(line[end:])
		if (start == 0 || !idRune(before)) && (end == len(line) || !idRune(after)) {
			return true
		}
		off = start + 1
	}
}

func idRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_'
}

// cosine returns the cosine of a and b computed in float64, or 0 when
// either is all zero or their lengths differ.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += float64(x * y)
		na += float64(x * x)
		nb += float64(y * y)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
