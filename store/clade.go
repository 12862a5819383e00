package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// Knowledge is the store as clade knowledge that stays in it (package
// novelty's Stored): every row but those whose status is unknown (the
// clade's rule, clade.Known, handed over by the command), searched where
// it is: the model vectors at rest, the texts read only when a query
// needs them. Each call reads one snapshot.
type Knowledge struct {
	s       *Store
	ctx     context.Context
	unknown string
	// Spaces are the model spaces of the rows' vectors (bardo-text/v1
	// aside), name → dims; N is how many rows it holds.
	Spaces map[string]int
	N      int
}

// Knowledge returns the store's rows as clade knowledge, but those of
// status unknown.
func (s *Store) Knowledge(ctx context.Context, unknown string) (*Knowledge, error) {
	k := &Knowledge{s: s, ctx: ctx, unknown: unknown, Spaces: map[string]int{}}
	err := s.readTx(ctx, func(q querier) error {
		// The whole table's count less a range of the status index: a
		// count of "status != ?" walks the index, 0.1 s at 1M rows.
		if err := q.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM grimoire_entries) -
			(SELECT count(*) FROM grimoire_entries WHERE status = ?)`, unknown).Scan(&k.N); err != nil {
			return err
		}
		through, err := vectorsThrough(ctx, q)
		if err != nil {
			return err
		}
		type space struct {
			model string
			dims  int
		}
		var spaces []space
		if err := eachRow(ctx, q, `SELECT DISTINCT model, dims FROM vector_blocks
			UNION SELECT DISTINCT model, dims FROM embeddings WHERE seq > ? ORDER BY model, dims`, func(rs *sql.Rows) error {
			var sp space
			err := rs.Scan(&sp.model, &sp.dims)
			spaces = append(spaces, sp)
			return err
		}, through); err != nil {
			return err
		}
		for _, sp := range spaces {
			if sp.model == "" || sp.model == textembed.Space {
				continue
			}
			// A space counts when a row it holds is known.
			var one int
			err := q.QueryRowContext(ctx, `SELECT 1 FROM embeddings m JOIN grimoire_entries g ON g.id=m.entry_id
				WHERE m.model=? AND m.dims=? AND g.status != ? LIMIT 1`, sp.model, sp.dims, unknown).Scan(&one)
			if err == sql.ErrNoRows {
				continue
			}
			if err != nil {
				return err
			}
			if d, ok := k.Spaces[sp.model]; ok {
				return fmt.Errorf("%w: space %q has vectors of %d and of %d dims; run bardo check", ErrCorrupt, sp.model, d, sp.dims)
			}
			k.Spaces[sp.model] = sp.dims
		}
		return nil
	})
	return k, err
}

// unknownSeqs returns the seqs of the vectors of space (model, dims) whose
// rows are of status unknown: a search at rest leaves them out.
func (k *Knowledge) unknownSeqs(q querier, model string, dims int) (map[int64]bool, error) {
	out := map[int64]bool{}
	err := eachRow(k.ctx, q, `SELECT m.seq FROM grimoire_entries g JOIN embeddings m ON m.entry_id=g.id
		WHERE g.status = ? AND m.model=? AND m.dims=?`, func(rs *sql.Rows) error {
		var s int64
		err := rs.Scan(&s)
		out[s] = true
		return err
	}, k.unknown, model, dims)
	return out, err
}

// MaxCos returns, for each query of space (model, dims), the known row
// whose vector has the largest Cosine64 with it, ties to the lowest id,
// or Ref −1: read a block at a time, of both polarities.
func (k *Knowledge) MaxCos(model string, dims int, queries [][]float32) ([]similarity.StoredMatch, error) {
	var out []similarity.StoredMatch
	err := k.s.readTx(k.ctx, func(q querier) error {
		except, err := k.unknownSeqs(q, model, dims)
		if err != nil {
			return err
		}
		st := similarity.NewBestStream(dims, queries, -2) // every cosine is at least −1
		for _, pol := range []string{"negative", "positive"} {
			if err := scanGroupExcept(k.ctx, q, st, vectorGroup{model, dims, pol}, nil, except); err != nil {
				return err
			}
		}
		out, err = st.Best(fetcher(k.ctx, q))
		return err
	})
	return out, err
}

// Others calls fn with each known row that has no vector in space (model,
// dims), in id order, with its vector when that is a bardo-text/v1 one.
// When every known row has a vector there it reads no row.
func (k *Knowledge) Others(model string, dims int, fn func(id, text string, textVector []float32) error) error {
	return k.s.readTx(k.ctx, func(q querier) error {
		if n, ok := k.Spaces[model]; ok && n == dims {
			in, err := k.knownIn(q, model, dims)
			if err != nil {
				return err
			}
			if in == k.N {
				return nil
			}
		}
		return k.each(q, "(m.entry_id IS NULL OR m.model != ? OR m.dims != ?)", fn, model, dims)
	})
}

// Texts calls fn with every known row, in id order, with its vector when
// that is a bardo-text/v1 one.
func (k *Knowledge) Texts(fn func(id, text string, textVector []float32) error) error {
	return k.s.readTx(k.ctx, func(q querier) error { return k.each(q, "1", fn) })
}

// knownIn counts the known rows with a vector in space (model, dims), from
// the blocks' counts: the vectors in blocks, less those deleted since,
// with those not in a block yet, less the unknown rows'.
func (k *Knowledge) knownIn(q querier, model string, dims int) (int, error) {
	through, err := vectorsThrough(k.ctx, q)
	if err != nil {
		return 0, err
	}
	var inBlocks, pending, deleted, unknown int
	if err := q.QueryRowContext(k.ctx, `SELECT
		(SELECT COALESCE(sum(n), 0) FROM vector_blocks WHERE model=?1 AND dims=?2),
		(SELECT count(*) FROM embeddings WHERE seq > ?3 AND model=?1 AND dims=?2),
		(SELECT count(*) FROM vector_deletions WHERE seq <= ?3 AND model=?1 AND dims=?2),
		(SELECT count(*) FROM grimoire_entries g JOIN embeddings m ON m.entry_id=g.id WHERE g.status=?4 AND m.model=?1 AND m.dims=?2)`,
		model, dims, through, k.unknown).Scan(&inBlocks, &pending, &deleted, &unknown); err != nil {
		return 0, err
	}
	return inBlocks + pending - deleted - unknown, nil
}

// each calls fn with the known rows that meet where (on g and m).
func (k *Knowledge) each(q querier, where string, fn func(id, text string, textVector []float32) error, args ...any) error {
	rows, err := q.QueryContext(k.ctx, `SELECT g.id, g.content, m.model, CASE WHEN m.model = ? THEN m.vector END
		FROM grimoire_entries g LEFT JOIN embeddings m ON m.entry_id=g.id
		WHERE g.status != ? AND `+where+` ORDER BY g.id`, slices.Concat([]any{textembed.Space, k.unknown}, args)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, content string
		var model sql.NullString
		var raw []byte
		if err := rows.Scan(&id, &content, &model, &raw); err != nil {
			return err
		}
		var tv []float32
		if raw != nil {
			if tv, err = unpackF32(raw); err != nil {
				return fmt.Errorf("entry %q: embedding: %w", id, err)
			}
		}
		if err := fn(id, content, tv); err != nil {
			return err
		}
	}
	return rows.Err()
}
