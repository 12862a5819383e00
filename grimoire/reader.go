package grimoire

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
)

// ReadOptions configure a Reader.
type ReadOptions struct {
	Name      string        // file name used in messages; "input" when empty
	Strict    bool          // unknown record types and fields are errors, not warnings
	Warn      func(Warning) // called once per kind of unknown type / unknown field; nil drops them
	MaxErrors int           // errors kept in full; 0 means 20
	// Progress, when set, is called after each read of the input with
	// the bytes read so far, as stored (a compressed export's compressed
	// bytes), so that a command can draw a progress bar; the reader
	// itself never prints.
	Progress func(read int64)
}

// DefaultMaxErrors is how many errors a ValidationError keeps in full when
// ReadOptions.MaxErrors is 0.
const DefaultMaxErrors = 20

// MaxLineBytes is the longest line a reader accepts, "\n" and "\r" not
// counted. A longer line is an error on its line; it is skipped without
// being held in memory past this size.
const MaxLineBytes = 64 << 20

// maxWarnKinds bounds the kinds of unknown types and fields remembered for
// warning once each; further new kinds are not warned about.
const maxWarnKinds = 1000

// keepBuf is the largest line buffer kept from one long line to the next.
const keepBuf = 1 << 20

// Reader streams the records of an export, validating each one. It is not
// safe for concurrent use.
type Reader struct {
	opts  ReadOptions
	raw   *rawReader
	src   *bufio.Reader
	codec string
	dec   io.Closer // the decompressor, nil for plain input
	owned io.Closer // the file an Input opened, nil otherwise

	sum   hash.Hash // sha256 of the JSON lines read so far (ContentDigest)
	ended bool      // the JSON lines were read to their end

	header  *Header
	line    int // lines read so far
	recLine int // line of the record Next returned last

	buf      []byte // the current line, when it spans buffer reads
	members  []member
	scratch  []member
	lay      layout
	stripped []byte
	chk      checker

	seen    map[[16]byte]int // hash of (type, unique value) → line of the first
	hash    hash.Hash
	hashBuf []byte
	warned  map[string]bool

	errs  []*FieldError
	total int
	err   error // sticky: I/O error, io.EOF or the final ValidationError
}

// NewReader returns a Reader of the export r, compressed with zstd, gzip or bzip2
// or not at all (told from the magic bytes). It reads and validates the
// header: when the export has none, or a bad one, the error is a
// *ValidationError. NewReader does not close r.
func NewReader(r io.Reader, opts ReadOptions) (*Reader, error) {
	if opts.Name == "" {
		opts.Name = "input"
	}
	if opts.MaxErrors <= 0 {
		opts.MaxErrors = DefaultMaxErrors
	}
	rd := &Reader{
		opts:   opts,
		raw:    &rawReader{r: r, progress: opts.Progress},
		seen:   make(map[[16]byte]int),
		hash:   fnv.New128a(),
		warned: make(map[string]bool),
	}
	lines, codec, dec, err := decompress(rd.raw)
	rd.codec, rd.dec = codec, dec
	if err != nil {
		return nil, readError(opts.Name, codec, rd.raw, err)
	}
	rd.sum = sha256.New()
	rd.src = bufio.NewReaderSize(io.TeeReader(lines, rd.sum), 64<<10)
	if err := rd.readHeader(); err != nil {
		rd.Close()
		return nil, err
	}
	return rd, nil
}

// newLineChecker returns a Reader of no input: checkLine holds each line
// handed to it to the rules a strict Reader holds the lines it reads to.
func newLineChecker(name string) *Reader {
	return &Reader{
		opts:   ReadOptions{Name: name, Strict: true, MaxErrors: DefaultMaxErrors},
		seen:   make(map[[16]byte]int),
		hash:   fnv.New128a(),
		warned: make(map[string]bool),
	}
}

// checkLine checks line, without its newline, as the next line of an
// export (the first is the header): a *ValidationError of its errors, or
// nil when a Reader would take it.
func (r *Reader) checkLine(line []byte) error {
	r.errs, r.total = r.errs[:0], 0
	r.line++
	if len(line) > MaxLineBytes {
		r.fail(&FieldError{File: r.opts.Name, Line: r.line, Err: errLineTooLong})
		return r.validationError()
	}
	if r.header != nil {
		r.record(line)
	} else if typ, members, ok := r.recordType(line); ok && typ != TypeHeader {
		r.fail(&FieldError{File: r.opts.Name, Line: r.line, Err: errors.New("header must be the first record")})
	} else if ok {
		if h := r.parse(headerKind, line, members); h != nil {
			r.header = h.(*Header)
		}
	}
	if r.total > 0 {
		return r.validationError()
	}
	return nil
}

