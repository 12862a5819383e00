// Command gen writes the hostile corpus: bundles and exports that bardo
// must reject, each with what the rejection says, listed in MANIFEST.
// Run it from the repository root:
//
//	go run ./testdata/hostile/gen
//
// (under testdata, so go build ./... and go test ./... never build it).
// Every case is built here, as code to review, from a small good export
// and its bundle (base/): the CBOR cases by editing the canonical CBOR of
// that bundle as a tree of data items, the zstd cases by writing frame
// headers and blocks by hand (RFC 8878), the export cases line by line.
// The RFC 8949 cases are our own reading of its sections 3 and 5.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/thanatopsis"
)

const dir = "testdata/hostile"

// A hostile case: a file, how bardo must reject it, and why.
type hostile struct {
	name    string // file name under bundle/ or export/
	class   string // "bundle": Decode rejects it; "deep": only --deep checks (and inherit) do; "export": the reader rejects it
	expect  string // what the message says
	comment string
	data    []byte
}

// verifySays is what bardo verify says of a case, where it differs from
// what the case's other commands say: verify tells a bundle from an
// export by content (filekind): a file with no zstd magic is read as an
// export, a zstd frame of text as a compressed export, anything else in
// a zstd frame as a bundle.
var verifySays = map[string]string{
	"zstd_empty.bardo":          "header is missing: the export is empty",
	"zstd_not_a_frame.bardo":    "a record must be a JSON object",
	"zstd_skippable_only.bardo": "a record must be a JSON object",
	"cbor_empty.bardo":          "bundle: unexpected end of data",
	"zstd_truncated.jsonl.zst":  "bundle: zstd: frame is truncated",
}

func main() {
	log.SetFlags(0)
	export := []byte(baseExport())
	src := filepath.Join(dir, "base", "small8.jsonl")
	write(src, export)
	b, err := thanatopsis.Build(grimoire.FileInput(src), thanatopsis.Options{Read: grimoire.ReadOptions{Name: "small8.jsonl", Strict: true}})
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	if err := bundle.Encode(&file, b); err != nil {
		log.Fatal(err)
	}
	write(filepath.Join(dir, "base", "small8.bardo"), file.Bytes())
	canon, err := bundle.Marshal(b)
	if err != nil {
		log.Fatal(err)
	}

	cases := append(zstdCases(canon, file.Bytes()), cborCases(canon, signedCanon(b))...)
	cases = append(cases, ampCases(canon)...)
	cases = append(cases, deepCases(b)...)
	cases = append(cases, exportCases(export)...)
	sort.Slice(cases, func(i, j int) bool { return cases[i].name < cases[j].name })

	var m strings.Builder
	m.WriteString("# The hostile corpus, written by gen/: file, class, what the rejection says,\n")
	m.WriteString("# what bardo verify says (\"=\": the same), why; tab-separated.\n")
	m.WriteString("# class bundle: Decode rejects it; deep: verify --deep and inherit do; export: the reader does.\n")
	for _, c := range cases {
		sub := "bundle"
		if c.class == "export" {
			sub = "export"
		}
		path := sub + "/" + c.name
		write(filepath.Join(dir, path), c.data)
		v, ok := verifySays[c.name]
		if !ok {
			v = "="
		}
		fmt.Fprintf(&m, "%s\t%s\t%s\t%s\t%s\n", path, c.class, c.expect, v, c.comment)
	}
	write(filepath.Join(dir, "MANIFEST"), []byte(m.String()))
	log.Printf("%d hostile cases", len(cases))

	// Seed corpora of the fuzz targets: the small good files and every
	// hostile case small enough to mutate quickly.
	seed := func(target, name string, data []byte) {
		write(filepath.Join(target, "hostile_"+strings.TrimSuffix(name, filepath.Ext(name))), []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)))
	}
	decode := filepath.Join("bundle", "testdata", "fuzz", "FuzzDecode")
	reader := filepath.Join("grimoire", "testdata", "fuzz", "FuzzReader")
	plan := filepath.Join("inherit", "testdata", "fuzz", "FuzzPlan")
	seed(decode, "base.bardo", file.Bytes())
	seed(plan, "base.bardo", file.Bytes())
	seed(reader, "base.jsonl", export)
	for _, c := range cases {
		if len(c.data) > 4<<10 || strings.Contains(c.name, "bomb") {
			continue
		}
		switch c.class {
		case "bundle":
			seed(decode, c.name, c.data)
		case "deep":
			seed(decode, c.name, c.data)
			seed(plan, c.name, c.data)
		case "export":
			seed(reader, c.name, c.data)
		}
	}
}

func write(path string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o666); err != nil {
		log.Fatal(err)
	}
}

// baseExport is a small Golem with a few entries in an 8-dimension space,
// an edge, a PLAYBOOK.md, and enough failed predictions for its staleness
// clock to fire and its autopsy to name toxic entries.
func baseExport() string {
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"bardo.grimoire-export/v1","golem_id":"golem-h8","generation":1,"exported_at":"2026-11-02T12:00:00Z","tick":600,"embedding":{"model":"hostile-embed","dims":8}}` + "\n")
	contents := []string{
		"delay rebalancing when gas spikes",
		"pool X drains after oracle updates",
		"funding flips before the weekend",
		"hedge when the basis widens",
		"the oracle lags in fast markets",
	}
	cats := []string{"heuristic", "warning", "insight", "strategy_fragment", "insight"}
	for i, c := range contents {
		vec := make([]string, 8)
		for d := range vec {
			vec[d] = "0"
		}
		vec[i] = "1"
		vec[(i+3)%8] = "0.5"
		fmt.Fprintf(&b, `{"type":"entry","id":"e%d","category":%q,"content":%q,"embedding":[%s],"confidence":0.%d,"quality_score":0.%d,"decay_class":"tactical","last_accessed_at":"2026-11-01T12:00:00Z","source":{"golem_id":"golem-h7","generation":0,"confidence":0.9}}`+"\n",
			i+1, cats[i], c, strings.Join(vec, ","), 9-i, 8-i)
	}
	b.WriteString(`{"type":"causal_edge","source_id":"e1","target_id":"e2","weight":0.6,"evidence":4}` + "\n")
	for i := range 12 {
		correct := i%4 == 0
		fmt.Fprintf(&b, `{"type":"episode","id":"ep%02d","tick":%d,"at":"2026-11-02T11:%02d:00Z","regime":"crisis","prediction":{"statement":"price up","correct":%t},"used_entry_ids":["e%d","e2"]}`+"\n",
			i, 500+8*i, 10+i, correct, 1+i%3)
	}
	b.WriteString(`{"type":"document","name":"PLAYBOOK.md","text":"# PLAYBOOK\n- delay rebalancing on gas spikes\n- hedge when the basis widens\n"}` + "\n")
	return b.String()
}
