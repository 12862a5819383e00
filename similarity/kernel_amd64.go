//go:build !purego

package similarity

import "golang.org/x/sys/cpu"

//go:generate go run ./internal/kernelgen -o .

// The assembly kernels (kernel_avx2_amd64.s, kernel_avx512_amd64.s, written
// by internal/kernelgen) hold the contract of kernel.block for the heights
// listed below; their wrappers check the slices first.

//go:noescape
func blockAVX2(out *float32, ldo int, rmax *float32, qp *float32, m int, rp *float32, np int, dims int)

//go:noescape
func blockAVX512(out *float32, ldo int, rmax *float32, qp *float32, m int, rp *float32, np int, dims int)

func init() {
	// x/sys/cpu reports AVX2 and AVX-512 only when the OS saves their
	// registers too.
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		k := &kernel{name: "avx2", heights: []int{6, 4, 2, 1}}
		k.block = asmBlock(k, blockAVX2)
		register(k)
	}
	if cpu.X86.HasAVX512F {
		k := &kernel{name: "avx512", heights: []int{12, 8, 4, 2, 1}}
		k.block = asmBlock(k, blockAVX512)
		register(k)
	}
	registerQuant("int8", quantKernel{dots: dotsGeneric}, false)
	// AVX-VNNI is VPDPBUSD in VEX form, on 256-bit registers: the int8
	// kernel of a CPU without AVX-512 (the default there), with the
	// portable quantizing passes. Where AVX-512 VNNI runs too, it is the
	// default instead, and this one runs when forced (and in the tests).
	hasVNNI512 := cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VNNI
	if cpu.X86.HasAVX2 && cpu.X86.HasAVXVNNI {
		registerQuant("avxvnni", quantKernel{dots: func(out []int32, ldo int, q []int8, codes []uint8, n, dp, kn int) {
			checkDots(len(out), ldo, len(q), len(codes), n, dp, kn)
			if n == 0 {
				return
			}
			dotsAVXVNNI(&out[0], ldo, &q[0], &codes[0], n, dp, kn)
		}}, !hasVNNI512)
	}
	// The VNNI kernel also uses EVEX forms of 128- and 256-bit integer
	// instructions (AVX-512VL) to fold its sums.
	if hasVNNI512 {
		registerQuant("vnni", quantKernel{dots: func(out []int32, ldo int, q []int8, codes []uint8, n, dp, kn int) {
			checkDots(len(out), ldo, len(q), len(codes), n, dp, kn)
			if n == 0 {
				return
			}
			dotsVNNI(&out[0], ldo, &q[0], &codes[0], n, dp, kn)
		}, unit: unitAVX512, row: quantRowAVX512}, true)
	}
}

//go:noescape
func dotsVNNI(out *int32, ldo int, q *int8, codes *uint8, n int, dp int, kn int)

//go:noescape
func dotsAVXVNNI(out *int32, ldo int, q *int8, codes *uint8, n int, dp int, kn int)

// The quantizing passes in AVX-512F (kernel_quant_amd64.s, written by
// internal/kernelgen): the same bits as unitGeneric and quantRowGeneric.

//go:noescape
func unitMaxAVX512(dst *float32, v *float32, n int, inv float64) (mx uint32)

//go:noescape
func quantRowAsm(dst *uint8, x *float32, n int, kp int, inv float32, s float64, sm *quantSums)

func unitAVX512(dst, v []float32, inv float64) uint32 {
	if len(v) == 0 {
		return 0
	}
	dst = dst[:len(v)]
	return unitMaxAVX512(&dst[0], &v[0], len(v), inv)
}

func quantRowAVX512(dst []uint8, x []float32, kp int, inv float32, s float64, sm *quantSums) {
	if len(x) == 0 {
		return
	}
	dst = dst[:len(x)]
	quantRowAsm(&dst[0], &x[0], len(x), kp, inv, s, sm)
}

// asmBlock wraps an assembly kernel in kernel.block's signature.
func asmBlock(k *kernel, f func(out *float32, ldo int, rmax *float32, qp *float32, m int, rp *float32, np int, dims int)) func(out []float32, ldo int, rmax, qp []float32, m int, rp []float32, np, dims int) {
	return func(out []float32, ldo int, rmax, qp []float32, m int, rp []float32, np, dims int) {
		if np == 0 {
			return
		}
		checkBlock(k.name, k.heights, len(out), ldo, len(rmax), len(qp), m, len(rp), np, dims)
		f(&out[0], ldo, &rmax[0], &qp[0], m, &rp[0], np, dims)
	}
}
