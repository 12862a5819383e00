package main

import (
	"bytes"
	"compress/gzip"
	"log"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// exportCases are exports with every kind of malformed line: each is the
// good export with one line replaced, added or removed, or the stream
// around the lines broken.
func exportCases(good []byte) []hostile {
	lines := strings.SplitAfter(strings.TrimSuffix(string(good), "\n"), "\n")
	header, entry := lines[0], lines[1]
	rest := strings.Join(lines[1:], "")
	// with returns the export with line i (1-based) replaced by s.
	with := func(i int, s string) []byte {
		l := append([]string(nil), lines...)
		l[i-1] = s + "\n"
		return []byte(strings.Join(l, ""))
	}
	edited := func(field, value string) []byte { // entry e1's field replaced
		return with(2, strings.Replace(strings.TrimSuffix(entry, "\n"), field, value, 1))
	}
	zst := func(p []byte) []byte {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			log.Fatal(err)
		}
		return enc.EncodeAll(p, nil)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(good)
	zw.Close()
	// A line past the 64 MiB limit, compressed to a few KiB.
	var long bytes.Buffer
	long.WriteString(header)
	long.WriteString(`{"type":"entry","id":"huge","content":"`)
	long.Write(bytes.Repeat([]byte("a"), 65<<20))
	long.WriteString(`"}` + "\n")

	return []hostile{
		{"empty.jsonl", "export", "header is missing", "no bytes at all", nil},
		{"blank_lines_only.jsonl", "export", "header is missing", "three blank lines", []byte("\n\n\n")},
		{"no_header.jsonl", "export", "header must be the first record", "the entries without the header", []byte(rest)},
		{"header_twice.jsonl", "export", "a second header", "the header repeated on line 2", []byte(header + header + rest)},
		{"header_format_v2.jsonl", "export", `header: format "bardo.grimoire-export/v2" is not "bardo.grimoire-export/v1"`, "header.format bardo.grimoire-export/v2", with(1, strings.Replace(strings.TrimSuffix(header, "\n"), "export/v1", "export/v2", 1))},
		{"header_generation_negative.jsonl", "export", "header: generation -1 is negative", "header.generation −1", with(1, strings.Replace(strings.TrimSuffix(header, "\n"), `"generation":1`, `"generation":-1`, 1))},
		{"header_exported_at.jsonl", "export", `header: exported_at "02/11/2026 12:00" is not an RFC 3339 time`, "header.exported_at is not RFC 3339", with(1, strings.Replace(strings.TrimSuffix(header, "\n"), "2026-11-02T12:00:00Z", "02/11/2026 12:00", 1))},
		{"not_json.jsonl", "export", ":2: invalid JSON at column 18", "line 2 is not JSON", with(2, `{"type":"entry", this is not json`)},
		{"truncated_object.jsonl", "export", ":2: invalid JSON", "line 2 cut mid-object", with(2, entry[:len(entry)/2])},
		{"array_line.jsonl", "export", ":2: invalid JSON at column 1: a record must be a JSON object", "line 2 is a JSON array", with(2, `[1,2,3]`)},
		{"string_line.jsonl", "export", ":2: invalid JSON at column 1: a record must be a JSON object", "line 2 is a JSON string", with(2, `"entry"`)},
		{"no_type.jsonl", "export", `record has no "type"`, "line 2 has no type", with(2, `{"id":"e9","content":"x"}`)},
		{"type_not_string.jsonl", "export", `"type" is not a string`, "line 2's type is a number", with(2, `{"type":7}`)},
		{"two_objects.jsonl", "export", ":2: invalid JSON at column 297: data after the object", "two objects on line 2", with(2, strings.TrimSuffix(entry, "\n")+strings.TrimSuffix(entry, "\n"))},
		{"trailing_garbage.jsonl", "export", ":2: invalid JSON at column 298: data after the object", "line 2 ends with garbage after the object", with(2, strings.TrimSuffix(entry, "\n")+" x")},
		{"duplicate_field.jsonl", "export", `field "confidence" appears twice`, "entry e1 has confidence twice", edited(`"confidence":0.9`, `"confidence":0.9,"confidence":0.1`)},
		{"duplicate_id.jsonl", "export", `:21: entry "e1": duplicate id, first on line 2`, "entry e1 twice", []byte(string(good) + entry)},
		{"confidence_range.jsonl", "export", "confidence 1.7 is outside [0,1]", "entry e1's confidence 1.7", edited(`"confidence":0.9`, `"confidence":1.7`)},
		{"confidence_string.jsonl", "export", `entry "e1": confidence: a string is not a number`, `entry e1's confidence is the text "0.9"`, edited(`"confidence":0.9`, `"confidence":"0.9"`)},
		{"confidence_overflow.jsonl", "export", `entry "e1": confidence: 1e400 is not a number`, "entry e1's confidence 1e400 overflows a float64", edited(`"confidence":0.9`, `"confidence":1e400`)},
		{"confidence_nan.jsonl", "export", ":2: invalid JSON", "entry e1's confidence is the bare word NaN", edited(`"confidence":0.9`, `"confidence":NaN`)},
		{"content_empty.jsonl", "export", `entry "e1": content is empty`, "entry e1's content is empty", edited(`"content":"delay rebalancing when gas spikes"`, `"content":""`)},
		{"category_unknown.jsonl", "export", `entry "e1": category "rumour" is not one of`, "entry e1's category is rumour", edited(`"category":"heuristic"`, `"category":"rumour"`)},
		{"decay_class_unknown.jsonl", "export", `entry "e1": decay_class "forever" is not one of`, "entry e1's decay class is forever", edited(`"decay_class":"tactical"`, `"decay_class":"forever"`)},
		{"embedding_short.jsonl", "export", `entry "e1": embedding has 7 dimensions`, "entry e1's embedding has 7 numbers; the space has 8", edited(`"embedding":[1,`, `"embedding":[`)},
		{"embedding_base64.jsonl", "export", `entry "e1": embedding: invalid base64`, "entry e1's embedding is malformed base64", edited(`"embedding":[1,0,0,0.5,0,0,0,0]`, `"embedding":"base64:!!!!"`)},
		{"embedding_element.jsonl", "export", `entry "e1": embedding: element 0 is not a number`, "entry e1's embedding holds a string", edited(`"embedding":[1,`, `"embedding":["1",`)},
		{"nul_byte.jsonl", "export", `:2: entry "e1": content: invalid JSON`, "a raw NUL inside entry e1's content", edited("gas spikes", "gas \x00 spikes")},
		// The id rule (grimoire.CheckID): printable, no control or format
		// characters, at most 256 bytes, no space at either end.
		{"id_nul.jsonl", "export", "holds U+0000", `entry e1's id ends in NUL (\u0000): no command could name it`, edited(`"id":"e1"`, `"id":"e1\u0000"`)},
		{"id_bidi_override.jsonl", "export", "holds U+202E", "entry e1's id holds U+202E RIGHT-TO-LEFT OVERRIDE", edited(`"id":"e1"`, `"id":"e\u202e1"`)},
		{"id_zero_width.jsonl", "export", "holds U+200B", "entry e1's id holds U+200B ZERO WIDTH SPACE", edited(`"id":"e1"`, `"id":"e\u200b1"`)},
		{"id_newline.jsonl", "export", "holds U+000A", "entry e1's id holds a newline", edited(`"id":"e1"`, `"id":"e\n1"`)},
		{"id_too_long.jsonl", "export", "is 257 bytes, more than the 256-byte limit", "entry e1's id is 257 bytes", edited(`"id":"e1"`, `"id":"e1`+strings.Repeat("x", 255)+`"`)},
		{"id_space_at_end.jsonl", "export", "starts or ends with a space", `entry e1's id is "e1 "`, edited(`"id":"e1"`, `"id":"e1 "`)},
		{"id_empty.jsonl", "export", "is empty", "entry e1's id is empty", edited(`"id":"e1"`, `"id":""`)},
		{"id_golem_bidi.jsonl", "export", "holds U+2066", "the header's golem_id holds U+2066 LEFT-TO-RIGHT ISOLATE", with(1, strings.Replace(strings.TrimSuffix(header, "\n"), `"golem_id":"golem-h8"`, `"golem_id":"golem\u2066-h8"`, 1))},
		{"edge_weight.jsonl", "export", `:7: causal_edge "e1 -> e2": weight 2 is outside [0,1]`, "the edge's weight 2", with(7, `{"type":"causal_edge","source_id":"e1","target_id":"e2","weight":2,"evidence":4}`)},
		{"nested_deep.jsonl", "export", "tags", "entry e1's tags hold 20000 nested arrays", edited(`"id":"e1",`, `"id":"e1","tags":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+",")},
		{"line_too_long.jsonl.zst", "export", "line is longer than 64 MiB", "an entry line of 65 MiB, zstd-compressed to a few KiB", zst(long.Bytes())},
		{"zstd_truncated.jsonl.zst", "export", "corrupt zstd stream: unexpected EOF", "the export zstd-compressed and cut in half", func() []byte { z := zst(good); return z[:len(z)/2] }()},
		{"gzip_truncated.jsonl.gz", "export", "corrupt gzip stream: unexpected EOF", "the export gzip-compressed and cut in half", gz.Bytes()[:gz.Len()/2]},
		{"gzip_corrupt.jsonl.gz", "export", "corrupt gzip stream: flate: corrupt input", "a gzip header, then garbage", append(bytes.Clone(gz.Bytes()[:10]), bytes.Repeat([]byte{0xa5}, 64)...)},
	}
}
