package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// JSON.md is the spec of every --json document (issue 15, item 7). The
// tests here hold the commands to it: every key a command emits must be a
// row of its document's table, and every document a command emits must
// have a section. TestJSONSpec runs one invocation of each document over
// fixtures/small.jsonl; TestScript feeds every --json run of the scripts
// through the same check (jsonSpecMain), and so does every test that runs
// a command with --json through the bardo helper (checkJSONRun).

// jsonSpecPath is JSON.md, at the repository's root.
var jsonSpecPath = filepath.Join("..", "..", "JSON.md")

// jsonSpec is JSON.md parsed: for each document, the paths its tables
// list. A path is a list of segments: a key, "key[]" for the elements of
// an array under key ("key[][]" for an array of arrays), "*" for any key
// of an object whose keys are data, "**" for anything below (a subtree
// another spec defines, as FORMAT.md the bundle's).
type jsonSpec struct {
	docs map[string][][]string // document name → documented paths
}

var (
	specHeading = regexp.MustCompile("^#{2,4} (.*)$")
	specName    = regexp.MustCompile("`([^`]+)`")
	specDocName = regexp.MustCompile(`^(bardo\.[a-z-]+/v1|error|warnings)$`)
	// A field row: | `path` | type | stability | meaning |
	specRow = regexp.MustCompile("^\\| *`([^`]+)` *\\| *([^|]*)\\|")
)

// parseJSONSpec reads the field tables of JSON.md. A heading naming
// documents in backquotes (`bardo.bundle/v1`, `error`) opens their table;
// a heading "Shape `name`" opens a shape, a table of paths that a row
// whose type names the shape in backquotes ("array of `change`") places
// under its own path.
func parseJSONSpec(r io.Reader) (*jsonSpec, error) {
	type row struct{ path, typ string }
	docs := map[string][]row{}
	shapes := map[string][]row{}
	var current []string // documents the rows go to
	var shape string
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if m := specHeading.FindStringSubmatch(text); m != nil {
			current, shape = nil, ""
			names := specName.FindAllStringSubmatch(m[1], -1)
			if strings.HasPrefix(m[1], "Shape ") && len(names) == 1 {
				shape = names[0][1]
				if _, dup := shapes[shape]; dup {
					return nil, fmt.Errorf("JSON.md:%d: shape %q defined twice", line, shape)
				}
				shapes[shape] = nil
				continue
			}
			for _, n := range names {
				if specDocName.MatchString(n[1]) {
					if _, dup := docs[n[1]]; dup {
						return nil, fmt.Errorf("JSON.md:%d: document %s described twice", line, n[1])
					}
					docs[n[1]] = nil
					current = append(current, n[1])
				}
			}
			continue
		}
		m := specRow.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		rw := row{m[1], strings.TrimSpace(m[2])}
		switch {
		case shape != "":
			shapes[shape] = append(shapes[shape], rw)
		default:
			for _, d := range current {
				docs[d] = append(docs[d], rw)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// expand places the rows under prefix, and a row naming a shape the
	// shape's rows under it.
	var expand func(prefix string, rows []row, depth int) ([]string, error)
	expand = func(prefix string, rows []row, depth int) ([]string, error) {
		if depth > 8 {
			return nil, fmt.Errorf("JSON.md: shapes nest deeper than 8 (a shape names itself?) under %q", prefix)
		}
		var out []string
		for _, rw := range rows {
			p := rw.path
			if prefix != "" {
				p = prefix + "." + rw.path
			}
			out = append(out, p)
			for _, n := range specName.FindAllStringSubmatch(rw.typ, -1) {
				sub, ok := shapes[n[1]]
				if !ok {
					continue
				}
				under := p
				if strings.HasPrefix(rw.typ, "array of") {
					under += "[]"
				}
				more, err := expand(under, sub, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, more...)
			}
		}
		return out, nil
	}
	spec := &jsonSpec{docs: map[string][][]string{}}
	for name, rows := range docs {
		paths, err := expand("", rows, 0)
		if err != nil {
			return nil, err
		}
		spec.docs[name] = [][]string{}
		for _, p := range paths {
			spec.docs[name] = append(spec.docs[name], strings.Split(p, "."))
		}
	}
	return spec, nil
}

// documents reports whether the spec lists path in document doc.
func (s *jsonSpec) documents(doc string, path []string) bool {
	return s.row(doc, path) >= 0
}

// row returns the index of the first of doc's paths that matches path,
// or -1.
func (s *jsonSpec) row(doc string, path []string) int {
	for i, p := range s.docs[doc] {
		if pathMatches(p, path) {
			return i
		}
	}
	return -1
}

func pathMatches(pattern, path []string) bool {
	for i, seg := range pattern {
		if seg == "**" {
			return true
		}
		if i >= len(path) {
			return false
		}
		if seg == path[i] {
			continue
		}
		if rest, ok := strings.CutPrefix(seg, "*"); ok && !strings.Contains(rest, "*") {
			// "*" is any key; "*[]" any key's array elements
			if strings.HasSuffix(path[i], rest) && !strings.HasSuffix(strings.TrimSuffix(path[i], rest), "[]") {
				continue
			}
		}
		return false
	}
	return len(pattern) == len(path)
}

// keyPaths returns the path of every key in v, a decoded JSON value, in
// document order.
func keyPaths(v any) [][]string {
	var out [][]string
	var walk func(prefix []string, v any)
	walk = func(prefix []string, v any) {
		switch v := v.(type) {
		case orderedObject:
			for _, m := range v {
				p := append(slices.Clip(prefix), m.key)
				out = append(out, p)
				walk(p, m.value)
			}
		case []any:
			p := slices.Clone(prefix)
			if len(p) == 0 {
				p = []string{"[]"}
			} else {
				p[len(p)-1] += "[]"
			}
			for _, e := range v {
				walk(p, e)
			}
		}
	}
	walk(nil, v)
	return out
}

// orderedObject is a decoded JSON object with its keys in order, so the
// report lists undocumented keys as the document has them.
type orderedObject []struct {
	key   string
	value any
}

// decodeOrdered decodes one JSON value, objects as orderedObject.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var o orderedObject
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, struct {
				key   string
				value any
			}{k.(string), v})
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		l := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		_, err := dec.Token()
		return l, err
	}
	return tok, nil
}

