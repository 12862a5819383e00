package docs

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ExportSchemaJSON is export.schema.json: the JSON Schema (draft 2020-12)
// of one line of a bardo.grimoire-export/v1.
//
//go:embed export.schema.json
var ExportSchemaJSON []byte

// ExportSchema compiles export.schema.json, asserting formats (date-time).
// Strict forbids what the reader would skip with a warning: fields the
// schema does not name, at every level, and record types it does not
// define — what bardo writes must be documented, every field of it.
func ExportSchema(strict bool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ExportSchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("export.schema.json: %w", err)
	}
	if strict {
		root, ok := doc.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("export.schema.json: not an object")
		}
		for _, def := range root["$defs"].(map[string]any) {
			closeObjects(def)
		}
		types := []any{}
		for _, branch := range root["allOf"].([]any) {
			cond := branch.(map[string]any)["if"].(map[string]any)
			types = append(types, cond["properties"].(map[string]any)["type"].(map[string]any)["const"])
		}
		root["properties"].(map[string]any)["type"] = map[string]any{"enum": types}
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "export.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// closeObjects sets additionalProperties false on every schema under v
// that names properties.
func closeObjects(v any) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["properties"]; ok {
			x["additionalProperties"] = false
		}
		for _, sub := range x {
			closeObjects(sub)
		}
	case []any:
		for _, sub := range x {
			closeObjects(sub)
		}
	}
}

// LineError is a line of an export that the schema refuses.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ValidateExport checks every non-blank line of the plain (uncompressed)
// export r against s, and returns the errors of the lines s refuses, in
// line order, and an error when r cannot be read or a line is no JSON.
func ValidateExport(s *jsonschema.Schema, r io.Reader) ([]*LineError, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20+2)
	var bad []*LineError
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			bad = append(bad, &LineError{n, fmt.Errorf("not JSON")})
			continue
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		if err != nil {
			bad = append(bad, &LineError{n, err})
			continue
		}
		if err := s.Validate(v); err != nil {
			bad = append(bad, &LineError{n, err})
		}
	}
	return bad, sc.Err()
}

// Properties returns the properties export.schema.json names for the
// definition def ("entry", "header", …), sorted.
func Properties(def string) ([]string, error) {
	var doc struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(ExportSchemaJSON, &doc); err != nil {
		return nil, err
	}
	d, ok := doc.Defs[def]
	if !ok {
		return nil, fmt.Errorf("export.schema.json has no $defs/%s", def)
	}
	var names []string
	for k := range d.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names, nil
}
