// Package filekind tells what kind of file bardo has been handed from its
// first bytes — a Grimoire export, a bundle, a store, a key, a foreign
// file bardo import reads, or a compressed file of unknown content — so
// that a command given the wrong kind can say what the file is instead of
// how its own parser failed. It only names kinds; which command takes
// each is the command line's business.
package filekind

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Kind is what a file is.
type Kind string

// Kinds. Unknown is a file none of the others is.
const (
	Unknown   Kind = ""
	Empty     Kind = "empty"
	Export    Kind = "export"     // bardo.grimoire-export/v1, plain or compressed
	Bundle    Kind = "bundle"     // bardo.bundle/v1: zstd of a CBOR map
	Store     Kind = "store"      // a SQLite database: a bardo store or library
	PublicKey Kind = "public-key" // a bardo keygen .pub file
	SecretKey Kind = "secret-key" // a bardo keygen secret key
	Capsule   Kind = "kip-capsule"
	Letta     Kind = "letta-agent-file"
	JSON      Kind = "json"  // JSON that is none of the above
	Xz        Kind = "xz"    // compressed, content not looked into
	Lz4       Kind = "lz4"   // compressed, content not looked into
	Zstd      Kind = "zstd"  // zstd whose content is neither text bardo knows nor a bundle
	Gzip      Kind = "gzip"  // gzip whose content is not text bardo knows
	Bzip2     Kind = "bzip2" // bzip2 whose content is not text bardo knows
)

// Describe names a kind for a person: "a germline bundle".
func Describe(k Kind) string {
	switch k {
	case Empty:
		return "an empty file"
	case Export:
		return "a Grimoire export"
	case Bundle:
		return "a bardo bundle"
	case Store:
		return "a SQLite database (a bardo store or library)"
	case PublicKey:
		return "a bardo public key"
	case SecretKey:
		return "a bardo secret signing key"
	case Capsule:
		return "a KIP Cognitive Capsule"
	case Letta:
		return "a Letta Agent File"
	case JSON:
		return "a JSON document"
	case Xz:
		return "an xz-compressed file"
	case Lz4, Zstd, Gzip, Bzip2:
		return "a " + string(k) + "-compressed file"
	}
	return "a file of unknown kind"
}

// HeadSize is how many bytes Detect wants: enough for a header line.
const HeadSize = 4096

var (
	magicZstd   = []byte{0x28, 0xB5, 0x2F, 0xFD}
	magicGzip   = []byte{0x1F, 0x8B}
	magicXz     = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}
	magicBzip2  = []byte("BZh")
	magicLz4    = []byte{0x04, 0x22, 0x4D, 0x18}
	magicSQLite = []byte("SQLite format 3\x00")
)

// A Codec is a compression Compression recognises: its kind and the magic
// bytes its streams start with.
type Codec struct {
	Kind  Kind
	Magic []byte
}

// Codecs are the compressions Compression recognises, in the order it
// tries them: the one list of them. Which of them an export may come in
// is the export reader's business (grimoire.Compressions).
var Codecs = []Codec{
	{Zstd, magicZstd},
	{Gzip, magicGzip},
	{Bzip2, magicBzip2},
	{Xz, magicXz},
	{Lz4, magicLz4},
}

// Compression tells the compression a head starts with, by its magic
// bytes: the Kind of one of Codecs, or Unknown for none of them.
func Compression(head []byte) Kind {
	for _, c := range Codecs {
		if bytes.HasPrefix(head, c.Magic) {
			return c.Kind
		}
	}
	return Unknown
}

// MagicLen is how many bytes Compression needs to see.
const MagicLen = 6

// Read tells the kind of the file r, reading its first HeadSize bytes
// and, for a compressed file, as much more of it as the decompressor
// needs to give its first HeadSize bytes (zstd gives nothing before its
// first whole block: up to 128 KiB).
func Read(r io.Reader) (Kind, error) {
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return Unknown, err
	}
	return detect(head[:n], io.MultiReader(bytes.NewReader(head[:n]), r)), nil
}

// Detect tells the kind of a file from its first bytes alone (HeadSize
// is enough; fewer when the file is shorter). A compressed head is
// decompressed as far as it goes: a zstd head may give nothing, so Read
// knows more.
func Detect(head []byte) Kind { return detect(head, bytes.NewReader(head)) }

// detect tells the kind from head, decompressing all (head and what
// follows it) when head is compressed: a compressed file of a text kind
// (an export, JSON, a key) is that kind.
func detect(head []byte, all io.Reader) Kind {
	if len(head) == 0 {
		return Empty
	}
	if bytes.HasPrefix(head, magicSQLite) {
		return Store
	}
	switch c := Compression(head); c {
	case Zstd:
		inner := unzstd(all)
		if len(inner) > 0 && inner[0]>>5 == 5 { // a CBOR map
			return Bundle
		}
		if k := text(inner); k != Unknown {
			return k
		}
		return Zstd
	case Gzip:
		if zr, err := gzip.NewReader(all); err == nil {
			if k := text(readSome(zr)); k != Unknown {
				return k
			}
		}
		return Gzip
	case Bzip2:
		if k := text(readSome(bzip2.NewReader(all))); k != Unknown {
			return k
		}
		return Bzip2
	case Xz, Lz4:
		return c
	}
	return text(head)
}

// text tells the kinds that are text.
func text(p []byte) Kind {
	p = bytes.TrimLeft(p, " \t\r\n\ufeff")
	switch {
	case len(p) == 0:
		return Unknown
	case bytes.HasPrefix(p, []byte("bardo-ed25519-public-key:")):
		return PublicKey
	case bytes.HasPrefix(p, []byte("bardo-ed25519-secret-key:")):
		return SecretKey
	case p[0] == '"': // a JSON string holding a document: how one Letta file comes
		if bytes.Contains(p, []byte(`\"agents\"`)) {
			return Letta
		}
		return JSON
	case p[0] != '{' && p[0] != '[':
		return Unknown
	}
	line, _, _ := bytes.Cut(p, []byte("\n"))
	switch {
	case bytes.Contains(line, []byte(`"bardo.grimoire-export/v1"`)):
		return Export
	case bytes.Contains(p, []byte(`"KIP-Cognitive-Capsule"`)):
		return Capsule
	case bytes.Contains(p, []byte(`"agents"`)):
		return Letta
	}
	return JSON
}

// unzstd decompresses the first HeadSize bytes of a zstd stream, within
// a bounded window.
func unzstd(r io.Reader) []byte {
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(8<<20))
	if err != nil {
		return nil
	}
	defer zr.Close()
	return readSome(zr)
}

// readSome reads up to HeadSize bytes of r, as many as it gives before
// an error (a head cut mid-stream ends in one).
func readSome(r io.Reader) []byte {
	buf := make([]byte, HeadSize)
	n, _ := io.ReadFull(r, buf)
	return buf[:n]
}
