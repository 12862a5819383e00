package foreign

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/jcs"
)

// What of a file an import keeps whole: a word (an id, a name, a label,
// a time) up to bundle.MaxStringBytes, and longer ones are refused; a
// text is trimmed to the bundle's limit of its field (an entry's content,
// an episode's summary: bundle.MaxContentBytes; a document's text:
// bundle.MaxDocumentBytes).
const maxWordBytes = bundle.MaxStringBytes

// What one record of an export costs the import beyond its strings: the
// checked writer's hash and line of its id, and a record held to be
// sorted.
const (
	costWritten = 64
	costEntry   = 512
)

// Why an import changed what it changed (Report.Changed).
const (
	whyID      = "not an id bardo takes (grimoire.CheckID: at most 256 bytes of printable characters, no space at either end): replaced by \"sha256-\" and 32 hex digits of its SHA-256"
	whyText    = "longer than the bundle format takes: cut at the limit, on a character boundary"
	whyTags    = "past the bundle format's limits (256 tags, 64 KiB each): the first that fit are kept"
	whyWord    = "longer than the bundle format's 64 KiB for a word: cut at the limit"
	whyDropped = "a value the export format refuses: left unset"
)

// fitID returns id when it passes the id rule, or else its replacement:
// namespace, "sha256-" and the first 32 hex digits of its SHA-256, so
// that distinct ids stay distinct and a file's id always maps to the
// same one.
func (r *Report) fitID(id, namespace string) string {
	if grimoire.CheckID(id) == nil {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	r.change("ids", 1, whyID)
	return namespace + "sha256-" + hex.EncodeToString(sum[:16])
}

// cut trims s to at most max bytes, on a character boundary.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// fitText trims a text to max bytes, counting it under what.
func (r *Report) fitText(s string, max int, what string) string {
	if len(s) <= max {
		return s
	}
	r.change(what, 1, whyText)
	return cut(s, max)
}

// fitEntry puts an entry within the bundle format's limits: its content,
// domain, tags and embedding (see the package doc, "Fit").
func (r *Report) fitEntry(e *grimoire.Entry, space *grimoire.EmbeddingSpace) {
	e.Content = r.fitText(e.Content, bundle.MaxContentBytes, "entry contents")
	if len(e.Domain) > bundle.MaxStringBytes {
		r.change("entry domains", 1, whyWord)
		e.Domain = cut(e.Domain, bundle.MaxStringBytes)
	}
	tags := e.Tags[:0]
	dropped := 0
	for _, t := range e.Tags {
		if len(tags) == bundle.MaxTags || len(t) > bundle.MaxStringBytes {
			dropped++
			continue
		}
		tags = append(tags, t)
	}
	if dropped > 0 {
		r.change("entry tags", dropped, whyTags)
	}
	e.Tags = tags
	if len(e.Tags) == 0 {
		e.Tags = nil
	}
	if e.Source != nil && grimoire.CheckID(e.Source.GolemID) != nil {
		r.change("entry sources", 1, "a source golem id that is not an id bardo takes: left unset, the export's own Golem stands")
		e.Source = nil
	}
	if e.Embedding != nil {
		if space == nil || len(e.Embedding) != space.Dims || !finite(e.Embedding) {
			r.leave("embeddings", 1, "not finite float32 values in the export's embedding space")
			e.Embedding = nil
		}
	}
}

// fitSpace is the embedding space of an export, or nil when the file's
// is past the bundle format's dims.
func (r *Report) fitSpace(model string, dims int) *grimoire.EmbeddingSpace {
	switch {
	case model == "" || dims <= 0:
		return nil
	case dims > bundle.MaxEmbeddingDims:
		r.change("embedding space", 1, fmt.Sprintf("%d dimensions, more than the bundle format's %d: the export has none, and no entry keeps its vector", dims, bundle.MaxEmbeddingDims))
		return nil
	case len(model) > bundle.MaxStringBytes:
		r.change("embedding space", 1, "a model name longer than 64 KiB: the export has none, and no entry keeps its vector")
		return nil
	}
	return &grimoire.EmbeddingSpace{Model: model, Dims: dims}
}

func finite(v grimoire.Vector) bool {
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}

// fitEpisode trims an episode's texts.
func (r *Report) fitEpisode(ep *grimoire.Episode) {
	ep.Summary = r.fitText(ep.Summary, bundle.MaxContentBytes, "episode summaries")
	ep.Action = r.fitText(ep.Action, bundle.MaxContentBytes, "episode actions")
}

// fitHeader puts a header's ids, tick and phase where the export format
// takes them.
func (r *Report) fitHeader(h *grimoire.Header, namespace string) {
	h.GolemID = r.fitID(h.GolemID, namespace)
	if h.LineageID != "" && grimoire.CheckID(h.LineageID) != nil {
		r.change("header lineage_id", 1, whyDropped)
		h.LineageID = ""
	}
	if h.Tick != nil && *h.Tick < 0 {
		r.change("header tick", 1, "negative: "+whyDropped)
		h.Tick = nil
	}
	if h.Death != nil && h.Death.Tick < 0 {
		r.change("header death tick", 1, "negative: set to 0")
		h.Death.Tick = 0
	}
	if h.Phase != "" && !slices.Contains(grimoire.Phases, h.Phase) {
		r.change("header phase", 1, "not one of "+strings.Join(grimoire.Phases, ", ")+": "+whyDropped)
		h.Phase = ""
	}
	if h.ParentBundle != "" {
		if d, err := bundle.ParseDigest(h.ParentBundle); err != nil {
			r.change("header parent_bundle", 1, "not a bundle digest: "+whyDropped)
			h.ParentBundle = ""
		} else {
			h.ParentBundle = d
		}
	}
}

// exportWriter writes an import's export through a checked writer: the
// header, then records, counting what it writes in the report and
// charging it to the budget.
type exportWriter struct {
	w   *grimoire.Writer
	rep *Report
	b   *jcs.Budget
}

func newExportWriter(w io.Writer, rep *Report, b *jcs.Budget) *exportWriter {
	return &exportWriter{w: grimoire.NewCheckedWriter(w, "the export"), rep: rep, b: b}
}

func (x *exportWriter) header(h *grimoire.Header) error {
	return refused(x.w.WriteHeader(h))
}

// write writes one record. One whose id a record of its type written
// before has is left out and counted; any other refusal of the checked
// writer is a file this import does not fit (ErrMalformed).
func (x *exportWriter) write(rec grimoire.Record) error {
	if err := x.b.Charge(costWritten); err != nil {
		return decodeError(err)
	}
	err := x.w.Write(rec)
	var ve *grimoire.ValidationError
	if errors.As(err, &ve) && ve.Total == 1 && errors.Is(err, grimoire.ErrDuplicate) {
		x.rep.leave(rec.RecordType()+"s with an id already imported", 1, "ids are unique per record type in an export: the first is kept")
		return nil
	}
	if err != nil {
		return refused(err)
	}
	x.rep.Written[rec.RecordType()]++
	return nil
}

func (x *exportWriter) flush() error { return x.w.Flush() }

// refused words the checked writer's refusal of a record of the file.
func refused(err error) error {
	if errors.Is(err, grimoire.ErrMalformed) {
		return fmt.Errorf("%w: the file holds what bardo's export format refuses: %v", ErrMalformed, err)
	}
	return err
}

// sortRecords orders records by type (entries, causal edges, documents),
// then by id or name, so that the export does not depend on file order
// where the file's order carries no meaning; records of one id keep the
// file's order (the first is written, the others left out).
func sortRecords(recs []grimoire.Record) {
	rank := map[string]int{grimoire.TypeEntry: 0, grimoire.TypeCausalEdge: 1, grimoire.TypeDocument: 2}
	key := func(rec grimoire.Record) string {
		switch v := rec.(type) {
		case *grimoire.Entry:
			return v.ID
		case *grimoire.CausalEdge:
			return v.SourceID + "\x00" + v.TargetID
		case *grimoire.Document:
			return v.Name
		}
		return ""
	}
	slices.SortStableFunc(recs, func(a, b grimoire.Record) int {
		if ra, rb := rank[a.RecordType()], rank[b.RecordType()]; ra != rb {
			return ra - rb
		}
		return strings.Compare(key(a), key(b))
	})
}
