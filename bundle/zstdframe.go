package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// zstdMagic starts every zstd frame (RFC 8878 §3.1.1), little-endian.
const zstdMagic = 0xFD2FB528

// decompress reads a bundle file and returns the CBOR inside its one zstd
// frame. The frame is checked before anything is decoded: one frame, no
// dictionary, a content checksum, a declared size and window within
// MaxDecodedSize, nothing after it.
func decompress(r io.Reader) ([]byte, error) {
	p, _, err := decompressFile(r)
	return p, err
}

// decompressFile is decompress that also returns the file's size. The
// frame may decode to no more than DecodedLimit of that size.
func decompressFile(r io.Reader) ([]byte, int64, error) {
	file, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		// A failed read says nothing about the bundle: not ErrCorrupt.
		return nil, 0, fmt.Errorf("bundle: %w", err)
	}
	if len(file) > MaxFileSize {
		return nil, 0, zstdError(fmt.Errorf("file is larger than the %d-byte limit", MaxFileSize))
	}
	n := int64(len(file))
	hdr, end, err := frameExtent(file)
	if err != nil {
		return nil, 0, zstdError(err)
	}
	if rest := file[end:]; len(rest) > 0 {
		if len(rest) >= 4 && binary.LittleEndian.Uint32(rest) == zstdMagic {
			return nil, 0, zstdError(errors.New("a second zstd frame follows the first; a bundle is one frame"))
		}
		return nil, 0, zstdError(fmt.Errorf("%d trailing bytes after the zstd frame", len(rest)))
	}
	limit := DecodedLimit(n)
	if hdr.HasFCS && hdr.FrameContentSize > uint64(limit) {
		return nil, 0, zstdError(fmt.Errorf("frame declares %d decoded bytes, more than %s", hdr.FrameContentSize, decodedLimitText(n)))
	}
	p, err := inflate(file, hdr, limit)
	if errors.Is(err, zstd.ErrCRCMismatch) {
		return nil, 0, zstdError(fmt.Errorf("content checksum does not match: the frame is damaged: %w", err))
	}
	if errors.Is(err, errPastLimit) {
		return nil, 0, zstdError(fmt.Errorf("frame decodes to more than %s", decodedLimitText(n)))
	}
	if err != nil {
		return nil, 0, zstdError(err)
	}
	return p, n, nil
}

// decodedLimitText says what DecodedLimit(n) is, for messages.
func decodedLimitText(n int64) string {
	if DecodedLimit(n) == MaxDecodedSize {
		return fmt.Sprintf("the %d-byte limit", MaxDecodedSize)
	}
	return fmt.Sprintf("the %d bytes a %d-byte file may decode to (%d MiB + %d × its size)", DecodedLimit(n), n, DecodedFloor>>20, DecodedRatio)
}

var errPastLimit = errors.New("past the decoded limit")

func zstdError(err error) error { return &DecodeError{Section: "zstd", Err: err} }

// frameExtent checks the frame header at the start of file and walks the
// frame's block headers to find where the frame ends.
func frameExtent(file []byte) (zstd.Header, int, error) {
	var h zstd.Header
	if len(file) == 0 {
		return h, 0, errors.New("empty file")
	}
	if len(file) >= 4 {
		if m := binary.LittleEndian.Uint32(file); m&0xFFFFFFF0 == 0x184D2A50 {
			return h, 0, errors.New("skippable frames are not part of the format")
		} else if m != zstdMagic {
			return h, 0, fmt.Errorf("not a zstd frame (starts %x)", file[:4])
		}
	}
	if err := h.Decode(file); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return h, 0, errors.New("frame header is truncated")
		}
		return h, 0, fmt.Errorf("frame header: %w", err)
	}
	switch {
	case h.DictionaryID != 0:
		return h, 0, fmt.Errorf("frame needs dictionary %d; bundles use none", h.DictionaryID)
	case !h.HasCheckSum:
		return h, 0, errors.New("frame has no content checksum")
	case h.HasFCS && h.FrameContentSize > MaxDecodedSize:
		return h, 0, fmt.Errorf("frame declares %d decoded bytes, which exceeds the %d-byte limit", h.FrameContentSize, MaxDecodedSize)
	case !h.SingleSegment && h.WindowSize > MaxDecodedSize:
		return h, 0, fmt.Errorf("frame window of %d bytes exceeds the %d-byte limit", h.WindowSize, MaxDecodedSize)
	}
	// Blocks (RFC 8878 §3.1.1.2): a 3-byte little-endian header holding
	// Last_Block (bit 0), Block_Type (bits 1–2) and Block_Size (bits 3–23);
	// an RLE block carries one byte whatever its size.
	pos := h.HeaderSize
	for {
		if len(file)-pos < 3 {
			return h, 0, errors.New("frame is truncated")
		}
		bh := uint32(file[pos]) | uint32(file[pos+1])<<8 | uint32(file[pos+2])<<16
		pos += 3
		n := int(bh >> 3)
		switch (bh >> 1) & 3 {
		case 1:
			n = 1
		case 3:
			return h, 0, errors.New("frame has a block of the reserved type")
		}
		if len(file)-pos < n {
			return h, 0, errors.New("frame is truncated")
		}
		pos += n
		if bh&1 == 1 {
			break
		}
	}
	if len(file)-pos < 4 {
		return h, 0, errors.New("frame is truncated")
	}
	return h, pos + 4, nil
}

// inflate decodes the checked frame. When the header does not declare the
// size, a first pass counts the decoded bytes into nothing, so a frame that
// decodes past limit stops there having allocated no more than the
// decoder's window. Reading to the end makes the decoder check the content
// checksum.
func inflate(frame []byte, h zstd.Header, limit int64) ([]byte, error) {
	dec, err := zstd.NewReader(bytes.NewReader(frame),
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(MaxDecodedSize),
		zstd.WithDecoderMaxWindow(MaxDecodedSize),
	)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	size := int64(h.FrameContentSize)
	if !h.HasFCS {
		size, err = io.Copy(io.Discard, io.LimitReader(dec, limit+1))
		if err != nil {
			return nil, err
		}
		if size > limit {
			return nil, errPastLimit
		}
		if err := dec.Reset(bytes.NewReader(frame)); err != nil {
			return nil, err
		}
	}
	// A declared size is trusted only as far as the frame could plausibly
	// hold it: a 100-byte file declaring 256 MiB allocates little before
	// its data runs out. Real bundles compress far less than 64:1. (MinRead:
	// ReadFrom wants that much room to see the end without growing.)
	buf := bytes.NewBuffer(make([]byte, 0, min(size, int64(len(frame))*64+1<<20)+bytes.MinRead))
	n, err := buf.ReadFrom(io.LimitReader(dec, size+1))
	switch {
	case err != nil:
		return nil, err
	case n > size:
		return nil, fmt.Errorf("frame decodes to more than its declared %d bytes", size)
	case n < size:
		return nil, fmt.Errorf("frame decodes to %d bytes, fewer than its declared %d", n, size)
	}
	return buf.Bytes(), nil
}
