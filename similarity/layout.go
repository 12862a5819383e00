package similarity

import "sync"

// layout is how a Set's references are laid out for the kernels: their
// unit vectors packed in panels, in an order that puts the members of each
// cluster together when the set has a cluster index. A layout never
// changes once published; a set builds its layout on its first search and
// may replace it by one with an index later (see index.go).
type layout struct {
	panels []float32     // ⌈n/16⌉ panels (see pack.go); read them through panelsOf
	order  []int32       // order[pos] is the reference at position pos; nil: pos itself
	index  *clusterIndex // the clusters of positions; nil when the set has none

	// An int8 kernel scores a layout with an index in int8 (its codes),
	// so its float32 panels are packed only when a float32 search first
	// needs them (Within of one query, WithinEach): src packs them then.
	src  *Set
	pack sync.Once
}

// panelsOf returns the layout's panels, packing them on first use when
// they were left for later.
func (l *layout) panelsOf() []float32 {
	l.pack.Do(func() {
		if l.panels == nil && l.src != nil {
			l.panels = l.src.packAll(l.order)
		}
	})
	return l.panels
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
	return &layout{panels: s.packAll(order), order: order}
}

// packAll returns the panels of the set's references in the given order
// (nil: index order), packed over GOMAXPROCS goroutines.
func (s *Set) packAll(order []int32) []float32 {
	np := panelCount(s.n)
	panels := make([]float32, np*panelWidth*s.dims)
	const chunk = 64 // panels per unit of work
	units := (np + chunk - 1) / chunk
	parallel(workerCount(units, s.n*s.dims), units, func(_, u int) {
		s.packPanels(panels, order, u*chunk, min(np, (u+1)*chunk))
	})
	return panels
}
