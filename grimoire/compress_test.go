package grimoire

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// readCount reads an export file to its end and counts its records.
func readCount(t *testing.T, path string) (int, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f, ReadOptions{Name: path})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n := 0
	for {
		_, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// TestCompressedForms: a bzip2 export (made by bzip2(1)) reads as the
// plain one; xz and lz4 are refused with how to read them (issue 18,
// item 1), never as "invalid JSON".
func TestCompressedForms(t *testing.T) {
	want, err := readCount(t, "testdata/small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := readCount(t, "testdata/small.jsonl.bz2"); err != nil || got != want {
		t.Errorf("bzip2: %d records, %v; want %d", got, err, want)
	}
	for _, codec := range []string{"xz", "lz4"} {
		_, err := readCount(t, "testdata/small.jsonl."+codec)
		if !errors.Is(err, ErrMalformed) || !errors.Is(err, ErrUnreadCompression) {
			t.Errorf("%s: error %v, want ErrMalformed and ErrUnreadCompression", codec, err)
			continue
		}
		if want := "an " + codec + "-compressed file"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), codec+" -dc FILE") {
			t.Errorf("%s: %q does not say %q and how to decompress it", codec, err, want)
		}
	}
}
