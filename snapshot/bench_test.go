package snapshot_test

import (
	"testing"

	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/snapshot"
)

// BenchmarkBuild snapshots a synthetic Golem of 20,000 entries and 3,000
// episodes: one pass over the export.
func BenchmarkBuild(b *testing.B) {
	path := fixturetest.WriteFile(b, b.TempDir(), synth.Medium())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := snapshot.Build(grimoire.FileInput(path), snapshot.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
