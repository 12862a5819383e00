package snapshot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/snapshot"
)

func TestDue(t *testing.T) {
	newest := func(ago time.Duration, tick *int64) *snapshot.Info {
		return &snapshot.Info{GolemID: "golem-7a", ExportedAt: exportedAt.Add(-ago), DigestPrefix: "0123456789ab", Tick: tick}
	}
	credits := func(remaining float64) *grimoire.Credits {
		return &grimoire.Credits{RemainingUSDC: remaining, InitialUSDC: 100, DeathReserveUSDC: 3}
	}
	for _, tc := range []struct {
		name     string
		newest   *snapshot.Info
		tick     *int64
		credits  *grimoire.Credits
		interval time.Duration
		due      bool
		reason   string
	}{
		{"no snapshot yet", nil, nil, nil, 0, true, "no snapshot of golem-7a yet"},
		{"6h of exported_at passed", newest(6*time.Hour, nil), nil, nil, 0, true,
			"6h of exported_at since the newest snapshot (interval 6h)"},
		{"a second short of 6h", newest(6*time.Hour-time.Second, nil), nil, credits(80), 0, false,
			"not due: 5h59m59s of exported_at since the newest snapshot, interval 6h; credits at 80% of initial (above 25%)"},
		{"the interval asked for", newest(90*time.Minute, nil), nil, nil, time.Hour, true,
			"1h30m of exported_at since the newest snapshot (interval 1h)"},
		{"low credits and 50 ticks", newest(time.Hour, ptr(int64(2950))), ptr(int64(3000)), credits(25), 0, true,
			"credits at 25% of initial (at most 25%), and 50 ticks since the newest snapshot (every 50 ticks when credits are low)"},
		{"low credits, 49 ticks", newest(time.Hour, ptr(int64(2951))), ptr(int64(3000)), credits(3.2), 0, false,
			"not due: 1h of exported_at since the newest snapshot, interval 6h; credits at 3.2% of initial (at most 25%), but 49 of 50 ticks since the newest snapshot"},
		{"credits just above a quarter", newest(time.Hour, ptr(int64(2000))), ptr(int64(3000)), credits(25.01), 0, false,
			"credits at 25.01% of initial (above 25%)"},
		{"low credits, export without a tick", newest(time.Hour, ptr(int64(2000))), nil, credits(10), 0, false,
			"credits at 10% of initial (at most 25%), but the export has no tick"},
		{"low credits, snapshot tick unknown", newest(time.Hour, nil), ptr(int64(3000)), credits(10), 0, false,
			"but the newest snapshot's tick is unknown"},
		{"no credit state", newest(time.Hour, ptr(int64(0))), ptr(int64(3000)), nil, 0, false, "no credit state in the export"},
		{"no initial credits", newest(time.Hour, ptr(int64(0))), ptr(int64(3000)), &grimoire.Credits{}, 0, false, "no initial credits in the export"},
		{"export older than the snapshot", newest(-7*time.Hour, nil), nil, nil, 0, false,
			"the export (2026-11-02T14:00:00Z) is older than the newest snapshot (2026-11-02T21:00:00Z)"},
		{"same export again", newest(0, ptr(int64(3000))), ptr(int64(3000)), credits(1), 0, false,
			"0s of exported_at since the newest snapshot, interval 6h; credits at 1% of initial (at most 25%), but 0 of 50 ticks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := header("golem-7a")
			h.Tick, h.Credits = tc.tick, tc.credits
			got := snapshot.Due(tc.newest, h, tc.interval)
			if got.Due != tc.due || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("Due = %v, %q; want %v, saying %q", got.Due, got.Reason, tc.due, tc.reason)
			}
		})
	}
}

// TestNewest: the newest snapshot of a Golem, whatever other Golems'
// snapshots and the folder's order.
func TestNewest(t *testing.T) {
	info := func(id string, ago time.Duration, prefix string) snapshot.Info {
		return snapshot.Info{GolemID: id, ExportedAt: exportedAt.Add(-ago), DigestPrefix: prefix}
	}
	infos := []snapshot.Info{
		info("golem-7a", 2*time.Hour, "aaaaaaaaaaaa"),
		info("golem-7b", 0, "bbbbbbbbbbbb"), // newer, but another Golem
		info("golem-7a", time.Hour, "cccccccccccc"),
		info("golem-7a", time.Hour, "dddddddddddd"), // same second: the greater name
		info("golem-7a-old", 0, "eeeeeeeeeeee"),     // an id that starts like it
	}
	got := snapshot.Newest(infos, "golem-7a")
	if got == nil || got.DigestPrefix != "dddddddddddd" {
		t.Fatalf("Newest = %+v, want the one ending dddddddddddd", got)
	}
	if snapshot.Newest(infos, "golem-9") != nil {
		t.Error("Newest found a snapshot of a Golem with none")
	}
	// The decision follows: golem-7b's fresh snapshot does not make one
	// for golem-7a undue.
	h := header("golem-7a")
	h.ExportedAt = exportedAt.Add(5 * time.Hour)
	if d := snapshot.Due(got, h, 0); !d.Due {
		t.Errorf("Due = %+v, want due 6h after golem-7a's newest", d)
	}
}
