package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/bardo-golem/bardo/similarity"
)

// This file keeps the vectors at rest in the similarity kernel's int8 form
// (schema 5: vector_blocks; the format is VECTORS.md) and searches them
// there, a block at a time, so that a search holds a bounded working set
// whatever the store's size.

// blockRows is the most vectors a block holds.
const blockRows = 2048

// boundsSize is the bytes of one vector's bounds in a block.
const boundsSize = 4 * 8

// vectorGroup is the key of a run of blocks: one space and one polarity.
type vectorGroup struct {
	model    string
	dims     int
	polarity string
}

// openBlock is a block being written: the last of its run, or a new one.
type openBlock struct {
	id     int64 // its row; 0 for a new block
	g      vectorGroup
	leaf   int64 // its leaf; 0: the group's unclustered run
	seqs   []int64
	codes  []byte
	bounds []byte
	dirty  bool
}

func (b *openBlock) n() int { return len(b.seqs) }

// hasVectorBlocks reports whether the transaction's schema keeps vectors
// at rest (schema 5 on; a test may hold a store at an older one).
func hasVectorBlocks(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='vector_blocks'").Scan(&n)
	return n > 0, err
}

// vectorsThrough reads the highest seq the blocks hold.
func vectorsThrough(ctx context.Context, q querier) (int64, error) {
	var v string
	if err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='vectors_through'").Scan(&v); err != nil {
		return 0, fmt.Errorf("%w: meta vectors_through: %v; restore the store from a backup", ErrCorrupt, err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: meta vectors_through %q; restore the store from a backup", ErrCorrupt, v)
	}
	return n, nil
}

// syncVectors brings the blocks up to date with embeddings, in the
// transaction: it takes out the vectors deleted since (vector_deletions,
// filled by a trigger), appends those added (seq above vectors_through) to
// the last block of their group's unclustered run, or new ones, and
// clusters the groups whose unclustered run has grown. Every write
// transaction ends with it, so a writer cannot forget it.
func (t *writeTx) syncVectors(ctx context.Context) error {
	if err := t.flushTail(ctx); err != nil {
		return err
	}
	if ok, err := hasVectorBlocks(ctx, t.tx); err != nil || !ok {
		return err
	}
	through, err := vectorsThrough(ctx, t.tx)
	if err != nil {
		return err
	}
	if err := t.dropDeletedVectors(ctx, through); err != nil {
		return err
	}
	last, err := t.appendVectors(ctx, through)
	if err != nil {
		return err
	}
	if err := t.setVectorsThrough(ctx, through, last); err != nil {
		return err
	}
	if !t.blocksChanged {
		return nil // no group grew or shrank: none is due
	}
	return t.clusterVectors(ctx)
}

// setVectorsThrough records that the blocks hold every vector up to last,
// where they held those up to was.
func (t *writeTx) setVectorsThrough(ctx context.Context, was, last int64) error {
	if last == was {
		return nil
	}
	_, err := t.exec(ctx, "UPDATE meta SET value=? WHERE key='vectors_through'", strconv.FormatInt(last, 10))
	return err
}

