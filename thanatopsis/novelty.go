package thanatopsis

import (
	"fmt"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/reflection"
)

// scoreNovelty scores every item of r against the clade (none when clade
// is nil: max_cos 0, novelty 1), sets each item's Novelty, and returns the
// scores in the shape of r.Categories.
//
// The only way scoring fails on a reflection built from a valid export is
// a clade whose vectors of the export's embedding model have another
// length: the two disagree on what the space is, and no cosine between
// them means anything. That is bad input data, reported against the
// export's header.
func scoreNovelty(clade *novelty.Clade, r *reflection.Reflection, h *grimoire.Header, name string) ([9][]novelty.Score, error) {
	var out [9][]novelty.Score
	if clade == nil {
		clade = novelty.NewCladeBuilder().Build()
	}
	var qs []novelty.Query
	for _, items := range r.Categories {
		for _, it := range items {
			q := novelty.Query{Category: it.Index, Text: it.Text}
			if len(it.Vector.Data) > 0 {
				q.Space, q.Vector = it.Vector.Space, it.Vector.Data
			}
			qs = append(qs, q)
		}
	}
	scores, err := clade.Score(qs)
	if err != nil {
		model, dims := "", 0
		if h.Embedding != nil {
			model, dims = h.Embedding.Model, h.Embedding.Dims
		}
		return out, &grimoire.FieldError{
			File:  name,
			Type:  grimoire.TypeHeader,
			Field: "embedding",
			Err:   fmt.Errorf("embedding model %q has %d dims, but the clade's vectors of that model do not: %w", model, dims, err),
		}
	}
	k := 0
	for i, items := range r.Categories {
		out[i] = make([]novelty.Score, len(items))
		for j := range items {
			out[i][j] = scores[k]
			items[j].Novelty = scores[k].Novelty
			k++
		}
	}
	return out, nil
}
