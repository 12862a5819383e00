package main

import (
	"bytes"
	"slices"
)

// ampCases are bundles whose few bytes would decode to far more memory
// than they take (bundle/FORMAT.md, "Limits"): fields past their own
// limits, and values within them that add up past the budget of the
// decoded values. Each is refused before it is unmarshalled.
func ampCases(canon []byte) []hostile {
	ed := func(fn func(r *item)) []byte { return edit(canon, fn) }
	e0 := func(r *item) *item { return r.at("body", "entries", 0) }
	// many is an array of n copies of the encoded item e.
	many := func(n int, e []byte) *item {
		return raw(append(head(4, uint64(n)), bytes.Repeat(e, n)...)...)
	}
	emptyTexts := func(n int) *item { return many(n, []byte{0x60}) }
	emptyMaps := func(n int) *item { return many(n, []byte{0xa0}) }
	long := func(m byte, n int) *item { return raw(append(head(m, uint64(n)), bytes.Repeat([]byte{'x'}, n)...)...) }
	return []hostile{
		{"amp_tags_2pow18.bardo", "bundle", "body.entries[0].tags: 262144 elements, more than the limit of 256 tags of an entry",
			"body.entries[0] carries 2^18 empty tags: 256 KiB of CBOR, 4 MiB of Go strings", ed(func(r *item) { put(e0(r), "tags", emptyTexts(1<<18)) })},
		{"amp_tags_budget.bardo", "bundle", "the decoded values would take more than",
			"8192 copies of body.entries[0], each with 256 empty tags (the limit): within every field's limit, past the budget of a file this small", ed(func(r *item) {
				e := e0(r).clone()
				put(e, "tags", emptyTexts(256))
				setValue(r, many(8192, e.encode()), "body", "entries")
			})},
		{"amp_content_past_limit.bardo", "bundle", "body.entries[0].content: 1048577 bytes, more than the limit of 1048576 bytes of an entry's content",
			"body.entries[0].content of 1 MiB + 1 byte", ed(func(r *item) { setValue(r, long(3, 1<<20+1), "body", "entries", 0, "content") })},
		{"amp_content_250mib.bardo", "bundle", "decoded bytes, more than the",
			"body.entries[0].content of 250 MiB in a frame of a few KiB that declares its size", ed(func(r *item) { setValue(r, long(3, 250<<20), "body", "entries", 0, "content") })},
		{"amp_empty_entries.bardo", "bundle", "body.entries: the decoded values would take more than",
			"body.entries holds 65536 empty maps (the limit): one byte of CBOR each, a whole Entry struct each in Go", ed(func(r *item) { setValue(r, emptyMaps(65536), "body", "entries") })},
		{"amp_entries_past_limit.bardo", "bundle", "body.entries: 65537 elements, more than the limit of 65536 entries",
			"body.entries holds 65537 empty maps", ed(func(r *item) { setValue(r, emptyMaps(65537), "body", "entries") })},
		{"amp_empty_edges.bardo", "bundle", "body.causal_graph: the decoded values would take more than",
			"body.causal_graph holds 2^18 empty maps (the limit)", ed(func(r *item) { setValue(r, emptyMaps(1<<18), "body", "causal_graph") })},
		{"amp_edges_past_limit.bardo", "bundle", "body.causal_graph: 262145 elements, more than the limit of 262144 edges",
			"body.causal_graph holds 2^18 + 1 empty maps", ed(func(r *item) { setValue(r, emptyMaps(1<<18+1), "body", "causal_graph") })},
		{"amp_left_out_past_limit.bardo", "bundle", "body.left_out: 262145 elements, more than the limit of 262144 left-out references",
			"body.left_out holds 2^18 + 1 empty maps", ed(func(r *item) { put(r.at("body"), "left_out", emptyMaps(1<<18+1)) })},
		{"amp_category_past_limit.bardo", "bundle", "body.reflection.learned: 4097 elements, more than the limit of 4096 items of a reflection category",
			"body.reflection.learned holds 4097 empty items", ed(func(r *item) { put(r.at("body", "reflection"), "learned", emptyMaps(4097)) })},
		{"amp_refs_past_limit.bardo", "bundle", "body.reflection.learned[0].refs: 4097 elements, more than the limit of 4096 refs of an item",
			"an item of body.reflection.learned with 4097 empty refs", ed(func(r *item) {
				it := &item{major: 5}
				put(it, "refs", emptyMaps(4097))
				put(r.at("body", "reflection"), "learned", many(1, it.encode()))
			})},
		{"amp_item_text_past_limit.bardo", "bundle", "body.reflection.learned[0].text: 8388609 bytes, more than the limit of 8388608 bytes of an item's text",
			"an item of body.reflection.learned whose text is 8 MiB + 1 byte", ed(func(r *item) {
				it := &item{major: 5}
				put(it, "text", long(3, 8<<20+1))
				put(r.at("body", "reflection"), "learned", many(1, it.encode()))
			})},
		{"amp_playbook_past_limit.bardo", "bundle", "body.playbook.text: 4194305 bytes, more than the limit of 4194304 bytes of a document's text",
			"body.playbook.text of 4 MiB + 1 byte", ed(func(r *item) { setValue(r, long(3, 4<<20+1), "body", "playbook", "text") })},
		{"amp_embedding_past_limit.bardo", "bundle", "body.entries[0].embedding: 65540 bytes, more than the limit of 65536 bytes of an embedding",
			"body.entries[0].embedding of 16385 float32s", ed(func(r *item) { setValue(r, long(2, 65540), "body", "entries", 0, "embedding") })},
		{"amp_dims_past_limit.bardo", "bundle", "header.embedding.dims: 16385 dimensions, more than the limit of 16384",
			"header.embedding.dims 16385", ed(func(r *item) { setValue(r, raw(head(0, 16385)...), "header", "embedding", "dims") })},
		{"amp_ancestry_past_limit.bardo", "bundle", "header.ancestry: 1025 elements, more than the limit of 1024 ancestors",
			"header.ancestry holds 1025 empty maps", ed(func(r *item) { put(r.at("header"), "ancestry", emptyMaps(1025)) })},
		{"amp_parents_past_limit.bardo", "bundle", "header.parents: 1025 elements, more than the limit of 1024 parents",
			"header.parents holds 1025 empty texts", ed(func(r *item) { put(r.at("header"), "parents", emptyTexts(1025)) })},
		{"amp_golem_id_past_limit.bardo", "bundle", "header.golem_id: 65537 bytes, more than the limit of 65536 bytes of a text",
			"header.golem_id of 64 KiB + 1 byte", ed(func(r *item) { setValue(r, long(3, 64<<10+1), "header", "golem_id") })},
	}
}

// put sets map m's key k to v, adding the pair when m has no such key.
func put(m *item, k string, v *item) {
	for i := 0; i < len(m.elems); i += 2 {
		if m.elems[i].major == 3 && string(m.elems[i].payload) == k {
			m.elems[i+1] = v
			return
		}
	}
	m.elems = slices.Concat(m.elems, []*item{text(k), v})
}
