package dedup_test

import (
	"fmt"
	"testing"

	"github.com/bardo-golem/bardo/dedup"
)

// BenchmarkReviewText reviews n text-only entries against an empty store:
// every pair is compared through bardo-text/v1 (issue 12, item 5: it grew
// quadratically, 120k entries took 49 s). bench/run times it too.
func BenchmarkReviewText(b *testing.B) {
	for _, n := range []int{10_000, 40_000, 120_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			in := dedup.TextOnlyRows(b, n)
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
