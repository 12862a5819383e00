package similarity

import (
	"fmt"
	"sync/atomic"
)

// panelWidth is the number of references in a panel: the unit of the
// packed reference layout every kernel reads (see pack.go).
const panelWidth = 16

// A kernel computes float32 dot products one block at a time. Its
// arguments are a query panel qp of m queries (component k of query i at
// qp[k*m+i]) and np reference panels rp (component k of reference j of
// panel p at rp[p*16*dims + k*16 + j]). For i < m and j < 16·np it sets
//
//	out[i*ldo+j] = Σ_k qp[k*m+i] · rp[(j/16)*16*dims + k*16 + j%16]
//
// and raises the 16 lanes rmax[i*16 : i*16+16] so that their maximum is at
// least every score of row i; each lane keeps its value or takes one of the
// row's scores. m must be one of the kernel's heights.
//
// A kernel may sum in any order and may fuse multiply-adds: its scores only
// choose the candidates, whose cosines are then recomputed in float64, and
// the candidate margin covers any summation order.
type kernel struct {
	name    string
	heights []int // query panel heights, largest first, ending with 1
	block   func(out []float32, ldo int, rmax, qp []float32, m int, rp []float32, np, dims int)
	// quant, when set, makes MaxCos and BestAtLeast prefilter with int8
	// dot products (see quant.go); heights and block are then those of
	// the fastest float32 kernel, for Within and the cluster index's
	// centroids and bounds.
	quant *quantKernel
}

// height returns the panel height for the next n of a kernel's queries:
// its largest height when n reaches it, else the smallest height that
// holds all n.
func (k *kernel) height(n int) int {
	if n >= k.heights[0] {
		return k.heights[0]
	}
	h := k.heights[0]
	for _, x := range k.heights {
		if x >= n {
			h = x
		}
	}
	return h
}

// checkBlock panics unless the slices of a block call of the named kernel
// hold what the contract reads and writes: the assembly kernels trust
// their arguments.
func checkBlock(name string, heights []int, out, ldo, rmax, qp, m, rp, np, dims int) {
	ok := false
	for _, h := range heights {
		ok = ok || h == m
	}
	if !ok || ldo < np*panelWidth || out < (m-1)*ldo+np*panelWidth ||
		rmax < m*panelWidth || qp < m*dims || rp < np*panelWidth*dims {
		panic(fmt.Sprintf("similarity: %s block m=%d np=%d dims=%d ldo=%d with out %d, rmax %d, qp %d, rp %d",
			name, m, np, dims, ldo, out, rmax, qp, rp))
	}
}

// kernels lists the kernels this CPU can run, slowest first. A faster path
// is registered by an init function of its own file, guarded by a CPU
// check.
var kernels = []*kernel{generic}

var generic = &kernel{name: "generic", heights: genericHeights, block: blockGeneric}

var genericHeights = []int{12, 8, 6, 4, 3, 2, 1}

// current is the kernel searches use; package variables are set before any
// init function runs, so register always finds it.
var current = func() *atomic.Pointer[kernel] {
	var p atomic.Pointer[kernel]
	p.Store(generic)
	return &p
}()

// register adds a kernel faster than every one before it and makes it the
// default.
func register(k *kernel) {
	kernels = append(kernels, k)
	current.Store(k)
}

// registerQuant adds a kernel that prefilters with qk's int8 dots (and
// quantizes with its passes, the portable ones when it has none) and
// scores in float32 with the fastest float32 kernel registered so far; it
// becomes the default when def is set. Call it after the float32 kernels
// are registered.
func registerQuant(name string, qk quantKernel, def bool) {
	if qk.unit == nil {
		qk.unit, qk.row = portableRows.unit, portableRows.row
	}
	f := kernels[0]
	for _, k := range kernels {
		if k.quant == nil {
			f = k
		}
	}
	k := &kernel{name: name, heights: f.heights, block: f.block, quant: &qk}
	kernels = append(kernels, k)
	if def {
		current.Store(k)
	}
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