// dropDeletedVectors rewrites each block that held a deleted vector
// without it (removing a block left empty), and empties vector_deletions.
func (t *writeTx) dropDeletedVectors(ctx context.Context, through int64) error {
	rows, err := t.tx.QueryContext(ctx, "SELECT seq, model, dims FROM vector_deletions WHERE seq <= ? ORDER BY seq", through)
	if err != nil {
		return err
	}
	type del struct {
		seq  int64
		g    vectorGroup
		body string
	}
	var dels []del
	for rows.Next() {
		var d del
		if err := rows.Scan(&d.seq, &d.g.model, &d.g.dims); err != nil {
			rows.Close()
			return err
		}
		dels = append(dels, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	blocks := map[int64]*openBlock{}
	seqs := map[int64][]int64{}
	var order []int64
	for _, d := range dels {
		found := false
		for _, pol := range []string{"positive", "negative"} {
			g := d.g
			g.polarity = pol
			b, err := t.blockHolding(ctx, g, d.seq, blocks, seqs)
			if err != nil {
				return err
			}
			if b == nil {
				continue
			}
			if !b.dirty {
				order = append(order, b.id)
			}
			b.remove(d.seq, similarity.CodeLen(g.dims))
			found = true
			break
		}
		if !found {
			return fmt.Errorf("%w: the deleted vector %d of space %q (%d dims) is in no block; run bardo check, then restore the store from a backup", ErrCorrupt, d.seq, d.g.model, d.g.dims)
		}
	}
	for _, id := range order {
		if err := t.writeBlock(ctx, blocks[id]); err != nil {
			return err
		}
	}
	_, err = t.exec(ctx, "DELETE FROM vector_deletions")
	return err
}

// blockHolding returns the block of group g that holds seq, or nil: one
// of the blocks whose seq range holds it, one of each leaf's at most.
// Blocks read before come from cache, and the seqs of those that did not
// hold it from seqs.
func (t *writeTx) blockHolding(ctx context.Context, g vectorGroup, seq int64, cache map[int64]*openBlock, seqs map[int64][]int64) (*openBlock, error) {
	var ids []int64
	if err := eachRow(ctx, t.tx, `SELECT id FROM vector_blocks WHERE model=? AND dims=? AND polarity=? AND first_seq<=?4 AND last_seq>=?4
		ORDER BY id`, func(r *sql.Rows) error {
		var id int64
		err := r.Scan(&id)
		ids = append(ids, id)
		return err
	}, g.model, g.dims, g.polarity, seq); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if b := cache[id]; b != nil {
			if _, ok := slices.BinarySearch(b.seqs, seq); ok {
				return b, nil
			}
			continue
		}
		ss, ok := seqs[id]
		if !ok {
			var raw []byte
			if err := t.queryRow(ctx, "SELECT seqs FROM vector_blocks WHERE id=?", id).Scan(&raw); err != nil {
				return nil, err
			}
			var err error
			if ss, err = decodeSeqs(raw); err != nil {
				return nil, fmt.Errorf("%w: vector block %d: %v; run bardo check", ErrCorrupt, id, err)
			}
			seqs[id] = ss
		}
		if _, ok := slices.BinarySearch(ss, seq); !ok {
			continue
		}
		b, err := t.readBlock(ctx, id, g)
		if err != nil {
			return nil, err
		}
		cache[id] = b
		return b, nil
	}
	return nil, nil
}

// readBlock reads block id of group g whole.
func (t *writeTx) readBlock(ctx context.Context, id int64, g vectorGroup) (*openBlock, error) {
	var seqs, codes, bounds []byte
	var leaf int64
	if err := t.queryRow(ctx, "SELECT leaf, seqs, codes, bounds FROM vector_blocks WHERE id=?", id).Scan(&leaf, &seqs, &codes, &bounds); err != nil {
		return nil, err
	}
	ss, err := decodeBlock(id, g.dims, seqs, codes, bounds)
	if err != nil {
		return nil, err
	}
	return &openBlock{id: id, g: g, leaf: leaf, seqs: ss, codes: codes, bounds: bounds}, nil
}

// decodeBlock returns the seqs of block id, a block of a space of dims,
// once its codes and bounds are found to be of as many vectors.
func decodeBlock(id int64, dims int, seqs, codes, bounds []byte) ([]int64, error) {
	ss, err := decodeSeqs(seqs)
	if err != nil {
		return nil, fmt.Errorf("%w: vector block %d: %v; run bardo check", ErrCorrupt, id, err)
	}
	if dp := similarity.CodeLen(dims); len(codes) != len(ss)*dp || len(bounds) != len(ss)*boundsSize {
		return nil, fmt.Errorf("%w: vector block %d: %d vectors with %d bytes of codes and %d of bounds; run bardo check", ErrCorrupt, id, len(ss), len(codes), len(bounds))
	}
	return ss, nil
}

// remove takes seq out of the block.
func (b *openBlock) remove(seq int64, dp int) {
	j, _ := slices.BinarySearch(b.seqs, seq)
	b.seqs = slices.Delete(b.seqs, j, j+1)
	b.codes = slices.Delete(b.codes, j*dp, (j+1)*dp)
	b.bounds = slices.Delete(b.bounds, j*boundsSize, (j+1)*boundsSize)
	b.dirty = true
}

// writeBlock stores b: inserted when new, rewritten when it changed,
// removed when empty. It is the one writer of blocks, and records that the
// transaction changed them.
func (t *writeTx) writeBlock(ctx context.Context, b *openBlock) error {
	var err error
	switch {
	case b.n() == 0 && b.id != 0:
		_, err = t.exec(ctx, "DELETE FROM vector_blocks WHERE id=?", b.id)
	case b.n() == 0:
		return nil
	case b.id == 0:
		_, err = t.exec(ctx, `INSERT INTO vector_blocks(model, dims, polarity, leaf, first_seq, last_seq, n, seqs, codes, bounds)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, b.g.model, b.g.dims, b.g.polarity, b.leaf, b.seqs[0], b.seqs[b.n()-1], b.n(), encodeSeqs(b.seqs), b.codes, b.bounds)
	case b.dirty:
		_, err = t.exec(ctx, "UPDATE vector_blocks SET first_seq=?, last_seq=?, n=?, seqs=?, codes=?, bounds=? WHERE id=?",
			b.seqs[0], b.seqs[b.n()-1], b.n(), encodeSeqs(b.seqs), b.codes, b.bounds, b.id)
	default:
		return nil
	}
	t.blocksChanged = true
	return err
}

// appendVectors quantizes the vectors whose seq is above through into
// their groups' blocks and returns the highest seq it took (through when
// none).
func (t *writeTx) appendVectors(ctx context.Context, through int64) (int64, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT m.seq, m.entry_id, m.model, m.dims, m.vector, g.polarity
		FROM embeddings m JOIN grimoire_entries g ON g.id=m.entry_id WHERE m.seq > ? ORDER BY m.seq`, through)
	if err != nil {
		return through, err
	}
	defer rows.Close()
	var a blockAppender
	var vec []float32
	var code []byte
	last, read := through, 0
	for rows.Next() {
		var seq int64
		var id string
		var g vectorGroup
		var raw sql.RawBytes
		if err := rows.Scan(&seq, &id, &g.model, &g.dims, &raw, &g.polarity); err != nil {
			return through, err
		}
		if len(raw) != 4*g.dims || g.dims <= 0 {
			return through, fmt.Errorf("entry %q: embedding of %d bytes, its dims say %d; run bardo check", id, len(raw), g.dims)
		}
		vec = unpackF32Into(slices.Grow(vec[:0], g.dims)[:g.dims], raw)
		code = slices.Grow(code[:0], similarity.CodeLen(g.dims))[:similarity.CodeLen(g.dims)]
		bd, err := similarity.QuantizeAtRest(code, vec)
		if err != nil {
			return through, fmt.Errorf("entry %q: embedding: %w", id, err)
		}
		if err := a.add(ctx, t, g, seq, code, bd); err != nil {
			return through, err
		}
		last = seq
		read++
	}
	if err := rows.Err(); err != nil {
		return through, err
	}
	rows.Close()
	vectorsReadBack.Add(int64(read))
	return last, a.close(ctx, t)
}

// vectorsReadBack counts the vectors appendVectors has read back, in this
// process: a test of a tail reads it.
var vectorsReadBack atomic.Int64

// blockAppender appends vectors, in seq order, to the last blocks of their
// groups' unclustered runs, or new ones: a block is written when it is
// full, and the last of each group at close, in group order.
type blockAppender struct {
	open map[vectorGroup]*openBlock
}

// add appends the vector seq of group g, its code and bounds.
func (a *blockAppender) add(ctx context.Context, t *writeTx, g vectorGroup, seq int64, code []byte, bd similarity.Bounds) error {
	b := a.open[g]
	if b == nil {
		var err error
		if b, err = t.lastBlock(ctx, g); err != nil {
			return err
		}
		if a.open == nil {
			a.open = map[vectorGroup]*openBlock{}
		}
		a.open[g] = b
	}
	if b.n() == blockRows {
		if err := t.writeBlock(ctx, b); err != nil {
			return err
		}
		b = &openBlock{g: g}
		a.open[g] = b
	}
	b.codes = append(b.codes, code...)
	b.seqs = append(b.seqs, seq)
	b.bounds = appendBounds(b.bounds, bd)
	b.dirty = true
	return nil
}

// close writes each group's open block.
func (a *blockAppender) close(ctx context.Context, t *writeTx) error {
	groups := slices.SortedFunc(func(yield func(vectorGroup) bool) {
		for g := range a.open {
			if !yield(g) {
				return
			}
		}
	}, compareGroups)
	for _, g := range groups {
		if err := t.writeBlock(ctx, a.open[g]); err != nil {
			return err
		}
	}
	a.open = nil
	return nil
}

func compareGroups(a, b vectorGroup) int {
	return cmp.Or(cmp.Compare(a.model, b.model), cmp.Compare(a.dims, b.dims), cmp.Compare(a.polarity, b.polarity))
}

// lastBlock returns the last block of group g's unclustered run when it
// has room, else a new one.
func (t *writeTx) lastBlock(ctx context.Context, g vectorGroup) (*openBlock, error) {
	var id int64
	var n int
	err := t.queryRow(ctx, "SELECT id, n FROM vector_blocks WHERE model=? AND dims=? AND polarity=? AND leaf=0 ORDER BY first_seq DESC LIMIT 1",
		g.model, g.dims, g.polarity).Scan(&id, &n)
	if errors.Is(err, sql.ErrNoRows) || err == nil && n >= blockRows {
		return &openBlock{g: g}, nil
	}
	if err != nil {
		return nil, err
	}
	return t.readBlock(ctx, id, g)
}

func encodeSeqs(seqs []int64) []byte {
	b := make([]byte, 8*len(seqs))
	for i, s := range seqs {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(s))
	}
	return b
}

// decodeSeqs reads a block's seqs, which must increase.
func decodeSeqs(b []byte) ([]int64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("seqs of %d bytes", len(b))
	}
	out := make([]int64, len(b)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		if i > 0 && out[i] <= out[i-1] {
			return nil, fmt.Errorf("seq %d after %d", out[i], out[i-1])
		}
	}
	return out, nil
}

