package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/bardo-golem/bardo/similarity"
)

// This file keeps the cluster index of the vectors at rest (schema 7; the
// format is VECTORS.md, "Leaves"): a group's vectors are clustered into
// leaves under nodes, each a cone (a centroid and the lowest cosine of a
// member with it), and a leaf's vectors are kept in blocks of their own,
// so that a search whose queries cannot reach a cone reads none of its
// blocks. New vectors wait in the group's unclustered run (leaf 0), which
// every search reads; when it has grown to an eighth of the group, the
// write transaction that grew it clusters the group again.

const (
	// clusterMaxLeaves bounds the leaves of a group (reached at 512k
	// vectors); past it leaves grow (244 vectors at 1M).
	clusterMaxLeaves = 4096
	// clusterSample is the vectors per leaf the k-means trains on.
	clusterSample = 24
	// clusterIters is the rounds of Lloyd's algorithm at each level.
	clusterIters = 4
	// clusterShare: a group is clustered again when its unclustered run
	// holds at least 1/clusterShare of its vectors (and clusterMin).
	clusterShare = 8
	// coneQueries is the most live queries a search tests the cones for:
	// a batch of more reaches nearly every leaf (a bundle's 2048 entries
	// span the store), and testing each leaf against each query would cost
	// more than it saves.
	coneQueries = 64
)

// Variables, so that a test can cluster small groups:
var (
	// clusterMin is the fewest vectors a group's unclustered run holds
	// before the group is clustered: a smaller group is read whole in no
	// time.
	clusterMin = 4096
	// clusterLeafSize is the vectors per leaf a clustering aims at, a
	// sixteenth of a block, up to clusterMaxLeaves leaves. The cone of a
	// leaf is as wide as its farthest vector, and a leaf that takes two of
	// the data's clusters spans both: leaves smaller than the clusters
	// keep the cones narrow, and each leaf costs a search the test of its
	// cone. The harness's vectors, in 1,024 clusters: at 1M × 384, leaves
	// of 1,024 (strays left in) had a mean cone cosine of 0.61 and a recall
	// took 0.14 s; 3,877 leaves, strays apart, 0.80 and 0.03 s; 7,805
	// leaves 0.83 and 0.09 s (the cones' rows cost more than they save).
	// At 300k × 768: 1,146 leaves left 108 cones below 0.6 and a recall
	// read 50k vectors (0.11 s); 2,226 leaves, 19 and 3k (0.06 s).
	clusterLeafSize = blockRows / 16
	// clusterBudget bounds the bytes of codes and bounds a clustering
	// holds while it writes the leaves' blocks: it writes them a budget's
	// worth of leaves at a time, each time reading the group's old blocks
	// again.
	clusterBudget = 32 << 20
)

// vectorsScanned counts the vectors searches have scanned, in this
// process: a test of the cones reads it.
var vectorsScanned atomic.Int64

