package bundle_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// A full germline: 2048 entries (the bottleneck's cap) with 768-dimension
// embeddings. SetBytes is the canonical CBOR size, so MB/s compare with
// other codecs; the file size is reported as a metric.
const benchEntries, benchDims = 2048, 768

func BenchmarkEncode(b *testing.B) {
	bu := testkit.Large(benchEntries, benchDims)
	p, err := bundle.Marshal(bu)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p)))
	var n int64
	for b.Loop() {
		var w countingWriter
		if err := bundle.Encode(&w, bu); err != nil {
			b.Fatal(err)
		}
		n = int64(w)
	}
	b.ReportMetric(float64(n), "file-bytes")
	b.ReportMetric(float64(len(p)), "cbor-bytes")
}

func BenchmarkDecode(b *testing.B) {
	bu := testkit.Large(benchEntries, benchDims)
	p, err := bundle.Marshal(bu)
	if err != nil {
		b.Fatal(err)
	}
	var file bytes.Buffer
	if err := bundle.Encode(&file, bu); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := bundle.Decode(bytes.NewReader(file.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(file.Len()), "file-bytes")
}

type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
