package snapshot_test

import (
	"fmt"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/snapshot"
)

// hours returns snapshots of golem taken the given hours before
// exportedAt, named by their age.
func hours(golem string, ages ...int) []snapshot.Info {
	var out []snapshot.Info
	for _, h := range ages {
		out = append(out, snapshot.Info{GolemID: golem, ExportedAt: exportedAt.Add(-time.Duration(h) * time.Hour),
			DigestPrefix: fmt.Sprintf("%012d", h), Path: fmt.Sprintf("%s@%dh", golem, h)})
	}
	return out
}

func TestPlan(t *testing.T) {
	type row struct{ path, action, reason string }
	for _, tc := range []struct {
		name       string
		infos      []snapshot.Info
		keep       int
		keepWithin time.Duration
		now        time.Time
		want       []row
	}{
		{"keep 2 of 4", hours("g", 18, 0, 12, 6), 2, 0, exportedAt, []row{
			{"g@0h", "keep", "newest"},
			{"g@6h", "keep", "one of the 2 newest"},
			{"g@12h", "remove", "beyond --keep 2"},
			{"g@18h", "remove", "beyond --keep 2"},
		}},
		{"keep 1 keeps the newest only", hours("g", 0, 6), 1, 0, exportedAt, []row{
			{"g@0h", "keep", "newest"},
			{"g@6h", "remove", "beyond --keep 1"},
		}},
		{"the newest survives keep-within", hours("g", 48, 72), 0, 24 * time.Hour, exportedAt, []row{
			{"g@48h", "keep", "newest"},
			{"g@72h", "remove", "older than --keep-within 24h"},
		}},
		{"keep-within counts from now, edge included", hours("g", 0, 24, 25), 0, 24 * time.Hour, exportedAt, []row{
			{"g@0h", "keep", "newest"},
			{"g@24h", "keep", "within 24h"},
			{"g@25h", "remove", "older than --keep-within 24h"},
		}},
		{"keep-within against a later now", hours("g", 0, 6, 30), 0, 24 * time.Hour, exportedAt.Add(20 * time.Hour), []row{
			{"g@0h", "keep", "newest"},
			{"g@6h", "remove", "older than --keep-within 24h"},
			{"g@30h", "remove", "older than --keep-within 24h"},
		}},
		{"both limits", hours("g", 0, 6, 12, 30, 36), 2, 24 * time.Hour, exportedAt, []row{
			{"g@0h", "keep", "newest"},
			{"g@6h", "keep", "within 24h"},
			{"g@12h", "keep", "within 24h"},
			{"g@30h", "remove", "beyond --keep 2, and older than --keep-within 24h"},
			{"g@36h", "remove", "beyond --keep 2, and older than --keep-within 24h"},
		}},
		{"a future snapshot is the newest", hours("g", -3, 0), 1, 0, exportedAt, []row{
			{"g@-3h", "keep", "newest"},
			{"g@0h", "remove", "beyond --keep 1"},
		}},
		{"per Golem", append(hours("b", 0, 6, 12), hours("a", 100, 200)...), 1, 0, exportedAt, []row{
			{"a@100h", "keep", "newest"},
			{"a@200h", "remove", "beyond --keep 1"},
			{"b@0h", "keep", "newest"},
			{"b@6h", "remove", "beyond --keep 1"},
			{"b@12h", "remove", "beyond --keep 1"},
		}},
		{"nothing to rotate", nil, 5, 0, exportedAt, []row{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := []row{}
			for _, r := range snapshot.Plan(tc.infos, tc.keep, tc.keepWithin, tc.now) {
				got = append(got, row{r.Info.Path, r.Action, r.Reason})
			}
			if d := gocmp.Diff(tc.want, got, gocmp.AllowUnexported(row{})); d != "" {
				t.Errorf("Plan (-want +got):\n%s", d)
			}
		})
	}
}

// TestPlanNeverRemovesNewest: whatever the limits, every Golem keeps its
// newest snapshot.
func TestPlanNeverRemovesNewest(t *testing.T) {
	infos := append(hours("a", 5, 1, 9), hours("b", 40, 30)...)
	for _, keep := range []int{0, 1, 2, 10} {
		for _, within := range []time.Duration{0, time.Minute, 48 * time.Hour} {
			kept := map[string]bool{}
			for _, r := range snapshot.Plan(infos, keep, within, exportedAt.Add(1000*time.Hour)) {
				if r.Action == snapshot.Keep && r.Reason == "newest" {
					kept[r.Info.Path] = true
				}
			}
			if !kept["a@1h"] || !kept["b@30h"] || len(kept) != 2 {
				t.Errorf("keep %d, within %s: newest kept %v, want a@1h and b@30h", keep, within, kept)
			}
		}
	}
}
