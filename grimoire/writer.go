package grimoire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Writer writes an export: the header, then records, one JSON object a
// line. The bytes depend only on the records: fields in the model's
// order, no HTML escaping, embeddings as exact base64 float32. It does not
// validate; a Reader does. Call Flush at the end.
type Writer struct {
	bw     *bufio.Writer
	enc    *json.Encoder
	header bool
	err    error // sticky
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{bw: bw, enc: enc}
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
	w.header = true
	c := *h
	c.Type, c.Format = TypeHeader, Format
	return w.encode(&c)
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
	if err := w.enc.Encode(v); err != nil {
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
