package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"log"
	"math"
	"slices"

	"github.com/bardo-golem/bardo/bundle"
)

// nested returns n arrays, each holding the next, the innermost empty.
func nested(n int, open byte) []byte {
	p := bytes.Repeat([]byte{open}, n)
	return append(p, 0x80)
}

// indefinite returns an item written as an indefinite-length array or map
// (RFC 8949 §3.2.2): its elements, then the break byte.
func indefinite(it *item) *item {
	var p []byte
	p = append(p, it.major<<5|31)
	for _, e := range it.elems {
		p = append(p, e.encode()...)
	}
	return raw(append(p, 0xff)...)
}

// chunks returns a text or byte string of major type m written in
// indefinite-length chunks of at most n bytes.
func chunks(m byte, s []byte, n int) *item {
	p := []byte{m<<5 | 31}
	for len(s) > 0 {
		c := s[:min(n, len(s))]
		s = s[len(c):]
		p = append(append(p, head(m, uint64(len(c)))...), c...)
	}
	return raw(append(p, 0xff)...)
}

func setValue(root *item, v *item, path ...any) {
	parent := root.at(path[:len(path)-1]...)
	switch k := path[len(path)-1].(type) {
	case string:
		parent.elems[parent.key(k)+1] = v
	case int:
		parent.elems[k] = v
	}
}

// swapFirstPairs swaps a map's first two pairs.
func swapFirstPairs(m *item) {
	m.elems[0], m.elems[1], m.elems[2], m.elems[3] = m.elems[2], m.elems[3], m.elems[0], m.elems[1]
}

// duplicatePair repeats a map's pair k (right after itself), with value v
// or the same value when v is nil.
func duplicatePair(m *item, k string, v *item) {
	i := m.key(k)
	if v == nil {
		v = m.elems[i+1]
	}
	m.elems = slices.Insert(m.elems, i+2, text(k), v)
}

