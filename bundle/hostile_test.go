package bundle_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

// The hostile corpus of the repository (testdata/hostile, written by its
// gen/), read by Decode and Check alone; cmd/bardo puts it through every
// command.

var hostileDir = filepath.Join("..", "testdata", "hostile")

type hostileCase struct{ path, class, expect string }

func readHostile(t *testing.T) []hostileCase {
	t.Helper()
	f, err := os.Open(filepath.Join(hostileDir, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []hostileCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 5 {
			t.Fatalf("MANIFEST: %q: want 5 tab-separated fields", sc.Text())
		}
		if f[1] == "bundle" || f[1] == "deep" {
			cases = append(cases, hostileCase{f[0], f[1], f[2]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestHostileBundles: Decode refuses every bundle case with ErrCorrupt
// and a message naming the section and the rule, Check every deep case;
// neither allocates more than the case's claims allow.
func TestHostileBundles(t *testing.T) {
	cases := readHostile(t)
	if len(cases) < 80 {
		t.Fatalf("%d bundle cases in the corpus, want at least 80", len(cases))
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(hostileDir, c.path))
			if err != nil {
				t.Fatal(err)
			}
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			b, err := bundle.Decode(bytes.NewReader(data))
			var errs []error
			if err == nil {
				errs = b.Check()
			}
			runtime.ReadMemStats(&ms1)
			switch c.class {
			case "bundle":
				var de *bundle.DecodeError
				if !errors.Is(err, bundle.ErrCorrupt) || !errors.As(err, &de) {
					t.Fatalf("Decode: %v, want a DecodeError matching ErrCorrupt", err)
				}
				if !strings.Contains(err.Error(), c.expect) {
					t.Errorf("Decode: %q does not say %q", err, c.expect)
				}
			case "deep":
				if err != nil {
					t.Fatalf("Decode: %v; a deep case's bytes are sound", err)
				}
				if len(errs) == 0 || !strings.Contains(errors.Join(errs...).Error(), c.expect) {
					t.Errorf("Check: %v, want an error saying %q", errs, c.expect)
				}
			}
			// 64 MiB: a frame is refused past its file's decoded limit
			// (at most 16 MiB + 16 × its size) while counting, and a field
			// past its limit, or values past the budget, before anything
			// is unmarshalled (bundle/FORMAT.md, "Limits").
			limit := uint64(64 << 20)
			if n := ms1.TotalAlloc - ms0.TotalAlloc; n > limit {
				t.Errorf("allocated %d MiB, more than %d MiB", n>>20, limit>>20)
			}
		})
	}
}

// TestHostileEveryBit cuts the corpus's small bundle at every offset and
// flips each of its bits in turn. Every cut is refused. A flip is refused,
// or decodes to the very same bundle (the same canonical CBOR, so the
// same digest): the frame's content checksum and the canonical form leave
// no bit of the content free. The flips zstd ignores (a reserved bit of
// the frame header, bits of compressed block headers) are counted.
func TestHostileEveryBit(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(hostileDir, "base", "small8.bardo"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := bundle.Decode(bytes.NewReader(good))
	if err != nil {
		t.Fatalf("the base bundle: %v", err)
	}
	want, err := bundle.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(good) {
		if _, err := bundle.Decode(bytes.NewReader(good[:n])); !errors.Is(err, bundle.ErrCorrupt) {
			t.Fatalf("cut at %d of %d bytes: %v, want ErrCorrupt", n, len(good), err)
		}
	}
	p := bytes.Clone(good)
	framing := 0
	for i := range len(p) * 8 {
		p[i/8] ^= 1 << (i % 8)
		b, err := bundle.Decode(bytes.NewReader(p))
		switch {
		case err == nil:
			got, merr := bundle.Marshal(b)
			if merr != nil || !bytes.Equal(got, want) {
				t.Fatalf("bit %d of byte %d flipped: accepted as another bundle", i%8, i/8)
			}
			framing++
		case !errors.Is(err, bundle.ErrCorrupt):
			t.Fatalf("bit %d of byte %d flipped: %v, want ErrCorrupt", i%8, i/8, err)
		}
		p[i/8] ^= 1 << (i % 8)
	}
	t.Logf("%d cuts and %d single-bit flips of a %d-byte bundle: every cut refused, %d flips in the zstd framing decode to the same bundle, the rest refused",
		len(good), len(good)*8, len(good), framing)
}
