//go:build linux

package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileBinary reads the cases of the corpus that claim sizes —
// declared lengths, windows, bombs, nesting, long lines — with the real
// binary (this test binary as "bardo", see TestMain), and bounds the memory
// the process used by the kernel's count: its peak resident set.
// TestHostileCorpus reads every case through every command, in process.
func TestHostileBinary(t *testing.T) {
	bin, err := exec.LookPath("bardo")
	if err != nil {
		t.Fatal(err)
	}
	w := newHostileWork(t)
	before := folderState(t, w.dir)
	// The resident set of a run that does almost nothing: the binary
	// itself, its runtime and its command tree.
	base := maxRSS(t, exec.Command(bin, "version"))
	n, peak, peakCase := 0, uint64(0), ""
	for _, c := range readHostile(t) {
		if !claimsSize(c) {
			continue
		}
		n++
		file := filepath.Join(hostileDir, c.path)
		runs := hostileRuns(c, file, w)
		r := runs[1] // inspect, verify --deep, bundle
		if c.class == "deep" {
			r = runs[2] // inherit
		}
		cmd := exec.Command(bin, r.args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		rss := maxRSS(t, cmd)
		if rss > peak {
			peak, peakCase = rss, c.path
		}
		code := cmd.ProcessState.ExitCode()
		switch {
		case code != r.code:
			t.Errorf("%s %s: exit %d, want %d\n%s", r.args[0], c.path, code, r.code, stderr.String())
		case !strings.Contains(stderr.String(), r.expect):
			t.Errorf("%s %s: stderr %q does not say %q", r.args[0], c.path, stderr.String(), r.expect)
		case rss > base+allocBound(c):
			t.Errorf("%s %s: peak resident set %d MiB, %d MiB above a run that does nothing; bound %d MiB",
				r.args[0], c.path, rss>>20, (rss-base)>>20, allocBound(c)>>20)
		}
	}
	t.Logf("%d cases that claim sizes, through the binary: a run that does nothing peaks at %d MiB resident, the largest at %d MiB (%s)", n, base>>20, peak>>20, peakCase)
	if n < 15 {
		t.Errorf("%d cases claim sizes, want at least 15: has the corpus lost them?", n)
	}
	if d := diffState(before, folderState(t, w.dir)); d != "" {
		t.Fatalf("the rejected runs changed the work folder:\n%s", d)
	}
}

// claimsSize reports whether a case claims a size it would take memory to
// honour.
func claimsSize(c hostileCase) bool {
	for _, w := range []string{"bomb", "declare", "2pow", "past_limit", "too_long", "nesting", "window", "nested"} {
		if strings.Contains(c.path, w) {
			return true
		}
	}
	return false
}

// maxRSS runs cmd to its end and returns its peak resident set in bytes.
func maxRSS(t *testing.T, cmd *exec.Cmd) uint64 {
	t.Helper()
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no resource usage on this system")
	}
	return uint64(ru.Maxrss) << 10 // kilobytes on Linux
}
