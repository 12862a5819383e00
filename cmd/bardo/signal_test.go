package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMRemovesTemps runs the real binary (this test binary as
// "bardo", see TestMain), stops it with SIGTERM while it waits for the rest
// of its standard input, and checks that it exits 143 and leaves neither
// the output's temporary file nor the spool of standard input.
func TestSIGTERMRemovesTemps(t *testing.T) {
	bin, err := exec.LookPath("bardo")
	if err != nil {
		t.Fatal(err)
	}
	dir, tmp := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "bundle", "-", "-o", filepath.Join(dir, "out.bardo"))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	header := `{"type":"header","format":"bardo.grimoire-export/v1","golem_id":"g","generation":0,"exported_at":"2026-11-02T12:00:00Z"}`
	if _, err := io.WriteString(stdin, header+"\n"); err != nil {
		t.Fatal(err)
	}

	defer cmd.Process.Kill()

	// Wait for the run to be mid-way: its output's temporary file and its
	// spool both exist. The limit only keeps a broken build from hanging.
	for start := time.Now(); !(countFiles(t, dir) == 1 && countFiles(t, tmp) == 2); {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("no temporary files after 20s: output folder holds %d, TMPDIR %d", countFiles(t, dir), countFiles(t, tmp))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 143 {
		t.Errorf("exit %v, want status 143; stderr:\n%s", err, stderr.String())
	}
	if want := "bardo: interrupted by SIGTERM\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("output folder holds %d files after SIGTERM, want none", n)
	}
	if n := countFiles(t, tmp); n != 0 {
		t.Errorf("TMPDIR holds %d files after SIGTERM, want none", n)
	}
}

// countFiles counts the files and folders under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
