package similarity

// layout is how a Set's references are laid out for the kernels: their
// unit vectors packed in panels, in an order that puts the members of each
// cluster together when the set has a cluster index. A layout never
// changes once published; a set builds its layout on its first search and
// may replace it by one with an index later (see index.go).
type layout struct {
	panels []float32     // ⌈n/16⌉ panels (see pack.go)
	order  []int32       // order[pos] is the reference at position pos; nil: pos itself
	index  *clusterIndex // the clusters of positions; nil when the set has none
}

// ref returns the reference at position pos.
func (l *layout) ref(pos int) int {
	if l.order == nil {
		return pos
	}
	return int(l.order[pos])
}

// packLayout packs the set's references in the given order (nil: index
// order), over GOMAXPROCS goroutines.
func (s *Set) packLayout(order []int32) *layout {
	np := panelCount(s.n)
	l := &layout{panels: make([]float32, np*panelWidth*s.dims), order: order}
	const chunk = 64 // panels per unit of work
	units := (np + chunk - 1) / chunk
	parallel(workerCount(units, s.n*s.dims), units, func(_, u int) {
		s.packPanels(l.panels, order, u*chunk, min(np, (u+1)*chunk))
	})
	return l
}