// jsonRun is one --json run of a command: what it printed.
type jsonRun struct {
	Args   []string `json:"args"`
	Stdout string   `json:"stdout"`
	Stderr string   `json:"stderr"`
}

// specCheck gathers what the runs checked against the spec show.
type specCheck struct {
	spec     *jsonSpec
	mu       sync.Mutex
	problems []string
	seen     map[string]bool         // documents emitted
	used     map[string]map[int]bool // document → its rows some key matched
}

func newSpecCheck(t *testing.T) *specCheck {
	t.Helper()
	f, err := os.Open(jsonSpecPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	spec, err := parseJSONSpec(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.docs) == 0 {
		t.Fatal("JSON.md describes no document")
	}
	return &specCheck{spec: spec, seen: map[string]bool{}, used: map[string]map[int]bool{}}
}

// run checks one run's stdout and stderr against the spec.
func (c *specCheck) run(r jsonRun) {
	cmd := "bardo " + strings.Join(r.Args, " ")
	c.stream(cmd, "stdout", r.Stdout)
	c.stream(cmd, "stderr", r.Stderr)
}

func (c *specCheck) stream(cmd, stream, out string) {
	if strings.TrimSpace(out) == "" {
		return
	}
	dec := json.NewDecoder(strings.NewReader(out))
	v, err := decodeOrdered(dec)
	if err == nil && dec.More() {
		err = fmt.Errorf("more than one document")
	}
	if err != nil {
		// A run that writes its result elsewhere (bundle -o -) is not a
		// document; the --json of a command always is.
		if stream == "stderr" {
			c.fail("%s: stderr is not one JSON document (%v):\n%s", cmd, err, out)
		}
		return
	}
	obj, ok := v.(orderedObject)
	if !ok {
		c.fail("%s: %s is a JSON %T, not an object", cmd, stream, v)
		return
	}
	name := ""
	for _, m := range obj {
		if m.key == "format" && stream == "stdout" {
			name, _ = m.value.(string)
		}
		if m.key == "error" && name == "" {
			name = "error"
		}
	}
	if name == "" && stream == "stderr" && len(obj) == 1 && obj[0].key == "warnings" {
		name = "warnings"
	}
	if name == "" {
		c.fail("%s: the document on %s has no \"format\" key (nor is an error or warnings document)", cmd, stream)
		return
	}
	c.mu.Lock()
	c.seen[name] = true
	c.mu.Unlock()
	if _, ok := c.spec.docs[name]; !ok {
		c.fail("%s emits document %s (on %s), which JSON.md does not describe: add a section \"### `%s`\" with its field table", cmd, name, stream, name)
		return
	}
	reported := map[string]bool{}
	for _, p := range keyPaths(obj) {
		if len(p) == 1 && p[0] == "format" && name != "error" && name != "warnings" {
			continue // every bardo.* document's first key
		}
		if i := c.spec.row(name, p); i >= 0 {
			c.mu.Lock()
			if c.used[name] == nil {
				c.used[name] = map[int]bool{}
			}
			c.used[name][i] = true
			c.mu.Unlock()
			continue
		}
		s := strings.Join(p, ".")
		if reported[s] {
			continue
		}
		reported[s] = true
		c.fail("%s emits key %s in document %s, which JSON.md does not list: add the row | `%s` | TYPE | stable or info | MEANING | to the table under \"### `%s`\"", cmd, s, name, s, name)
	}
}

func (c *specCheck) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// report fails t with every problem found; with all, it also logs each
// document JSON.md describes that no run emitted.
func (c *specCheck) report(t *testing.T, all bool) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	sort.Strings(c.problems)
	for _, p := range slices.Compact(c.problems) {
		t.Error(p)
	}
	if !all {
		return
	}
	var unseen []string
	for name := range c.spec.docs {
		if !c.seen[name] {
			unseen = append(unseen, name)
		}
	}
	sort.Strings(unseen)
	for _, n := range unseen {
		t.Logf("warning: JSON.md describes %s, which no run here emitted", n)
	}
	// Rows no key matched: optional keys these runs leave out, or a row
	// that names a key no command has (a typo, a removed field). Logged
	// with -v, and not over a failure's report.
	if t.Failed() || !testing.Verbose() {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(c.spec.docs)) {
		if !c.seen[name] {
			continue
		}
		for i, p := range c.spec.docs[name] {
			if !c.used[name][i] {
				t.Logf("%s: no run here emitted %s", name, strings.Join(p, "."))
			}
		}
	}
}

