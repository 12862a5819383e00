package thanatopsis

import (
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
)

// countingInput counts the reads of an export; from the read number
// swapAt on (when set) it reads the export at swap instead, as if the file
// had changed between reads.
type countingInput struct {
	*grimoire.Input
	opens  int
	swapAt int
	swap   *grimoire.Input
}

func (c *countingInput) Open(opts grimoire.ReadOptions) (*grimoire.Reader, error) {
	c.opens++
	if c.swap != nil && c.opens >= c.swapAt {
		return c.swap.Open(opts)
	}
	return c.Input.Open(opts)
}

// TestSecondPassOnlyWhenNeeded counts the reads: a second one only when a
// toxic entry did not pass the bottleneck.
func TestSecondPassOnlyWhenNeeded(t *testing.T) {
	for _, tt := range []struct {
		name  string
		path  string
		opts  Options
		opens int
	}{
		{"no toxic entry", "testdata/small.jsonl", Options{MaxEntries: 1}, 1},
		{"no clock fired", "testdata/healthy.jsonl", Options{MaxEntries: 1}, 1},
		{"every toxic entry selected", "testdata/healthy.jsonl", Options{Force: true}, 1},
		{"a toxic entry left out", "testdata/healthy.jsonl", Options{MaxEntries: 1, Force: true}, 2},
		{"fixture, every candidate selected", "../fixtures/small.jsonl", Options{}, 1},
		{"fixture capped at 16", "../fixtures/small.jsonl", Options{MaxEntries: 16}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := &countingInput{Input: grimoire.FileInput(tt.path)}
			defer in.Close()
			a, err := analyze(in, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if in.opens != tt.opens || a.Passes != tt.opens {
				t.Errorf("%d opens, %d passes; want %d", in.opens, a.Passes, tt.opens)
			}
		})
	}
}

// TestExportChangedBetweenReads: a second read that no longer holds a
// toxic entry is an error naming it, not a bundle without its text.
func TestExportChangedBetweenReads(t *testing.T) {
	in := &countingInput{Input: grimoire.FileInput("testdata/healthy.jsonl"), swapAt: 2, swap: grimoire.FileInput("testdata/small.jsonl")}
	defer in.Close()
	a, err := analyze(in, Options{MaxEntries: 1, Force: true})
	if a != nil || err == nil || !strings.Contains(err.Error(), `testdata/healthy.jsonl: entry "h-bad": the autopsy found it toxic, but a second read of the export does not hold it`) {
		t.Errorf("analyze = %v, %v; want an error naming h-bad", a, err)
	}
}
