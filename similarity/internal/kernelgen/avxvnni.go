package main

import (
	"bytes"
	"fmt"
)

// avxVNNIFile is the file of the AVX-VNNI int8 kernel.
const avxVNNIFile = "kernel_avxvnni_amd64.s"

// generateAVXVNNI writes dotsAVXVNNI: dotsVNNI's contract (vnni.go) for
// CPUs with AVX-VNNI, the VEX form of VPDPBUSD on 256-bit registers, and
// no AVX-512 (Alder Lake and later client cores, Sierra Forest). There are
// 16 vector registers, not 32: a tile is 4 queries × 2 references, eight
// accumulators, two reference rows and four query rows, 32 bytes a step.
// Go's assembler writes VPDPBUSD only in its EVEX form, which faults
// without AVX-512VL, so the instruction is written as bytes (vexDPBUSD).
//
// Registers:
//
//	DI  out, column of the current tile   R9  out row stride in bytes
//	SI  q                                 DX  codes of the current tile
//	CX  references left                   BX  dp;  AX  3·dp
//	R11 k loop counter; R12, R13 cursors; R14 output row; R8 kn
//	Y0–Y7 accumulators; Y8, Y9 references; Y10–Y13 queries; X14 scratch
func generateAVXVNNI() []byte {
	g, addr := dotsPrologue("dotsAVXVNNI")
	for _, refs := range []int{2, 1} {
		l := fmt.Sprintf("r%d", refs)
		acc := func(i, j int) int { return i*refs + j }
		g.label(l + "tile")
		g.op("CMPQ CX, $%d", refs)
		g.op("JLT %sdone", l)
		for i := range 4 {
			for j := range refs {
				a := acc(i, j)
				g.op("VPXOR Y%d, Y%d, Y%d", a, a, a)
			}
		}
		g.op("MOVQ SI, R12")
		g.op("MOVQ DX, R13")
		g.op("MOVQ R8, R11")
		g.op("SHRQ $5, R11")
		g.label(l + "k")
		for j := range refs {
			g.op("VMOVDQU %s, Y%d", addr("R13", j), 8+j)
		}
		for i := range 4 {
			g.op("VMOVDQU %s, Y%d", addr("R12", i), 10+i)
		}
		for i := range 4 {
			for j := range refs {
				vexDPBUSD(g, acc(i, j), 8+j, 10+i)
			}
		}
		g.op("ADDQ $32, R12")
		g.op("ADDQ $32, R13")
		g.op("DECQ R11")
		g.op("JNZ %sk", l)
		g.op("MOVQ DI, R14")
		g.comment("fold each accumulator's 8 lanes and store the sums")
		for i := range 4 {
			for j := range refs {
				a := acc(i, j)
				g.op("VEXTRACTI128 $1, Y%d, X14", a)
				g.op("VPADDD X14, X%d, X%d", a, a)
				g.op("VPSHUFD $0x4e, X%d, X14", a)
				g.op("VPADDD X14, X%d, X%d", a, a)
				g.op("VPSHUFD $0xb1, X%d, X14", a)
				g.op("VPADDD X14, X%d, X%d", a, a)
				g.op("VMOVD X%d, %d(R14)", a, 4*j)
			}
			if i < 3 {
				g.op("ADDQ R9, R14")
			}
		}
		g.op("ADDQ $%d, DI", 4*refs)
		if refs == 2 {
			g.op("LEAQ (DX)(BX*2), DX")
		} else {
			g.op("ADDQ BX, DX")
		}
		g.op("SUBQ $%d, CX", refs)
		g.op("JMP %stile", l)
		g.label(l + "done")
	}
	g.op("VZEROUPPER")
	g.op("RET")
	return bytes.Clone(g.b.Bytes())
}

// vexDPBUSD writes VPDPBUSD Y(src2), Y(src1), Y(acc) in its VEX form
// (VEX.256.66.0F38.W0 50 /r): acc += the dot of each group of four
// unsigned bytes of src1 with the signed bytes of src2, lane by lane.
// Registers 0 to 15.
func vexDPBUSD(g *gen, acc, src1, src2 int) {
	inv := func(r int) int { return ^(r >> 3) & 1 }
	b1 := inv(acc)<<7 | 1<<6 | inv(src2)<<5 | 0x02 // R̄ X̄ B̄, map 0F38
	b2 := (^src1&0xf)<<3 | 1<<2 | 0x01             // W0, v̄vvv, L = 256, pp = 66
	modrm := 0xc0 | (acc&7)<<3 | src2&7
	g.op("BYTE $0xc4; BYTE $0x%02x; BYTE $0x%02x; BYTE $0x50; BYTE $0x%02x // VPDPBUSD Y%d, Y%d, Y%d (VEX)", b1, b2, modrm, src2, src1, acc)
}
