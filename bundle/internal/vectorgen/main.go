//go:build ignore

// Command vectorgen writes the bundle test vectors, bundle/testdata/vectors,
// age-style: each file is text lines (expect: ok | expect: fail <what the
// error says>, comment: …), a blank line, then the raw bundle file. Every
// vector is built here, in code, so it is reviewed as code.
//
// Run it from the repository root:
//
//	go run bundle/internal/vectorgen/main.go
//
// or with go generate ./bundle/... . It replaces every good_* and fail_*
// file of the folder.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/bardo-golem/bardo/bundle"
	// The trees below are the vectors; the dot import keeps them readable.
	. "github.com/bardo-golem/bardo/bundle/internal/testkit"
)

type vector struct {
	name    string
	expect  string // "ok" or "fail <substring of the error>"
	comment string
	data    []byte
}

func main() {
	dir := flag.String("dir", "bundle/testdata/vectors", "folder to write the vectors to")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("vectorgen: ")

	// The hand-written tree must be what the package writes, or every
	// vector built from it tests something else.
	if !bytes.Equal(Encode(MinimalTree()), must(bundle.Marshal(Minimal()))) {
		log.Fatal("MinimalTree is not the canonical encoding of Minimal")
	}
	var vs []vector
	vs = append(vs, good()...)
	vs = append(vs, failCBOR()...)
	vs = append(vs, failZstd()...)
	vs = append(vs, failContent()...)

	old, err := filepath.Glob(filepath.Join(*dir, "*_*"))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range old {
		if b := filepath.Base(f); strings.HasPrefix(b, "good_") || strings.HasPrefix(b, "fail_") {
			if err := os.Remove(f); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, v := range vs {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "expect: %s\ncomment: %s\n\n", v.expect, v.comment)
		buf.Write(v.data)
		if err := os.WriteFile(filepath.Join(*dir, v.name), buf.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("wrote %d vectors to %s", len(vs), *dir)
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}

// compress puts p in one zstd frame with the pinned settings of Encode.
func compress(p []byte, opts ...zstd.EOption) []byte {
	enc := must(zstd.NewWriter(nil, append([]zstd.EOption{
		zstd.WithEncoderLevel(bundle.ZstdLevel), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true),
	}, opts...)...))
	return enc.EncodeAll(p, nil)
}

// withEmbeddings is b with its vectors re-encoded as choice.
func withEmbeddings(b *bundle.Bundle, choice string) *bundle.Bundle {
	if err := b.SetEmbeddings(choice); err != nil {
		log.Fatal(err)
	}
	return b
}

func encode(b *bundle.Bundle) []byte {
	var buf bytes.Buffer
	if err := bundle.Encode(&buf, b); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func good() []vector {
	return []vector{
		{"good_minimal", "ok", "the smallest bundle: a header and an empty body", encode(Minimal())},
		{"good_full", "ok", "every section: entries with embeddings, playbook, edges, reflection, autopsy, left_out", encode(Full())},
		{"good_signed", "ok", "good_full signed with the Ed25519 key of seed 00 01 … 1f", encode(Signed())},
		{"good_snapshot_minimal", "ok", "the smallest insurance snapshot: no tick, no episodes, no entries, no fitness", encode(SnapshotMinimal())},
		{"good_snapshot", "ok", "an insurance snapshot using every section, under epistemic and staleness pressure", encode(Snapshot())},
		{"good_snapshot_signed", "ok", "good_snapshot signed with the Ed25519 key of seed 00 01 … 1f", encode(SnapshotSigned())},
		{"good_clade", "ok", "a clade push at the terminal phase's sharing threshold 0.1: entries, playbook, edges, header.share", encode(Clade())},
		{"good_clade_threshold", "ok", "a clade push whose threshold 0.75 was set by hand: header.share has no phase", encode(CladeByHand())},
		{"good_listing", "ok", "a marketplace listing: four reflection items by novelty, no entries, no header.embedding", encode(Listing())},
		{"good_listing_signed", "ok", "good_listing signed with the Ed25519 key of seed 00 01 … 1f", encode(ListingSigned())},
		{"good_f16", "ok", "good_full with --embeddings f16: header.embedding.encoding f16le, each embedding dims × 2 bytes of binary16", encode(withEmbeddings(Full(), bundle.EmbeddingsF16))},
		{"good_embeddings_none", "ok", "good_full with --embeddings none: no header.embedding, no entry embedding, no item vector", encode(withEmbeddings(Full(), bundle.EmbeddingsNone))},
	}
}

// crafted compresses a hand-built CBOR tree.
func crafted(name, expect, comment string, n Node) vector {
	return vector{name, "fail " + expect, comment, compress(Encode(n))}
}

func failCBOR() []vector {
	minimal := MinimalTree()
	hdr := minimal.Get("header").(Map)
	full := MustParse(must(bundle.Marshal(Full())))

	dupKind := append(Map{P("kind", Text("death"))}, hdr...)
	deep := Node(Uint(0))
	for range 20 {
		deep = Array{deep}
	}
	return []vector{
		crafted("fail_duplicate_key", `duplicate key "kind"`,
			"header has the key kind twice (RFC 8949 §5.6: not valid CBOR for this format)",
			minimal.With("header", dupKind)),
		crafted("fail_indefinite_length", "indefinite-length",
			"body.entries is an indefinite-length array (0x9f … 0xff)",
			Set(minimal, Raw{0x9f, 0xff}, "body", "entries")),
		crafted("fail_noncanonical_order", "not in canonical order",
			`"header" before "body": canonical order is shorter keys first`,
			Map{minimal[1], minimal[0]}),
		crafted("fail_float_not_shortest", "not in its shortest form",
			"body.entries[0].decay is 1.0 as a double (fb 3ff0…); the canonical form is the half f9 3c00",
			Set(full, Float64(1), "body", "entries", 0, "decay")),
		crafted("fail_unknown_field", `unknown key "episodes"`,
			"body carries episodes: soma; no v1 reader knows the key and none may skip it",
			Set(minimal, Array{}, "body", "episodes")),
		crafted("fail_wrong_type", "want an integer, got a text string",
			`header.generation is the text "0"`,
			Set(minimal, Text("0"), "header", "generation")),
		crafted("fail_invalid_utf8", "invalid UTF-8",
			"header.golem_id is the text string c3 28, not UTF-8",
			Set(minimal, Raw{0x62, 0xc3, 0x28}, "header", "golem_id")),
		{"fail_trailing_bytes", "fail trailing bytes after the CBOR map",
			"one zero byte after the CBOR map, inside the zstd frame",
			compress(append(Encode(minimal), 0x00))},
		crafted("fail_nesting_too_deep", "nest deeper than the 16-level limit",
			"header.lineage_id holds 20 nested arrays: deeper than the 16-level limit",
			Set(minimal, deep, "header", "lineage_id")),
		crafted("fail_reserved_additional_info", "reserved additional information 28",
			"header.generation is the byte 1c: major type 0 with additional information 28, reserved by RFC 8949 §3",
			Set(minimal, Raw{0x1c}, "header", "generation")),
		crafted("fail_simple_in_two_bytes", "simple value 21 in two bytes",
			"body.entries[0].is_bloodstain is true written f8 15: simple values below 32 take one byte (RFC 8949 §3.3)",
			Set(full, Raw{0xf8, 0x15}, "body", "entries", 0, "is_bloodstain")),
		crafted("fail_int_not_shortest", "integer 2 is not in its shortest form",
			"header.generation is 2 written 18 02",
			Set(full, Raw{0x18, 0x02}, "header", "generation")),
		crafted("fail_tag", "want a text string, got a tag",
			"header.exported_at is wrapped in tag 0: the format has no tags",
			Set(minimal, Raw(append([]byte{0xc0}, Encode(Text(ExportedAt))...)), "header", "exported_at")),
		crafted("fail_nan", "floating-point NaN is not allowed",
			"body.entries[0].confidence is NaN (f9 7e00)",
			Set(full, Raw{0xf9, 0x7e, 0x00}, "body", "entries", 0, "confidence")),
		crafted("fail_null_optional", "null is not allowed",
			"header.death is null: an absent optional value is an absent key",
			Set(minimal, Raw{0xf6}, "header", "death")),
		crafted("fail_key_not_text", "key 0 is an unsigned integer, not a text string",
			"header's first key is the integer 1: keys are text",
			minimal.With("header", append(Map{{Key: Uint(1), Value: Text("death")}}, hdr...))),
		crafted("fail_missing_key", `missing key "golem_id"`,
			"header has no golem_id",
			minimal.With("header", hdr.Without("golem_id"))),
		crafted("fail_default_not_omitted", "holds its default value",
			"body.entries[2].is_bloodstain is false: the canonical form omits default values",
			Set(full, Bool(false), "body", "entries", 2, "is_bloodstain")),
	}
}

func failContent() []vector {
	full := MustParse(must(bundle.Marshal(Full())))
	snapshot := MustParse(must(bundle.Marshal(Snapshot()))).(Map)
	f16 := MustParse(must(bundle.Marshal(withEmbeddings(Full(), bundle.EmbeddingsF16))))
	signed := MustParse(must(bundle.Marshal(Signed())))
	listing := MustParse(must(bundle.Marshal(Listing())))
	clade := MustParse(must(bundle.Marshal(Clade())))
	return []vector{
		crafted("fail_wrong_format", `is not "bardo.bundle/v1"`,
			"header.format names a version this reader does not know",
			Set(MinimalTree(), Text("bardo.bundle/v2"), "header", "format")),
		crafted("fail_snapshot_germline_body", `body: unknown key "entries"`,
			"header.kind snapshot over a germline body: the kind chooses the body, and a snapshot's has no entries",
			Set(MinimalTree(), Text("snapshot"), "header", "kind")),
		crafted("fail_listing_germline_body", `body: unknown key "entries"`,
			"header.kind listing over a germline body: a listing holds reflection items, never entries",
			Set(MinimalTree(), Text("listing"), "header", "kind")),
		crafted("fail_clade_listing_body", `body: unknown key "items"`,
			"good_listing with header.kind clade: a clade push's body is a germline body",
			Set(listing, Text("clade"), "header", "kind")),
		crafted("fail_clade_unknown_kind", `unknown kind "clades"`,
			"good_clade with a kind this reader does not know",
			Set(clade, Text("clades"), "header", "kind")),
		crafted("fail_clade_share_key", `header.share: unknown key "price"`,
			"header.share with a key the format does not have",
			Edit(clade, func(n Node) Node { return n.(Map).With("price", Uint(5)) }, "header", "share")),
		crafted("fail_death_snapshot_body", `body: unknown key "credits"`,
			"good_snapshot with header.kind death: a germline body has no place for a snapshot's soma",
			Set(snapshot, Text("death"), "header", "kind")),
		crafted("fail_snapshot_emotional_tag", `body.episodes[0]: unknown key "emotional_tag"`,
			"a snapshot episode carrying its emotional tag: emotional tags never cross, not even in a snapshot",
			Edit(snapshot, func(n Node) Node {
				return n.(Map).With("emotional_tag", Map{P("primary", Text("fear")), P("pleasure", Float(-0.5))})
			}, "body", "episodes", 0)),
		crafted("fail_snapshot_missing_staleness", `body: missing key "staleness"`,
			"a snapshot without its staleness test",
			snapshot.With("body", snapshot.Get("body").(Map).Without("staleness"))),
		crafted("fail_snapshot_embedding_length", "body.insights[0].embedding: 12 bytes, want 16",
			"body.insights[0].embedding has 3 float32s; header.embedding.dims is 4",
			Set(snapshot, Bytes(bundle.PackF32([]float32{1, 2, 3})), "body", "insights", 0, "embedding")),
		crafted("fail_embedding_length", "12 bytes, want 16",
			"body.entries[0].embedding has 3 float32s; header.embedding.dims is 4",
			Set(full, Bytes(bundle.PackF32([]float32{1, 2, 3})), "body", "entries", 0, "embedding")),
		crafted("fail_f16_embedding_length", "16 bytes, want 8 (dims 4 × 2)",
			"good_f16 with body.entries[0].embedding in f32le: 16 bytes where header.embedding.encoding f16le wants dims × 2",
			Set(f16, Bytes(bundle.PackF32([]float32{1, 0, 0, 0})), "body", "entries", 0, "embedding")),
		crafted("fail_embedding_encoding", `"bf16le" is neither "f32le" nor "f16le"`,
			"good_full with header.embedding.encoding bf16le: an encoding this reader does not know",
			Set(full, Text("bf16le"), "header", "embedding", "encoding")),
		crafted("fail_bad_signature", "signature does not verify",
			"good_signed with the last byte of signature.sig flipped",
			Edit(signed, func(n Node) Node {
				s := bytes.Clone(n.(Bytes))
				s[len(s)-1] ^= 1
				return Bytes(s)
			}, "signature", "sig")),
		crafted("fail_signature_of_other_bundle", "signature does not verify",
			"good_signed with header.generation changed after signing: the digest moved",
			Set(signed, Uint(3), "header", "generation")),
	}
}

func failZstd() []vector {
	good := encode(Minimal())
	cbor := must(bundle.Marshal(Minimal()))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 0xff
	full := encode(Full())
	skippable := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	skippable = binary.LittleEndian.AppendUint32(skippable, 4)
	skippable = append(skippable, "meta"...)
	return []vector{
		{"fail_truncated", "fail truncated", "good_full cut in half", full[:len(full)/2]},
		{"fail_not_zstd", "fail not a zstd frame", "the CBOR of good_minimal, not compressed", cbor},
		{"fail_second_frame", "fail second zstd frame", "good_minimal twice: a bundle is one frame", append(bytes.Clone(good), good...)},
		{"fail_trailing_garbage", "fail 1 trailing bytes after the zstd frame", "good_minimal and a newline", append(bytes.Clone(good), '\n')},
		{"fail_skippable_frame", "fail skippable frames are not part of the format", "a skippable frame, then good_minimal", append(skippable, good...)},
		{"fail_no_checksum", "fail no content checksum", "the CBOR of good_minimal compressed without the content checksum", compress(cbor, zstd.WithEncoderCRC(false))},
		{"fail_bad_checksum", "fail content checksum does not match", "good_minimal with its content checksum damaged", flipped},
		{"fail_zstd_declared_size", "fail exceeds the 268435456-byte limit", "a frame header declaring 1 TiB of content", declaredBomb()},
		{"fail_zstd_bomb", "fail frame decodes to more than the",
			"a frame without a declared size whose RLE blocks decode to 256 MiB + 128 KiB of zeros", rleBomb()},
	}
}

// declaredBomb is a frame whose header declares 2^40 decoded bytes
// (8-byte Frame_Content_Size, single segment) followed by a one-byte raw
// block and its checksum.
func declaredBomb() []byte {
	p := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	p = append(p, 0xc0|0x20|0x04) // FCS 8 bytes, single segment, checksum
	p = binary.LittleEndian.AppendUint64(p, 1<<40)
	p = append(p, 0x09, 0x00, 0x00, 'x') // last raw block: one byte
	return append(p, checksum([]byte("x"))...)
}

// checksum is a zstd frame's Content_Checksum of content: the low 4 bytes
// of its XXH64, little-endian, which is how a frame with a checksum ends.
func checksum(content []byte) []byte {
	frame := compress(content, zstd.WithZeroFrames(true))
	return frame[len(frame)-4:]
}

// rleBomb is a frame with a 128 KiB window, no declared size and 2049 RLE
// blocks of 128 KiB zeros: 8 KiB that decode to one block past 256 MiB.
func rleBomb() []byte {
	const block = 128 << 10
	const blocks = bundle.MaxDecodedSize/block + 1
	p := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	p = append(p, 0x04, 0x38) // checksum; window 2^(10+7)
	for i := range blocks {
		h := uint32(block<<3 | 1<<1) // RLE
		if i == blocks-1 {
			h |= 1
		}
		p = append(p, byte(h), byte(h>>8), byte(h>>16), 0x00)
	}
	return append(p, checksum(make([]byte, blocks*block))...)
}
