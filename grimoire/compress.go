package grimoire

import (
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/bardo-golem/bardo/filekind"
)

// maxZstdWindow caps the memory a zstd frame may ask for. Every standard
// level, --ultra -22 included, stays within 128 MiB (window log 27); a
// larger request is rejected rather than allocated.
const maxZstdWindow = 128 << 20

// rawReader is the caller's reader, remembering the last error it gave
// other than io.EOF so that a decompressor's failure can be told apart
// from the input's: the first is a corrupt stream, the second I/O. It
// reports the bytes read to ReadOptions.Progress.
type rawReader struct {
	r        io.Reader
	err      error
	read     int64            // bytes read so far
	progress func(read int64) // ReadOptions.Progress; nil: none
}

func (r *rawReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	if n > 0 && r.progress != nil {
		r.read += int64(n)
		r.progress(r.read)
	}
	return n, err
}

// corruptError is a compressed stream that does not decompress.
type corruptError struct {
	name, codec string
	err         error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("%s: corrupt %s stream: %v", e.name, e.codec, e.err)
}

func (e *corruptError) Unwrap() error { return e.err }

// Is makes errors.Is(err, ErrMalformed) true: the input is bad data.
func (e *corruptError) Is(target error) bool { return target == ErrMalformed }

// ErrUnreadCompression is the error for an export compressed in a form
// the reader does not read (xz, lz4): it says how to read it instead.
var ErrUnreadCompression = errors.New("bardo reads exports plain or compressed with zstd, gzip or bzip2")

// decompress sniffs the first bytes of raw and returns the stream of JSON
// lines, the codec's name ("" for none) and the decompressor to close.
// zstd, gzip and bzip2 are read (bzip2 by the standard library, so no
// dependency is added for it); xz and lz4 are refused with how to
// decompress them first.
func decompress(raw io.Reader) (io.Reader, string, io.Closer, error) {
	br := bufio.NewReaderSize(raw, 64<<10)
	magic, err := br.Peek(filekind.MagicLen)
	if err != nil && err != io.EOF {
		return nil, "", nil, err
	}
	switch c := filekind.Compression(magic); c {
	case filekind.Zstd:
		d, err := zstd.NewReader(br,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxZstdWindow),
			zstd.WithDecoderMaxMemory(maxZstdWindow))
		if err != nil {
			return nil, "zstd", nil, err
		}
		rc := d.IOReadCloser()
		return rc, "zstd", rc, nil
	case filekind.Gzip:
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, "gzip", nil, err
		}
		return z, "gzip", z, nil
	case filekind.Bzip2:
		return bzip2.NewReader(br), "bzip2", nil, nil
	case filekind.Xz, filekind.Lz4:
		return nil, "", nil, &unreadError{codec: string(c)}
	}
	return br, "", nil, nil
}

// unreadError is an export compressed by a codec the reader does not read.
type unreadError struct{ codec string }

func (e *unreadError) Error() string {
	return fmt.Sprintf("an %s-compressed file: %v; decompress it first (%s -dc FILE | bardo … -)", e.codec, ErrUnreadCompression, e.codec)
}

func (e *unreadError) Is(target error) bool {
	return target == ErrMalformed || target == ErrUnreadCompression
}

// readError wraps an error met while reading: an I/O error of the input
// with the file name, anything else a decompressor says as a corrupt
// stream.
func readError(name, codec string, raw *rawReader, err error) error {
	if raw.err != nil || codec == "" {
		if raw.err != nil {
			err = raw.err
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &corruptError{name: name, codec: codec, err: err}
}
