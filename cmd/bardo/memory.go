package main

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
)

// A run that has read a bundle holds the Go heap to a soft limit
// (runtime/debug.SetMemoryLimit) that grows with the file: the garbage
// collector runs before the heap reaches it rather than at twice what is
// live. The format's limits bound what decoding builds (bundle/FORMAT.md,
// "Limits"), and inherit builds about as much again; without a limit the
// collector's headroom alone took a valid 954 KB bundle's inherit to
// 400 MiB resident. With it every command reads a bundle file of at most
// 1 MiB in at most 256 MiB resident (TestValidRSS, TestHostileRSS): the
// limit, SQLite's page cache of a store written (store.writeCacheKiB,
// outside the Go heap) and the binary. Past 1 MiB the limit grows by
// memoryPerByte for each byte, out of the way of any real bundle.
// GOMEMLIMIT, when set, is the user's and is left alone.
const (
	memoryLimitBase = 176 << 20
	memoryPerByte   = 128
)

var memoryLimit = struct {
	sync.Mutex
	set    int64 // the largest limit set; 0: none
	before int64 // the limit before the first
}{}

// holdMemory sets the soft memory limit of a run that has read a bundle
// file of n bytes, never below one it set for another file.
func holdMemory(n int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(memoryLimitBase)
	if over := n - 1<<20; over > 0 {
		if over > (math.MaxInt64-limit)/memoryPerByte {
			return
		}
		limit += memoryPerByte * over
	}
	memoryLimit.Lock()
	defer memoryLimit.Unlock()
	if limit > memoryLimit.set {
		prev := debug.SetMemoryLimit(limit)
		if memoryLimit.set == 0 {
			memoryLimit.before = prev
		}
		memoryLimit.set = limit
	}
}

// releaseMemory puts back the limit there was before holdMemory, as a
// run ends: the tests run many in one process.
func releaseMemory() {
	memoryLimit.Lock()
	defer memoryLimit.Unlock()
	if memoryLimit.set != 0 {
		debug.SetMemoryLimit(memoryLimit.before)
		memoryLimit.set = 0
	}
}