// clusterVectors clusters each group whose unclustered run holds at least
// clusterMin vectors and 1/clusterShare of the group.
func (t *writeTx) clusterVectors(ctx context.Context) error {
	type count struct {
		g          vectorGroup
		all, loose int
	}
	var due []count
	if err := eachRow(ctx, t.tx, `SELECT model, dims, polarity, sum(n), sum(CASE WHEN leaf=0 THEN n ELSE 0 END)
		FROM vector_blocks GROUP BY model, dims, polarity ORDER BY model, dims, polarity`, func(r *sql.Rows) error {
		var c count
		if err := r.Scan(&c.g.model, &c.g.dims, &c.g.polarity, &c.all, &c.loose); err != nil {
			return err
		}
		if c.loose >= clusterMin && c.loose*clusterShare >= c.all {
			due = append(due, c)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, c := range due {
		if err := t.clusterGroup(ctx, c.g, c.all, c.loose); err != nil {
			return fmt.Errorf("clustering the vectors of space %q (%d dims, %s): %w", c.g.model, c.g.dims, c.g.polarity, err)
		}
	}
	return nil
}

// clusterGroup clusters the all vectors of group g (loose of them in its
// unclustered run) into leaves, and writes its blocks again, a leaf's in
// blocks of their own, in place of the old.
func (t *writeTx) clusterGroup(ctx context.Context, g vectorGroup, all, loose int) error {
	var old []int64 // the group's blocks, in the order every pass reads them
	if err := eachRow(ctx, t.tx, "SELECT id FROM vector_blocks WHERE model=? AND dims=? AND polarity=? ORDER BY leaf, first_seq",
		func(r *sql.Rows) error {
			var id int64
			err := r.Scan(&id)
			old = append(old, id)
			return err
		}, g.model, g.dims, g.polarity); err != nil {
		return err
	}
	// each calls fn with each old block in turn, in the order of old, its
	// bounds decoded; its codes and bounds are valid during the call only.
	// No block is written while it runs.
	if len(old) == 0 {
		return nil
	}
	maxOld := slices.Max(old)
	var bds []similarity.Bounds
	each := func(fn func(b *openBlock, bds []similarity.Bounds) error) error {
		read := 0
		err := eachRow(ctx, t.tx, `SELECT id, seqs, codes, bounds FROM vector_blocks WHERE model=? AND dims=? AND polarity=? AND id<=?
			ORDER BY leaf, first_seq`, func(r *sql.Rows) error {
			var id int64
			var seqs, codes, bounds sql.RawBytes
			if err := r.Scan(&id, &seqs, &codes, &bounds); err != nil {
				return err
			}
			if read >= len(old) || id != old[read] {
				return fmt.Errorf("%w: vector block %d read out of its order; run bardo check", ErrCorrupt, id)
			}
			read++
			ss, err := decodeBlock(id, g.dims, seqs, codes, bounds)
			if err != nil {
				return err
			}
			bds = decodeBounds(bds, bounds)
			return fn(&openBlock{id: id, g: g, seqs: ss, codes: codes, bounds: bounds}, bds)
		}, g.model, g.dims, g.polarity, maxOld)
		if err == nil && read != len(old) {
			err = fmt.Errorf("%w: %d vector blocks read of %d; run bardo check", ErrCorrupt, read, len(old))
		}
		return err
	}
	dp := similarity.CodeLen(g.dims)
	k := min(clusterMaxLeaves, max(1, (all+clusterLeafSize/2)/clusterLeafSize))

	// The sample: every stride-th vector.
	stride := max(1, all/(clusterSample*k))
	var scodes []byte
	var sscales []float64
	pos := 0
	if err := each(func(b *openBlock, bds []similarity.Bounds) error {
		for j := range b.n() {
			if pos%stride == 0 {
				scodes = append(scodes, b.codes[j*dp:(j+1)*dp]...)
				sscales = append(sscales, bds[j].Scale)
			}
			pos++
		}
		return nil
	}); err != nil {
		return err
	}
	if pos != all {
		return fmt.Errorf("%w: the blocks hold %d vectors, their counts say %d; run bardo check", ErrCorrupt, pos, all)
	}

	// The nodes, then each node's leaves, from the sample.
	idx := newClusterIndex(g.dims, scodes, sscales, k)

	// Every vector's leaf, and the bounds of its cosines with the leaf's
	// centroid and the node's; the cones of those that are no strays.
	seqOf := make([]int64, 0, all)
	leafOf := make([]int32, 0, all)
	cosOf := make([]float64, 0, all)
	nodeCosOf := make([]float64, 0, all)
	if err := each(func(b *openBlock, bds []similarity.Bounds) error {
		for j, l := range idx.assign(b.codes) {
			code := b.codes[j*dp : (j+1)*dp]
			seqOf = append(seqOf, b.seqs[j])
			leafOf = append(leafOf, l)
			cosOf = append(cosOf, idx.leaves[l].cone.Cos(code, bds[j]))
			nodeCosOf = append(nodeCosOf, idx.nodes[idx.parent[l]].cone.Cos(code, bds[j]))
		}
		return nil
	}); err != nil {
		return err
	}
	stray := idx.takeStrays(leafOf, cosOf)
	for i, l := range leafOf {
		if l != stray {
			c, n := &idx.leaves[l], &idx.nodes[idx.parent[l]]
			c.cos, n.cos = min(c.cos, cosOf[i]), min(n.cos, nodeCosOf[i])
		}
	}
	cosOf, nodeCosOf = nil, nil

	// The leaves' rows, after every id the table has (the old blocks name
	// the old leaves until they go); their cones once their blocks are
	// written.
	var first int64
	if err := t.queryRow(ctx, "SELECT COALESCE(max(id), 0) + 1 FROM vector_leaves").Scan(&first); err != nil {
		return err
	}
	for _, l := range leafOf {
		idx.leaves[l].n++
		idx.nodes[idx.parent[l]].n++
	}
	insert := func(parent int64, c *cone) error {
		if c.n == 0 {
			return nil
		}
		res, err := t.exec(ctx, "INSERT INTO vector_leaves(model, dims, polarity, parent, cos_min, centroid) VALUES(?, ?, ?, ?, 1, ?)",
			g.model, g.dims, g.polarity, parent, packF32(c.centroid))
		if err == nil {
			c.id, err = res.LastInsertId()
		}
		return err
	}
	for j := range idx.nodes {
		if err := insert(0, &idx.nodes[j]); err != nil {
			return err
		}
	}
	for l := range idx.leaves {
		if err := insert(idx.nodes[idx.parent[l]].id, &idx.leaves[l]); err != nil {
			return err
		}
	}

	// Each vector's place in its leaf: the leaf's vectors in seq order.
	order := make([]int32, all)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(leafOf[a], leafOf[b]), cmp.Compare(seqOf[a], seqOf[b]))
	})
	start := make([]int, len(idx.leaves)+1) // leaf l's vectors are order[start[l]:start[l+1]]
	for l := range idx.leaves {
		start[l+1] = start[l] + idx.leaves[l].n
	}
	rank := make([]int32, all)
	for i, p := range order {
		rank[p] = int32(i - start[leafOf[p]])
	}

	// The leaves' blocks, a budget's worth of leaves at a time; the cones
	// of the strays.
	per := dp + boundsSize
	for lo := 0; lo < len(idx.leaves); {
		hi := lo + 1
		for hi < len(idx.leaves) && (start[hi+1]-start[lo])*per <= clusterBudget {
			hi++
		}
		codes := make([]byte, (start[hi]-start[lo])*dp)
		bounds := make([]byte, (start[hi]-start[lo])*boundsSize)
		pos := 0
		if err := each(func(b *openBlock, bds []similarity.Bounds) error {
			for j := range b.n() {
				if l := int(leafOf[pos]); l >= lo && l < hi {
					at := start[l] - start[lo] + int(rank[pos])
					code := b.codes[j*dp : (j+1)*dp]
					copy(codes[at*dp:(at+1)*dp], code)
					copy(bounds[at*boundsSize:(at+1)*boundsSize], b.bounds[j*boundsSize:(j+1)*boundsSize])
					if int32(l) == stray {
						widen(&idx.leaves[l], code, bds[j])
						widen(&idx.nodes[idx.parent[l]], code, bds[j])
					}
				}
				pos++
			}
			return nil
		}); err != nil {
			return err
		}
		for l := lo; l < hi; l++ {
			for a := start[l]; a < start[l+1]; a += blockRows {
				z := min(a+blockRows, start[l+1])
				b := &openBlock{g: g, leaf: idx.leaves[l].id, seqs: make([]int64, 0, z-a)}
				for _, p := range order[a:z] {
					b.seqs = append(b.seqs, seqOf[p])
				}
				b.codes = codes[(a-start[lo])*dp : (z-start[lo])*dp]
				b.bounds = bounds[(a-start[lo])*boundsSize : (z-start[lo])*boundsSize]
				if err := t.writeBlock(ctx, b); err != nil {
					return err
				}
			}
		}
		lo = hi
	}
	var made [2]int // nodes and leaves
	for i, cs := range [][]cone{idx.nodes, idx.leaves} {
		for _, c := range cs {
			if c.n == 0 {
				continue
			}
			if _, err := t.exec(ctx, "UPDATE vector_leaves SET cos_min=? WHERE id=?", c.cos, c.id); err != nil {
				return err
			}
			made[i]++
		}
	}

	for _, id := range old {
		if _, err := t.exec(ctx, "DELETE FROM vector_blocks WHERE id=?", id); err != nil {
			return err
		}
	}
	if _, err := t.exec(ctx, "DELETE FROM vector_leaves WHERE model=? AND dims=? AND polarity=? AND id<?", g.model, g.dims, g.polarity, first); err != nil {
		return err
	}
	_, err := t.exec(ctx, "INSERT INTO vector_clusterings(model, dims, polarity, vectors, unclustered, nodes, leaves) VALUES(?, ?, ?, ?, ?, ?, ?)",
		g.model, g.dims, g.polarity, all, loose, made[0], made[1])
	return err
}

