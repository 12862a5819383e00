package grimoire

import (
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

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

// A decoder opens a compressed stream: the stream of JSON lines, and the
// decompressor to close (nil: none).
type decoder func(br *bufio.Reader) (io.Reader, io.Closer, error)

// decoders are the compressions an export may come in, by the kind
// filekind.Compression tells from the magic bytes: the one list of them,
// which Compressions, the error for the others and the command line's
// help are made from. bzip2 is read by the standard library, so no
// dependency is added for it; a kind of filekind.Codecs without a decoder
// (xz, lz4: neither has a reader in the standard library, and a pipe does
// the job) is refused with how to decompress it first.
var decoders = map[filekind.Kind]decoder{
	filekind.Zstd: func(br *bufio.Reader) (io.Reader, io.Closer, error) {
		d, err := zstd.NewReader(br,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxZstdWindow),
			zstd.WithDecoderMaxMemory(maxZstdWindow))
		if err != nil {
			return nil, nil, err
		}
		rc := d.IOReadCloser()
		return rc, rc, nil
	},
	filekind.Gzip: func(br *bufio.Reader) (io.Reader, io.Closer, error) {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		return z, z, nil
	},
	filekind.Bzip2: func(br *bufio.Reader) (io.Reader, io.Closer, error) {
		return bzip2.NewReader(br), nil, nil
	},
}

// Compressions returns the names of the compressions an export may come
// in ("zstd", "gzip", "bzip2"), and those bardo recognises but does not
// read ("xz", "lz4"), in the order of filekind.Codecs.
func Compressions() (read, refused []string) {
	for _, c := range filekind.Codecs {
		if decoders[c.Kind] != nil {
			read = append(read, string(c.Kind))
		} else {
			refused = append(refused, string(c.Kind))
		}
	}
	return read, refused
}

// CompressionsText says in words how an export may come: "plain or
// compressed with zstd, gzip or bzip2". Help texts and messages use it, so
// that they never list other compressions than the reader reads.
func CompressionsText() string {
	read, _ := Compressions()
	return "plain or compressed with " + orList(read)
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// ErrUnreadCompression is the error for an export compressed in a form
// the reader does not read (xz, lz4): it says how to read it instead.
var ErrUnreadCompression = errors.New("bardo reads exports " + CompressionsText())

// decompress sniffs the first bytes of raw and returns the stream of JSON
// lines, the codec's name ("" for none) and the decompressor to close.
func decompress(raw io.Reader) (io.Reader, string, io.Closer, error) {
	br := bufio.NewReaderSize(raw, 64<<10)
	magic, err := br.Peek(filekind.MagicLen)
	if err != nil && err != io.EOF {
		return nil, "", nil, err
	}
	c := filekind.Compression(magic)
	if c == filekind.Unknown {
		return br, "", nil, nil
	}
	open := decoders[c]
	if open == nil {
		return nil, "", nil, &unreadError{codec: string(c)}
	}
	lines, closer, err := open(br)
	return lines, string(c), closer, err
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
