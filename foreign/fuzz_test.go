package foreign

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// FuzzImport: no input panics the importers, and whatever they accept
// becomes an export the strict reader accepts.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"two_agents.af", "old.af", "wrapped.af"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"format":"KIP-Cognitive-Capsule","format_version":"2.0-draft"}`))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Import(data, "", Options{Now: now})
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := grimoire.NewWriter(&buf)
		if err := w.WriteHeader(&r.Header); err != nil {
			t.Fatal(err)
		}
		for _, rec := range r.Records {
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		rd, err := grimoire.NewReader(bytes.NewReader(buf.Bytes()), grimoire.ReadOptions{Name: "fuzz", Strict: true})
		if err != nil {
			t.Fatalf("header refused: %v\n%s", err, buf.Bytes())
		}
		for {
			_, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("export refused: %v\n%s", err, buf.Bytes())
			}
		}
	})
}
