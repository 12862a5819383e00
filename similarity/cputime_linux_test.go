package similarity

import "syscall"

// cpuNanos returns the process's user and system CPU time, for benchmarks
// on a shared machine, where wall time says little.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
