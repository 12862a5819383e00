package main

import (
	"bytes"
	"encoding/binary"
	"log"
	"math"

	"github.com/klauspost/compress/zstd"
)

// The zstd cases (RFC 8878).

// frame compresses p as bardo does: one frame, content size declared,
// content checksum.
func frame(p []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	if err != nil {
		log.Fatal(err)
	}
	return enc.EncodeAll(p, nil)
}

// rleBlocks returns n bytes of b as RLE blocks of 128 KiB, the last one
// marked last.
func rleBlocks(n int, b byte) []byte {
	var out []byte
	for n > 0 {
		size := min(n, 128<<10)
		n -= size
		h := uint32(size)<<3 | 1<<1
		if n == 0 {
			h |= 1
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16), b)
	}
	return out
}

// rawBlock is p as one raw block, the last.
func rawBlock(p []byte) []byte {
	h := uint32(len(p))<<3 | 1
	return append([]byte{byte(h), byte(h >> 8), byte(h >> 16)}, p...)
}

var magic = []byte{0x28, 0xb5, 0x2f, 0xfd}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func zstdCases(canon, good []byte) []hostile {
	noCRC, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err != nil {
		log.Fatal(err)
	}
	// A frame with its declared content size patched: the descriptor's
	// top two bits say how wide the field is.
	patchedFCS := func(delta int) []byte {
		f := bytes.Clone(good)
		fhd := f[4]
		off := 5
		if fhd&0x20 == 0 {
			off++ // window descriptor
		}
		off += []int{0, 1, 2, 4}[fhd&3]
		switch fhd >> 6 {
		case 0:
			f[off] = byte(int(f[off]) + delta)
		case 1:
			v := int(binary.LittleEndian.Uint16(f[off:])) + delta
			binary.LittleEndian.PutUint16(f[off:], uint16(v))
		case 2:
			v := int(binary.LittleEndian.Uint32(f[off:])) + delta
			binary.LittleEndian.PutUint32(f[off:], uint32(v))
		}
		return f
	}
	// Content of the under-limit bomb: 48 MiB of zeros, streamed so that
	// the frame declares no size.
	var bomb bytes.Buffer
	w, err := zstd.NewWriter(&bomb, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true), zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		log.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for range 48 {
		w.Write(zero)
	}
	w.Close()

	return []hostile{
		{"zstd_empty.bardo", "bundle", "bundle: zstd: empty file", "a file of no bytes", nil},
		{"zstd_not_a_frame.bardo", "bundle", "bundle: zstd: not a zstd frame", "the canonical CBOR, uncompressed", canon},
		{"zstd_magic_only.bardo", "bundle", "bundle: zstd: frame header is truncated", "the four magic bytes and nothing else", magic},
		{"zstd_skippable_only.bardo", "bundle", "skippable frames are not part of the format", "one skippable frame (RFC 8878 §3.1.2) holding the CBOR", cat([]byte{0x50, 0x2a, 0x4d, 0x18}, binary.LittleEndian.AppendUint32(nil, uint32(len(canon))), canon)},
		{"zstd_declares_1tib.bardo", "bundle", "frame declares 1099511627776 decoded bytes, which exceeds the 268435456-byte limit", "a single-segment frame header declaring 1 TiB, then 3 raw bytes: must be refused before any allocation",
			cat(magic, []byte{0xe4}, binary.LittleEndian.AppendUint64(nil, 1<<40), rawBlock([]byte{0xa0, 0, 0}), []byte{0, 0, 0, 0})},
		{"zstd_declares_2pow64.bardo", "bundle", "exceeds the 268435456-byte limit", "a frame header declaring 2^64−1 bytes",
			cat(magic, []byte{0xe4}, binary.LittleEndian.AppendUint64(nil, math.MaxUint64), rawBlock([]byte{0xa0}), []byte{0, 0, 0, 0})},
		{"zstd_window_2tib.bardo", "bundle", "frame window of 2199023255552 bytes exceeds the 268435456-byte limit", "a frame header asking for a 2 TiB window (exponent 31), no size declared",
			cat(magic, []byte{0x04, 0xf8}, rawBlock([]byte{0xa0}), []byte{0, 0, 0, 0})},
		{"zstd_bomb_over_limit.bardo", "bundle", "frame decodes to more than the", "RLE blocks decoding to 300 MiB of zeros, no size declared: stopped at the file's decoded limit, memory bounded by the window",
			cat(magic, []byte{0x04, 0x38}, rleBlocks(300<<20, 0), []byte{0, 0, 0, 0})},
		{"zstd_bomb_under_limit.bardo", "bundle", "frame decodes to more than the", "48 MiB of zeros compressed to 2 KiB, no size declared: within 256 MiB, past the 16 MiB + 16 × its size a file this small may decode to; stopped while counting", bomb.Bytes()},
		{"zstd_declared_past_ratio.bardo", "bundle", "frame declares 33554432 decoded bytes, more than the", "32 MiB of zeros in one frame that declares its size: within 256 MiB, past the 16 MiB + 16 × its size a file this small may decode to; refused on the frame header", frame(make([]byte, 32<<20))},
		{"zstd_dictionary.bardo", "bundle", "frame needs dictionary 7; bundles use none", "a frame header naming dictionary 7",
			cat(magic, []byte{0x25, 7, byte(len(canon))}, rawBlock(canon[:min(len(canon), 200)]), []byte{0, 0, 0, 0})},
		{"zstd_no_checksum.bardo", "bundle", "frame has no content checksum", "the CBOR compressed without the content checksum", noCRC.EncodeAll(canon, nil)},
		{"zstd_bad_checksum.bardo", "bundle", "content checksum does not match", "the last byte of the checksum flipped", flipLast(good)},
		{"zstd_reserved_block.bardo", "bundle", "frame has a block of the reserved type", "a block of type 3, reserved by RFC 8878 §3.1.1.2.2",
			cat(magic, []byte{0x24, 3}, []byte{0x07, 0, 0}, []byte{0, 0, 0, 0})},
		{"zstd_truncated_block.bardo", "bundle", "frame is truncated", "the frame cut in its last block", good[:len(good)-9]},
		{"zstd_declared_smaller.bardo", "bundle", "bundle: zstd: output bigger than max block size", "the declared content size one byte short of the content", patchedFCS(-1)},
		{"zstd_declared_larger.bardo", "bundle", "bundle: zstd: frame size does not match", "the declared content size one byte past the content", patchedFCS(+1)},
		{"zstd_two_frames.bardo", "bundle", "a second zstd frame follows the first", "the bundle twice", cat(good, good)},
		{"zstd_trailing_zeros.bardo", "bundle", "16 trailing bytes after the zstd frame", "sixteen zero bytes after the frame", cat(good, make([]byte, 16))},
	}
}

func flipLast(p []byte) []byte {
	q := bytes.Clone(p)
	q[len(q)-1] ^= 0xff
	return q
}
