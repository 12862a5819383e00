package foreign

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/grimoire"
)

// FuzzImport: no input panics the importers or fails them but as a file
// they refuse (ErrMalformed, ErrTooLarge, ErrUnknownKind, a capsule's
// errors, an AgentError), and whatever they accept is an export the
// strict reader takes.
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
		var buf bytes.Buffer
		_, err := Import(bytes.NewReader(data), int64(len(data)), &buf, "", Options{Now: now})
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnknownKind) &&
				!errors.Is(err, capsule.ErrMalformed) && !errors.Is(err, capsule.ErrDigestMismatch) && !errors.As(err, new(*AgentError)) {
				t.Fatalf("an error of no class: %v", err)
			}
			return
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
