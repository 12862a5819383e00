package snapshot

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Actions of a rotation.
const (
	Keep   = "keep"
	Remove = "remove"
)

// Rotation is what a rotation does with one snapshot file, and why.
type Rotation struct {
	Info   Info
	Action string // Keep or Remove
	Reason string
}

// Plan decides, per Golem, which snapshots to keep: the newest always;
// those whose exported_at is within keepWithin of now (0: none kept for
// their age); and the keep newest (0: none kept for their rank). The rest
// are removed. Each Rotation says which rule kept it, the first that
// matches in that order, or why it goes. The result is sorted by Golem
// (file id), then newest first. Plan is pure: now is the caller's clock.
func Plan(infos []Info, keep int, keepWithin time.Duration, now time.Time) []Rotation {
	sorted := slices.Clone(infos)
	slices.SortStableFunc(sorted, func(a, b Info) int {
		if c := cmp.Compare(FileID(a.GolemID), FileID(b.GolemID)); c != 0 {
			return c
		}
		switch {
		case newer(&a, &b):
			return -1
		case newer(&b, &a):
			return 1
		}
		return 0
	})
	out := make([]Rotation, len(sorted))
	rank := 0
	for i, in := range sorted {
		if i == 0 || FileID(in.GolemID) != FileID(sorted[i-1].GolemID) {
			rank = 0
		}
		rank++
		r := Rotation{Info: in, Action: Keep}
		switch {
		case rank == 1:
			r.Reason = "newest"
		case keepWithin > 0 && now.Sub(in.ExportedAt) <= keepWithin:
			r.Reason = "within " + formatDuration(keepWithin)
		case rank <= keep:
			r.Reason = fmt.Sprintf("one of the %d newest", keep)
		default:
			r.Action, r.Reason = Remove, removeReason(keep, keepWithin)
		}
		out[i] = r
	}
	return out
}

// removeReason says which limits a removed snapshot is past.
func removeReason(keep int, keepWithin time.Duration) string {
	switch {
	case keep > 0 && keepWithin > 0:
		return fmt.Sprintf("beyond --keep %d, and older than --keep-within %s", keep, formatDuration(keepWithin))
	case keepWithin > 0:
		return "older than --keep-within " + formatDuration(keepWithin)
	}
	return fmt.Sprintf("beyond --keep %d", keep)
}
