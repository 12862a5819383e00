// Package detmath holds the elementary functions whose results reach
// bundles, exports or decisions: the same bits on every GOARCH.
//
// Go may fuse x*y + z into one multiply-add on arm64, ppc64le, s390x and
// others, and math.Exp2 and math.Cbrt run assembly or differently fused
// pure Go there, so their last bit depends on the CPU. The functions here
// evaluate the classic fdlibm approximations (the ones package math runs
// on amd64, where Go never fuses) with every product that feeds a sum
// rounded by an explicit float64 conversion: on amd64 they return exactly
// what math.Exp2 and math.Cbrt return, and on every other CPU the same.
package detmath

import "math"

// Exp2 returns 2**x, with the special cases of math.Exp2.
func Exp2(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		overflow  = 1.0239999999999999e+03
		underflow = -1.0740e+03
	)
	switch {
	case math.IsNaN(x):
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	}
	// x = k + t with |t| ≤ 1/2, and 2**t = e**r with r = t·ln 2 = hi − lo.
	var k int
	switch {
	case x > 0:
		k = int(x + 0.5)
	case x < 0:
		k = int(x - 0.5)
	}
	t := x - float64(k)
	hi := float64(t * ln2Hi)
	lo := float64(-t * ln2Lo)
	return expk(hi, lo, k)
}

// expk returns e**r × 2**k for r = hi − lo, |r| ≤ ln(2)/2.
func expk(hi, lo float64, k int) float64 {
	const (
		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	r := hi - lo
	t := float64(r * r)
	poly := p4 + float64(t*p5)
	poly = p3 + float64(t*poly)
	poly = p2 + float64(t*poly)
	poly = p1 + float64(t*poly)
	c := r - float64(t*poly)
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// Cbrt returns the cube root of x, with the special cases of math.Cbrt.
func Cbrt(x float64) float64 {
	const (
		b1             = 715094163 // (682-0.03306235651)*2**20
		b2             = 696219795 // (664-0.03306235651)*2**20
		c              = 5.42857142857142815906e-01
		d              = -7.05306122448979611050e-01
		e              = 1.41428571428571436819e+00
		f              = 1.60714285714285720630e+00
		g              = 3.57142857142857150787e-01
		smallestNormal = 2.22507385850720138309e-308
	)
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	sign := false
	if x < 0 {
		x = -x
		sign = true
	}
	// A first guess to 5 bits from the exponent.
	t := math.Float64frombits(math.Float64bits(x)/3 + b1<<32)
	if x < smallestNormal {
		t = float64(1 << 54)
		t *= x
		t = math.Float64frombits(math.Float64bits(t)/3 + b2<<32)
	}
	// To 23 bits.
	r := float64(t*t) / x
	s := c + float64(r*t)
	t *= g + f/(s+e+d/s)
	// Chopped to 22 bits, larger than the cube root.
	t = math.Float64frombits(math.Float64bits(t)&(0xFFFFFFFFC<<28) + 1<<30)
	// One Newton step to 53 bits.
	s = float64(t * t)
	r = x / s
	w := t + t
	r = (r - t) / (w + r)
	t = t + float64(t*r)
	if sign {
		t = -t
	}
	return t
}
