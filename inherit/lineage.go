package inherit

import (
	"errors"
	"fmt"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/lineage"
)

// ErrLineage is matched by every *LineageError: a bundle the lineage rules
// refuse (exit 65).
var ErrLineage = errors.New("bundle is refused by the lineage rules")

// Lineage is what the lineage rules said of a plan's bundle.
type Lineage struct {
	lineage.Kinship
	Adopted bool // a stranger's bundle taken on the predecessor or snapshot channel with Options.Adopt
}

// LineageError is a bundle the lineage rules refuse: the store's own or a
// descendant's on any channel, or on the predecessor and snapshot channels
// a bundle of another lineage without Options.Adopt.
type LineageError struct {
	Digest     string
	GolemID    string // the bundle's
	Generation int
	Channel    string
	Kinship    lineage.Kinship
}

func (e *LineageError) Error() string {
	who := fmt.Sprintf("bundle %s (golem %s generation %d)", e.Digest, e.GolemID, e.Generation)
	switch e.Kinship.Relation {
	case lineage.RelationSelf:
		return fmt.Sprintf("%s is the store's own: %s, and a Golem never inherits its own knowledge back, by any channel", who, e.Kinship.Why)
	case lineage.RelationDescendant:
		return fmt.Sprintf("%s descends from the store's Golem: %s, and a Golem never inherits from its successors, by any channel", who, e.Kinship.Why)
	}
	return fmt.Sprintf("%s is of %s, and the store of %s: the %s channel takes the store's own lineage only (%s)",
		who, e.Kinship.Bundle, e.Kinship.Store, e.Channel, e.Kinship.Why)
}

// Is makes errors.Is(err, ErrLineage) hold.
func (e *LineageError) Is(target error) bool { return target == ErrLineage }

// LineageOf is what package lineage reads of a bundle whose digest is
// digest: its Golem, lineage id, parents and ancestry.
func LineageOf(h *bundle.Header, digest string) lineage.Bundle {
	as := make([]lineage.Ancestor, len(h.Ancestry))
	for i, a := range h.Ancestry {
		as[i] = lineage.Ancestor{Digest: a.Digest, GolemID: a.GolemID, Generation: a.Generation}
	}
	return lineage.Bundle{Digest: digest, Kind: h.Kind, GolemID: h.GolemID, Generation: h.Generation,
		LineageID: h.LineageID, ExportedAt: h.ExportedAt, Parents: h.Parents, Ancestry: as}
}

// CheckLineage applies the lineage rules alone, as PlanBundle does first:
// nil, or the *LineageError PlanBundle would return, so that a caller
// refuses a bundle before it reads the store's rows. Options as
// PlanBundle takes them (an error of theirs is PlanBundle's too).
func CheckLineage(b *bundle.Bundle, digest string, l lineage.Line, o Options) error {
	if err := checkOptions(&o, b.Header.Kind); err != nil {
		return err
	}
	_, _, err := guardLineage(b, digest, l, o)
	return err
}

// guardLineage applies the lineage rules to bundle b (digest digest)
// arriving in the store of line l on o's channel:
//
//   - the store's own bundle, or a descendant's, is refused on every
//     channel, quarantined or not: a Golem's knowledge never comes back
//     to it as another's;
//   - on the predecessor and snapshot channels a bundle of another lineage
//     is refused unless o.Adopt, which records the plan as an adoption;
//     a quarantined arrival is the trust policy's, decided before this
//     rule: it is taken quarantined, and its release (a trusted arrival)
//     meets the rule;
//   - the clade channel carries other Golems' knowledge by design: it
//     refuses no lineage (the rows' sources say whose it is).
//
// It returns what the rules said, and the warnings the plan carries.
func guardLineage(b *bundle.Bundle, digest string, l lineage.Line, o Options) (Lineage, []string, error) {
	k := lineage.Relate(l, LineageOf(&b.Header, digest))
	out := Lineage{Kinship: k}
	refuse := func() (Lineage, []string, error) {
		return out, nil, &LineageError{Digest: digest, GolemID: b.Header.GolemID, Generation: b.Header.Generation, Channel: o.Channel, Kinship: k}
	}
	var warnings []string
	switch k.Relation {
	case lineage.RelationSelf, lineage.RelationDescendant:
		return refuse()
	}
	if o.Channel == ChannelClade {
		if o.Adopt {
			warnings = append(warnings, "--adopt: a clade bundle is a sibling's knowledge, never adopted: it arrives on the clade channel as it is")
		}
		return out, warnings, nil
	}
	switch {
	case k.Relation == lineage.RelationStranger && o.Adopt:
		out.Adopted = true
		warnings = append(warnings, fmt.Sprintf("lineage: adopted: the bundle is of %s, the store of %s (%s); recorded as an adoption", k.Bundle, k.Store, k.Why))
	case k.Relation == lineage.RelationStranger && o.Trust.Quarantine:
		warnings = append(warnings, fmt.Sprintf("lineage: the bundle is of %s, the store of %s (%s): it arrives quarantined, and its release needs --adopt", k.Bundle, k.Store, k.Why))
	case k.Relation == lineage.RelationStranger:
		return refuse()
	case o.Adopt:
		warnings = append(warnings, fmt.Sprintf("--adopt: the bundle is of the store's lineage (%s): nothing to adopt", k.Why))
	case k.Relation == lineage.RelationUnknown:
		warnings = append(warnings, fmt.Sprintf("lineage: not checked: %s", k.Why))
	}
	return out, warnings, nil
}

// Keys of a plan's params (recorded in the activity that applies it) that
// say what the lineage rules said.
const (
	ParamLineage = "lineage" // {relation, store, bundle, why[, adopted]}
	ParamAdopted = "adopted" // true for an adoption; absent otherwise
)

// Adopted reports whether the params a plan recorded (Plan.Params, an
// activity's) make it an adoption of a bundle of another lineage.
func Adopted(params map[string]any) bool {
	v, _ := params[ParamAdopted].(bool)
	return v
}

// params records what the lineage rules said in the activity.
func (l *Lineage) params() map[string]any {
	m := map[string]any{"relation": l.Relation, "store": l.Store, "bundle": l.Bundle, "why": l.Why}
	if l.Adopted {
		m[ParamAdopted] = true
	}
	return m
}
