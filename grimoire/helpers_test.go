package grimoire_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/bardo-golem/bardo/grimoire"
)

// testName is the export name in messages of tests that read from memory.
const testName = "t.jsonl"

// baseHeader is a valid header with a 2-dimensional embedding space.
var baseHeader = obj{
	"type": "header", "format": grimoire.Format, "golem_id": "g", "generation": 1,
	"exported_at": "2026-11-02T12:00:00Z", "embedding": obj{"model": "m", "dims": 2},
}

// Valid records of every type, to change one field at a time.
var (
	baseEntry = obj{
		"type": "entry", "id": "e1", "category": "insight", "content": "c", "confidence": 0.5,
		"quality_score": 0.5, "decay_class": "tactical", "last_accessed_at": "2026-11-01T00:00:00Z",
	}
	baseEpisode    = obj{"type": "episode", "id": "ep1", "tick": 5, "at": "2026-11-01T00:00:00Z"}
	baseEdge       = obj{"type": "causal_edge", "source_id": "a", "target_id": "b", "weight": 0.5}
	baseDocument   = obj{"type": "document", "name": "PLAYBOOK.md", "text": "t"}
	baseHypothesis = obj{"type": "hypothesis", "id": "h1", "content": "c"}
	baseCache      = obj{"type": "decision_cache", "id": "dc1"}
	baseMetric     = obj{"type": "metric", "name": "sharpe", "value": 1.5}
	baseFitness    = obj{"type": "fitness", "tick": 7, "value": 0.5}
)

// obj is a JSON object to write as one line.
type obj map[string]any

// absent deletes a key in with.
var absent = &struct{}{}

// with returns a copy of o with the pairs key, value applied; a value
// absent deletes the key, a string key "a.b" sets a nested field.
func (o obj) with(kv ...any) obj {
	c := clone(o)
	for i := 0; i < len(kv); i += 2 {
		key, v := kv[i].(string), kv[i+1]
		target := c
		if parent, child, ok := strings.Cut(key, "."); ok {
			sub, _ := target[parent].(obj)
			if sub == nil {
				sub = obj{}
			}
			sub = clone(sub)
			target[parent] = sub
			target, key = sub, child
		}
		if v == absent {
			delete(target, key)
		} else {
			target[key] = v
		}
	}
	return c
}

func clone(o obj) obj {
	c := make(obj, len(o))
	for k, v := range o {
		if sub, ok := v.(obj); ok {
			v = clone(sub)
		}
		c[k] = v
	}
	return c
}

func (o obj) String() string {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// export joins lines into an export.
func export(lines ...any) string {
	var b strings.Builder
	for _, l := range lines {
		switch l := l.(type) {
		case obj:
			b.WriteString(l.String())
		case string:
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// result is everything one reading of an export gave.
type result struct {
	Header   *grimoire.Header
	Records  []grimoire.Record
	Lines    []int
	Warnings []string
	Err      error
}

// read reads an export to its end.
func read(t testing.TB, r io.Reader, opts grimoire.ReadOptions) result {
	t.Helper()
	var res result
	if opts.Name == "" {
		opts.Name = testName
	}
	opts.Warn = func(w grimoire.Warning) { res.Warnings = append(res.Warnings, w.String()) }
	rd, err := grimoire.NewReader(r, opts)
	if err != nil {
		res.Err = err
		return res
	}
	defer rd.Close()
	res.Header = rd.Header()
	res.Records, res.Lines, res.Err = drain(rd)
	return res
}

// drain reads records until an error; io.EOF counts as none.
func drain(rd *grimoire.Reader) ([]grimoire.Record, []int, error) {
	var (
		recs  []grimoire.Record
		lines []int
	)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs, lines, nil
		}
		if err != nil {
			return recs, lines, err
		}
		recs = append(recs, rec)
		lines = append(lines, rd.Line())
	}
}

func readString(t testing.TB, s string, opts grimoire.ReadOptions) result {
	t.Helper()
	return read(t, strings.NewReader(s), opts)
}

// messages returns the messages of a ValidationError, one per error kept.
func messages(t testing.TB, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *grimoire.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error is %T, not a *ValidationError: %v", err, err)
	}
	if !errors.Is(err, grimoire.ErrMalformed) {
		t.Errorf("errors.Is(%v, ErrMalformed) is false", err)
	}
	var msgs []string
	for _, fe := range ve.Errors {
		msgs = append(msgs, fe.Error())
	}
	return msgs
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	return closeWriter(t, w, &buf, b)
}

func zstdBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	return closeWriter(t, w, &buf, b)
}

func closeWriter(t testing.TB, w io.WriteCloser, buf *bytes.Buffer, b []byte) []byte {
	t.Helper()
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
