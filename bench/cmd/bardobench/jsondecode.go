package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// jsonResult is what jsondecode writes.
type jsonResult struct {
	Into    string  `json:"into"`
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"bytes"`
	Lines   int     `json:"lines"`
}

// cmdJSONDecode times encoding/json alone decoding every line of an
// export: the yardstick of `bardo bundle`'s speed. -into structs decodes
// each line into its grimoire model struct (the record type read from the
// line's leading "type" member; embeddings through grimoire.Vector's
// UnmarshalJSON), which is the decoding bardo cannot avoid; -into map
// decodes into map[string]any. Nothing is validated or kept.
func cmdJSONDecode(args []string) error {
	fs := flag.NewFlagSet("jsondecode", flag.ContinueOnError)
	into := fs.String("into", "structs", "decode into the model `structs` or into map")
	out := fs.String("o", "", "write the result as JSON to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one export file")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	decode := decodeStruct
	switch *into {
	case "structs":
	case "map":
		decode = func(line []byte) error {
			var m map[string]any
			return json.Unmarshal(line, &m)
		}
	default:
		return fmt.Errorf("-into %q: structs or map", *into)
	}
	res := jsonResult{Into: *into}
	t := time.Now()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		res.Bytes += int64(len(line))
		if len(bytes.TrimSpace(line)) > 0 {
			res.Lines++
			if derr := decode(line); derr != nil {
				return fmt.Errorf("line %d: %w", res.Lines, derr)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	res.Seconds = time.Since(t).Seconds()
	fmt.Fprintf(os.Stderr, "encoding/json into %s: %d lines, %.1f MB in %.3fs (%.1f MB/s)\n",
		res.Into, res.Lines, float64(res.Bytes)/1e6, res.Seconds, float64(res.Bytes)/1e6/res.Seconds)
	if *out == "" {
		return nil
	}
	return writeJSONFile(*out, res)
}

// recordOf returns a new model struct for the record type named at the
// start of line.
func recordOf(line []byte) any {
	for _, t := range []struct {
		prefix string
		new    func() any
	}{
		{`{"type":"episode"`, func() any { return new(grimoire.Episode) }},
		{`{"type":"entry"`, func() any { return new(grimoire.Entry) }},
		{`{"type":"causal_edge"`, func() any { return new(grimoire.CausalEdge) }},
		{`{"type":"fitness"`, func() any { return new(grimoire.Fitness) }},
		{`{"type":"hypothesis"`, func() any { return new(grimoire.Hypothesis) }},
		{`{"type":"decision_cache"`, func() any { return new(grimoire.DecisionCache) }},
		{`{"type":"metric"`, func() any { return new(grimoire.Metric) }},
		{`{"type":"document"`, func() any { return new(grimoire.Document) }},
		{`{"type":"header"`, func() any { return new(grimoire.Header) }},
	} {
		if bytes.HasPrefix(line, []byte(t.prefix)) {
			return t.new()
		}
	}
	return nil
}

func decodeStruct(line []byte) error {
	v := recordOf(line)
	if v == nil {
		var m map[string]any // a record whose type is not first
		return json.Unmarshal(line, &m)
	}
	return json.Unmarshal(line, v)
}