func appendBounds(b []byte, bd similarity.Bounds) []byte {
	for _, x := range [4]float64{bd.Scale, bd.Err, bd.Norm, bd.Tail} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// decodeBounds reads n vectors' bounds into dst.
func decodeBounds(dst []similarity.Bounds, b []byte) []similarity.Bounds {
	return appendBoundsOf(dst[:0], b)
}

// appendBoundsOf appends the bounds b holds to dst.
func appendBoundsOf(dst []similarity.Bounds, b []byte) []similarity.Bounds {
	n, at := len(b)/boundsSize, len(dst)
	dst = slices.Grow(dst, n)[:at+n]
	for j := range n {
		p := b[j*boundsSize:]
		dst[at+j] = similarity.Bounds{
			Scale: math.Float64frombits(binary.LittleEndian.Uint64(p)),
			Err:   math.Float64frombits(binary.LittleEndian.Uint64(p[8:])),
			Norm:  math.Float64frombits(binary.LittleEndian.Uint64(p[16:])),
			Tail:  math.Float64frombits(binary.LittleEndian.Uint64(p[24:])),
		}
	}
	return dst
}

// VectorReader searches the store's vectors at rest. Each call reads one
// snapshot of the store.
type VectorReader struct {
	s   *Store
	ctx context.Context
}

// Vectors returns the reader of the store's vectors at rest; its calls run
// under ctx.
func (s *Store) Vectors(ctx context.Context) *VectorReader {
	return &VectorReader{s: s, ctx: ctx}
}

// BestAtLeast returns, for each query, the vector of space (model, dims)
// and polarity with the largest Cosine64 at or above threshold among
// those of refs (seqs, increasing; nil: every vector of the group), ties
// to the lowest entry id, or Ref −1: a Set's BestAtLeast over them, read a
// block at a time. Key is the entry id.
func (v *VectorReader) BestAtLeast(model string, dims int, polarity string, refs []int64, queries [][]float32, threshold float64) ([]similarity.StoredMatch, error) {
	var out []similarity.StoredMatch
	err := v.s.readTx(v.ctx, func(q querier) error {
		st := similarity.NewBestStream(dims, queries, threshold)
		if err := scanGroup(v.ctx, q, st, vectorGroup{model, dims, polarity}, refs); err != nil {
			return err
		}
		var err error
		out, err = st.Best(fetcher(v.ctx, q))
		return err
	})
	return out, err
}

// Within returns, for each query, every vector of space (model, dims), of
// either polarity, whose Cosine64 is at least threshold, by entry id.
func (v *VectorReader) Within(model string, dims int, queries [][]float32, threshold float64) ([][]similarity.StoredMatch, error) {
	var out [][]similarity.StoredMatch
	err := v.s.readTx(v.ctx, func(q querier) error {
		st := similarity.NewWithinStream(dims, queries, threshold)
		for _, pol := range []string{"negative", "positive"} {
			if err := scanGroup(v.ctx, q, st, vectorGroup{model, dims, pol}, nil); err != nil {
				return err
			}
		}
		var err error
		out, err = st.Within(fetcher(v.ctx, q))
		return err
	})
	return out, err
}

// Vector returns the vector whose seq is ref, as stored.
func (v *VectorReader) Vector(ref int64) ([]float32, error) {
	var out []float32
	err := v.s.readTx(v.ctx, func(q querier) error { // a statement prepared on the transaction closes with it
		r, err := fetcher(v.ctx, q)(ref)
		out = r.Vector
		return err
	})
	return out, err
}

// Contents returns the contents of the entries of ids, by id; an id the
// store does not hold is not in the map.
func (v *VectorReader) Contents(ids []string) (map[string]string, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	out := make(map[string]string, len(ids))
	err := v.s.readTx(v.ctx, func(q querier) error {
		return inBatches(ids, func(in string, args []any) error {
			return eachRow(v.ctx, q, "SELECT id, content FROM grimoire_entries WHERE id IN "+in, func(rs *sql.Rows) error {
				var id, c string
				err := rs.Scan(&id, &c)
				out[id] = c
				return err
			}, args...)
		})
	})
	return out, err
}

// fetcher reads a vector and its entry id by seq: a rescoring reads
// thousands, so the statement is prepared once when q can prepare.
func fetcher(ctx context.Context, q querier) func(int64) (similarity.Ref, error) {
	const query = "SELECT entry_id, vector FROM embeddings WHERE seq=?"
	row := func(seq int64) *sql.Row { return q.QueryRowContext(ctx, query, seq) }
	if p, ok := q.(interface {
		PrepareContext(context.Context, string) (*sql.Stmt, error)
	}); ok {
		if st, err := p.PrepareContext(ctx, query); err == nil {
			row = func(seq int64) *sql.Row { return st.QueryRowContext(ctx, seq) }
		}
	}
	return func(seq int64) (similarity.Ref, error) {
		var r similarity.Ref
		var raw []byte
		if err := row(seq).Scan(&r.Key, &raw); err != nil {
			return r, fmt.Errorf("vector %d: %w", seq, err)
		}
		if len(raw)%4 != 0 {
			return r, fmt.Errorf("entry %q: embedding: vector of %d bytes is not a whole number of float32", r.Key, len(raw))
		}
		r.Vector = unpackF32Into(make([]float32, len(raw)/4), raw)
		return r, nil
	}
}

// scanGroup scans group g's vectors into st: its blocks, less the vectors
// deleted since they were written and those not in refs (when refs is not
// nil), then the vectors added since.
func scanGroup(ctx context.Context, q querier, st *similarity.Stream, g vectorGroup, refs []int64) error {
	return scanGroupExcept(ctx, q, st, g, refs, nil)
}

// scanGroupExcept is scanGroup less the seqs in except too.
func scanGroupExcept(ctx context.Context, q querier, st *similarity.Stream, g vectorGroup, refs []int64, except map[int64]bool) error {
	through, err := vectorsThrough(ctx, q)
	if err != nil {
		return err
	}
	deleted := map[int64]bool{}
	for s := range except {
		deleted[s] = true
	}
	drows, err := q.QueryContext(ctx, "SELECT seq FROM vector_deletions WHERE model=? AND dims=?", g.model, g.dims)
	if err != nil {
		return err
	}
	for drows.Next() {
		var s int64
		if err := drows.Scan(&s); err != nil {
			drows.Close()
			return err
		}
		deleted[s] = true
	}
	drows.Close()
	if err := drows.Err(); err != nil {
		return err
	}
	var blk similarity.Block
	// hidden reports whether the search must not see seq.
	hidden := func(seq int64) bool {
		if deleted[seq] {
			return true
		}
		_, in := slices.BinarySearch(refs, seq)
		return refs != nil && !in
	}
	// A leaf's blocks are small (a clustering aims at 128 vectors a leaf):
	// they are gathered into one of up to blockRows before a Scan, whose
	// cost per call would otherwise be paid ten times over. A block of at
	// least half that is scanned where it lies.
	var skips []bool
	anySkip := false
	scan := func(b *similarity.Block) error {
		b.Skip = nil
		if anySkip {
			b.Skip = skips
		}
		vectorsScanned.Add(int64(len(b.Refs)))
		err := st.Scan(b)
		skips, anySkip = skips[:0], false
		return err
	}
	gathered := func() error {
		if len(blk.Refs) == 0 {
			return nil
		}
		err := scan(&blk)
		blk.Refs, blk.Codes, blk.Bounds = blk.Refs[:0], blk.Codes[:0], blk.Bounds[:0]
		return err
	}
	// Every block but those of the leaves the stream cannot reach.
	skipped, err := unreachedLeaves(ctx, q, st, g)
	if err != nil {
		return err
	}
	query := "SELECT id, seqs, codes, bounds FROM vector_blocks WHERE model=? AND dims=? AND polarity=?"
	if len(skipped) > 0 { // ids of the store's own, written out
		in := make([]string, len(skipped))
		for i, l := range skipped {
			in[i] = strconv.FormatInt(l, 10)
		}
		query += " AND leaf NOT IN (" + strings.Join(in, ",") + ")"
	}
	query += " ORDER BY leaf, first_seq"
	var one similarity.Block
	if err := eachRow(ctx, q, query, func(rows *sql.Rows) error {
		var id int64
		var seqs, codes, bounds sql.RawBytes
		if err := rows.Scan(&id, &seqs, &codes, &bounds); err != nil {
			return err
		}
		ss, err := decodeBlock(id, g.dims, seqs, codes, bounds)
		if err != nil {
			return err
		}
		if len(blk.Refs)+len(ss) > blockRows {
			if err := gathered(); err != nil {
				return err
			}
		}
		b := &blk
		if len(blk.Refs) == 0 && 2*len(ss) >= blockRows {
			b, one.Refs, one.Codes, one.Bounds = &one, ss, codes, one.Bounds[:0]
		} else {
			blk.Refs, blk.Codes = append(blk.Refs, ss...), append(blk.Codes, codes...)
		}
		b.Bounds = appendBoundsOf(b.Bounds, bounds)
		for _, s := range ss {
			h := hidden(s)
			skips, anySkip = append(skips, h), anySkip || h
		}
		if b == &one {
			return scan(&one)
		}
		return nil
	}, g.model, g.dims, g.polarity); err != nil {
		return err
	}
	if err := gathered(); err != nil {
		return err
	}
	return scanPending(ctx, q, st, g, through, refs, deleted, &blk)
}

// scanPending scans the vectors of group g added after through: not in a
// block yet (a writer other than bardo added them).
func scanPending(ctx context.Context, q querier, st *similarity.Stream, g vectorGroup, through int64, refs []int64, except map[int64]bool, blk *similarity.Block) error {
	rows, err := q.QueryContext(ctx, `SELECT m.seq, m.entry_id, m.vector FROM embeddings m JOIN grimoire_entries g ON g.id=m.entry_id
		WHERE m.seq > ? AND m.model=? AND m.dims=? AND g.polarity=? ORDER BY m.seq`, through, g.model, g.dims, g.polarity)
	if err != nil {
		return err
	}
	defer rows.Close()
	dp := similarity.CodeLen(g.dims)
	blk.Refs, blk.Codes, blk.Bounds, blk.Skip = blk.Refs[:0], nil, blk.Bounds[:0], nil
	flush := func() error {
		if len(blk.Refs) == 0 {
			return nil
		}
		err := st.Scan(blk)
		blk.Refs, blk.Codes, blk.Bounds = blk.Refs[:0], blk.Codes[:0], blk.Bounds[:0]
		return err
	}
	vec := make([]float32, g.dims)
	for rows.Next() {
		var seq int64
		var id string
		var raw sql.RawBytes
		if err := rows.Scan(&seq, &id, &raw); err != nil {
			return err
		}
		if refs != nil {
			if _, in := slices.BinarySearch(refs, seq); !in {
				continue
			}
		}
		if except[seq] {
			continue
		}
		if len(raw) != 4*g.dims {
			return fmt.Errorf("entry %q: embedding of %d bytes, its dims say %d; run bardo check", id, len(raw), g.dims)
		}
		unpackF32Into(vec, raw)
		blk.Codes = slices.Grow(blk.Codes, dp)[:len(blk.Codes)+dp]
		bd, err := similarity.QuantizeAtRest(blk.Codes[len(blk.Codes)-dp:], vec)
		if err != nil {
			return fmt.Errorf("entry %q: embedding: %w", id, err)
		}
		blk.Refs = append(blk.Refs, seq)
		blk.Bounds = append(blk.Bounds, bd)
		if len(blk.Refs) == blockRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}
