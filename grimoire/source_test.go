package grimoire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

// bigExport is an export of n entries, large enough that a Reader's first
// record leaves most of it unread.
func bigExport(n int) []byte {
	var b strings.Builder
	b.WriteString(baseHeader.String() + "\n")
	for i := range n {
		b.WriteString(baseEntry.with("id", fmt.Sprintf("e%05d", i), "embedding", []float64{float64(i), 0.5}).String() + "\n")
	}
	return []byte(b.String())
}

// openAll opens in and reads it to the end.
func openAll(t *testing.T, in *grimoire.Input) []grimoire.Record {
	t.Helper()
	rd, err := in.Open(grimoire.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	recs, _, err := drain(rd)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// spoolFiles lists the spool files left in dir.
func spoolFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestFileSource(t *testing.T) {
	in := grimoire.FileInput("testdata/small.jsonl")
	if in.Name() != "testdata/small.jsonl" {
		t.Errorf("Name() = %q", in.Name())
	}
	first := openAll(t, in)
	if d := cmp.Diff(first, openAll(t, in)); d != "" || len(first) == 0 {
		t.Errorf("second reading (-first +second):\n%s", d)
	}
	if err := in.Close(); err != nil {
		t.Error(err)
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := grimoire.FileInput(filepath.Join(t.TempDir(), "nope.jsonl")).Open(grimoire.ReadOptions{})
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("name in messages", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "bad.jsonl")
		if err := os.WriteFile(path, []byte(export(baseEntry)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := grimoire.FileInput(path).Open(grimoire.ReadOptions{})
		if want := path + ":1: header must be the first record"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
}

// onlyReader hides every method but Read, as standard input would.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestSpoolSourceReadTwice(t *testing.T) {
	data := zstdBytes(t, bigExport(2000))
	dir := t.TempDir()
	in := grimoire.SpoolInput(onlyReader{bytes.NewReader(data)}, "-", dir)
	first := openAll(t, in)
	if len(first) != 2000 {
		t.Fatalf("%d records, want 2000", len(first))
	}
	spool := spoolFiles(t, dir)
	if len(spool) != 1 {
		t.Fatalf("spool files %q, want one", spool)
	}
	if !bytes.Equal(readFile(t, spool[0]), data) {
		t.Error("the spool does not hold the raw, still compressed input")
	}
	if d := cmp.Diff(first, openAll(t, in)); d != "" {
		t.Errorf("second reading (-first +second):\n%s", d)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if left := spoolFiles(t, dir); len(left) != 0 {
		t.Errorf("Close left %q", left)
	}
	if _, err := in.Open(grimoire.ReadOptions{}); err == nil {
		t.Error("Open after Close succeeded")
	}
}

// TestSpoolSourceOpenBeforeEnd opens a second Reader while the first has
// read one record: the rest of the stream is spooled first, and both
// Readers see every record.
func TestSpoolSourceOpenBeforeEnd(t *testing.T) {
	data := bigExport(2000)
	want := read(t, bytes.NewReader(data), grimoire.ReadOptions{Name: "-"})
	in := grimoire.SpoolInput(onlyReader{bytes.NewReader(data)}, "-", t.TempDir())
	defer in.Close()
	r1, err := in.Open(grimoire.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	rec, err := r1.Next()
	if err != nil {
		t.Fatal(err)
	}
	second := openAll(t, in)
	rest, _, err := drain(r1)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want.Records, append([]grimoire.Record{rec}, rest...)); d != "" {
		t.Errorf("first reading (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want.Records, second); d != "" {
		t.Errorf("second reading (-want +got):\n%s", d)
	}
}

// TestSpoolSourceFailure checks that a stream that fails is an I/O error
// on the first reading, and on every later Open.
func TestSpoolSourceFailure(t *testing.T) {
	boom := errors.New("pipe broke")
	data := bigExport(10)
	in := grimoire.SpoolInput(io.MultiReader(bytes.NewReader(data), errReader{boom}), "-", t.TempDir())
	defer in.Close()
	rd, err := in.Open(grimoire.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = drain(rd)
	rd.Close()
	if !errors.Is(err, boom) || err.Error() != "-: pipe broke" {
		t.Errorf("first reading: %v, want %v", err, boom)
	}
	if _, err := in.Open(grimoire.ReadOptions{}); !errors.Is(err, boom) {
		t.Errorf("second Open: %v, want %v", err, boom)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestSpoolSourceNeedsDir checks that the spool directory is never
// guessed from the environment.
func TestSpoolSourceNeedsDir(t *testing.T) {
	in := grimoire.SpoolInput(strings.NewReader(after(baseFitness)), "-", "")
	defer in.Close()
	if _, err := in.Open(grimoire.ReadOptions{}); err == nil || err.Error() != "-: no directory to spool to" {
		t.Errorf("error %v", err)
	}
}
