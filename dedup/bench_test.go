package dedup_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/fixtures/synth"
)

// textOnly returns the entries of a synthetic export without embeddings
// (fixtures/synth, -dims 0) as incoming rows: the texts of one Golem,
// which share their words and hold many near-duplicates.
func textOnly(b *testing.B, n int) []dedup.Incoming {
	b.Helper()
	p := synth.DefaultParams()
	p.Entries, p.Dims, p.Episodes, p.NearDuplicates = n, 0, 1000, nil
	var export bytes.Buffer
	if err := synth.Generate(&export, p); err != nil {
		b.Fatal(err)
	}
	var out []dedup.Incoming
	sc := bufio.NewScanner(&export)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct{ Type, ID, Content, Polarity string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			b.Fatal(err)
		}
		if r.Type == "entry" {
			out = append(out, dedup.Incoming{ID: r.ID, Content: r.Content, Polarity: r.Polarity})
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkReviewText reviews n text-only entries against an empty store:
// every pair is compared through bardo-text/v1 (issue 12, item 5: it grew
// quadratically, 120k entries took 49 s). bench/run times it too.
func BenchmarkReviewText(b *testing.B) {
	for _, n := range []int{10_000, 40_000, 120_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			in := textOnly(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := dedup.Review(nil, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