// cone is a node or a leaf being made: its centroid, the vectors assigned
// to it and the lowest bound of their cosines with it.
type cone struct {
	id       int64 // its row, once written
	centroid []float32
	cone     similarity.Cone
	n        int
	cos      float64 // from +Inf, as its vectors come in
}

func newCone(centroid []float32) cone {
	return cone{centroid: centroid, cone: similarity.NewCone(centroid), cos: math.Inf(1)}
}

// clusterIndex is a group's nodes and leaves as a clustering makes them:
// leaf l is in node parent[l]; node j's leaves are those of near[j], from
// base[j] on; the strays' leaf and node, when there are strays, come last.
type clusterIndex struct {
	dims   int
	nodes  []cone
	leaves []cone
	parent []int32
	top    *similarity.Centroids   // the nodes'
	near   []*similarity.Centroids // node j's leaves'
	base   []int32                 // node j's first leaf
	mean   []float32               // the sample's unit mean: the centroid of the strays
	// scratch of assign
	nodeOf, leafIn []int32
	buf            []byte
	at             []int
	out            []int32
}

// newClusterIndex clusters the sample (codes at rest and their scales)
// into about √k nodes, then each node's share of the sample into its share
// of k leaves.
func newClusterIndex(dims int, codes []byte, scales []float64, k int) *clusterIndex {
	dp := similarity.CodeLen(dims)
	x := &clusterIndex{dims: dims}
	axis := make([]float32, dims) // the centroid of a sample of zero vectors only
	axis[0] = 1
	x.mean = similarity.Cluster(dims, codes, scales, 1, 1, 0)
	nodes := similarity.Cluster(dims, codes, scales, int(math.Ceil(math.Sqrt(float64(k)))), clusterIters, 1)
	if nodes == nil {
		x.mean, nodes = axis, axis
	}
	x.top = similarity.NewCentroids(dims, nodes)
	near := make([]int32, len(scales))
	x.top.Nearest(codes, near)
	for j := range x.top.Len() {
		c := nodes[j*dims : (j+1)*dims]
		x.nodes = append(x.nodes, newCone(c))
		var mc []byte
		var ms []float64
		for i, nj := range near {
			if int(nj) == j {
				mc = append(mc, codes[i*dp:(i+1)*dp]...)
				ms = append(ms, scales[i])
			}
		}
		kj := max(1, int(math.Round(float64(k)*float64(len(ms))/float64(len(scales)))))
		leaves := similarity.Cluster(dims, mc, ms, kj, clusterIters, uint64(2+j))
		if leaves == nil {
			leaves = c // a node the sample left empty: one leaf, its own centroid
		}
		x.base = append(x.base, int32(len(x.leaves)))
		x.near = append(x.near, similarity.NewCentroids(dims, leaves))
		for l := range len(leaves) / dims {
			x.leaves = append(x.leaves, newCone(leaves[l*dims:(l+1)*dims]))
			x.parent = append(x.parent, int32(j))
		}
	}
	return x
}

