package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/similarity"
)

// A transaction that inserts many embeddings — an ingest — takes them
// into their blocks as it inserts them, quantized ahead by the goroutine
// that decodes the export (restVector), rather than reading every one of
// them back at its end (appendVectors): the same blocks, the same bytes,
// written in the same order, without a second pass over the vectors on the
// goroutine that writes the store. syncVectors still ends the
// transaction, and reads back whatever the tail did not take.

// ingestTakesVectors says whether an ingest keeps a tail: a test turns it
// off to hold the tail's blocks to the ones read back.
var ingestTakesVectors = true

// restVector is an embedding made ready for the store before its
// transaction takes it: its column bytes and its int8 form.
type restVector struct {
	packed []byte // embeddings.vector
	code   []byte // its code in a block, similarity.CodeLen(dims) bytes
	bounds similarity.Bounds
	err    error // QuantizeAtRest's, reported when a block takes the vector
}

// prepareVector makes v ready for the store.
func prepareVector(v []float32) *restVector {
	rv := &restVector{packed: packF32(v), code: make([]byte, similarity.CodeLen(len(v)))}
	rv.bounds, rv.err = similarity.QuantizeAtRest(rv.code, v)
	return rv
}

// vectorTail is a transaction's appending of the embeddings it inserts,
// in seq order. Until flushTail, meta's vectors_through lags the blocks
// it wrote: a transaction with a tail does not search its own vectors
// before it ends (ingest never does).
type vectorTail struct {
	blockAppender
	started       bool
	from, through int64 // vectors_through when it started; the highest seq it took
}

// tailRow is an embedding a statement inserted, by its seq.
type tailRow struct {
	seq int64
	row *Row
}

// takeInserted appends the embeddings of rows that one statement
// inserted, by seq, to their groups' blocks. Where another embedding lies
// between the tail and them (one inserted without it) the tail ends
// (flushTail) and syncVectors reads the rest back.
func (t *writeTx) takeInserted(ctx context.Context, ins []tailRow) error {
	tl := t.tail
	if tl == nil || len(ins) == 0 {
		return nil
	}
	slices.SortFunc(ins, func(a, b tailRow) int { return cmp.Compare(a.seq, b.seq) })
	var between bool
	if err := t.queryRow(ctx, "SELECT EXISTS (SELECT 1 FROM embeddings WHERE seq > ? AND seq < ?)",
		tl.through, ins[0].seq).Scan(&between); err != nil {
		return err
	}
	if between || ins[0].seq <= tl.through {
		return t.flushTail(ctx)
	}
	for _, in := range ins {
		r := in.row
		rv := t.ready[r]
		if rv == nil {
			rv = prepareVector(r.Embedding)
		}
		if rv.err != nil {
			return fmt.Errorf("entry %q: embedding: %w", r.ID, rv.err)
		}
		g := vectorGroup{model: r.EmbeddingModel, dims: len(r.Embedding), polarity: defaultString(r.Polarity, grimoire.PolarityPositive)}
		if err := tl.add(ctx, t, g, in.seq, rv.code, rv.bounds); err != nil {
			return err
		}
		tl.through = in.seq
	}
	return nil
}

// hasTail reports whether the transaction has a tail, starting it on first
// use: a store without blocks (a schema before 5, in a test) has none.
func (t *writeTx) hasTail(ctx context.Context) (bool, error) {
	tl := t.tail
	if tl == nil || tl.started {
		return tl != nil, nil
	}
	ok, err := hasVectorBlocks(ctx, t.tx)
	if err != nil || !ok {
		t.tail = nil
		return false, err
	}
	if tl.from, err = vectorsThrough(ctx, t.tx); err != nil {
		return false, err
	}
	tl.through, tl.started = tl.from, true
	return true, nil
}

// flushTail writes the tail's open blocks and raises vectors_through to
// the last seq it took, ending the tail.
func (t *writeTx) flushTail(ctx context.Context) error {
	tl := t.tail
	t.tail = nil
	if tl == nil || !tl.started {
		return nil
	}
	if err := tl.close(ctx, t); err != nil {
		return err
	}
	return t.setVectorsThrough(ctx, tl.from, tl.through)
}
