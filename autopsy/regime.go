package autopsy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// maxDomains is how many domains the hypothesis names; the rest are summed.
const maxDomains = 3

// failureRegime returns the most common regime among the window's failed
// predictions, ties by name; "" when no failed prediction names a regime.
func (c *Collector) failureRegime(w *window) string {
	best, bestN := "", 0
	for i, t := range w.byRegime {
		name, n := c.regimes.names[i], t.failed()
		if name == "" || n == 0 {
			continue
		}
		if n > bestN || (n == bestN && name < best) {
			best, bestN = name, n
		}
	}
	return best
}

// lastValidRegime returns the regime that occurred last before the window
// among those whose known predictions before the window were right more
// than half the time, ties by name; "" when there is none.
func (c *Collector) lastValidRegime(b *before) string {
	var best string
	var bestTick int64
	for i, t := range b.byRegime {
		name := c.regimes.names[i]
		if name == "" || !t.rightMostly() {
			continue
		}
		tick := b.lastTick[i]
		if best == "" || tick > bestTick || (tick == bestTick && name < best) {
			best, bestTick = name, tick
		}
	}
	return best
}

// hypothesis builds regime_transition_hypothesis from the autopsy's
// regimes and toxic entries, e.g. "Predictions held in bull (71% correct
// before tick 2501) but failed in crisis (18% in the window); 4 of 6 toxic
// entries are tactical, 2 of 6 structural; 3 of 6 in gas_mev, 3 of 6 in
// general: tactical knowledge learned in bull did not transfer to crisis."
func (c *Collector) hypothesis(a *Autopsy, w *window, b *before) string {
	if w.episodes == 0 {
		// No episodes (a store's export has none): no window, no regime.
		return "No episodes: the export records no prediction to test a regime against."
	}
	var s strings.Builder
	c.writeRegimes(&s, a, w, b)
	if len(a.ToxicEntries) == 0 {
		s.WriteString("; no entry failed more often than the window as a whole.")
		return s.String()
	}
	top := writeShares(&s, a.ToxicEntries)
	lv, fr := a.LastValidRegime, a.FailureRegime
	switch {
	case lv == "" || fr == "":
	case fr == lv:
		fmt.Fprintf(&s, ": %s knowledge learned in %s stopped holding in it", top, lv)
	default:
		fmt.Fprintf(&s, ": %s knowledge learned in %s did not transfer to %s", top, lv, fr)
	}
	s.WriteString(".")
	return s.String()
}

// writeRegimes writes where predictions held and where they failed.
func (c *Collector) writeRegimes(s *strings.Builder, a *Autopsy, w *window, b *before) {
	lv, fr := a.LastValidRegime, a.FailureRegime
	if lv != "" {
		fmt.Fprintf(s, "Predictions held in %s (%s correct before tick %d)",
			lv, percent(b.byRegime[c.regimes.index[lv]].accuracy()), a.WindowStart)
	} else {
		fmt.Fprintf(s, "No regime before tick %d had predictions right more than half the time", a.WindowStart)
	}
	switch failures := w.all.failed(); {
	case failures == 0:
		s.WriteString("; no prediction failed in the window")
	case fr == "":
		fmt.Fprintf(s, "; the window's %d failed %s no regime", failures, plural(failures, "prediction names", "predictions name"))
	case fr == lv:
		fmt.Fprintf(s, " but failed in the same regime (%s in the window)", percent(w.byRegime[c.regimes.index[fr]].accuracy()))
	case lv == "":
		fmt.Fprintf(s, "; predictions failed in %s (%s in the window)", fr, percent(w.byRegime[c.regimes.index[fr]].accuracy()))
	default:
		fmt.Fprintf(s, " but failed in %s (%s in the window)", fr, percent(w.byRegime[c.regimes.index[fr]].accuracy()))
	}
}

// writeShares writes the share of toxic entries per decay class and per
// domain, and returns the most common decay class.
func writeShares(s *strings.Builder, toxic []ToxicEntry) (top string) {
	n := len(toxic)
	classes := shares(toxic, func(e ToxicEntry) string { return e.DecayClass })
	for i, sh := range classes {
		if i == 0 {
			fmt.Fprintf(s, "; %d of %d toxic %s %s", sh.n, n, plural(n, "entry is", "entries are"), sh.name)
		} else {
			fmt.Fprintf(s, ", %d of %d %s", sh.n, n, sh.name)
		}
	}
	domains := shares(toxic, func(e ToxicEntry) string { return e.Domain })
	named, rest := domains[:min(len(domains), maxDomains)], domains[min(len(domains), maxDomains):]
	for i, sh := range named {
		lead := ", "
		if i == 0 {
			lead = "; "
		}
		fmt.Fprintf(s, "%s%d of %d in %s", lead, sh.n, n, sh.name)
	}
	if len(rest) > 0 {
		sum := 0
		for _, sh := range rest {
			sum += sh.n
		}
		fmt.Fprintf(s, ", %d of %d in %d other %s", sum, n, len(rest), plural(len(rest), "domain", "domains"))
	}
	return classes[0].name
}

// share is how many toxic entries have one value of an attribute.
type share struct {
	name string
	n    int
}

// shares counts the toxic entries per value of key, largest first, ties by
// name.
func shares(entries []ToxicEntry, key func(ToxicEntry) string) []share {
	counts := make(map[string]int)
	for _, e := range entries {
		counts[key(e)]++
	}
	out := make([]share, 0, len(counts))
	for name, n := range counts {
		out = append(out, share{name: name, n: n})
	}
	slices.SortFunc(out, func(x, y share) int {
		if c := cmp.Compare(y.n, x.n); c != 0 {
			return c
		}
		return cmp.Compare(x.name, y.name)
	})
	return out
}