// jsonSpecCaptureEnv names the folder where the scripts' bardo, the test
// binary, records each --json run (jsonSpecMain).
const jsonSpecCaptureEnv = "BARDO_TEST_JSON_CAPTURE"

// jsonSpecMain is the scripts' bardo: main, but a --json run with
// jsonSpecCaptureEnv set also records what it printed, for TestScript to
// check against JSON.md.
func jsonSpecMain() {
	dir := os.Getenv(jsonSpecCaptureEnv)
	export := dir != "" && isExportRun(os.Args[1:])
	if dir == "" || !hasJSONFlag(os.Args[1:]) && !export {
		main()
		return
	}
	var stdout, stderr bytes.Buffer
	code := run(os.Args[1:], os.Stdin, io.MultiWriter(os.Stdout, &stdout), io.MultiWriter(os.Stderr, &stderr))
	if export && code == 0 {
		captureExport(dir, os.Args[1:], stdout.Bytes()) // for checkCapturedExports
	}
	if !hasJSONFlag(os.Args[1:]) {
		os.Exit(code)
	}
	if rec, err := json.Marshal(jsonRun{os.Args[1:], stdout.String(), stderr.String()}); err == nil {
		if f, err := os.CreateTemp(dir, "run-*.json"); err == nil {
			f.Write(rec)
			f.Close()
		}
	}
	os.Exit(code)
}

func hasJSONFlag(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "--json" || strings.HasPrefix(a, "--json=") })
}

// helperSpec is JSON.md, parsed once for checkJSONRun.
var helperSpec = sync.OnceValues(func() (*jsonSpec, error) {
	f, err := os.Open(jsonSpecPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseJSONSpec(f)
})

// checkJSONRun holds a --json run of the bardo test helper to JSON.md, so
// that every test of this package that runs a command with --json checks
// its documents too.
func checkJSONRun(t *testing.T, args []string, stdout, stderr string) {
	t.Helper()
	if !hasJSONFlag(args) {
		return
	}
	spec, err := helperSpec()
	if err != nil {
		t.Fatalf("JSON.md: %v", err)
	}
	c := &specCheck{spec: spec, seen: map[string]bool{}, used: map[string]map[int]bool{}}
	c.run(jsonRun{args, stdout, stderr})
	c.report(t, false)
}

// checkCapturedRuns checks the runs jsonSpecMain recorded in dir.
func checkCapturedRuns(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "run-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Logf("JSON.md: no --json run of the scripts recorded in %s", dir)
		return // no script ran (a -run filter)
	}
	c := newSpecCheck(t)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r jsonRun
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c.run(r)
	}
	c.report(t, false)
	t.Logf("JSON.md: checked %d --json runs of the scripts", len(files))
}

