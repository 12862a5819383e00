package grimoire_test

import (
	"bytes"
	"testing"
	"testing/iotest"

	"github.com/bardo-golem/bardo/grimoire"
)

// TestProgress: ReadOptions.Progress hears of every byte read, as stored,
// in order, and ends at the input's size, compressed or not.
func TestProgress(t *testing.T) {
	plain := readFile(t, "testdata/small.jsonl")
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"plain", plain},
		{"gzip", gzipBytes(t, plain)},
		{"zstd", zstdBytes(t, plain)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []int64
			opts := grimoire.ReadOptions{Progress: func(read int64) { seen = append(seen, read) }}
			got := read(t, iotest.HalfReader(bytes.NewReader(tc.data)), opts)
			if got.Err != nil {
				t.Fatal(got.Err)
			}
			if len(seen) == 0 || seen[len(seen)-1] != int64(len(tc.data)) {
				t.Fatalf("progress ended at %v, want %d", seen[max(len(seen)-1, 0):], len(tc.data))
			}
			for i := 1; i < len(seen); i++ {
				if seen[i] <= seen[i-1] {
					t.Fatalf("progress went from %d to %d", seen[i-1], seen[i])
				}
			}
		})
	}
}
