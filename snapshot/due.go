package snapshot

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// The schedule (docs/DECISIONS.md#insurance-snapshot).
const (
	// DefaultInterval is the time between snapshots, measured between
	// exported_at values.
	DefaultInterval = 6 * time.Hour
	// LowCreditsShare: at or below this share of the initial credits, a
	// snapshot is due every LowCreditsTicks ticks.
	LowCreditsShare = 0.25
	// LowCreditsTicks is the snapshot period, in header ticks, when credits
	// are low.
	LowCreditsTicks = 50
)

// Decision says whether a snapshot is due, and why, in words.
type Decision struct {
	Due    bool
	Reason string
}

// Due decides whether the export with header h needs a snapshot, given
// newest, the newest snapshot of the same Golem (nil: none yet). A
// snapshot is due when interval (0: DefaultInterval) of exported_at has
// passed since newest's, or when the credits are at most LowCreditsShare
// of the initial credits and LowCreditsTicks header ticks have passed
// since newest's tick. The tick rule needs both ticks and the credits; the
// interval rule always applies.
func Due(newest *Info, h *grimoire.Header, interval time.Duration) Decision {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if newest == nil {
		return Decision{true, fmt.Sprintf("no snapshot of %s yet", h.GolemID)}
	}
	// Names keep whole seconds: compare the export's time as a name would.
	exported := h.ExportedAt.UTC().Truncate(time.Second)
	since := exported.Sub(newest.ExportedAt)
	if since >= interval {
		return Decision{true, fmt.Sprintf("%s of exported_at since the newest snapshot (interval %s)", formatDuration(since), formatDuration(interval))}
	}
	low, credits := lowCredits(h.Credits)
	ticks, tickWhy := ticksSince(newest, h)
	if low && ticks != nil && *ticks >= LowCreditsTicks {
		return Decision{true, fmt.Sprintf("%s, and %d ticks since the newest snapshot (every %d ticks when credits are low)", credits, *ticks, LowCreditsTicks)}
	}

	var why []string
	if since < 0 {
		why = append(why, fmt.Sprintf("the export (%s) is older than the newest snapshot (%s)", exported.Format(time.RFC3339), newest.ExportedAt.Format(time.RFC3339)))
	} else {
		why = append(why, fmt.Sprintf("%s of exported_at since the newest snapshot, interval %s", formatDuration(since), formatDuration(interval)))
	}
	switch {
	case !low:
		why = append(why, credits)
	case ticks == nil:
		why = append(why, credits+", but "+tickWhy)
	default:
		why = append(why, fmt.Sprintf("%s, but %d of %d ticks since the newest snapshot", credits, *ticks, LowCreditsTicks))
	}
	return Decision{false, "not due: " + strings.Join(why, "; ")}
}

// lowCredits reports whether the credits are at most LowCreditsShare of the
// initial credits, and says how they stand.
func lowCredits(c *grimoire.Credits) (bool, string) {
	switch {
	case c == nil:
		return false, "no credit state in the export"
	case c.InitialUSDC <= 0:
		return false, "no initial credits in the export"
	}
	share := c.RemainingUSDC / c.InitialUSDC
	if share <= LowCreditsShare {
		return true, fmt.Sprintf("credits at %.4g%% of initial (at most %g%%)", 100*share, 100*LowCreditsShare)
	}
	return false, fmt.Sprintf("credits at %.4g%% of initial (above %g%%)", 100*share, 100*LowCreditsShare)
}

// ticksSince returns the header ticks between newest and the export, or
// nil and why they are unknown.
func ticksSince(newest *Info, h *grimoire.Header) (*int64, string) {
	switch {
	case h.Tick == nil:
		return nil, "the export has no tick"
	case newest.Tick == nil:
		return nil, "the newest snapshot's tick is unknown"
	}
	n := *h.Tick - *newest.Tick
	return &n, ""
}

// Newest returns the newest of infos that is of the Golem golemID (Info.Of):
// the latest ExportedAt, ties by file name, the greater bytewise. Other
// Golems' snapshots do not count. Nil when there is none.
func Newest(infos []Info, golemID string) *Info {
	var best *Info
	for i := range infos {
		if infos[i].Of(golemID) && (best == nil || newer(&infos[i], best)) {
			best = &infos[i]
		}
	}
	return best
}

// newer orders snapshots of one Golem: later ExportedAt, then the greater
// name, so that the order never depends on how a folder lists them.
func newer(a, b *Info) bool {
	if c := a.ExportedAt.Compare(b.ExportedAt); c != 0 {
		return c > 0
	}
	return cmp.Compare(a.Name(), b.Name()) > 0
}

// formatDuration writes a duration as "6h", "1h30m", "45m", "10s": the
// units time.Duration.String writes, without zero ones.
func formatDuration(d time.Duration) string {
	if d < 0 {
		return "-" + formatDuration(-d)
	}
	if d < time.Second {
		return d.String()
	}
	s := d.Truncate(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
