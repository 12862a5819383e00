package bundle_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/zstd"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// TestDecodeStreamedFrame reads a frame that does not declare its size,
// as a streaming zstd writer makes it when the input outgrows a block:
// Decode counts it before allocating.
func TestDecodeStreamedFrame(t *testing.T) {
	b := testkit.Large(400, 64)
	p, err := bundle.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	w, err := zstd.NewWriter(&file, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var h zstd.Header
	if err := h.Decode(file.Bytes()); err != nil || h.HasFCS {
		t.Fatalf("want a frame without a content size (header %+v, %v)", h, err)
	}
	got, err := bundle.Decode(&file)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(b, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("decoded (-want +got):\n%s", d)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestDecodeReadErrorIsNotCorrupt(t *testing.T) {
	_, err := bundle.Decode(failingReader{})
	if !errors.Is(err, io.ErrClosedPipe) || errors.Is(err, bundle.ErrCorrupt) {
		t.Fatalf("Decode error = %v, want the read error, not ErrCorrupt", err)
	}
}

func TestDecodeErrorNamesSection(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "vectors", "fail_float_not_shortest"))
	if err != nil {
		t.Fatal(err)
	}
	_, data, _ := bytes.Cut(raw, []byte("\n\n"))
	_, err = bundle.Decode(bytes.NewReader(data))
	var de *bundle.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("Decode error %v is not a *DecodeError", err)
	}
	if de.Section != "body.entries[0].decay" {
		t.Errorf("Section = %q, want body.entries[0].decay", de.Section)
	}
}

// TestDecodeLimits pins the limits FORMAT.md documents.
func TestDecodeLimits(t *testing.T) {
	minimal := testkit.MinimalTree()
	refs := make(testkit.Array, bundle.MaxParents+1)
	for i := range refs {
		refs[i] = testkit.Text("x")
	}
	for _, tc := range []struct {
		name string
		tree testkit.Node
		want string
	}{
		{"array elements", testkit.Set(minimal, refs, "header", "parents"),
			"bundle: header.parents: 1025 elements, more than the limit of 1024 parents"},
		{"array head beyond the data", testkit.Set(minimal, testkit.Raw{0x9b, 0, 0, 0, 1, 0, 0, 0, 0}, "body", "entries"),
			"bundle: body.entries: array of 4294967296 elements exceeds the limit of 262144"},
		{"map pairs", testkit.Set(minimal, testkit.Raw{0xb8, 65}, "header", "death"),
			"bundle: header.death: map of 65 pairs exceeds the limit of 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bundle.Decode(bytes.NewReader(compressForTest(t, testkit.Encode(tc.tree))))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Decode error = %v, want %q", err, tc.want)
			}
		})
	}
}
