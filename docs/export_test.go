package docs

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/store"
)

func schemas(t *testing.T) (lenient, strict *jsonschema.Schema) {
	t.Helper()
	var err error
	if lenient, err = ExportSchema(false); err != nil {
		t.Fatal(err)
	}
	if strict, err = ExportSchema(true); err != nil {
		t.Fatal(err)
	}
	return lenient, strict
}

// readExport reads an export to its end with bardo's reader and returns
// its records, the warnings and the reader's error (nil for a valid one).
func readExport(r io.Reader) (int, []grimoire.Warning, error) {
	var warnings []grimoire.Warning
	rd, err := grimoire.NewReader(r, grimoire.ReadOptions{Name: "export", Warn: func(w grimoire.Warning) { warnings = append(warnings, w) }})
	if err != nil {
		return 0, warnings, err
	}
	defer rd.Close()
	n := 0
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return n, warnings, nil
		}
		if err != nil {
			return n, warnings, err
		}
		n++
	}
}

func mustValidate(t *testing.T, s *jsonschema.Schema, name string, b []byte) {
	t.Helper()
	bad, err := ValidateExport(s, bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i, e := range bad {
		if i == 5 {
			t.Errorf("%s: and %d more", name, len(bad)-5)
			break
		}
		t.Errorf("%s: %v", name, e)
	}
}

// exampleBlock is the worked example of EXPORT.md.
func exampleBlock(t *testing.T) []byte {
	t.Helper()
	text := after(t, readDoc(t, "docs/EXPORT.md"), "<!-- example:")
	start := strings.Index(text, "```json\n")
	end := strings.Index(text[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("EXPORT.md: no json block after the example marker")
	}
	return []byte(text[start+8 : start+8+end])
}

// TestExample: the worked example reads with bardo's reader, without a
// warning, and every line of it passes the strict schema.
func TestExample(t *testing.T) {
	ex := exampleBlock(t)
	n, warnings, err := readExport(bytes.NewReader(ex))
	if err != nil {
		t.Fatalf("the reader refuses the example: %v", err)
	}
	if len(warnings) > 0 {
		t.Errorf("the reader warns about the example: %v", warnings)
	}
	if lines := bytes.Count(ex, []byte("\n")); n != lines-1 {
		t.Errorf("the reader returned %d records of %d lines", n, lines)
	}
	_, strict := schemas(t)
	mustValidate(t, strict, "the example", ex)
	// Every record type is shown.
	for _, typ := range []string{grimoire.TypeHeader, grimoire.TypeEntry, grimoire.TypeEpisode, grimoire.TypeCausalEdge, grimoire.TypeDocument,
		grimoire.TypeHypothesis, grimoire.TypeDecisionCache, grimoire.TypeMetric, grimoire.TypeFitness} {
		if !bytes.Contains(ex, []byte(`{"type":"`+typ+`"`)) {
			t.Errorf("the example has no %s record", typ)
		}
	}
}

// recordModels are the record types, their Go models and their sections.
var recordModels = []struct {
	typ   string
	model any
}{
	{grimoire.TypeHeader, grimoire.Header{}},
	{grimoire.TypeEntry, grimoire.Entry{}},
	{grimoire.TypeEpisode, grimoire.Episode{}},
	{grimoire.TypeCausalEdge, grimoire.CausalEdge{}},
	{grimoire.TypeDocument, grimoire.Document{}},
	{grimoire.TypeHypothesis, grimoire.Hypothesis{}},
	{grimoire.TypeDecisionCache, grimoire.DecisionCache{}},
	{grimoire.TypeMetric, grimoire.Metric{}},
	{grimoire.TypeFitness, grimoire.Fitness{}},
}

// jsonFields returns the json names of a struct type's fields, in order.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// TestFieldTables: each record's table in EXPORT.md names exactly the
// fields of the reader's model, in the order bardo writes them.
func TestFieldTables(t *testing.T) {
	md := readDoc(t, "docs/EXPORT.md")
	for _, r := range recordModels {
		tbl := tables(section(t, md, "### `"+r.typ+"`"))
		if len(tbl) != 1 {
			t.Errorf("%s: %d tables, want 1", r.typ, len(tbl))
			continue
		}
		var got []string
		for _, row := range tbl[0] {
			got = append(got, codeSpans(row[0])...)
		}
		want := slices.DeleteFunc(jsonFields(reflect.TypeOf(r.model)), func(s string) bool { return s == "type" })
		if !slices.Equal(got, want) {
			t.Errorf("%s: the table names %v, the reader's model %v", r.typ, got, want)
		}
	}
	var got []string
	for _, row := range tables(after(t, md, "**`entry.store`**"))[0] {
		got = append(got, codeSpans(row[0])...)
	}
	if want := jsonFields(reflect.TypeOf(grimoire.StoreState{})); !slices.Equal(got, want) {
		t.Errorf("entry.store: the table names %v, the reader's model %v", got, want)
	}
}

// TestSchemaFields: the schema names exactly the fields of the reader's
// model, at every level.
func TestSchemaFields(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(ExportSchemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	var resolve func(v map[string]any) map[string]any
	resolve = func(v map[string]any) map[string]any {
		if ref, ok := v["$ref"].(string); ok {
			return resolve(defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any))
		}
		return v
	}
	var compare func(path string, typ reflect.Type, s map[string]any)
	compare = func(path string, typ reflect.Type, s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		var names []string
		for k := range props {
			names = append(names, k)
		}
		want := jsonFields(typ)
		slices.Sort(names)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("%s: the schema names %v, the reader's model %v", path, names, want)
			return
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if ft.Kind() != reflect.Struct || ft == reflect.TypeFor[time.Time]() {
				continue
			}
			sub := resolve(props[name].(map[string]any))
			if items, ok := sub["items"].(map[string]any); ok {
				sub = resolve(items)
			}
			compare(path+"."+name, ft, sub)
		}
	}
	for _, r := range recordModels {
		d, ok := defs[r.typ].(map[string]any)
		if !ok {
			t.Errorf("the schema has no $defs/%s", r.typ)
			continue
		}
		compare(r.typ, reflect.TypeOf(r.model), d)
	}
}

// TestLimits: every limit EXPORT.md states is the constant it names.
func TestLimits(t *testing.T) {
	constants := map[string]float64{
		"grimoire.MaxLineBytes":               grimoire.MaxLineBytes,
		"grimoire.MaxIDBytes":                 grimoire.MaxIDBytes,
		"grimoire.MaxAncestry":                grimoire.MaxAncestry,
		"grimoire.DefaultMaxErrors":           grimoire.DefaultMaxErrors,
		"grimoire.DefaultTickSeconds":         grimoire.DefaultTickSeconds,
		"grimoire.DefaultSenescenceThreshold": grimoire.DefaultSenescenceThreshold,
		"bundle.MaxEmbeddingDims":             bundle.MaxEmbeddingDims,
		"bundle.MaxTags":                      bundle.MaxTags,
		"bundle.MaxContentBytes":              bundle.MaxContentBytes,
		"bundle.MaxDocumentBytes":             bundle.MaxDocumentBytes,
		"bundle.MaxUsedEntryIDs":              bundle.MaxUsedEntryIDs,
		"bundle.MaxEntries":                   bundle.MaxEntries,
		"bottleneck.DefaultMaxEntries":        bottleneck.DefaultMaxEntries,
	}
	checkNumbers(t, "EXPORT.md", tablesOf(t, section(t, readDoc(t, "docs/EXPORT.md"), "## Limits")), constants)

	// The schema states the same limits.
	var doc struct {
		Defs struct {
			ID     struct{ MaxLength int } `json:"id"`
			Header struct {
				Properties struct {
					Store struct {
						Properties struct {
							Ancestry struct{ MaxItems int }
						}
					}
				}
			} `json:"header"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(ExportSchemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Defs.ID.MaxLength; got != grimoire.MaxIDBytes {
		t.Errorf("schema: an id's maxLength is %d, grimoire.MaxIDBytes %d", got, grimoire.MaxIDBytes)
	}
	if got := doc.Defs.Header.Properties.Store.Properties.Ancestry.MaxItems; got != grimoire.MaxAncestry {
		t.Errorf("schema: store.ancestry's maxItems is %d, grimoire.MaxAncestry %d", got, grimoire.MaxAncestry)
	}
}

func tablesOf(t *testing.T, text string) [][]string {
	t.Helper()
	var rows [][]string
	for _, tbl := range tables(text) {
		rows = append(rows, tbl...)
	}
	if len(rows) == 0 {
		t.Fatal("no table rows")
	}
	return rows
}

// checkNumbers checks rows of (what, value, constants) against the
// constants' values: the value cell's numbers outside parentheses are the
// values of the constants the last cell names, in order; every constant
// named is known, and every known constant named.
func checkNumbers(t *testing.T, doc string, rows [][]string, constants map[string]float64) {
	t.Helper()
	named := map[string]bool{}
	for _, row := range rows {
		names := codeSpans(row[len(row)-1])
		values := numbers(row[1])
		if len(names) == 0 || len(values) != len(names) {
			t.Errorf("%s: row %q: %d numbers for constants %v", doc, row[0], len(values), names)
			continue
		}
		for i, name := range names {
			want, ok := constants[name]
			if !ok {
				t.Errorf("%s: row %q names %s, which the test does not know", doc, row[0], name)
				continue
			}
			named[name] = true
			if values[i] != want {
				t.Errorf("%s: row %q says %v, %s is %v", doc, row[0], values[i], name, want)
			}
		}
	}
	for name := range constants {
		if !named[name] {
			t.Errorf("%s: no row names %s", doc, name)
		}
	}
}

// TestCompressionTable: EXPORT.md lists the compressions filekind tells
// and the reader reads, with their magic bytes.
func TestCompressionTable(t *testing.T) {
	tbls := tables(after(t, readDoc(t, "docs/EXPORT.md"), "<!-- compressions:"))
	if len(tbls) == 0 {
		t.Fatal("EXPORT.md: no table after the compressions marker")
	}
	rows := tbls[0]
	read, _ := grimoire.Compressions()
	if len(rows) != len(filekind.Codecs) {
		t.Fatalf("%d compressions in EXPORT.md, %d in filekind.Codecs", len(rows), len(filekind.Codecs))
	}
	for i, c := range filekind.Codecs {
		row := rows[i]
		if row[0] != string(c.Kind) {
			t.Errorf("row %d is %q, filekind.Codecs has %q", i, row[0], c.Kind)
		}
		if want := slices.Contains(read, string(c.Kind)); strings.HasPrefix(row[1], "yes") != want {
			t.Errorf("%s: read says %q, the reader reads it: %v", c.Kind, row[1], want)
		}
		magic := strings.ReplaceAll(codeSpans(row[2])[0], " ", "")
		if magic != hex.EncodeToString(c.Magic) {
			t.Errorf("%s: magic %s, filekind's %x", c.Kind, magic, c.Magic)
		}
	}
}

// repoFiles returns the repository's files whose names end with suffix,
// relative to its root: the tracked ones when git can say, else every
// file under the root.
func repoFiles(t *testing.T, suffix string) []string {
	t.Helper()
	var files []string
	if out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output(); err == nil {
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" && strings.HasSuffix(f, suffix) {
				files = append(files, f)
			}
		}
		return files
	}
	filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, suffix) {
			files = append(files, strings.TrimPrefix(filepath.ToSlash(p), "../"))
		}
		return nil
	})
	return files
}

// schemaBlind are the exports of the repository that the reader refuses
// for a rule a schema of one line cannot state (EXPORT.md, "The JSON
// Schema"), with the rule.
var schemaBlind = map[string]string{
	"testdata/hostile/export/duplicate_id.jsonl":     "ids are unique within their type",
	"testdata/hostile/export/duplicate_field.jsonl":  "a field appears twice (a JSON parser keeps one)",
	"testdata/hostile/export/header_twice.jsonl":     "the header is the only one",
	"testdata/hostile/export/no_header.jsonl":        "the header is the first record",
	"testdata/hostile/export/embedding_short.jsonl":  "an embedding has header.embedding.dims elements",
	"testdata/hostile/export/empty.jsonl":            "an export has a header",
	"testdata/hostile/export/blank_lines_only.jsonl": "an export has a header",
}

// TestRepositoryExports: every export of the repository that the reader
// accepts passes the schema (the strict one when the reader warned of
// nothing); every one it refuses, the schema refuses too, but for the
// rules it cannot state (schemaBlind).
func TestRepositoryExports(t *testing.T) {
	lenient, strict := schemas(t)
	blind := map[string]bool{}
	valid, refused := 0, 0
	files := repoFiles(t, ".jsonl")
	if len(files) < 10 {
		t.Fatalf("only %d .jsonl files found", len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile("../" + f)
		if err != nil {
			t.Fatal(err)
		}
		if filekind.Compression(raw) != filekind.Unknown {
			continue // the hostile corpus's broken streams
		}
		_, warnings, rerr := readExport(bytes.NewReader(raw))
		bad, err := ValidateExport(lenient, bytes.NewReader(raw))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if rerr == nil {
			valid++
		} else {
			refused++
		}
		switch {
		case rerr == nil && len(bad) > 0:
			t.Errorf("%s: the reader accepts it, the schema refuses %v", f, bad[0])
		case rerr == nil && len(warnings) == 0:
			mustValidate(t, strict, f, raw)
		case rerr != nil && len(bad) == 0:
			if _, ok := schemaBlind[f]; !ok {
				t.Errorf("%s: the reader refuses it (%v), the schema accepts every line", f, rerr)
			}
			blind[f] = true
		}
	}
	t.Logf("%d exports the reader accepts, %d it refuses (%d for a rule the schema cannot state)", valid, refused, len(blind))
	for f, why := range schemaBlind {
		if !blind[f] {
			t.Errorf("schemaBlind lists %s (%s), which the reader accepts, the schema refuses or the repository lacks", f, why)
		}
	}
}

// TestBrokenRecords: records that break one rule each are refused by the
// reader and by the schema.
func TestBrokenRecords(t *testing.T) {
	lenient, _ := schemas(t)
	const header = `{"type":"header","format":"bardo.grimoire-export/v1","golem_id":"g","generation":0,"exported_at":"2026-11-02T12:00:00Z","embedding":{"model":"m","dims":2}}`
	const e = `"type":"entry","id":"e","category":"insight","content":"c","confidence":0.5,"quality_score":0.5,"decay_class":"tactical","last_accessed_at":"2026-11-01T00:00:00Z"`
	for _, c := range []struct{ name, header, line string }{
		{"format v2", strings.Replace(header, "/v1", "/v2", 1), ""},
		{"generation negative", strings.Replace(header, `"generation":0`, `"generation":-1`, 1), ""},
		{"generation a string", strings.Replace(header, `"generation":0`, `"generation":"0"`, 1), ""},
		{"golem_id missing", strings.Replace(header, `"golem_id":"g",`, "", 1), ""},
		{"golem_id empty", strings.Replace(header, `"golem_id":"g"`, `"golem_id":""`, 1), ""},
		{"golem_id with a newline", strings.Replace(header, `"golem_id":"g"`, `"golem_id":"g\n"`, 1), ""},
		{"golem_id with a bidi override", strings.Replace(header, `"golem_id":"g"`, `"golem_id":"g\u202e"`, 1), ""},
		{"golem_id ending in a space", strings.Replace(header, `"golem_id":"g"`, `"golem_id":"g "`, 1), ""},
		{"golem_id of 257 bytes", strings.Replace(header, `"golem_id":"g"`, `"golem_id":"`+strings.Repeat("g", 257)+`"`, 1), ""},
		{"exported_at with a space", strings.Replace(header, "-02T12", "-02 12", 1), ""},
		{"exported_at without seconds", strings.Replace(header, "12:00:00Z", "12:00Z", 1), ""},
		{"exported_at lower case", strings.Replace(header, "T12:00:00Z", "t12:00:00z", 1), ""},
		{"phase unknown", strings.Replace(header, `"generation":0`, `"generation":0,"phase":"dying"`, 1), ""},
		{"tick_seconds zero", strings.Replace(header, `"generation":0`, `"generation":0,"tick_seconds":0`, 1), ""},
		{"death without a cause", strings.Replace(header, `"generation":0`, `"generation":0,"death":{"at":"2026-11-02T12:00:00Z"}`, 1), ""},
		{"embedding dims zero", strings.Replace(header, `"dims":2`, `"dims":0`, 1), ""},
		{"senescence_threshold zero", strings.Replace(header, `"generation":0`, `"generation":0,"senescence_threshold":0`, 1), ""},
		{"ancestry digest short", strings.Replace(header, `"generation":0`, `"generation":1,"parent_bundle":"sha256:ab","store":{"ancestry":[{"digest":"sha256:ab","golem_id":"g0","generation":0}]}`, 1), ""},
		{"confidence 1.7", header, `{` + e + `,"confidence":1.7}`},
		{"confidence missing", header, strings.Replace(`{`+e+`}`, `"confidence":0.5,`, "", 1)},
		{"confidence null", header, strings.Replace(`{`+e+`}`, `"confidence":0.5`, `"confidence":null`, 1)},
		{"confidence a string", header, strings.Replace(`{`+e+`}`, `"confidence":0.5`, `"confidence":"0.5"`, 1)},
		{"category unknown", header, strings.Replace(`{`+e+`}`, "insight", "belief", 1)},
		{"content empty", header, strings.Replace(`{`+e+`}`, `"content":"c"`, `"content":""`, 1)},
		{"decay_class unknown", header, strings.Replace(`{`+e+`}`, "tactical", "slow", 1)},
		{"last_accessed_at missing", header, strings.Replace(`{`+e+`}`, `,"last_accessed_at":"2026-11-01T00:00:00Z"`, "", 1)},
		{"market_regime empty", header, `{` + e + `,"market_regime":""}`},
		{"strength zero", header, `{` + e + `,"strength":0}`},
		{"strength a fraction", header, `{` + e + `,"strength":1.5}`},
		{"validated_count negative", header, `{` + e + `,"validated_count":-1}`},
		{"provenance unknown", header, `{` + e + `,"provenance":"rumour"}`},
		{"source without confidence", header, `{` + e + `,"source":{"golem_id":"g0","generation":0}}`},
		{"polarity unknown", header, `{` + e + `,"polarity":"neutral"}`},
		{"status unknown", header, `{` + e + `,"status":"deleted"}`},
		{"is_bloodstain a number", header, `{` + e + `,"is_bloodstain":1}`},
		{"tags of numbers", header, `{` + e + `,"tags":[1]}`},
		{"embedding of strings", header, `{` + e + `,"embedding":["a","b"]}`},
		{"embedding base64 of 7 bytes", header, `{` + e + `,"embedding":"base64:AACAPwAAAA=="}`},
		{"embedding base64 without its prefix", header, `{` + e + `,"embedding":"AACAPwAAAAA="}`},
		{"embedding beyond float32", header, `{` + e + `,"embedding":[1e39,0]}`},
		{"store.arrival_confidence 2", header, `{` + e + `,"store":{"arrival_confidence":2}}`},
		{"store.retrieval_weight negative", header, `{` + e + `,"store":{"retrieval_weight":-1}}`},
		{"episode without at", header, `{"type":"episode","id":"ep","tick":1}`},
		{"episode state unknown", header, `{"type":"episode","id":"ep","tick":1,"at":"2026-11-01T00:00:00Z","state":"dreaming"}`},
		{"episode used_entry_ids with an empty id", header, `{"type":"episode","id":"ep","tick":1,"at":"2026-11-01T00:00:00Z","used_entry_ids":[""]}`},
		{"edge weight 2", header, `{"type":"causal_edge","source_id":"a","target_id":"b","weight":2}`},
		{"edge without target", header, `{"type":"causal_edge","source_id":"a"}`},
		{"document without text", header, `{"type":"document","name":"PLAYBOOK.md"}`},
		{"document name empty", header, `{"type":"document","name":"","text":""}`},
		{"hypothesis status unknown", header, `{"type":"hypothesis","id":"h","content":"c","status":"maybe"}`},
		{"hypothesis origin unknown", header, `{"type":"hypothesis","id":"h","content":"c","origin":"oracle"}`},
		{"decision_cache hits negative", header, `{"type":"decision_cache","id":"d","hits":-1}`},
		{"metric without value", header, `{"type":"metric","name":"m"}`},
		{"fitness value 1.5", header, `{"type":"fitness","tick":1,"value":1.5}`},
		{"fitness at not a time", header, `{"type":"fitness","tick":1,"value":0.5,"at":"yesterday"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			export := c.header + "\n" + c.line + "\n"
			if _, _, err := readExport(strings.NewReader(export)); !errors.Is(err, grimoire.ErrMalformed) {
				t.Errorf("the reader accepts it (%v)", err)
			}
			bad, err := ValidateExport(lenient, strings.NewReader(export))
			if err != nil {
				t.Fatal(err)
			}
			if len(bad) == 0 {
				t.Error("the schema accepts it")
			}
		})
	}
}

// TestStoreExport: what bardo export writes of a store passes the strict
// schema: every field it writes is documented.
func TestStoreExport(t *testing.T) {
	_, strict := schemas(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	// The fixture's Golem, its parent and a grandparent.
	parent := "sha256:27cf1707c6e1d01fc84c5aeca2e8163bfe79b34355542937f73a28f1aedaad13"
	s, err := store.Create(ctx, filepath.Join(t.TempDir(), "grimoire.db"), store.Meta{
		GolemID: "golem-small", Generation: 2, LineageID: "lineage-aeaf52febe70", ParentBundle: parent,
		Ancestry: []grimoire.Ancestor{
			{Digest: parent, GolemID: "golem-small-g1", Generation: 1},
			{Digest: "sha256:" + strings.Repeat("5a", 32), GolemID: "golem-small-g0", Generation: 0},
		},
	}, 0, at)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := os.Open("../fixtures/small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := grimoire.NewReader(f, grimoire.ReadOptions{Name: "small.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if _, err := s.IngestRead(ctx, rd, at); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := s.Export(ctx, &out, store.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readExport(bytes.NewReader(out.Bytes())); err != nil {
		t.Fatalf("the reader refuses the store's export: %v", err)
	}
	mustValidate(t, strict, "the store's export", out.Bytes())
	for _, want := range []string{`"store":{"ancestry":`, `"store":{"channel":"self"`} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("the store's export has no %s: the test no longer covers bardo's extensions", want)
		}
	}
}
