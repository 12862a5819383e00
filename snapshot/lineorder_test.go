package snapshot_test

import (
	"testing"

	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/snapshot"
)

// TestLineOrderDoesNotChangeTheSnapshot: any order of an export's lines
// gives the same snapshot digest, on an export whose insights tie in
// confidence at the cut of the top 20 and whose episodes tie in tick at
// the cut of the latest 50 (fixturetest.NearTies).
func TestLineOrderDoesNotChangeTheSnapshot(t *testing.T) {
	dir := t.TempDir()
	for _, seed := range []int64{7, 33} {
		p := synth.Small()
		p.Seed, p.Entries, p.Episodes = seed, 200, 1000
		path := fixturetest.NearTies(t, dir, p)
		want := snapshotDigest(t, path)
		for s := range uint64(4) {
			if got := snapshotDigest(t, fixturetest.Shuffled(t, dir, path, s)); got != want {
				t.Errorf("seed %d, order %d: snapshot %s, in file order %s", seed, s, got, want)
			}
		}
	}
}

func snapshotDigest(t *testing.T, path string) string {
	t.Helper()
	src := grimoire.FileInput(path)
	defer src.Close()
	b, err := snapshot.Build(src, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
