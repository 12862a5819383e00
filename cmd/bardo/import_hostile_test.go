package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/jcs"
)

// Hostile foreign files (issue 32, items 7, 8, 15, 16, 17): bardo import
// refuses a file it cannot take whole with 65 and says why, and whatever
// it accepts is an export that verify, bundle and ingest take — what it
// had to change to make it one said in the report, --json too.

// lettaFile is a Letta agent file of one agent (harbor, id agent-1)
// with a block and a dated message, and what edit changes of it.
func lettaFile(t *testing.T, edit func(doc, agent map[string]any)) []byte {
	t.Helper()
	agent := map[string]any{"name": "harbor", "id": "agent-1", "block_ids": []any{"block-1"},
		"messages": []any{map[string]any{"role": "user", "id": "message-1", "content": "Is the bar passable?", "created_at": "2026-04-01T09:01:00Z"}}}
	doc := map[string]any{"agents": []any{agent}, "created_at": "2026-04-02T10:00:00Z",
		"blocks": []any{map[string]any{"id": "block-1", "label": "human", "value": "The harbor master is Ines."}}}
	if edit != nil {
		edit(doc, agent)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// capsuleFile is bardo's capsule of testdata/tiny.jsonl's bundle, with
// what edit changes of it and its digest made again.
func capsuleFile(t *testing.T, dir string, edit func(doc, payload map[string]any)) []byte {
	t.Helper()
	good := filepath.Join(dir, "tiny.bardo")
	if _, err := os.Stat(good); err != nil {
		mustBundle(t, good)
	}
	path := filepath.Join(dir, "tiny.capsule.json")
	if code, _, stderr := bardo(t, "", "capsule", good, "-o", path, "-q"); code != 0 {
		t.Fatalf("capsule exited %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jcs.Parse(raw[:len(raw)-1], jcs.KIPSafe)
	if err != nil {
		t.Fatal(err)
	}
	doc := v.(map[string]any)
	edit(doc, doc["payload"].(map[string]any))
	d, err := capsule.Digest(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc["integrity"].(map[string]any)["content_digest"] = d
	out, err := capsule.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// capsuleRecord is the record of a capsule's payload of the given id.
func capsuleRecord(t *testing.T, payload map[string]any, id string) map[string]any {
	t.Helper()
	for _, r := range payload["records"].([]any) {
		if rm := r.(map[string]any); rm["id"] == id {
			return rm
		}
	}
	t.Fatalf("no record %q in the capsule", id)
	return nil
}

func attrs(r map[string]any) map[string]any { return r["attributes"].(map[string]any) }

func manyStrings(n int, f func(i int) string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

type hostileImport struct {
	name   string
	file   []byte
	args   []string // more flags of import
	code   int
	stderr string // what import says: on stderr when refused, in the --json report when accepted
}

func TestImportHostile(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("b", 300)
	nan := make([]byte, 8)
	binary.LittleEndian.PutUint32(nan, math.Float32bits(float32(math.NaN())))
	binary.LittleEndian.PutUint32(nan[4:], math.Float32bits(float32(math.Inf(1))))
	cases := []hostileImport{
		// Item 15: no agent is a data error, not a usage error.
		{"no agents", []byte(`{"agents": [], "created_at": "2026-04-02T10:00:00Z"}`), nil, 65, "the agents array is empty"},
		// Item 16: strict JSON, as the export reader reads it.
		{"bad UTF-8 in an id", []byte(strings.Replace(string(lettaFile(t, nil)), `"block-1","label"`, "\"block-\xff\",\"label\"", 1)), nil, 65, "invalid UTF-8"},
		{"bad UTF-8 in a text", []byte(strings.Replace(string(lettaFile(t, nil)), "Ines.", "Ines\xfe.", 1)), nil, 65, "invalid UTF-8"},
		{"a lone surrogate", []byte(strings.Replace(string(lettaFile(t, nil)), "Ines.", `Ines\ud800.`, 1)), nil, 65, "lone high surrogate"},
		{"duplicate keys", []byte(strings.Replace(string(lettaFile(t, nil)), `"name":"harbor"`, `"name":"harbor","name":"other"`, 1)), nil, 65, `duplicate member name "name"`},
		{"duplicate top-level keys", []byte(strings.Replace(string(lettaFile(t, nil)), `"blocks":[`, `"blocks":[],"blocks":[`, 1)), nil, 65, `duplicate member name "blocks"`},
		{"NUL in an id", lettaFile(t, func(doc, agent map[string]any) {
			agent["block_ids"] = []any{"block-\x00"}
			doc["blocks"].([]any)[0].(map[string]any)["id"] = "block-\x00"
		}), nil, 0, `"what": "ids"`},
		// Item 8: what bardo takes, or changed and said.
		{"id of 300 bytes", lettaFile(t, func(doc, agent map[string]any) {
			agent["block_ids"] = []any{long}
			doc["blocks"].([]any)[0].(map[string]any)["id"] = long
		}), nil, 0, `"what": "ids"`},
		{"agent id with a newline", lettaFile(t, func(doc, agent map[string]any) { agent["id"] = "agent-\n1" }), nil, 0, `"what": "ids"`},
		{"ids with U+202E and edge spaces", lettaFile(t, func(doc, agent map[string]any) {
			agent["block_ids"] = []any{"evil\u202eblock", " block-2 "}
			doc["blocks"] = append(doc["blocks"].([]any), map[string]any{"id": "evil\u202eblock", "value": "one"}, map[string]any{"id": " block-2 ", "value": "two"})
		}), nil, 0, `"count": 2`},
		{"--golem-id with a newline", lettaFile(t, nil), []string{"--golem-id", "a\nb"}, 2, `--golem-id "a\nb" holds U+000A`},
		{"a block of 2 MiB", lettaFile(t, func(doc, agent map[string]any) {
			doc["blocks"].([]any)[0].(map[string]any)["value"] = strings.Repeat("tide ", 2<<20/5+1)
		}), nil, 0, `"what": "entry contents"`},
		{"5000 tags", lettaFile(t, func(doc, agent map[string]any) {
			agent["passages"] = []any{map[string]any{"id": "p1", "text": "the bar silts", "tags": manyStrings(5000, func(i int) string { return "t" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) })}}
		}), nil, 0, `"what": "entry tags"`},
		{"20000 dims", lettaFile(t, func(doc, agent map[string]any) {
			agent["embedding_config"] = map[string]any{"embedding_model": "wide", "embedding_dim": 20000}
			vec := make([]any, 20000)
			for i := range vec {
				vec[i] = 0.5
			}
			agent["passages"] = []any{map[string]any{"id": "p1", "text": "the bar silts", "embedding": vec}}
		}), nil, 0, `"what": "embedding space"`},
		{"kip tick -5", capsuleFile(t, dir, func(doc, p map[string]any) { attrs(capsuleRecord(t, p, "golem"))["tick"] = -5.0 }), nil, 0, `"what": "header tick"`},
		{"kip NaN and Inf in a blob", capsuleFile(t, dir, func(doc, p map[string]any) {
			p["blobs"].(map[string]any)["embedding:e1"] = "base64:" + base64.StdEncoding.EncodeToString(nan)
		}), nil, 0, `"what": "embeddings"`},
		{"kip entry id with a newline", capsuleFile(t, dir, func(doc, p map[string]any) { capsuleRecord(t, p, "entry:e1")["key"] = "e1\nforged" }), nil, 0, `"what": "ids"`},
		{"kip 5000 tags", capsuleFile(t, dir, func(doc, p map[string]any) {
			attrs(capsuleRecord(t, p, "entry:e1"))["tags"] = manyStrings(5000, func(i int) string { return "t" })
		}), nil, 0, `"what": "entry tags"`},
		{"kip lineage id with U+202E", capsuleFile(t, dir, func(doc, p map[string]any) { attrs(capsuleRecord(t, p, "golem"))["lineage_id"] = "line\u202e" }), nil, 0, `"what": "header lineage_id"`},
		{"kip phase unknown", capsuleFile(t, dir, func(doc, p map[string]any) { attrs(capsuleRecord(t, p, "golem"))["phase"] = "zombie" }), nil, 0, `"what": "header phase"`},
		{"kip content of 2 MiB", capsuleFile(t, dir, func(doc, p map[string]any) {
			attrs(capsuleRecord(t, p, "entry:e1"))["content"] = strings.Repeat("gas ", 2<<20/4+1)
		}), nil, 0, `"what": "entry contents"`},
		// Item 17: a concept of another package with a bardo entry's id,
		// placed first, takes another id; the entry keeps its own.
		{"kip concept with an entry's id", capsuleFile(t, dir, func(doc, p map[string]any) {
			other := map[string]any{}
			for k, v := range capsuleRecord(t, p, "golem") {
				other[k] = v
			}
			other["id"], other["key"], other["name"] = "e1", "ines", "Ines Duarte"
			other["schema_ref"], other["attributes"] = "kip://core@2.0.0/Person", map[string]any{"role": "harbor master"}
			p["records"] = append([]any{other}, p["records"].([]any)...)
		}), nil, 0, `"what": "concept ids"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			if err := os.WriteFile(in, tc.file, 0o666); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"import", in, "-o", out, "--trusted"}, tc.args...)
			if tc.code == 0 {
				args = append(args, "--json") // the report, to read what was changed
			}
			code, stdout, stderr := bardo(t, "", args...)
			if code != tc.code {
				t.Fatalf("import exited %d, want %d\n%s", code, tc.code, stderr)
			}
			if said := stdout + stderr; !strings.Contains(said, tc.stderr) {
				t.Errorf("import does not say %q:\n%s", tc.stderr, said)
			}
			if code != 0 {
				if _, err := os.Stat(out); err == nil {
					t.Error("a refused import wrote its export")
				}
				return
			}
			// What import wrote, every command takes.
			if code, stdout, stderr := bardo(t, "", "verify", "--strict", out); code != 0 {
				t.Errorf("verify of the import: exit %d\n%s%s", code, stdout, stderr)
			}
			if code, _, stderr := bardo(t, "", "bundle", out, "-o", out+".bardo", "-q"); code != 0 {
				t.Errorf("bundle of the import: exit %d\n%s", code, stderr)
			}
			if code, _, stderr := bardo(t, "", "verify", "--deep", out+".bardo"); code != 0 {
				t.Errorf("verify --deep of its bundle: exit %d\n%s", code, stderr)
			}
		})
	}
}

// The entry item 17 lost is there, under its own id, with its text; the
// other concept under kip:e1.
func TestImportConceptKeepsEntryID(t *testing.T) {
	dir := t.TempDir()
	raw := capsuleFile(t, dir, func(doc, p map[string]any) {
		other := map[string]any{}
		for k, v := range capsuleRecord(t, p, "golem") {
			other[k] = v
		}
		other["id"], other["key"], other["name"] = "e1", "ines", "Ines Duarte"
		other["schema_ref"], other["attributes"] = "kip://core@2.0.0/Person", map[string]any{}
		p["records"] = append([]any{other}, p["records"].([]any)...)
	})
	in, out := filepath.Join(dir, "c.json"), filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(in, raw, 0o666); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := bardo(t, "", "import", in, "-o", out, "-q"); code != 0 {
		t.Fatalf("import exited %d: %s", code, stderr)
	}
	export, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":"e1","category":"heuristic","content":"delay rebalancing when gas spikes"`, `"id":"kip:e1","category":"insight","content":"Ines Duarte"`} {
		if !strings.Contains(string(export), want) {
			t.Errorf("the export lacks %s:\n%s", want, export)
		}
	}
}

// Item 7: one message of N tool calls costs work linear in N: the bytes
// allocated for four times the calls are about four times as many (they
// were sixteen times as many, the summary copied at each call).
func TestImportToolCallsLinear(t *testing.T) {
	dir := t.TempDir()
	alloc := func(n int) uint64 {
		calls := make([]any, n)
		for i := range calls {
			calls[i] = map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "note", "arguments": `{"depth": 12.5, "unit": "m"}`}}
		}
		raw := lettaFile(t, func(doc, agent map[string]any) {
			agent["messages"] = []any{map[string]any{"role": "assistant", "id": "m1", "tool_calls": calls, "created_at": "2026-04-01T09:01:00Z"}}
		})
		in, out := filepath.Join(dir, "calls.af"), filepath.Join(dir, "calls.jsonl")
		if err := os.WriteFile(in, raw, 0o666); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code, _, stderr := bardo(t, "", "import", in, "-o", out, "-q")
		runtime.ReadMemStats(&after)
		if code != 0 {
			t.Fatalf("import of %d tool calls exited %d: %s", n, code, stderr)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(2000), alloc(8000)
	t.Logf("2000 tool calls: %d bytes allocated; 8000: %d (%.1f×)", small, large, float64(large)/float64(small))
	if large > 8*small {
		t.Errorf("4× the tool calls allocated %.1f× the bytes: the work grows faster than the file", float64(large)/float64(small))
	}
}
