package grimoire_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
)

// The export cases of the repository's hostile corpus (testdata/hostile,
// written by its gen/), read by the Reader alone; cmd/bardo puts them
// through every command that reads an export.

var hostileDir = filepath.Join("..", "testdata", "hostile")

// TestHostileExports: the reader refuses every export case with
// ErrMalformed and a message naming the line, the record and the rule,
// within the memory its line limit allows.
func TestHostileExports(t *testing.T) {
	f, err := os.Open(filepath.Join(hostileDir, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if strings.HasPrefix(sc.Text(), "#") || len(fields) != 5 || fields[1] != "export" {
			continue
		}
		n++
		path, expect := fields[0], fields[2]
		t.Run(path, func(t *testing.T) {
			in, err := os.Open(filepath.Join(hostileDir, path))
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			err = readAllRecords(in, grimoire.ReadOptions{Name: filepath.Base(path)})
			runtime.ReadMemStats(&ms1)
			if !errors.Is(err, grimoire.ErrMalformed) {
				t.Fatalf("read: %v, want ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), expect) {
				t.Errorf("read: %q does not say %q", err, expect)
			}
			// A line is kept whole up to MaxLineBytes, its buffer
			// growing by doubling: seven times the limit counts every
			// buffer it outgrew.
			limit := uint64(64 << 20)
			if strings.Contains(path, "line_too_long") {
				limit = 7 * grimoire.MaxLineBytes
			}
			if a := ms1.TotalAlloc - ms0.TotalAlloc; a > limit {
				t.Errorf("allocated %d MiB, more than %d MiB", a>>20, limit>>20)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Errorf("%d export cases in the corpus, want at least 30", n)
	}
}

// readAllRecords reads an export to its end and returns the first error.
func readAllRecords(r io.Reader, opts grimoire.ReadOptions) error {
	gr, err := grimoire.NewReader(r, opts)
	if err != nil {
		return err
	}
	defer gr.Close()
	for {
		if _, err := gr.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
