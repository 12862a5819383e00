//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rssBound is the most a run of verify, inspect or inherit may hold
// resident reading a hostile file of at most 1 MiB (issue 12): the
// decoded-size ratio, the per-field limits and the budget of decoded
// values (bundle/FORMAT.md, "Limits") keep it there.
const rssBound = 256 << 20

// TestHostileRSS puts every file of the corpus of at most 1 MiB through
// verify, inspect and inherit with the real binary, and holds each run to
// rssBound by the kernel's count of its peak resident set, and to the
// exit code and message of its class: a bundle case is refused by
// inspect and inherit with 65 (verify says BAD and exits 1), a deep case
// by inherit with 65 (verify --deep exits 1).
func TestHostileRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary about 400 times")
	}
	bin, err := exec.LookPath("bardo-hwm") // its own peak: see peakRSS
	if err != nil {
		t.Fatal(err)
	}
	w := newHostileWork(t)
	n, peak, peakRun := 0, uint64(0), ""
	for _, c := range readHostile(t) {
		file := filepath.Join(hostileDir, c.path)
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 1<<20 || c.class == "export" {
			continue
		}
		n++
		inherit := []string{"inherit", file, "--store", w.store, "--now", "2026-11-03T01:00:00Z"}
		runs := []hostileRun{{[]string{"verify", file}, 1, c.verify}, {[]string{"inspect", file}, 65, c.expect}, {inherit, 65, c.expect}}
		if c.class == "deep" {
			runs[0] = hostileRun{[]string{"verify", "--deep", file}, 1, c.verify}
			runs[1] = hostileRun{[]string{"inspect", file}, 0, ""}
		}
		for _, r := range runs {
			cmd := exec.Command(bin, r.args...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			rss := peakRSS(t, cmd)
			name := r.args[0] + " " + c.path
			if rss > peak {
				peak, peakRun = rss, name
			}
			if code := cmd.ProcessState.ExitCode(); code != r.code {
				t.Errorf("%s: exit %d, want %d\n%s", name, code, r.code, stderr.String())
			} else if !strings.Contains(stdout.String()+stderr.String(), r.expect) {
				t.Errorf("%s: output %q does not say %q", name, stdout.String()+stderr.String(), r.expect)
			}
			if rss > rssBound {
				t.Errorf("%s: peak resident set %d MiB, more than %d MiB", name, rss>>20, rssBound>>20)
			}
		}
	}
	t.Logf("%d files of at most 1 MiB through verify, inspect and inherit: the largest peak resident set %d MiB (%s)", n, peak>>20, peakRun)
	if n < 100 {
		t.Errorf("%d files, want at least 100: has the corpus lost them?", n)
	}
}
