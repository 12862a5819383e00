package bundlediff

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"

var unifiedCases = []struct {
	name string
	a, b string
	want string
}{
	{"equal", "a\nb\n", "a\nb\n", ""},
	{"empty to text", "", "a\nb\n", "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
	{"text to empty", "a\nb\n", "", "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
	{"one line to one line", "a\n", "b\n", "--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n"},
	{"change at the start", ten, strings.Replace(ten, "1\n", "one\n", 1),
		"--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n"},
	{"change in the middle", ten, strings.Replace(ten, "5\n", "five\n", 1),
		"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
	{"change at the end", ten, strings.Replace(ten, "10\n", "ten\n", 1),
		"--- a\n+++ b\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n"},
	{"insertion in the middle", ten, strings.Replace(ten, "5\n", "5\n5.5\n", 1),
		"--- a\n+++ b\n@@ -3,6 +3,7 @@\n 3\n 4\n 5\n+5.5\n 6\n 7\n 8\n"},
	{"changes 7 lines apart share a hunk", ten, strings.Replace(strings.Replace(ten, "2\n", "two\n", 1), "9\n", "nine\n", 1),
		"--- a\n+++ b\n@@ -1,10 +1,10 @@\n 1\n-2\n+two\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+nine\n 10\n"},
	{"changes 8 lines apart make two hunks", ten, strings.Replace(strings.Replace(ten, "2\n", "two\n", 1), "10\n", "ten\n", 1),
		"--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n"},
	{"changes 16 lines apart make two hunks", ten + ten,
		"1\ntwo\n3\n4\n5\n6\n7\n8\n9\n10\n1\n2\n3\n4\n5\n6\n7\neight\n9\n10\n",
		"--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n" +
			"@@ -15,6 +15,6 @@\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n"},
	{"no newline at the end of a", "a\nb", "a\nb\n",
		"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
	{"no newline at the end of b", "a\nb\n", "a\nc",
		"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"},
	{"no newline at the end of either", "a\nb", "a\nc",
		"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
	{"a run of changes: deletions first", "x\na\nb\ny\n", "x\nc\nd\ny\n",
		"--- a\n+++ b\n@@ -1,4 +1,4 @@\n x\n-a\n-b\n+c\n+d\n y\n"},
}

func TestUnified(t *testing.T) {
	for _, tc := range unifiedCases {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Unified("a", "b", tc.a, tc.b)); d != "" {
				t.Errorf("Unified (-want +got):\n%s", d)
			}
		})
	}
}

// TestUnifiedLikeGNU checks the cases above against diff -u, where the
// diff binary exists.
func TestUnifiedLikeGNU(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range unifiedCases {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(gnuDiff(t, dir, false, tc.a, tc.b), Unified("a", "b", tc.a, tc.b)); d != "" {
				t.Errorf("Unified against diff -u (-diff +Unified):\n%s", d)
			}
		})
	}
}

// TestUnifiedRandom diffs random texts over a small alphabet, where many
// shortest scripts tie (and every fiftieth, long ones): each diff must turn a into b when applied, and be
// as short as diff --minimal's and as an LCS table says.
func TestUnifiedRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	text := func(long bool) string {
		var sb strings.Builder
		n := rng.IntN(25)
		if long {
			n = rng.IntN(400)
		}
		for i := range n {
			sb.WriteByte(byte('a' + rng.IntN(5)))
			if i < n-1 || rng.IntN(4) > 0 {
				sb.WriteByte('\n')
			}
		}
		return sb.String()
	}
	dir := t.TempDir()
	_, gnuErr := exec.LookPath("diff")
	for i := range 1000 {
		long := i%50 == 49
		a, b := text(long), text(long)
		got, del, ins := unified("a", "b", a, b)
		applied, err := apply(a, got)
		if err != nil {
			t.Fatalf("case %d: %q → %q: %v\n%s", i, a, b, err, got)
		}
		if applied != b {
			t.Fatalf("case %d: applying the diff of %q → %q gives %q\n%s", i, a, b, applied, got)
		}
		al, bl := splitLines(a), splitLines(b)
		if common := len(al) - del; common != lcs(al, bl) || len(bl)-ins != common {
			t.Fatalf("case %d: %q → %q keeps %d lines, the LCS has %d", i, a, b, common, lcs(al, bl))
		}
		if gnuErr == nil && i < 40 {
			gd, gi := count(gnuDiff(t, dir, true, a, b))
			if gd != del || gi != ins {
				t.Fatalf("case %d: %q → %q: -%d +%d lines, diff --minimal -u has -%d +%d", i, a, b, del, ins, gd, gi)
			}
		}
	}
}

