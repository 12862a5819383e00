//go:build !amd64 || purego

package similarity

func init() {
	// Only the portable kernels: float32 "generic" and the int8 prefilter
	// with portable dots.
	registerQuant("int8", quantKernel{dots: dotsGeneric}, false)
}