// assign returns the leaf of each vector of a block (codes at rest): the
// nearest leaf of its nearest node.
func (x *clusterIndex) assign(codes []byte) []int32 {
	n, dp := len(codes)/similarity.CodeLen(x.dims), similarity.CodeLen(x.dims)
	x.nodeOf = slices.Grow(x.nodeOf[:0], n)[:n]
	x.leafIn = slices.Grow(x.leafIn[:0], n)[:n]
	x.top.Nearest(codes, x.nodeOf)
	for j := range x.near {
		x.at, x.buf = x.at[:0], x.buf[:0]
		for i, nj := range x.nodeOf {
			if int(nj) == j {
				x.at = append(x.at, i)
				x.buf = append(x.buf, codes[i*dp:(i+1)*dp]...)
			}
		}
		if len(x.at) == 0 {
			continue
		}
		x.out = slices.Grow(x.out[:0], len(x.at))[:len(x.at)]
		x.near[j].Nearest(x.buf, x.out)
		for a, i := range x.at {
			x.leafIn[i] = x.base[j] + x.out[a]
		}
	}
	return x.leafIn
}

// strayGap is how far below the median cosine of its leaf's vectors with
// the leaf's centroid a vector's is for it to be a stray: a vector the
// leaf took because its node took it, far from every leaf of the node (a
// fragment of a cluster whose other vectors went to another node). One
// stray makes a leaf's cone as wide as itself, for every query.
const strayGap = 0.25

