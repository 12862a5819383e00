package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/snapshot"
)

// laterSnapshot returns what the Golem of snapshot a could look like six
// hours on: 540 ticks later, credits spent, an insight lowered, the oldest
// episode slid out and a new one in, a metric moved, a playbook line
// added. It still follows FORMAT.md.
func laterSnapshot(t *testing.T, a *bundle.Bundle) *bundle.Bundle {
	t.Helper()
	var buf bytes.Buffer
	if err := bundle.Encode(&buf, a); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	h, s := &b.Header, b.Snapshot
	tick := *h.Tick + 540
	h.Tick = &tick
	h.ExportedAt, h.Bottleneck.Now = "2026-11-02T18:00:00Z", "2026-11-02T18:00:00Z"
	s.Credits.RemainingUSDC -= 0.5
	s.Insights[len(s.Insights)-1].Confidence -= 0.05 // the last stays last
	last := s.Episodes[len(s.Episodes)-1]
	last.ID, last.Tick, last.At = "ep-later", tick, h.ExportedAt
	s.Episodes = append(s.Episodes[1:], last)
	s.Metrics[0].Value += 0.125
	text := s.Playbook.Text + "- rest when credits run low\n"
	s.Playbook.Text, s.Playbook.Digest = text, bundle.DocumentDigest(text)
	if errs := b.Check(); len(errs) > 0 {
		t.Fatalf("the later snapshot breaks FORMAT.md: %v", errs)
	}
	return b
}

// TestDiffSnapshotsGolden pins how bardo diff shows two insurance
// snapshots of one Golem: their bodies, not a death bundle's (issue 5).
func TestDiffSnapshotsGolden(t *testing.T) {
	a, err := snapshot.Build(grimoire.FileInput(smallFixture), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pa := writeBundle(t, dir, "a.snapshot", a)
	pb := writeBundle(t, dir, "b.snapshot", laterSnapshot(t, a))

	code, stdout, stderr := bardo(t, "", "diff", pa, pb)
	if code != exitBad {
		t.Fatalf("diff exited %d, want %d: %s", code, exitBad, stderr)
	}
	golden(t, "diff_snapshots.txt", stdout)
	code, stdout, stderr = bardo(t, "", "diff", "--stat", pa, pb)
	if code != exitBad {
		t.Fatalf("diff --stat exited %d, want %d: %s", code, exitBad, stderr)
	}
	golden(t, "diff_snapshots_stat.tsv", stdout)

	if code, stdout, _ := bardo(t, "", "diff", pa, filepath.Join(dir, "a.snapshot")); code != 0 || stdout != "no difference\n" {
		t.Errorf("a snapshot against itself: exit %d, %q", code, stdout)
	}
	death := filepath.Join(dir, "a.bardo")
	mustBundle(t, death)
	if code, _, stderr := bardo(t, "", "diff", death, pa); code != exitDataErr {
		t.Errorf("a death bundle against a snapshot: exit %d, want %d: %s", code, exitDataErr, stderr)
	}
}
