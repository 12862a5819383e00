package lineage

import (
	"fmt"
	"strconv"
)

// Relations of a bundle to a store's line (Relate).
const (
	// RelationSelf: the bundle is the store's own Golem's (its golem id and
	// generation): the store's death bundle, snapshot or clade push.
	RelationSelf = "self"
	// RelationDescendant: the store's Golem is among the bundle's
	// ancestors: a successor's bundle, or one further down the line.
	RelationDescendant = "descendant"
	// RelationAncestor: the bundle is among the store's ancestors.
	RelationAncestor = "ancestor"
	// RelationKin: of the store's lineage: the same lineage id, an
	// ancestor in common, or the same first Golem.
	RelationKin = "kin"
	// RelationStranger: of another lineage: another lineage id, or, where
	// one side has none, another first Golem and no ancestor in common.
	RelationStranger = "stranger"
	// RelationUnknown: nothing tells: a side names neither a lineage id
	// nor a line back to its first Golem.
	RelationUnknown = "unknown"
)

// Line is what a store knows of its own line: its Golem, the lineage id it
// was given (bardo init --lineage-id, or the bundle it was created from),
// the bundle it was created from and that bundle's line.
type Line struct {
	GolemID      string
	Generation   int
	LineageID    string     // "" when none was given
	ParentBundle string     // "" for a store made by bardo init
	Ancestry     []Ancestor // nearest first: ParentBundle first
}

// Kinship is how a bundle is related to a store's line, and why.
type Kinship struct {
	Relation string // RelationSelf … RelationUnknown
	Why      string // the evidence, a clause: "both are of lineage \"line-a\""
	Store    string // the store's lineage, named (Line.Name)
	Bundle   string // the bundle's lineage, named (Bundle.LineName)
}

// Own reports whether a Golem of golemID at generation is the store's own:
// a Golem has one golem id and lives one generation.
func (l *Line) Own(golemID string, generation int) bool {
	return golemID == l.GolemID && generation == l.Generation
}

// Name names the store's lineage: its lineage id, else its first Golem,
// else "an unnamed line".
func (l *Line) Name() string {
	return lineName(l.LineageID, l.first())
}

// first is the golem id of the store's first Golem, generation 0: the last
// of its ancestry, or the store's own Golem at generation 0; "" when the
// store's line does not reach generation 0 (made by init at a later
// generation, or an ancestry capped at bundle.MaxAncestry).
func (l *Line) first() string {
	if n := len(l.Ancestry); n > 0 {
		if a := l.Ancestry[n-1]; a.Generation == 0 {
			return a.GolemID
		}
		return ""
	}
	if l.Generation == 0 && l.ParentBundle == "" {
		return l.GolemID
	}
	return ""
}

// LineName names a bundle's lineage as Line.Name names a store's.
func (b *Bundle) LineName() string { return lineName(b.LineageID, b.first()) }

// first is the golem id of the bundle's line's first Golem: its own at
// generation 0, else the last of its ancestry when that is generation 0.
func (b *Bundle) first() string {
	if b.Generation == 0 {
		return b.GolemID
	}
	if n := len(b.Ancestry); n > 0 && b.Ancestry[n-1].Generation == 0 {
		return b.Ancestry[n-1].GolemID
	}
	return ""
}

func lineName(lineageID, first string) string {
	switch {
	case lineageID != "":
		return "lineage " + strconv.Quote(lineageID)
	case first != "":
		return "the line of " + first + " (no lineage id)"
	}
	return "an unnamed line"
}

// Relate says how bundle b is related to the store's line l, from what
// both record: golem ids and generations, lineage ids, ancestries. In
// order:
//
//   - self: b's golem id and generation are the store's (Own);
//   - descendant: an ancestor of b is the store's Golem;
//   - ancestor: b is the store's parent bundle or in its ancestry;
//   - both name a lineage id: kin when they are one, else stranger (a
//     lineage id is the line's own word, and outweighs the rest);
//   - kin when an ancestor of b (or its first parent) is in the store's
//     ancestry: one line, further back;
//   - both lines reach generation 0: kin when their first Golems are one,
//     else stranger;
//   - unknown otherwise.
//
// A store's own Golem is never of another lineage: a bundle that names the
// store's golem id and generation under another lineage id is a stranger
// that took its name, not the store's own.
func Relate(l Line, b Bundle) Kinship {
	k := Kinship{Store: l.Name(), Bundle: b.LineName()}
	otherID := l.LineageID != "" && b.LineageID != "" && l.LineageID != b.LineageID
	set := func(rel, why string, args ...any) Kinship {
		k.Relation, k.Why = rel, fmt.Sprintf(why, args...)
		return k
	}
	if !otherID {
		if l.Own(b.GolemID, b.Generation) {
			return set(RelationSelf, "it is the store's own Golem's, %s generation %d", b.GolemID, b.Generation)
		}
		for _, a := range b.Ancestry {
			if l.Own(a.GolemID, a.Generation) {
				return set(RelationDescendant, "its ancestor %s is the store's own Golem, %s generation %d", a.Digest, a.GolemID, a.Generation)
			}
		}
	}
	if b.Digest != "" && b.Digest == l.ParentBundle {
		return set(RelationAncestor, "it is the bundle the store was created from")
	}
	for _, a := range l.Ancestry {
		if a.Digest == b.Digest {
			return set(RelationAncestor, "it is the store's ancestor of generation %d", a.Generation)
		}
	}
	switch {
	case otherID:
		return set(RelationStranger, "their lineage ids differ")
	case l.LineageID != "" && l.LineageID == b.LineageID:
		return set(RelationKin, "both are of %s", k.Store)
	}
	held := make(map[string]bool, len(l.Ancestry))
	for _, a := range l.Ancestry {
		held[a.Digest] = true
	}
	for _, a := range b.Ancestry {
		if held[a.Digest] {
			return set(RelationKin, "its ancestor %s (generation %d) is the store's too", a.Digest, a.Generation)
		}
	}
	if len(b.Parents) > 0 && held[b.Parents[0]] {
		return set(RelationKin, "its parent %s is the store's ancestor too", b.Parents[0])
	}
	sf, bf := l.first(), b.first()
	switch {
	case sf != "" && bf != "" && sf == bf:
		return set(RelationKin, "both lines begin with %s", sf)
	case sf != "" && bf != "":
		return set(RelationStranger, "the store's line begins with %s, the bundle's with %s, and they share no ancestor", sf, bf)
	}
	return set(RelationUnknown, "the store is of %s, the bundle of %s: they do not both name a lineage id, share no ancestor, and not both lines reach generation 0", k.Store, k.Bundle)
}