func cborCases(canon []byte, signed []byte) []hostile {
	e0 := []any{"body", "entries", 0}
	gen := []any{"header", "generation"}
	e0path := func(k string) []any { return append(slices.Clone(e0), k) }
	ed := func(fn func(r *item)) []byte { return edit(canon, fn) }
	emb := func(r *item) []byte { return r.at(e0path("embedding")...).payload }

	return []hostile{
		// Indefinite lengths (RFC 8949 §3.2): never canonical, and broken
		// ones are not even well-formed.
		{"cbor_indefinite_map.bardo", "bundle", "indefinite-length", "the top-level map written 0xbf … 0xff", ed(func(r *item) { *r = *indefinite(r) })},
		{"cbor_indefinite_array.bardo", "bundle", "indefinite-length", "body.entries written 0x9f … 0xff", ed(func(r *item) { setValue(r, indefinite(r.at("body", "entries")), "body", "entries") })},
		{"cbor_indefinite_text.bardo", "bundle", "indefinite-length", "header.golem_id in chunks of 3 bytes", ed(func(r *item) {
			setValue(r, chunks(3, r.at("header", "golem_id").payload, 3), "header", "golem_id")
		})},
		{"cbor_indefinite_bytes.bardo", "bundle", "indefinite-length", "body.entries[0].embedding in chunks of 5 bytes", ed(func(r *item) { setValue(r, chunks(2, emb(r), 5), e0path("embedding")...) })},
		{"cbor_indefinite_unterminated.bardo", "bundle", "body.causal_graph: indefinite-length", "body.causal_graph opened 0x9f and never broken: the map around it never ends", ed(func(r *item) {
			setValue(r, raw(bytes.TrimSuffix(indefinite(r.at("body", "causal_graph")).enc, []byte{0xff})...), "body", "causal_graph")
		})},
		{"cbor_break_alone.bardo", "bundle", "header.generation: break code outside an indefinite-length item", "header.generation is a lone break byte 0xff (RFC 8949 §3.2.1: a break outside an indefinite-length item)", ed(func(r *item) { setValue(r, raw(0xff), gen...) })},
		{"cbor_indefinite_text_byte_chunk.bardo", "bundle", "header.golem_id: indefinite-length", "an indefinite text string whose chunk is a byte string (RFC 8949 §3.2.3: chunks are of the same major type)", ed(func(r *item) {
			setValue(r, raw(0x7f, 0x43, 'g', 'o', 'l', 0xff), "header", "golem_id")
		})},
		{"cbor_indefinite_text_nested.bardo", "bundle", "header.golem_id: indefinite-length", "an indefinite text string whose chunk is itself indefinite (RFC 8949 §3.2.3: chunks are definite)", ed(func(r *item) {
			setValue(r, raw(0x7f, 0x7f, 0x61, 'g', 0xff, 0xff), "header", "golem_id")
		})},

		// Reserved and meaningless additional information (RFC 8949 §3).
		{"cbor_reserved_ai_28.bardo", "bundle", "reserved additional information 28", "header.generation is 0x1c: major type 0, additional information 28", ed(func(r *item) { setValue(r, raw(0x1c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), gen...) })},
		{"cbor_reserved_ai_29.bardo", "bundle", "reserved additional information 29", "header.golem_id's head is 0x7d: major type 3, additional information 29", ed(func(r *item) {
			setValue(r, raw(append([]byte{0x7d}, r.at("header", "golem_id").payload...)...), "header", "golem_id")
		})},
		{"cbor_reserved_ai_30.bardo", "bundle", "reserved additional information 30", "the top-level map's head is 0xbe", ed(func(r *item) {
			p := r.encode()
			p[0] = 0xbe
			*r = *raw(p...)
		})},
		{"cbor_ai_31_integer.bardo", "bundle", "header.generation: ", "header.generation is 0x1f: no indefinite length for an integer (RFC 8949 §3.2.4)", ed(func(r *item) { setValue(r, raw(0x1f), gen...) })},
		{"cbor_ai_31_tag.bardo", "bundle", "header.generation: ", "header.generation is 0xdf: no indefinite length for a tag", ed(func(r *item) { setValue(r, raw(0xdf, 0x01), gen...) })},

		// Simple values (RFC 8949 §3.3): below 32 they take one byte.
		{"cbor_simple_20_two_bytes.bardo", "bundle", "simple value 20 in two bytes", "body.entries[0].decay is f8 14 (false in two bytes)", ed(func(r *item) { setValue(r, raw(0xf8, 0x14), e0path("decay")...) })},
		{"cbor_simple_22_two_bytes.bardo", "bundle", "simple value 22 in two bytes", "body.entries[0].decay is f8 16 (null in two bytes)", ed(func(r *item) { setValue(r, raw(0xf8, 0x16), e0path("decay")...) })},
		{"cbor_simple_0_two_bytes.bardo", "bundle", "simple value 0 in two bytes", "header.generation is f8 00", ed(func(r *item) { setValue(r, raw(0xf8, 0x00), gen...) })},
		{"cbor_simple_31_two_bytes.bardo", "bundle", "simple value 31 in two bytes", "header.generation is f8 1f", ed(func(r *item) { setValue(r, raw(0xf8, 0x1f), gen...) })},
		{"cbor_simple_unassigned.bardo", "bundle", "header.generation: want an integer, got a simple value", "header.generation is e0, the unassigned simple value 0", ed(func(r *item) { setValue(r, raw(0xe0), gen...) })},
		{"cbor_undefined.bardo", "bundle", "header.generation: want an integer, got undefined", "header.generation is undefined (f7)", ed(func(r *item) { setValue(r, raw(0xf7), gen...) })},

		// Duplicate keys (RFC 8949 §5.6) and order (§4.2.1).
		{"cbor_duplicate_top_key.bardo", "bundle", `duplicate key "header"`, "the top-level map holds header twice", ed(func(r *item) { duplicatePair(r, "header", nil) })},
		{"cbor_duplicate_entry_key.bardo", "bundle", `duplicate key "content"`, "body.entries[0] holds content twice, with two texts", ed(func(r *item) { duplicatePair(r.at(e0...), "content", text("a second reading")) })},
		{"cbor_noncanonical_order.bardo", "bundle", "body.entries[0]: keys are not in canonical order", "body.entries[0]'s first two pairs swapped", ed(func(r *item) { swapFirstPairs(r.at(e0...)) })},
		{"cbor_noncanonical_int.bardo", "bundle", "not in its shortest form", "header.generation 1 written 18 01", ed(func(r *item) { setValue(r, raw(0x18, 0x01), gen...) })},
		{"cbor_noncanonical_length.bardo", "bundle", "not in its shortest form", "header.golem_id's length written in two bytes", ed(func(r *item) {
			p := r.at("header", "golem_id").payload
			setValue(r, raw(append([]byte{0x78, byte(len(p))}, p...)...), "header", "golem_id")
		})},
		{"cbor_float_not_shortest.bardo", "bundle", "not in its shortest form", "body.entries[0].decay 1.0 as a double (fb 3ff0…); canonical is the half f9 3c00", ed(func(r *item) {
			setValue(r, raw(binary.BigEndian.AppendUint64([]byte{0xfb}, math.Float64bits(1))...), e0path("decay")...)
		})},
		{"cbor_nan.bardo", "bundle", "body.entries[0].confidence: floating-point NaN is not allowed", "body.entries[0].confidence is NaN (f9 7e00)", ed(func(r *item) { setValue(r, raw(0xf9, 0x7e, 0x00), e0path("confidence")...) })},
		{"cbor_infinity.bardo", "bundle", "body.entries[0].confidence: floating-point infinity is not allowed", "body.entries[0].confidence is +∞ (f9 7c00)", ed(func(r *item) { setValue(r, raw(0xf9, 0x7c, 0x00), e0path("confidence")...) })},

		// Nesting and sizes past the limits, declared without the bytes.
		{"cbor_nesting_17.bardo", "bundle", "nest deeper than the 16-level limit", "header.golem_id holds 17 nested arrays", ed(func(r *item) { setValue(r, raw(nested(17, 0x81)...), "header", "golem_id") })},
		{"cbor_nesting_100000.bardo", "bundle", "nest deeper than the 16-level limit", "header.golem_id holds 100000 nested arrays: refused at level 17, the stack untouched", ed(func(r *item) { setValue(r, raw(nested(100000, 0x81)...), "header", "golem_id") })},
		{"cbor_nesting_maps.bardo", "bundle", "nest deeper than the 16-level limit", "header.golem_id holds 40 nested one-pair maps", ed(func(r *item) {
			var p []byte
			for range 40 {
				p = append(p, 0xa1, 0x61, 'k')
			}
			setValue(r, raw(append(p, 0xa0)...), "header", "golem_id")
		})},
		{"cbor_array_past_limit.bardo", "bundle", "body.entries: array of 262145 elements exceeds the limit of 262144", "body.entries declares 262145 elements (2^18 + 1) and holds 3", ed(func(r *item) {
			a := r.at("body", "entries")
			p := head(4, 1<<18+1)
			for _, e := range a.elems {
				p = append(p, e.encode()...)
			}
			setValue(r, raw(p...), "body", "entries")
		})},
		{"cbor_array_2pow32.bardo", "bundle", "body.causal_graph: array of 4294967295 elements exceeds the limit", "body.causal_graph declares 2^32 − 1 elements", ed(func(r *item) { setValue(r, raw(0x9a, 0xff, 0xff, 0xff, 0xff), "body", "causal_graph") })},
		{"cbor_array_2pow64.bardo", "bundle", "body.causal_graph: array of 18446744073709551615 elements exceeds the limit", "body.causal_graph declares 2^64 − 1 elements", ed(func(r *item) {
			setValue(r, raw(0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), "body", "causal_graph")
		})},
		{"cbor_map_past_limit.bardo", "bundle", "header: map of 65 pairs exceeds the limit of 64", "header declares 65 pairs", ed(func(r *item) {
			h := r.at("header")
			p := head(5, 65)
			for _, e := range h.elems {
				p = append(p, e.encode()...)
			}
			setValue(r, raw(p...), "header")
		})},
		{"cbor_map_2pow60.bardo", "bundle", "header: map of 1152921504606846976 pairs exceeds the limit", "header declares 2^60 pairs", ed(func(r *item) { setValue(r, raw(binary.BigEndian.AppendUint64([]byte{0xbb}, 1<<60)...), "header") })},
		{"cbor_text_2pow63.bardo", "bundle", "header.golem_id: unexpected EOF", "header.golem_id declares 2^63 − 1 bytes and holds 8", ed(func(r *item) {
			setValue(r, raw(append(binary.BigEndian.AppendUint64([]byte{0x7b}, math.MaxInt64), "golem-h8"...)...), "header", "golem_id")
		})},
		{"cbor_bytes_2pow40.bardo", "bundle", "body.entries[0].embedding: unexpected EOF", "body.entries[0].embedding declares 1 TiB", ed(func(r *item) {
			setValue(r, raw(append(binary.BigEndian.AppendUint64([]byte{0x5b}, 1<<40), emb(r)...)...), e0path("embedding")...)
		})},

		// Types, text and structure.
		{"cbor_wrong_type_generation.bardo", "bundle", "header.generation: want an integer, got a text string", `header.generation is the text "1"`, ed(func(r *item) { setValue(r, text("1"), gen...) })},
		{"cbor_wrong_type_entries.bardo", "bundle", "body.entries: want an array, got a map", "body.entries is a map", ed(func(r *item) { setValue(r, raw(0xa0), "body", "entries") })},
		{"cbor_wrong_type_confidence.bardo", "bundle", "body.entries[0].confidence: want a float, got a text string", `body.entries[0].confidence is the text "0.9"`, ed(func(r *item) { setValue(r, text("0.9"), e0path("confidence")...) })},
		{"cbor_wrong_type_embedding.bardo", "bundle", "body.entries[0].embedding: want a byte string, got an array", "body.entries[0].embedding is an array of numbers, not f32le bytes", ed(func(r *item) { setValue(r, raw(0x82, 0x01, 0x02), e0path("embedding")...) })},
		{"cbor_top_array.bardo", "bundle", "bundle: want a map, got an array", "the top level is an array of the header and the body", ed(func(r *item) {
			*r = *raw(append(append([]byte{0x82}, r.at("header").encode()...), r.at("body").encode()...)...)
		})},
		{"cbor_top_integer.bardo", "bundle", "bundle: want a map, got", "the frame holds the integer 0", frame([]byte{0x00})},
		// XXH64 of no bytes is ef46db3751d8e999; the frame keeps its low 32
		// bits, little-endian (RFC 8878 §3.1.1).
		{"cbor_empty.bardo", "bundle", "bundle: unexpected end of data", "a sound frame whose content is no bytes at all", cat(magic, []byte{0x24, 0x00}, []byte{0x01, 0x00, 0x00}, []byte{0x99, 0xe9, 0xd8, 0x51})},
		{"cbor_truncated.bardo", "bundle", "unexpected EOF", "the CBOR cut in half, in a sound frame", frame(canon[:len(canon)/2])},
		{"cbor_trailing_item.bardo", "bundle", "trailing bytes after the CBOR map", "a zero after the top-level map, inside the frame", frame(append(bytes.Clone(canon), 0))},
		{"cbor_generation_2pow64.bardo", "bundle", "header.generation: cannot unmarshal positive integer", "header.generation is 2^64 − 1: no int holds it", ed(func(r *item) {
			setValue(r, raw(0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), gen...)
		})},
		{"cbor_invalid_utf8.bardo", "bundle", "body.entries[0].content: invalid UTF-8", "body.entries[0].content holds the byte ff", ed(func(r *item) {
			c := r.at(e0path("content")...)
			c.payload = append(bytes.Clone(c.payload), 0xff)
			c.arg++
		})},
		{"cbor_invalid_utf8_overlong.bardo", "bundle", "header.golem_id: invalid UTF-8", `header.golem_id holds c0 af, an overlong "/"`, ed(func(r *item) { setValue(r, raw(0x62, 0xc0, 0xaf), "header", "golem_id") })},
		{"cbor_invalid_utf8_surrogate.bardo", "bundle", "header.golem_id: invalid UTF-8", "header.golem_id holds ed a0 80, a UTF-16 surrogate", ed(func(r *item) { setValue(r, raw(0x63, 0xed, 0xa0, 0x80), "header", "golem_id") })},
		{"cbor_invalid_utf8_key.bardo", "bundle", "body.entries[0]: key 17: invalid UTF-8", "a key of body.entries[0] that is not UTF-8", ed(func(r *item) {
			m := r.at(e0...)
			m.elems = append(m.elems, raw(0x62, 0xff, 0xfe), text("x"))
		})},
		{"cbor_tag.bardo", "bundle", "header.exported_at: want a text string, got a tag", "header.exported_at wrapped in tag 0 (date/time)", ed(func(r *item) {
			setValue(r, raw(append([]byte{0xc0}, r.at("header", "exported_at").encode()...)...), "header", "exported_at")
		})},
		{"cbor_self_describe.bardo", "bundle", "bundle: want a map, got a tag", "the top-level map behind the self-described CBOR tag 55799 (d9 d9f7)", ed(func(r *item) {
			*r = *raw(append([]byte{0xd9, 0xd9, 0xf7}, r.encode()...)...)
		})},
		{"cbor_bignum_generation.bardo", "bundle", "header.generation: want an integer, got a tag", "header.generation as a bignum (tag 2)", ed(func(r *item) { setValue(r, raw(0xc2, 0x41, 0x01), gen...) })},

		// The format's own rules.
		{"format_unknown_key_episodes.bardo", "bundle", `unknown key "episodes"`, "body carries episodes: soma, which no v1 reader may skip", ed(func(r *item) {
			b := r.at("body")
			b.elems = append(b.elems, text("episodes"), raw(0x80))
		})},
		{"format_emotional_tag.bardo", "bundle", `unknown key "emotional_tag"`, "body.entries[0] carries an emotional tag", ed(func(r *item) {
			m := r.at(e0...)
			m.elems = append(m.elems, text("emotional_tag"), text("fear"))
		})},
		{"format_missing_header.bardo", "bundle", `missing key "header"`, "no header", ed(func(r *item) {
			i := r.key("header")
			r.elems = slices.Delete(r.elems, i, i+2)
		})},
		{"format_v2.bardo", "bundle", `is not "bardo.bundle/v1"`, "header.format names bardo.bundle/v2", ed(func(r *item) { setValue(r, text("bardo.bundle/v2"), "header", "format") })},
		{"format_kind_unknown.bardo", "bundle", `unknown kind "rebirth"`, "header.kind rebirth", ed(func(r *item) { setValue(r, text("rebirth"), "header", "kind") })},
		{"format_embedding_short.bardo", "bundle", "28 bytes, want 32", "body.entries[0].embedding holds 7 float32s; the space has 8", ed(func(r *item) {
			c := r.at(e0path("embedding")...)
			c.payload, c.arg = c.payload[:28], 28
		})},

		// Signatures (FORMAT.md, "Signature"): a signature that does not
		// verify is corrupt, never "unsigned".
		{"sig_flipped.bardo", "bundle", "signature does not verify", "a signed bundle with a bit of signature.sig flipped", editSigned(signed, func(s *item) { s.at("sig").payload[7] ^= 0x10 })},
		{"sig_other_key.bardo", "bundle", "signature does not verify", "signature.public_key swapped for another key", editSigned(signed, func(s *item) {
			copy(s.at("public_key").payload, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32)).Public().(ed25519.PublicKey))
		})},
		{"sig_short_key.bardo", "bundle", "signature.public_key", "signature.public_key of 31 bytes", editSigned(signed, func(s *item) {
			k := s.at("public_key")
			k.payload, k.arg = k.payload[:31], 31
		})},
		{"sig_algorithm.bardo", "bundle", `algorithm "rsa"`, `signature.alg "rsa"`, editSigned(signed, func(s *item) { setValue(s, text("rsa"), "alg") })},
	}
}

// editSigned edits the signature map of a signed bundle's CBOR.
func editSigned(signed []byte, fn func(sig *item)) []byte {
	return edit(signed, func(r *item) { fn(r.at("signature")) })
}

// signedCanon is the canonical CBOR of b signed by a fixed key.
func signedCanon(b *bundle.Bundle) []byte {
	s := *b
	if err := s.Sign(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))); err != nil {
		log.Fatal(err)
	}
	p, err := bundle.Marshal(&s)
	if err != nil {
		log.Fatal(err)
	}
	return p
}
