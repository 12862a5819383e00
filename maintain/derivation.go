package maintain

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// StaleFlag is the review flag derivation review sets.
const StaleFlag = "stale"

// Root is a row an autopsy flagged: what derived rows may draw on.
type Root struct {
	ID             string
	Recommendation string // the autopsy's: discard | invert | reinvestigate
}

// Derivation is what the store records of where a row comes from.
type Derivation struct {
	ID             string
	ReflectionBorn bool   // born of a death reflection item (its recorded kind)
	Flagged        bool   // carries an autopsy recommendation itself: a root, not a dependent
	Bundle         string // the bundle it arrived in; "" for none
	BundleRoots    []Root // the rows the autopsy of Bundle flagged
	SameAs         string // the row it was merged into; "" when none
	SameAsRoot     *Root  // the SameAs row, when an autopsy flagged it
	Stale          bool   // flagged stale already
	// Revalidated are the roots a person has reviewed the row against
	// (bardo review stale --clear): those never flag it again.
	Revalidated []string
}

// Stale is a decision to flag a row stale.
type Stale struct {
	Roots  []Root // the flagged roots it draws on, by id
	Reason string // as recorded with the flag
}

// maxNamed bounds the roots a reason names.
const maxNamed = 5

// Review decides whether derivation review flags d stale: when its
// recorded provenance draws on an autopsy-flagged root that no person has
// reviewed it against — a reflection-born row of a bundle whose autopsy
// flagged rows, a row merged into a flagged row. Stale is a review flag:
// it never retracts, hides or archives the row.
func Review(d Derivation) (Stale, bool) {
	if d.Stale {
		return Stale{}, false
	}
	var s Stale
	var reasons []string
	keep := func(r Root) bool {
		return r.ID != d.ID && !slices.Contains(d.Revalidated, r.ID)
	}
	if d.ReflectionBorn && !d.Flagged {
		var roots []Root
		for _, r := range d.BundleRoots {
			if keep(r) {
				roots = append(roots, r)
			}
		}
		if len(roots) > 0 {
			slices.SortFunc(roots, func(a, b Root) int { return cmp.Compare(a.ID, b.ID) })
			reasons = append(reasons, fmt.Sprintf("born of the death reflection of bundle %s, whose autopsy flagged %s",
				shortDigest(d.Bundle), nameRoots(roots)))
			s.Roots = append(s.Roots, roots...)
		}
	}
	if r := d.SameAsRoot; r != nil && keep(*r) && !slices.ContainsFunc(s.Roots, func(x Root) bool { return x.ID == r.ID }) {
		reasons = append(reasons, fmt.Sprintf("merged into entry %q, which an autopsy flagged (%s)", r.ID, r.Recommendation))
		s.Roots = append(s.Roots, *r)
		slices.SortFunc(s.Roots, func(a, b Root) int { return cmp.Compare(a.ID, b.ID) })
	}
	if len(s.Roots) == 0 {
		return Stale{}, false
	}
	s.Reason = strings.Join(reasons, "; ")
	return s, true
}

func nameRoots(roots []Root) string {
	var b strings.Builder
	if len(roots) == 1 {
		b.WriteString("1 entry (")
	} else {
		fmt.Fprintf(&b, "%d entries (", len(roots))
	}
	for i, r := range roots[:min(len(roots), maxNamed)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q %s", r.ID, r.Recommendation)
	}
	if len(roots) > maxNamed {
		fmt.Fprintf(&b, " and %d more", len(roots)-maxNamed)
	}
	b.WriteString(")")
	return b.String()
}

// shortDigest is "sha256:" and the first 12 hex digits of a digest, as
// the rows a bundle gives birth to are named.
func shortDigest(d string) string {
	if h, ok := strings.CutPrefix(d, "sha256:"); ok && len(h) > 12 {
		return "sha256:" + h[:12]
	}
	return d
}
