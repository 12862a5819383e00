package store

import (
	"bytes"
	"context"
	"database/sql"
	"slices"

	"github.com/bardo-golem/bardo/similarity"
)

// checkVectors verifies the vectors at rest against embeddings: every
// block whole and in order, each vector it holds in embeddings with the
// block's space and polarity (or deleted since, in vector_deletions), its
// code and bounds those QuantizeAtRest makes of the vector, and every
// vector up to vectors_through in exactly one block. It reads a block and
// its vectors at a time.
func checkVectors(ctx context.Context, q querier, out *[]Problem) error {
	if ok, err := hasVectorBlocks(ctx, q); err != nil || !ok {
		return err
	}
	list := problemList{out: out, check: "vectors"}
	defer list.close()
	through, err := vectorsThrough(ctx, q)
	if err != nil {
		list.add("%v", err)
		return nil
	}
	deleted := map[int64]bool{}
	if err := eachRow(ctx, q, "SELECT seq FROM vector_deletions", func(r *sql.Rows) error {
		var s int64
		err := r.Scan(&s)
		deleted[s] = true
		return err
	}); err != nil {
		return err
	}
	leaves, err := checkLeaves(ctx, q, &list)
	if err != nil {
		return err
	}
	var held []int64 // every seq a block holds
	var prev vectorGroup
	var prevLeaf, prevLast int64
	code := []byte{}
	var bds []similarity.Bounds
	err = eachRow(ctx, q, "SELECT id, model, dims, polarity, leaf, first_seq, last_seq, n, seqs, codes, bounds FROM vector_blocks ORDER BY model, dims, polarity, leaf, first_seq", func(r *sql.Rows) error {
		var id, leaf, first, last int64
		var n int
		var g vectorGroup
		var seqs, codes, bounds []byte
		if err := r.Scan(&id, &g.model, &g.dims, &g.polarity, &leaf, &first, &last, &n, &seqs, &codes, &bounds); err != nil {
			return err
		}
		ss, err := decodeSeqs(seqs)
		dp := similarity.CodeLen(max(g.dims, 1))
		lf := leaves[leaf]
		switch {
		case err != nil:
			list.add("vector block %d: %v", id, err)
			return nil
		case len(ss) != n || n == 0 || ss[0] != first || ss[n-1] != last || len(codes) != n*dp || len(bounds) != n*boundsSize:
			list.add("vector block %d: %d vectors (its n says %d, seqs %d to %d) with %d bytes of codes and %d of bounds", id, len(ss), n, first, last, len(codes), len(bounds))
			return nil
		case g == prev && leaf == prevLeaf && ss[0] <= prevLast:
			list.add("vector block %d of space %q (%d dims, %s), leaf %d, starts at seq %d, not after its previous block's %d", id, g.model, g.dims, g.polarity, leaf, ss[0], prevLast)
		case ss[n-1] > through:
			list.add("vector block %d holds seq %d, above vectors_through %d", id, ss[n-1], through)
		case leaf != 0 && (lf == nil || lf.parent == 0 || lf.g != g):
			list.add("vector block %d of space %q (%d dims, %s) is in leaf %d, which is no leaf of that space", id, g.model, g.dims, g.polarity, leaf)
			lf = nil
		}
		if leaf == 0 {
			lf = nil
		}
		prev, prevLeaf, prevLast = g, leaf, ss[n-1]
		held = append(held, ss...)
		bds = decodeBounds(bds, bounds)
		// The block's vectors, by their seqs.
		j := 0
		code = slices.Grow(code[:0], dp)[:dp]
		err = inBatches(ss, func(in string, args []any) error {
			return eachRow(ctx, q, `SELECT m.seq, m.entry_id, m.model, m.dims, m.vector, g.polarity FROM embeddings m
			JOIN grimoire_entries g ON g.id=m.entry_id WHERE m.seq IN `+in+` ORDER BY m.seq`, func(r *sql.Rows) error {
				var seq int64
				var e string
				var h vectorGroup
				var raw []byte
				if err := r.Scan(&seq, &e, &h.model, &h.dims, &raw, &h.polarity); err != nil {
					return err
				}
				for j < n && ss[j] < seq {
					if !deleted[ss[j]] {
						list.add("vector block %d holds seq %d, which no embedding has", id, ss[j])
					}
					j++
				}
				if j == n || ss[j] != seq {
					return nil
				}
				if h != g {
					list.add("entry %q: its vector (seq %d) is in a block of space %q (%d dims, %s), not of its own %q (%d dims, %s)", e, seq, g.model, g.dims, g.polarity, h.model, h.dims, h.polarity)
				} else if len(raw) == 4*g.dims {
					bd, err := similarity.QuantizeAtRest(code, unpackF32Into(make([]float32, g.dims), raw))
					if err != nil || !bytes.Equal(code, codes[j*dp:(j+1)*dp]) || !bytes.Equal(appendBounds(nil, bd), bounds[j*boundsSize:(j+1)*boundsSize]) {
						list.add("entry %q: its vector at rest (block %d) is not the int8 form of its embedding", e, id)
					}
				}
				if lf != nil {
					for _, c := range []*checkLeaf{lf, leaves[lf.parent]} {
						if c != nil && similarity.ConeCos(c.centroid, codes[j*dp:(j+1)*dp], bds[j]) < c.cos {
							list.add("entry %q: its vector (block %d) lies outside the cone of vector leaf %d", e, id, c.id)
						}
					}
				}
				j++
				return nil
			}, args...)
		})
		for ; err == nil && j < n; j++ {
			if !deleted[ss[j]] {
				list.add("vector block %d holds seq %d, which no embedding has", id, ss[j])
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(held)
	for i := 1; i < len(held); i++ {
		if held[i] == held[i-1] {
			list.add("seq %d is in more than one vector block", held[i])
		}
	}
	return eachRow(ctx, q, "SELECT seq, entry_id FROM embeddings WHERE seq <= ? ORDER BY seq", func(r *sql.Rows) error {
		var seq int64
		var e string
		if err := r.Scan(&seq, &e); err != nil {
			return err
		}
		if _, ok := slices.BinarySearch(held, seq); !ok {
			list.add("entry %q: its vector (seq %d) is in no vector block", e, seq)
		}
		return nil
	}, through)
}

// eachRow calls fn for each row of query.
func eachRow(ctx context.Context, q querier, query string, fn func(*sql.Rows) error, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// checkLeaf is a row of vector_leaves as check reads it.
type checkLeaf struct {
	id, parent int64
	g          vectorGroup
	cos        float64
	centroid   []float32
}

// checkLeaves reads vector_leaves, reporting rows that are not whole: a
// centroid of its space's dims, a cosine no greater than 1, a parent that
// is a node of the same space.
func checkLeaves(ctx context.Context, q querier, list *problemList) (map[int64]*checkLeaf, error) {
	leaves := map[int64]*checkLeaf{}
	var ids []int64 // in increasing order
	err := eachRow(ctx, q, "SELECT id, model, dims, polarity, parent, cos_min, centroid FROM vector_leaves ORDER BY id", func(r *sql.Rows) error {
		var c checkLeaf
		var raw []byte
		if err := r.Scan(&c.id, &c.g.model, &c.g.dims, &c.g.polarity, &c.parent, &c.cos, &raw); err != nil {
			return err
		}
		if len(raw) != 4*c.g.dims || c.g.dims <= 0 || !(c.cos <= 1) {
			list.add("vector leaf %d: a centroid of %d bytes in a space of %d dims, cosine %v", c.id, len(raw), c.g.dims, c.cos)
			return nil
		}
		c.centroid = unpackF32Into(make([]float32, c.g.dims), raw)
		leaves[c.id] = &c
		ids = append(ids, c.id)
		return nil
	})
	for _, id := range ids {
		c := leaves[id]
		if p := leaves[c.parent]; c.parent != 0 && (p == nil || p.parent != 0 || p.g != c.g) {
			list.add("vector leaf %d: its parent %d is no node of its space", c.id, c.parent)
		}
	}
	return leaves, err
}
