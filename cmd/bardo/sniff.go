package main

import (
	"bytes"
	"io"

	"github.com/klauspost/compress/zstd"
)

// fileKind is what verify takes a file for.
type fileKind string

const (
	kindBundle fileKind = "bundle"
	kindExport fileKind = "export"
)

// zstdMagic starts every zstd frame (RFC 8878 §3.1.1).
var zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}

// sniff tells a bundle from an export by its first bytes, and leaves f at
// its start. A bundle is one zstd frame of a CBOR map; an export is JSON
// Lines, plain, gzip or zstd. So a zstd file whose content starts with a
// CBOR map (major type 5) is a bundle, and one whose content starts like
// JSON is an export. A zstd file that does not decompress at all is taken
// for a bundle: the bundle decoder names what is wrong with the frame.
func sniff(f io.ReadSeeker) (fileKind, error) {
	head := make([]byte, len(zstdMagic))
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	if !bytes.Equal(head[:n], zstdMagic) {
		return kindExport, nil
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return "", err
	}
	var first [1]byte
	_, zerr := io.ReadFull(zr, first[:])
	zr.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	if zerr == nil && first[0]>>5 != 5 {
		return kindExport, nil
	}
	return kindBundle, nil
}
