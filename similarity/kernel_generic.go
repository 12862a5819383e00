package similarity

// This file holds the portable kernel, the one every CPU runs and the one
// the assembly kernels are tested against.

// blockGeneric is the portable block kernel (see kernel): it sums in
// float32 in increasing k, 3 queries × 2 references at a time, so that six
// independent accumulators keep the floating-point units busy and every
// component loaded is used two or three times, all in registers.
func blockGeneric(out []float32, ldo int, rmax, qp []float32, m int, rp []float32, np, dims int) {
	if np == 0 {
		return
	}
	checkBlock("generic", genericHeights, len(out), ldo, len(rmax), len(qp), m, len(rp), np, dims)
	qp = qp[:m*dims]
	for p := range np {
		r := rp[p*panelWidth*dims : (p+1)*panelWidth*dims]
		i := 0
		for ; i+3 <= m; i += 3 {
			o0 := out[i*ldo+p*panelWidth : i*ldo+(p+1)*panelWidth]
			o1 := out[(i+1)*ldo+p*panelWidth : (i+1)*ldo+(p+1)*panelWidth]
			o2 := out[(i+2)*ldo+p*panelWidth : (i+2)*ldo+(p+1)*panelWidth]
			for j := 0; j < panelWidth; j += 2 {
				o0[j], o1[j], o2[j], o0[j+1], o1[j+1], o2[j+1] = dot3x2(qp, m, i, r, j)
			}
		}
		for ; i < m; i++ {
			o := out[i*ldo+p*panelWidth : i*ldo+(p+1)*panelWidth]
			for j := 0; j < panelWidth; j += 2 {
				o[j], o[j+1] = dot1x2(qp, m, i, r, j)
			}
		}
	}
	for i := range m {
		mx := rmax[i*panelWidth]
		for _, x := range out[i*ldo : i*ldo+np*panelWidth] {
			if x > mx {
				mx = x
			}
		}
		rmax[i*panelWidth] = mx
	}
}

// dot3x2 returns the dot products of queries i, i+1, i+2 of the panel qp
// (height m) with references j, j+1 of the panel r.
func dot3x2(qp []float32, m, i int, r []float32, j int) (s00, s10, s20, s01, s11, s21 float32) {
	for i+2 < len(qp) && j+1 < len(r) {
		a, b := r[j], r[j+1]
		x := qp[i]
		s00 += float32(x * a)
		s01 += float32(x * b)
		x = qp[i+1]
		s10 += float32(x * a)
		s11 += float32(x * b)
		x = qp[i+2]
		s20 += float32(x * a)
		s21 += float32(x * b)
		i += m
		j += panelWidth
	}
	return
}

// dot1x2 returns the dot products of query i of the panel qp (height m)
// with references j, j+1 of the panel r.
func dot1x2(qp []float32, m, i int, r []float32, j int) (s0, s1 float32) {
	for ; i < len(qp) && j+1 < len(r); i, j = i+m, j+panelWidth {
		x := qp[i]
		s0 += float32(x * r[j])
		s1 += float32(x * r[j+1])
	}
	return
}
