package bundle_test

import (
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/bardo-golem/bardo/bundle"
)

// compressForTest puts crafted CBOR in a zstd frame with Encode's settings.
func compressForTest(tb testing.TB, p []byte) []byte {
	tb.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(bundle.ZstdLevel), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	if err != nil {
		tb.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(p, nil)
}
