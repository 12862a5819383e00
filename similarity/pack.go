package similarity

import "math"

// The kernels read references and queries packed in panels (see kernel):
//
//   - a reference panel holds 16 unit vectors component-major, so that one
//     vector load fetches component k of 16 references; the set's
//     references are packed once, ⌈n/16⌉ panels, the last padded with zero
//     vectors;
//   - a query panel holds the unit vectors of m queries component-major, so
//     that component k of each is one broadcast away; queries are packed
//     for each search.

// unitInto writes v/‖v‖ rounded to float32 into dst, given ss = Σv², and
// zeros when ss is 0. The scaling by the reciprocal rounds twice, which the
// margin's error bound allows for (see margin).
func unitInto(dst, v []float32, ss float64) {
	if ss == 0 {
		clear(dst)
		return
	}
	inv := 1 / math.Sqrt(ss)
	dst = dst[:len(v)]
	for k, x := range v {
		dst[k] = float32(float64(x) * inv)
	}
}

// packPanels writes the unit vectors of the references at positions
// [16·pa, 16·pz) of order (nil: the identity) into panels, which holds
// panels pa to pz of the layout. Positions past n are zero.
func (s *Set) packPanels(panels []float32, order []int32, pa, pz int) {
	d := s.dims
	buf := make([]float32, panelWidth*d) // a panel's rows, then its columns at once
	for p := pa; p < pz; p++ {
		for j := range panelWidth {
			row := buf[j*d : (j+1)*d]
			if pos := p*panelWidth + j; pos >= s.n {
				clear(row)
			} else {
				r := pos
				if order != nil {
					r = int(order[pos])
				}
				unitInto(row, s.Vector(r), s.sumSq[r])
			}
		}
		transposeInto(panels[p*panelWidth*d:(p+1)*panelWidth*d], buf, 0, panelWidth, d)
	}
}

// transposeInto writes w rows of d components (buf, row-major) into lanes
// col to col+w of a panel (column-major, panelWidth lanes): a column's
// slice at a time, where a row written straight into the panel touches d
// cache lines.
func transposeInto(panel, buf []float32, col, w, d int) {
	for k := range d {
		dst := panel[k*panelWidth+col : k*panelWidth+col+w]
		for j := range dst {
			dst[j] = buf[j*d+k]
		}
	}
}

// panelCount returns the number of panels that hold n references.
func panelCount(n int) int { return (n + panelWidth - 1) / panelWidth }

// queryPanel is a run of queries packed for one block call.
type queryPanel struct {
	first, count int       // entries [first, first+count) of the ids packed
	m            int       // the panel's height: count rounded up to a kernel height
	data         []float32 // dims·m components
}

// packQueries packs the queries ids, in order, into panels of the kernel's
// heights; unit holds every query's unit vector, dims apart. It packs into
// *buf, grown as needed, when buf is not nil.
func packQueries(k *kernel, unit []float32, ids []int, dims int, bufp *[]float32) []queryPanel {
	var buf []float32
	if bufp != nil {
		buf = *bufp
	}
	var panels []queryPanel
	size := 0
	for a := 0; a < len(ids); {
		m := k.height(len(ids) - a)
		n := min(m, len(ids)-a)
		panels = append(panels, queryPanel{first: a, count: n, m: m})
		size += m * dims
		a += n
	}
	if cap(buf) < size {
		buf = make([]float32, size)
		if bufp != nil {
			*bufp = buf
		}
	}
	buf = buf[:size]
	for i := range panels {
		p := &panels[i]
		p.data, buf = buf[:p.m*dims:p.m*dims], buf[p.m*dims:]
		for r := range p.m {
			if r >= p.count {
				for kk := range dims {
					p.data[kk*p.m+r] = 0
				}
				continue
			}
			q := ids[p.first+r]
			for kk, x := range unit[q*dims : (q+1)*dims] {
				p.data[kk*p.m+r] = x
			}
		}
	}
	return panels
}

// packRows packs n vectors of dims components, held row after row in rows,
// into ⌈n/16⌉ reference panels as they are (not normalized).
func packRows(rows []float32, n, dims int) []float32 {
	panels := make([]float32, panelCount(n)*panelWidth*dims)
	for r := range n {
		dst := panels[r/panelWidth*panelWidth*dims:]
		j := r % panelWidth
		for k, x := range rows[r*dims : (r+1)*dims] {
			dst[k*panelWidth+j] = x
		}
	}
	return panels
}

// packRefQueries packs the set's references ids, normalized as packPanels
// normalizes them, into query panels, the way packQueries packs queries.
func (s *Set) packRefQueries(k *kernel, ids []int, bufp *[]float32) []queryPanel {
	d := s.dims
	var panels []queryPanel
	size := 0
	for a := 0; a < len(ids); {
		m := k.height(len(ids) - a)
		n := min(m, len(ids)-a)
		panels = append(panels, queryPanel{first: a, count: n, m: m})
		size += m * d
		a += n
	}
	if cap(*bufp) < size {
		*bufp = make([]float32, size)
	}
	buf := (*bufp)[:size]
	clear(buf)
	for i := range panels {
		p := &panels[i]
		p.data, buf = buf[:p.m*d:p.m*d], buf[p.m*d:]
		for r := range p.count {
			ref := ids[p.first+r]
			if s.sumSq[ref] == 0 {
				continue
			}
			inv := 1 / math.Sqrt(s.sumSq[ref])
			for kk, x := range s.Vector(ref) {
				p.data[kk*p.m+r] = float32(float64(x) * inv)
			}
		}
	}
	return panels
}
