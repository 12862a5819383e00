package bundlediff

// lineDiff finds a shortest edit script from a to b with Myers' O((N+M)D)
// algorithm in its linear-space form ("An O(ND) Difference Algorithm and
// Its Variations", 1986, §4b): find the middle snake of an optimal path,
// recurse on the two halves. It marks the lines of a that are deleted and
// the lines of b that are inserted; every other line is common, in order.
//
// Memory is O(N+M) whatever the texts, so a bundle's playbook of any size
// diffs without a quadratic table.
func lineDiff(a, b []string) (deleted, inserted []bool) {
	d := &differ{a: a, b: b, deleted: make([]bool, len(a)), inserted: make([]bool, len(b))}
	n := len(a) + len(b) + 3
	d.fv = make([]int, 2*n+1)
	d.bv = make([]int, 2*n+1)
	d.compare(0, len(a), 0, len(b))
	return d.deleted, d.inserted
}

type differ struct {
	a, b              []string
	deleted, inserted []bool
	fv, bv            []int // furthest x per diagonal, forward and backward; scratch shared by every call
}

// compare marks the edits between a[aLo:aHi] and b[bLo:bHi].
func (d *differ) compare(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
		aLo, bLo = aLo+1, bLo+1
	}
	for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
		aHi, bHi = aHi-1, bHi-1
	}
	switch {
	case aLo == aHi:
		for j := bLo; j < bHi; j++ {
			d.inserted[j] = true
		}
		return
	case bLo == bHi:
		for i := aLo; i < aHi; i++ {
			d.deleted[i] = true
		}
		return
	}
	// Both halves hold strictly fewer edits than the whole (the ends
	// differ, so there are at least two), so the recursion ends.
	x, y, u, v := d.middleSnake(aLo, aHi, bLo, bHi)
	d.compare(aLo, x, bLo, y)
	d.compare(u, aHi, v, bHi)
}

// middleSnake returns the snake (x,y)→(u,v) in the middle of a shortest
// path from (aLo,bLo) to (aHi,bHi), in absolute coordinates. It runs the
// forward search from the top left and the backward search from the bottom
// right, one edit at a time, until they overlap on a diagonal.
//
// Diagonal k holds the points with x − y = k, relative to (aLo,bLo). A
// value of −1 marks a diagonal no path of this many edits reaches inside
// the grid: candidate points outside it are never taken, so an overlap is
// always between two real paths.
func (d *differ) middleSnake(aLo, aHi, bLo, bHi int) (x, y, u, v int) {
	a, b := d.a[aLo:aHi], d.b[bLo:bHi]
	n, m := len(a), len(b)
	delta := n - m
	odd := delta&1 != 0
	off := len(d.fv) / 2 // index of diagonal 0 (forward) and of diagonal delta (backward)
	fv := func(k int) *int { return &d.fv[off+k] }
	bv := func(k int) *int { return &d.bv[off+k-delta] }
	for e := 0; e <= (n+m+1)/2; e++ {
		for k := -e; k <= e; k += 2 {
			var px int
			switch {
			case e == 0:
				px = 0
			default:
				px = -1
				if k < e { // down: an insertion from diagonal k+1
					if p := *fv(k + 1); p >= 0 && p-(k+1) < m {
						px = p
					}
				}
				if k > -e { // right: a deletion from diagonal k−1
					if p := *fv(k - 1); p >= 0 && p < n && p+1 > px {
						px = p + 1
					}
				}
			}
			if px < 0 {
				*fv(k) = -1
				continue
			}
			sx, sy := px, px-k
			ex, ey := sx, sy
			for ex < n && ey < m && a[ex] == b[ey] {
				ex, ey = ex+1, ey+1
			}
			*fv(k) = ex
			if odd && k >= delta-(e-1) && k <= delta+(e-1) {
				if q := *bv(k); q >= 0 && q <= ex {
					return aLo + sx, bLo + sy, aLo + ex, bLo + ey
				}
			}
		}
		for k := delta - e; k <= delta+e; k += 2 {
			var px int
			switch {
			case e == 0:
				px = n
			default:
				px = -1
				if k < delta+e { // left: a deletion, seen backward, from diagonal k+1
					if p := *bv(k + 1); p > 0 {
						px = p - 1
					}
				}
				if k > delta-e { // up: an insertion, seen backward, from diagonal k−1
					if p := *bv(k - 1); p >= 0 && p-(k-1) > 0 && (px < 0 || p < px) {
						px = p
					}
				}
			}
			if px < 0 {
				*bv(k) = -1
				continue
			}
			ex, ey := px, px-k
			sx, sy := ex, ey
			for sx > 0 && sy > 0 && a[sx-1] == b[sy-1] {
				sx, sy = sx-1, sy-1
			}
			*bv(k) = sx
			if !odd && k >= -e && k <= e {
				if p := *fv(k); p >= 0 && sx <= p {
					return aLo + sx, bLo + sy, aLo + ex, bLo + ey
				}
			}
		}
	}
	panic("bundlediff: the forward and backward searches never met")
}
