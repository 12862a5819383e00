package library_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bardo-golem/bardo/library"
)

// FuzzParsePicks: a pick list never yields an empty id, an id with
// surrounding blanks or one that is not UTF-8, and its ids are exactly
// its non-blank lines, trimmed.
func FuzzParsePicks(f *testing.F) {
	for _, s := range []string{"", "a\nb\n", "  a \r\n\n\tb", "\xff\n", "a\x00b\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		picks, err := library.ParsePicks(strings.NewReader(s), "picks")
		if err != nil {
			return
		}
		var want []string
		for line := range strings.Lines(s) {
			if id := strings.TrimSpace(line); id != "" {
				want = append(want, id)
			}
		}
		if len(picks) != len(want) {
			t.Fatalf("%d ids, want %d", len(picks), len(want))
		}
		for i, id := range picks {
			if id != want[i] || id == "" || strings.TrimSpace(id) != id || !utf8.ValidString(id) {
				t.Fatalf("id %d %q, want %q", i, id, want[i])
			}
		}
	})
}
