//go:build !linux

package similarity

// cpuNanos returns −1: the benchmarks report CPU time on Linux only.
func cpuNanos() int64 { return -1 }
