package reflection

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// graphItems is category 9: one item per edge, strongest first (weight,
// then evidence, descending; ties by source id, target id, mechanism,
// bytewise), at most limit, each reading
//
//	"gas above 80 gwei" → "pool X drained": liquidity flight (weight 0.60, evidence 4)
//
// An end whose text the pipeline does not know shows its id, unquoted:
//
//	e-dip → e-lag (weight 0.30)
func graphItems(graph []Edge, limit int) []Item {
	edges := slices.Clone(graph)
	slices.SortFunc(edges, func(a, b Edge) int {
		return cmp.Or(
			cmp.Compare(b.Weight, a.Weight),
			cmp.Compare(b.Evidence, a.Evidence),
			strings.Compare(a.SourceID, b.SourceID),
			strings.Compare(a.TargetID, b.TargetID),
			strings.Compare(a.Mechanism, b.Mechanism),
			strings.Compare(a.SourceText, b.SourceText),
			strings.Compare(a.TargetText, b.TargetText),
		)
	})
	if len(edges) > limit {
		edges = edges[:limit]
	}
	items := make([]Item, 0, len(edges))
	for _, e := range edges {
		text := endText(e.SourceText, e.SourceID) + " → " + endText(e.TargetText, e.TargetID)
		if m := oneLine(e.Mechanism); m != "" {
			text += ": " + m
		}
		text += " (weight " + fixed2(e.Weight)
		if e.Evidence != 0 {
			text += ", evidence " + strconv.FormatInt(e.Evidence, 10)
		}
		text += ")"
		refs := []Ref{{RefEntry, e.SourceID}}
		if e.TargetID != e.SourceID {
			refs = append(refs, Ref{RefEntry, e.TargetID})
		}
		items = append(items, textItem(9, text, refs))
	}
	return items
}

func endText(text, id string) string {
	if t := oneLine(text); t != "" {
		return `"` + t + `"`
	}
	return id
}