// gnuDiff returns diff -u's output for a and b (labelled a and b), or
// skips the test when there is no diff binary.
func gnuDiff(t *testing.T, dir string, minimal bool, a, b string) string {
	t.Helper()
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("no diff binary")
	}
	pa, pb := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := os.WriteFile(pa, []byte(a), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, []byte(b), 0o666); err != nil {
		t.Fatal(err)
	}
	args := []string{"-u", "--label", "a", "--label", "b", pa, pb}
	if minimal {
		args = append([]string{"--minimal"}, args...)
	}
	out, err := exec.Command("diff", args...).Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("diff: %v", err)
	}
	return string(out)
}

// count returns the deleted and inserted lines of a unified diff.
func count(unified string) (del, ins int) {
	for i, line := range strings.Split(unified, "\n") {
		switch {
		case i < 2 || line == "":
		case line[0] == '-':
			del++
		case line[0] == '+':
			ins++
		}
	}
	return del, ins
}

// apply applies a unified diff to a, checking every hunk header and every
// context and deleted line, as patch(1) would without fuzz.
func apply(a, unified string) (string, error) {
	if unified == "" {
		return a, nil
	}
	al := splitLines(a)
	diff := splitLines(unified)
	if len(diff) < 2 || diff[0] != "--- a\n" || diff[1] != "+++ b\n" {
		return "", fmt.Errorf("no --- a / +++ b header")
	}
	var out []string
	next := 0 // next line of a to copy
	for k := 2; k < len(diff); {
		var aStart, aLen, bStart, bLen int
		if _, err := fmt.Sscanf(hunkHeader(diff[k]), "@@ -%d,%d +%d,%d @@", &aStart, &aLen, &bStart, &bLen); err != nil {
			return "", fmt.Errorf("line %d: %q: %v", k+1, diff[k], err)
		}
		k++
		first := aStart - 1
		if aLen == 0 {
			first = aStart
		}
		if first < next {
			return "", fmt.Errorf("hunk at %d overlaps the one before", aStart)
		}
		out = append(out, al[next:first]...)
		next = first
		if bl := len(out); bLen > 0 && bl != bStart-1 || bLen == 0 && bl != bStart {
			return "", fmt.Errorf("hunk says +%d,%d, but b has %d lines before it", bStart, bLen, bl)
		}
		var seenA, seenB int
		for k < len(diff) && !strings.HasPrefix(diff[k], "@@") {
			kind, line := diff[k][0], diff[k][1:]
			k++
			if k < len(diff) && diff[k] == noNewline {
				line = strings.TrimSuffix(line, "\n")
				k++
			}
			switch kind {
			case ' ', '-':
				if next >= len(al) || al[next] != line {
					return "", fmt.Errorf("line %d of a is not %q", next+1, line)
				}
				next++
				seenA++
				if kind == '-' {
					continue
				}
			}
			out = append(out, line)
			seenB++
		}
		if seenA != aLen || seenB != bLen {
			return "", fmt.Errorf("hunk -%d,%d +%d,%d holds -%d +%d lines", aStart, aLen, bStart, bLen, seenA, seenB)
		}
	}
	return strings.Join(append(out, al[next:]...), ""), nil
}

// hunkHeader spells out the counts a header leaves implicit ("-3" is
// "-3,1").
func hunkHeader(h string) string {
	fields := strings.Fields(h)
	for i := 1; i <= 2 && i < len(fields); i++ {
		if !strings.Contains(fields[i], ",") {
			fields[i] += ",1"
		}
	}
	return strings.Join(fields, " ")
}

// lcs is the length of a longest common subsequence of a and b, by the
// textbook table.
func lcs(a, b []string) int {
	row := make([]int, len(b)+1)
	for i := len(a) - 1; i >= 0; i-- {
		prev := 0 // the table's [i+1][j+1]
		for j := len(b) - 1; j >= 0; j-- {
			cur := row[j]
			if a[i] == b[j] {
				row[j] = prev + 1
			} else {
				row[j] = max(row[j], row[j+1])
			}
			prev = cur
		}
	}
	return row[0]
}
