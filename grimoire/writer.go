package grimoire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Writer writes an export: the header, then records, one JSON object a
// line. The bytes depend only on the records: fields in the model's
// order, no HTML escaping, embeddings as exact base64 float32. A Writer
// of NewWriter does not validate (a Reader does); one of
// NewCheckedWriter does. Call Flush at the end.
type Writer struct {
	bw     *bufio.Writer
	enc    *json.Encoder
	header bool
	err    error // sticky

	check *Reader       // NewCheckedWriter: the rules each line is held to
	line  *bytes.Buffer // the line being checked
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{bw: bw, enc: enc}
}

// NewCheckedWriter returns a Writer to w that holds every line it writes
// to the rules a strict Reader reads it by — each record type's, the id
// rule, one record per id, the longest line — so that what it writes is
// an export every command takes. A header or record that breaks one is
// not written: WriteHeader or Write returns a *ValidationError naming
// name and the line it would have taken (errors.Is ErrDuplicate for an
// id written before), and the Writer goes on. It holds, as a Reader
// does, a 128-bit hash and a line number per id written.
func NewCheckedWriter(w io.Writer, name string) *Writer {
	cw := NewWriter(w)
	cw.check = newLineChecker(name)
	cw.line = new(bytes.Buffer)
	cw.enc = json.NewEncoder(cw.line)
	cw.enc.SetEscapeHTML(false)
	return cw
}

// WriteHeader writes the header, with its type and format set. It must
// come first, once.
func (w *Writer) WriteHeader(h *Header) error {
	if w.err != nil {
		return w.err
	}
	if w.header {
		return errors.New("grimoire: header written twice")
	}
	c := *h
	c.Type, c.Format = TypeHeader, Format
	if err := w.encode(&c); err != nil {
		return err
	}
	w.header = true
	return nil
}

// Write writes one record, its "type" set from RecordType.
func (w *Writer) Write(rec Record) error {
	if w.err != nil {
		return w.err
	}
	if !w.header {
		return errors.New("grimoire: record written before the header")
	}
	var v any
	switch r := rec.(type) {
	case *Entry:
		c := *r
		c.Type, v = TypeEntry, &c
	case *Episode:
		c := *r
		c.Type, v = TypeEpisode, &c
	case *CausalEdge:
		c := *r
		c.Type, v = TypeCausalEdge, &c
	case *Document:
		c := *r
		c.Type, v = TypeDocument, &c
	case *Hypothesis:
		c := *r
		c.Type, v = TypeHypothesis, &c
	case *DecisionCache:
		c := *r
		c.Type, v = TypeDecisionCache, &c
	case *Metric:
		c := *r
		c.Type, v = TypeMetric, &c
	case *Fitness:
		c := *r
		c.Type, v = TypeFitness, &c
	default:
		return fmt.Errorf("grimoire: cannot write a record of type %T", rec)
	}
	return w.encode(v)
}

func (w *Writer) encode(v any) error {
	if w.check == nil {
		if err := w.enc.Encode(v); err != nil {
			w.err = err
		}
		return w.err
	}
	w.line.Reset()
	if err := w.enc.Encode(v); err != nil {
		w.err = err
		return err
	}
	line := w.line.Bytes()
	if err := w.check.checkLine(line[:len(line)-1]); err != nil {
		w.check.line-- // not written: the next record takes its line
		return err
	}
	if _, err := w.bw.Write(line); err != nil {
		w.err = err
	}
	return w.err
}

// Flush writes what is buffered to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}