// takeStrays moves the strays of every leaf (leafOf and cosOf: each
// vector's leaf and cosine with the leaf's centroid) into a leaf of their
// own, under a node of its own, whose centroid is the sample's mean: its
// cone is wide, every search reads it, and it is small (1M × 384
// clustered vectors: 0.3% strays). It returns the strays' leaf, or −1
// when there are none.
func (x *clusterIndex) takeStrays(leafOf []int32, cosOf []float64) int32 {
	members := make([][]float64, len(x.leaves))
	for i, l := range leafOf {
		members[l] = append(members[l], cosOf[i])
	}
	cut := make([]float64, len(x.leaves))
	for l, cs := range members {
		cut[l] = math.Inf(-1)
		if len(cs) >= 4 {
			slices.Sort(cs)
			cut[l] = cs[len(cs)/2] - strayGap
		}
	}
	stray := int32(len(x.leaves))
	moved := false
	for i, l := range leafOf {
		if cosOf[i] < cut[l] {
			leafOf[i], moved = stray, true
		}
	}
	if !moved {
		return -1
	}
	x.nodes = append(x.nodes, newCone(x.mean))
	x.leaves = append(x.leaves, newCone(x.mean))
	x.parent = append(x.parent, int32(len(x.nodes)-1))
	return stray
}

// widen makes cone c hold a vector.
func widen(c *cone, code []byte, b similarity.Bounds) {
	c.cos = min(c.cos, c.cone.Cos(code, b))
}

// unreachedLeaves returns the leaves of group g whose cones stream st
// cannot reach (or whose node's it cannot), in increasing id: those a
// search may skip. It returns none when the stream has no threshold or
// more than coneQueries live queries. A block of a leaf the table does
// not hold, or a leaf whose node it does not, is never skipped: only what
// a cone proves unreachable is (bardo check reports the rest).
func unreachedLeaves(ctx context.Context, q querier, st *similarity.Stream, g vectorGroup) ([]int64, error) {
	if st.Live() == 0 || st.Live() > coneQueries || math.IsInf(st.Threshold(), -1) {
		return nil, nil
	}
	nodes := map[int64]bool{} // node id: reached
	var out []int64
	centre := make([]float32, g.dims)
	err := eachRow(ctx, q, "SELECT id, parent, cos_min, centroid FROM vector_leaves WHERE model=? AND dims=? AND polarity=? ORDER BY parent, id",
		func(r *sql.Rows) error {
			var id, parent int64
			var cos float64
			var raw sql.RawBytes
			if err := r.Scan(&id, &parent, &cos, &raw); err != nil {
				return err
			}
			if reached, ok := nodes[parent]; ok && !reached { // nodes come first: parent 0
				out = append(out, id)
				return nil
			}
			reaches := len(raw) != 4*g.dims || st.Reaches(unpackF32Into(centre, raw), cos)
			switch {
			case parent == 0:
				nodes[id] = reaches
			case !reaches:
				out = append(out, id)
			}
			return nil
		}, g.model, g.dims, g.polarity)
	slices.Sort(out)
	return out, err
}
