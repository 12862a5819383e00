package similarity

// This file holds the hot loop: the only code that touches every
// (query, reference, component) triple. A faster kernel (SIMD assembly, say)
// replaces tileGeneric behind the same contract and nothing else changes.

// tileGeneric is the portable tile kernel: for i < nq and j < nr,
//
//	out[i*nr+j] = Σ_k q[i*dims+k] · r[j*dims+k]
//
// summed in float32 in increasing k. It works on 3 queries × 2 references at
// a time: six independent accumulators keep the floating-point units busy,
// every component loaded is used three or two times, and everything stays
// in registers (4×2 spills on amd64, and measured slower).
func tileGeneric(out, q, r []float32, nq, nr, dims int) {
	out = out[:nq*nr]
	q = q[:nq*dims]
	r = r[:nr*dims]
	i := 0
	for ; i+3 <= nq; i += 3 {
		q0 := q[i*dims : (i+1)*dims]
		q1 := q[(i+1)*dims : (i+2)*dims]
		q2 := q[(i+2)*dims : (i+3)*dims]
		o0 := out[i*nr : (i+1)*nr]
		o1 := out[(i+1)*nr : (i+2)*nr]
		o2 := out[(i+2)*nr : (i+3)*nr]
		j := 0
		for ; j+2 <= nr; j += 2 {
			o0[j], o1[j], o2[j], o0[j+1], o1[j+1], o2[j+1] = dot3x2(q0, q1, q2, r[j*dims:(j+1)*dims], r[(j+1)*dims:(j+2)*dims])
		}
		if j < nr {
			o0[j], o1[j], o2[j] = dot3x1(q0, q1, q2, r[j*dims:(j+1)*dims])
		}
	}
	for ; i < nq; i++ {
		qi := q[i*dims : (i+1)*dims]
		oi := out[i*nr : (i+1)*nr]
		j := 0
		for ; j+2 <= nr; j += 2 {
			oi[j], oi[j+1] = dot1x2(qi, r[j*dims:(j+1)*dims], r[(j+1)*dims:(j+2)*dims])
		}
		if j < nr {
			oi[j] = dot1x1(qi, r[j*dims:(j+1)*dims])
		}
	}
}

func dot3x2(q0, q1, q2, r0, r1 []float32) (s00, s10, s20, s01, s11, s21 float32) {
	n := len(r0)
	q0, q1, q2, r1 = q0[:n], q1[:n], q2[:n], r1[:n]
	for k, a := range r0 {
		b := r1[k]
		x := q0[k]
		s00 += x * a
		s01 += x * b
		x = q1[k]
		s10 += x * a
		s11 += x * b
		x = q2[k]
		s20 += x * a
		s21 += x * b
	}
	return
}

func dot3x1(q0, q1, q2, r0 []float32) (s0, s1, s2 float32) {
	n := len(r0)
	q0, q1, q2 = q0[:n], q1[:n], q2[:n]
	for k, a := range r0 {
		s0 += q0[k] * a
		s1 += q1[k] * a
		s2 += q2[k] * a
	}
	return
}

func dot1x2(q, r0, r1 []float32) (s0, s1 float32) {
	n := len(q)
	r0, r1 = r0[:n], r1[:n]
	for k, x := range q {
		s0 += x * r0[k]
		s1 += x * r1[k]
	}
	return
}

func dot1x1(q, r []float32) (s float32) {
	q = q[:len(r)]
	for k, a := range r {
		s += q[k] * a
	}
	return s
}
