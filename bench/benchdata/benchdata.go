// Package benchdata generates the vector sets of bardo's kernel benchmarks,
// the same ones for the Go benchmarks and for the harness that times bardo
// against FAISS and numpy (bench/run):
//
//   - Random: directions uniform on the sphere (normalized standard
//     Gaussian vectors), no structure at all;
//   - Clustered: 1,024 Gaussian centres (normalized); each vector is a
//     centre drawn uniformly plus Gaussian noise scaled so that its cosine
//     to the centre is about 0.85 (noise of norm √(1/0.85² − 1)), then
//     normalized. Real embedding sets are clustered; this one is fixed, not
//     tuned to the kernel.
//
// Every set is a pure function of its kind, size and Seed: vectors are
// drawn in blocks of 1,024, block b from PCG(Seed, stream·2^32 + b), so
// generation can run in parallel and any machine gets the same bits.
// References use stream 1, queries stream 2, the centres stream 3.
package benchdata

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Seed seeds every set.
const Seed = 20261102

// Centres is the number of cluster centres of a Clustered set.
const Centres = 1024

// CentreCos is the cosine of a Clustered vector to its centre, about.
const CentreCos = 0.85

// Kind names a kind of set.
type Kind string

const (
	Random    Kind = "random"
	Clustered Kind = "clustered"
)

// ParseKind returns the Kind named s.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Random, Clustered:
		return k, nil
	}
	return "", fmt.Errorf("unknown kind %q (random or clustered)", s)
}

// Streams of the generator.
const (
	refStream    = 1
	queryStream  = 2
	centreStream = 3
)

// References returns the n references of a set of the kind, dims long,
// row after row.
func References(kind Kind, n, dims int) []float32 { return generate(kind, n, dims, refStream) }

// Queries returns the n queries of a set of the kind: drawn like its
// references (around the same centres), from another stream.
func Queries(kind Kind, n, dims int) []float32 { return generate(kind, n, dims, queryStream) }

const block = 1024

func generate(kind Kind, n, dims int, stream uint64) []float32 {
	var centres []float64
	if kind == Clustered {
		centres = make([]float64, Centres*dims)
		rng := rand.New(rand.NewPCG(Seed, centreStream<<32))
		for c := range Centres {
			gaussian(rng, centres[c*dims:(c+1)*dims])
			normalize(centres[c*dims : (c+1)*dims])
		}
	}
	sigma := math.Sqrt(1/(CentreCos*CentreCos)-1) / math.Sqrt(float64(dims))
	out := make([]float32, n*dims)
	blocks := (n + block - 1) / block
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			v := make([]float64, dims)
			for b := range next {
				rng := rand.New(rand.NewPCG(Seed, stream<<32+uint64(b)))
				for i := b * block; i < min(n, (b+1)*block); i++ {
					gaussian(rng, v)
					if centres != nil {
						c := centres[rng.IntN(Centres)*dims:]
						for k := range v {
							v[k] = c[k] + sigma*v[k]
						}
					}
					normalize(v)
					for k, x := range v {
						out[i*dims+k] = float32(x)
					}
				}
			}
		})
	}
	for b := range blocks {
		next <- b
	}
	close(next)
	wg.Wait()
	return out
}

func gaussian(rng *rand.Rand, v []float64) {
	for k := range v {
		v[k] = rng.NormFloat64()
	}
}

func normalize(v []float64) {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	inv := 1 / math.Sqrt(ss)
	for k := range v {
		v[k] *= inv
	}
}
