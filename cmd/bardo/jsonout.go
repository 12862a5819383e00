package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// writeJSON prints the one JSON document of a command's --json output:
// {"format": format, then the fields of doc}, indented by two spaces, with
// a trailing newline (docs/CLI.md#--json). doc must marshal to a JSON object; its key
// order is its struct's field order, never a map's.
func writeJSON(w io.Writer, format string, doc any) error {
	body, err := marshalJSON(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", format, err)
	}
	if len(body) < 2 || body[0] != '{' {
		return fmt.Errorf("%s: document is not a JSON object", format)
	}
	f, err := marshalJSON(format)
	if err != nil {
		return err
	}
	var full bytes.Buffer
	full.WriteString(`{"format":`)
	full.Write(f)
	if len(body) > 2 {
		full.WriteByte(',')
	}
	full.Write(body[1:])
	return writeIndented(w, full.Bytes())
}

// writeErrorJSON prints an error as the JSON error document of docs/CLI.md#--json, with
// the hints the text form prints and the run's warnings.
func writeErrorJSON(w io.Writer, code int, message string, hints, warnings []string) error {
	type errorBody struct {
		Code    int      `json:"code"`
		Message string   `json:"message"`
		Hints   []string `json:"hints,omitempty"`
	}
	doc, err := marshalJSON(struct {
		Error    errorBody `json:"error"`
		Warnings []string  `json:"warnings,omitempty"`
	}{errorBody{code, message, hints}, warnings})
	if err != nil {
		return err
	}
	return writeIndented(w, doc)
}

// writeWarningsJSON prints the warnings of a --json run that succeeded.
func writeWarningsJSON(w io.Writer, warnings []string) error {
	doc, err := marshalJSON(struct {
		Warnings []string `json:"warnings"`
	}{warnings})
	if err != nil {
		return err
	}
	return writeIndented(w, doc)
}

// marshalJSON is json.Marshal without HTML escaping: an entry's "<" stays
// "<", as a reader of the output expects.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// emptyIfNil makes a nil list an empty one, so that JSON shows [] and not
// null.
func emptyIfNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeIndented(w io.Writer, compact []byte) error {
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}
