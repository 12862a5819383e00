package main

import (
	"runtime/debug"
	"testing"
)

// TestStoreMemory checks that a run holding a store's view collects at
// storeGCPercent and raises the limit by storeMemoryPerRow a row, that the
// order of bundle and store does not change the limit, and that the run's
// end puts both back; GOGC and GOMEMLIMIT, when set, are the user's.
func TestStoreMemory(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	gc0 := debug.SetGCPercent(137)
	defer debug.SetGCPercent(gc0)
	lim0 := debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(lim0)

	const rows = 1000
	want := int64(memoryLimitBase + 3*memoryPerByte<<20 + storeMemoryPerRow*rows)
	for _, storeFirst := range []bool{false, true} {
		if storeFirst {
			holdStoreMemory(rows)
			holdMemory(4 << 20)
		} else {
			holdMemory(4 << 20)
			holdStoreMemory(rows)
		}
		if got := debug.SetGCPercent(-1); got != storeGCPercent {
			t.Errorf("storeFirst=%v: GC percent %d while a view is held, want %d", storeFirst, got, storeGCPercent)
		}
		debug.SetGCPercent(storeGCPercent)
		if got := debug.SetMemoryLimit(-1); got != want {
			t.Errorf("storeFirst=%v: limit %d, want %d", storeFirst, got, want)
		}
		releaseMemory()
		if got := debug.SetGCPercent(-1); got != 137 {
			t.Errorf("storeFirst=%v: GC percent %d after the run, want 137 back", storeFirst, got)
		}
		debug.SetGCPercent(137)
		if got := debug.SetMemoryLimit(-1); got != 1<<40 {
			t.Errorf("storeFirst=%v: limit %d after the run, want %d back", storeFirst, got, int64(1<<40))
		}
	}

	t.Setenv("GOGC", "80")
	holdStoreMemory(rows)
	if got := debug.SetGCPercent(-1); got != 137 {
		t.Errorf("GOGC set: GC percent %d, want the user's 137 left alone", got)
	}
	debug.SetGCPercent(137)
	releaseMemory()
}
