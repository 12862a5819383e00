package main

import (
	"math"
	"os"
	"runtime/debug"
	"sync"

	"github.com/bardo-golem/bardo/foreign"
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

// A store a run reads for dedup holds, in its view (store.DedupView), a
// few words and the id per row — its texts and vectors stay at rest — and
// the review about as much again: the limit grows by storeMemoryPerRow for
// each row, so that a large store never leaves the collector running
// against a limit below what is live (before the vectors stayed at rest,
// a 300 KB bundle inherited into a 40k × 768 store took twice the CPU).
const storeMemoryPerRow = 256

// While it holds a store's view a run also collects at storeGCPercent
// rather than GOGC's default 100: the view is live until the run ends and
// most of the heap, so the default's headroom of one more view is what
// took inherit into a 1M-entry store to 518–552 MB resident; at 50 it
// took 351–369 MB in the same time (14.1 s either way). GOGC, when set,
// is the user's and is left alone.
const storeGCPercent = 50

var memoryLimit = struct {
	sync.Mutex
	set    int64 // the largest bundle's limit set; 0: none
	store  int64 // what the stores read add to it
	before int64 // the limit before the first
	gcSet  bool  // holdStoreMemory set the GC percent
	gc     int   // the GC percent before it did
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
	setMemoryLimit(limit)
}

// setMemoryLimit sets the soft memory limit to limit, never below one
// set before in the run.
func setMemoryLimit(limit int64) {
	memoryLimit.Lock()
	defer memoryLimit.Unlock()
	if limit > memoryLimit.set {
		prev := debug.SetMemoryLimit(limit + memoryLimit.store)
		if memoryLimit.set == 0 {
			memoryLimit.before = prev
		}
		memoryLimit.set = limit
	}
}

// An import holds at most foreign.MaxHeldBytes of what it reads, most of
// it live until the export is written (the entries it sorts): a run of
// import holds the heap to that and importMemorySlack, rather than let
// the collector's headroom double it (a Letta file of 36,000 passages of
// 1,536 dimensions took 499 MiB resident without a limit). GOMEMLIMIT,
// when set, is the user's and is left alone.
const importMemorySlack = 128 << 20

func holdImportMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		setMemoryLimit(foreign.MaxHeldBytes + importMemorySlack)
	}
}

// holdStoreMemory raises the limit for a store view of rows rows: a run
// that has read no bundle has no limit to raise, and one that reads the
// store after the bundle, or before it, ends with the same limit.
func holdStoreMemory(rows int) {
	memoryLimit.Lock()
	defer memoryLimit.Unlock()
	if !memoryLimit.gcSet && os.Getenv("GOGC") == "" {
		memoryLimit.gc, memoryLimit.gcSet = debug.SetGCPercent(storeGCPercent), true
	}
	if os.Getenv("GOMEMLIMIT") != "" || rows < 0 || int64(rows) > (math.MaxInt64-memoryLimitBase)/(2*storeMemoryPerRow) {
		return
	}
	memoryLimit.store += storeMemoryPerRow * int64(rows)
	if memoryLimit.set != 0 {
		debug.SetMemoryLimit(memoryLimit.set + memoryLimit.store)
	}
}

// releaseMemory puts back the limit and GC percent there were before
// holdMemory and holdStoreMemory, as a run ends: the tests run many in one
// process.
func releaseMemory() {
	memoryLimit.Lock()
	defer memoryLimit.Unlock()
	if memoryLimit.set != 0 {
		debug.SetMemoryLimit(memoryLimit.before)
	}
	if memoryLimit.gcSet {
		debug.SetGCPercent(memoryLimit.gc)
	}
	memoryLimit.set, memoryLimit.store, memoryLimit.gcSet = 0, 0, false
}