// TestJSONSpec runs every command that has a --json document over
// fixtures/small.jsonl, in one store's life, and holds each document to
// JSON.md.
func TestJSONSpec(t *testing.T) {
	c := newSpecCheck(t)
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	small, err := filepath.Abs(smallFixture)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	// The entry the store commands act on: the bottleneck's first, which
	// the bundle, so the store and the library, hold.
	var ranked struct{ Entries []struct{ ID string } }
	code, stdout, stderr := bardo(t, "", "bottleneck", small, "--json", "--max-entries", "1")
	if err := json.Unmarshal([]byte(stdout), &ranked); code != 0 || err != nil || len(ranked.Entries) != 1 {
		t.Fatalf("bottleneck: exit %d, %v\n%s", code, err, stderr)
	}
	firstID := ranked.Entries[0].ID
	// An export with a record bardo does not know: a warning.
	warned := at("warned.jsonl")
	if err := os.WriteFile(warned, append(raw, []byte(`{"type":"horoscope","sign":"leo"}`+"\n")...), 0o666); err != nil {
		t.Fatal(err)
	}
	// An advisor that keeps the bardo.advisor-input/v1 document it reads.
	advisor := ""
	if runtime.GOOS != "windows" {
		advisor = at("advise.sh")
		script := "#!/bin/sh\ncat > " + at("advisor-input.json") + "\necho 'Watch the oracle before you trade.'\n"
		if err := os.WriteFile(advisor, []byte(script), 0o777); err != nil {
			t.Fatal(err)
		}
	}

	now := "--now=2026-11-03T08:00:00Z"
	steps := []struct {
		args []string
		code int // the exit status the step must have
	}{
		{[]string{"version"}, 0},
		{[]string{"bottleneck", small, now}, 0},
		{[]string{"bundle", small, "-o", at("a.bardo"), now}, 0},
		{[]string{"bundle", small, "-o", at("b.bardo"), "--max-entries", "100", now}, 0},
		{[]string{"bundle", warned, "-o", at("w.bardo"), now}, 0},
		{[]string{"autopsy", small}, 0},
		{[]string{"reflect", small}, 0},
		{[]string{"novelty", small, "--clade", at("b.bardo"), "--max-entries", "64"}, 0},
		{[]string{"inspect", at("a.bardo"), "--no-vectors"}, 0},
		{[]string{"verify", "--deep", at("a.bardo"), small}, 0},
		{[]string{"diff", at("a.bardo"), at("a.bardo")}, 0},
		{[]string{"diff", at("b.bardo"), at("a.bardo")}, 1},
		{[]string{"diff", "--stat", at("b.bardo"), at("a.bardo")}, 1},
		{[]string{"keygen", "-o", at("owner.key")}, 0},
		{[]string{"legacy", small, "--dir", dir, "--sign", at("owner.key"), now}, 0},
		{[]string{"snapshot", small, "--dir", dir, now}, 0},
		{[]string{"capsule", at("a.bardo"), "-o", at("a.capsule.json")}, 0},
		{[]string{"import", at("a.capsule.json"), "-o", at("imported.jsonl")}, 0},
		{[]string{"init", "--store", at("g.db"), "--golem-id", "golem-small", "--generation", "2", now}, 0},
		{[]string{"init", "--store", at("e.db"), "--golem-id", "golem-equipped", "--generation", "0", now}, 0},
		{[]string{"inherit", at("a.bardo"), "--store", at("h.db"), "--golem-id", "heir", now}, 0},
		{[]string{"inherit", at("a.bardo"), "--store", at("d.db"), "--golem-id", "heir", "--dry-run", now}, 0},
		{[]string{"ingest", small, "--store", at("g.db"), now}, 0},
		{[]string{"check", "--store", at("g.db")}, 0},
		{[]string{"lineage", "--store", at("g.db")}, 0},
		{[]string{"maintain", "--store", at("g.db"), "--now=2026-11-05T03:00:00Z"}, 0},
		{[]string{"review", "same-as", "--store", at("g.db")}, 0},
		{[]string{"review", "contested", "--store", at("g.db")}, 0},
		{[]string{"review", "stale", "--store", at("g.db")}, 0},
		{[]string{"recall", "--like", small, "--store", at("g.db"), now}, 0},
		{[]string{"archive", firstID, "--store", at("g.db"), now}, 0},
		{[]string{"restore", firstID, "--store", at("g.db"), now}, 0},
		{[]string{"hold", firstID, "--store", at("g.db"), now}, 0},
		{[]string{"unhold", firstID, "--store", at("g.db"), now}, 0},
		{[]string{"release", firstID, "--store", at("g.db"), now}, 0},
		{[]string{"trust", "add", at("owner.key.pub"), "--store", at("g.db"), now}, 0},
		{[]string{"trust", "ls", "--store", at("g.db")}, 0},
		{[]string{"export", "--store", at("g.db"), "-o", at("e.jsonl")}, 0},
		{[]string{"backup", "--store", at("g.db"), "-o", at("copy.db")}, 0},
		{[]string{"purge", firstID, "--store", at("g.db"), "--confirm", now}, 1}, // refused: causal edges name it
		{[]string{"library", "deposit", at("a.bardo"), "--library", at("lib.db"), "--channel", "death", now}, 0},
		{[]string{"library", "equip", "--library", at("lib.db"), "--store", at("e.db"), now}, 0},
		{[]string{"library", "ls", "--library", at("lib.db"), now}, 0},
		{[]string{"library", "show", firstID, "--library", at("lib.db"), now}, 0},
		{[]string{"library", "stats", "--library", at("lib.db")}, 0},
		{[]string{"man", at("man")}, 0},
		{[]string{"inspect", small}, 65}, // the error document
	}

	if advisor != "" {
		steps = append(steps, struct {
			args []string
			code int
		}{[]string{"bundle", small, "-o", at("advised.bardo"), "--advisor", advisor, now}, 0})
	}
	for _, st := range steps {
		args := append(slices.Clone(st.args), "--json")
		var stdout, stderr bytes.Buffer // not the bardo helper: c checks the run
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if code != st.code {
			t.Errorf("bardo %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, st.code, &stdout, &stderr)
		}
		c.run(jsonRun{args, stdout.String(), stderr.String()})
	}
	if advisor != "" {
		in, err := os.ReadFile(at("advisor-input.json"))
		if err != nil {
			t.Errorf("the advisor did not run: %v", err)
		}
		c.run(jsonRun{[]string{"bundle", "--advisor", "(its input)"}, string(in), ""})
	}
	c.report(t, true)
}

// TestParseJSONSpec pins the table format the check reads.
func TestParseJSONSpec(t *testing.T) {
	spec, err := parseJSONSpec(strings.NewReader(strings.Join([]string{
		"# JSON",
		"| `not.a.field` | ignored: before any document |",
		"## `bardo.a/v1` · `bardo.b/v1`",
		"| field | type | stability | meaning |",
		"|---|---|---|---|",
		"| `x` | integer | stable | x |",
		"| `list` | array of `thing` | stable | things |",
		"| `counts.*` | integer | stable | by name |",
		"| `header.**` | object | stable | FORMAT.md |",
		"### Shape `thing`",
		"| `id` | string | stable | its id |",
		"| `sub` | `other` | stable | nested |",
		"### Shape `other`",
		"| `n` | number | info | n |",
		"## `error`",
		"| `error.code` | integer | stable | exit status |",
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		doc  string
		path string
		want bool
	}{
		{"bardo.a/v1", "x", true},
		{"bardo.b/v1", "x", true},
		{"bardo.a/v1", "list", true},
		{"bardo.a/v1", "list[].id", true},
		{"bardo.a/v1", "list[].sub.n", true},
		{"bardo.a/v1", "list[].sub.m", false},
		{"bardo.a/v1", "list.id", false},
		{"bardo.a/v1", "counts.anything", true},
		{"bardo.a/v1", "counts.anything.deeper", false},
		{"bardo.a/v1", "counts[].x", false},
		{"bardo.a/v1", "header.golem_id", true},
		{"bardo.a/v1", "header.entries[].id", true},
		{"bardo.a/v1", "not.a.field", false},
		{"bardo.a/v1", "y", false},
		{"error", "error.code", true},
		{"error", "x", false},
		{"bardo.c/v1", "x", false},
	} {
		if got := spec.documents(tc.doc, strings.Split(tc.path, ".")); got != tc.want {
			t.Errorf("%s %s: documented %v, want %v", tc.doc, tc.path, got, tc.want)
		}
	}
	if len(spec.docs) != 3 {
		t.Errorf("documents %v, want bardo.a/v1, bardo.b/v1 and error", spec.docs)
	}

	dec := json.NewDecoder(strings.NewReader(`{"format":"f","a":[{"b":1},{"c":[[{"d":2}]]}],"e":{"f":null}}`))
	v, err := decodeOrdered(dec)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range keyPaths(v) {
		got = append(got, strings.Join(p, "."))
	}
	want := []string{"format", "a", "a[].b", "a[].c", "a[].c[][].d", "e", "e.f"}
	if !slices.Equal(got, want) {
		t.Errorf("keyPaths = %q, want %q", got, want)
	}
}
