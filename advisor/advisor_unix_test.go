//go:build unix

package advisor

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAdvisorLeavesNothingRunning: what an advisor puts in the background
// is killed with its process group when the advisor ends (issue 12,
// item 7); it was orphaned before.
func TestAdvisorLeavesNothingRunning(t *testing.T) {
	dir := t.TempDir()
	pidFile := dir + "/pid"
	cmd := "sleep 1000 >/dev/null 2>&1 & echo $! > " + pidFile + "; echo advice"
	if out, err := Run(context.Background(), cmd, time.Minute, nil, io.Discard); err != nil || strings.TrimSpace(string(out)) != "advice" {
		t.Fatalf("Run = %q, %v", out, err)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the advisor's background sleep (pid %d) outlived it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid is a process that has not ended: one that
// exists and, where /proc tells, is no zombie (an orphan's zombie waits
// for a reaper a container may not have).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, after, ok := strings.Cut(string(stat), ") ")
	return !ok || !strings.HasPrefix(after, "Z")
}