// Header returns the export's header, validated, times in UTC.
func (r *Reader) Header() *Header { return r.header }

// ContentDigest returns the export's content digest, as the function
// ContentDigest computes it, from the bytes the Reader has read: it is
// known once Next has read the last line (returned io.EOF or a
// *ValidationError), so that a command reads an export once to digest and
// decode it. Before that it is an error.
func (r *Reader) ContentDigest() (string, error) {
	if !r.ended {
		return "", errors.New("the export's content digest is known only once it has been read to its end")
	}
	return "sha256:" + hex.EncodeToString(r.sum.Sum(nil)), nil
}

// Line returns the line of the record Next returned last.
func (r *Reader) Line() int { return r.recLine }

// Close releases the decompressor and, for a Reader an Input opened, the
// file. It does not close the io.Reader given to NewReader.
func (r *Reader) Close() error {
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	if r.owned != nil {
		err := r.owned.Close()
		r.owned = nil
		return err
	}
	return nil
}

// Next returns the next valid record, its defaults applied: an *Entry,
// *Episode, *CausalEdge, *Document, *Hypothesis, *DecisionCache, *Metric or
// *Fitness. Records that break a rule are skipped and their errors
// collected; after the last line Next returns a *ValidationError if there
// were any, else io.EOF. I/O and decompression errors are returned as
// they happen. Once Next has returned an error it returns it again.
func (r *Reader) Next() (Record, error) {
	for r.err == nil {
		line, err := r.readLine()
		switch {
		case err == io.EOF:
			r.err = io.EOF
			if r.total > 0 {
				r.err = r.validationError()
			}
		case err == errLineTooLong:
			r.fail(&FieldError{File: r.opts.Name, Line: r.line, Err: err})
		case err != nil:
			r.err = err
		case isBlank(line):
		default:
			if rec := r.record(line); rec != nil {
				r.recLine = r.line
				return rec, nil
			}
		}
	}
	return nil, r.err
}

var errLineTooLong = fmt.Errorf("line is longer than %d MiB", MaxLineBytes>>20)

// readLine returns the next line without its "\n" and a "\r" before it.
// The line is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	if cap(r.buf) > keepBuf {
		r.buf = nil
	}
	r.buf = r.buf[:0]
	size := 0
	for {
		frag, err := r.src.ReadSlice('\n')
		size += len(frag)
		if err == bufio.ErrBufferFull {
			if size <= MaxLineBytes+2 {
				r.buf = append(r.buf, frag...)
			}
			continue
		}
		if err == io.EOF && size == 0 {
			r.ended = true
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, readError(r.opts.Name, r.codec, r.raw, err)
		}
		r.line++
		line := frag
		if len(r.buf) > 0 {
			if size <= MaxLineBytes+2 {
				r.buf = append(r.buf, frag...)
			}
			line = r.buf
		}
		if size > MaxLineBytes+2 {
			return nil, errLineTooLong
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) > MaxLineBytes {
			return nil, errLineTooLong
		}
		if r.line == 1 {
			line = trimBOM(line)
		}
		return line, nil
	}
}

// trimBOM drops a UTF-8 byte order mark, which some editors write.
func trimBOM(line []byte) []byte {
	if len(line) >= 3 && line[0] == 0xef && line[1] == 0xbb && line[2] == 0xbf {
		return line[3:]
	}
	return line
}

func isBlank(line []byte) bool {
	return skipSpace(line, 0) == len(line)
}

// readHeader reads the first non-blank line, which must be the header.
func (r *Reader) readHeader() error {
	for {
		line, err := r.readLine()
		switch {
		case err == io.EOF:
			r.fail(&FieldError{File: r.opts.Name, Err: errors.New("header is missing: the export is empty")})
			return r.validationError()
		case err == errLineTooLong:
			r.fail(&FieldError{File: r.opts.Name, Line: r.line, Err: err})
			return r.validationError()
		case err != nil:
			return err
		case isBlank(line):
			continue
		}
		typ, members, ok := r.recordType(line)
		if !ok {
			return r.validationError()
		}
		if typ != TypeHeader {
			r.fail(&FieldError{File: r.opts.Name, Line: r.line, Err: errors.New("header must be the first record")})
			return r.validationError()
		}
		h := r.parse(headerKind, line, members)
		if h == nil {
			return r.validationError()
		}
		r.header = h.(*Header)
		return nil
	}
}
