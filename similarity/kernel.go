package similarity

import (
	"fmt"
	"sync/atomic"
)

// A kernel computes float32 dot products one tile at a time: for i < nq and
// j < nr, out[i*nr+j] = Σ_k q[i*dims+k]·r[j*dims+k], where q holds nq rows
// and r holds nr rows of dims components each. A kernel may sum in any order
// and may fuse multiply-adds: its scores only choose the candidates, whose
// cosines are then recomputed in float64, and the candidate margin covers
// any summation order.
type kernel struct {
	name string
	tile func(out, q, r []float32, nq, nr, dims int)
}

// kernels lists the kernels this CPU can run, slowest first. A faster path
// is appended by an init function of its own file, guarded by a CPU check.
var kernels = []*kernel{
	{name: "generic", tile: tileGeneric},
}

var current atomic.Pointer[kernel]

func init() {
	current.Store(kernels[len(kernels)-1])
}

// Impl returns the name of the kernel that MaxCos and Within use: the
// fastest one this CPU runs, unless SetImpl chose another.
func Impl() string {
	return current.Load().name
}

// Impls returns the names of the kernels this CPU can run, slowest first.
// "generic" (portable Go) is always first.
func Impls() []string {
	names := make([]string, len(kernels))
	for i, k := range kernels {
		names[i] = k.name
	}
	return names
}

// SetImpl makes MaxCos and Within use the named kernel. Kernels differ only
// in speed: every kernel gives the same Matches. It is safe to call
// concurrently with searches; a search already running keeps its kernel.
func SetImpl(name string) error {
	for _, k := range kernels {
		if k.name == name {
			current.Store(k)
			return nil
		}
	}
	return fmt.Errorf("similarity kernel %q is not available on this CPU (available: %q)", name, Impls())
}
