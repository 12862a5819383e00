package foreign

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/jcs"
)

// Kinds of foreign file.
const (
	KindKIP   = "kip"
	KindLetta = "letta"
)

// LettaFormat names the Letta Agent File format where bardo lists the
// formats it reads.
const LettaFormat = "letta-agent-file"

// MaxFileBytes bounds the file an import reads: a larger one is refused
// before it is read (ErrTooLarge).
const MaxFileBytes = 1 << 30

// MaxHeldBytes bounds what an import holds while it reads a file (see the
// package doc, "Bounds"): a file that needs more is refused (ErrTooLarge).
const MaxHeldBytes = 256 << 20

// ErrMalformed is wrapped by every error about a file that is not the kind
// it claims or was detected to be.
var ErrMalformed = errors.New("malformed foreign file")

// ErrTooLarge is wrapped by the error of a file past MaxFileBytes, or
// that would take more than MaxHeldBytes to import.
var ErrTooLarge = errors.New("too large to import")

// ErrUnknownKind is returned when Detect recognizes neither kind.
var ErrUnknownKind = errors.New("neither a KIP capsule nor a Letta agent file")

// AgentError is a file holding several agents and no choice among them,
// or a choice that names none of them.
type AgentError struct {
	Asked  string   // Options.Agent; "" when none was given
	Agents []string // "name (id)" of every agent, in file order
}

func (e *AgentError) Error() string {
	if e.Asked == "" {
		return fmt.Sprintf("the file holds %d agents (%s): pick one with --agent NAME|ID", len(e.Agents), join(e.Agents))
	}
	return fmt.Sprintf("no agent %q in the file: it holds %s", e.Asked, join(e.Agents))
}

func join(s []string) string {
	var b bytes.Buffer
	for i, v := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v)
	}
	return b.String()
}

// Options control an import.
type Options struct {
	Trusted bool      // keep the statuses the file gives; else every entry arrives quarantined
	Agent   string    // Letta: the agent to import, by name or id
	Now     time.Time // exported_at when the file names no time; zero: refuse such a file
	GolemID string    // the golem_id of the export; "": from the file (it must pass grimoire.CheckID)
}

// Result is an import: the header of the export written, and the report.
type Result struct {
	Header grimoire.Header
	Report Report
}

// Report says what an import wrote, what it left out and what it changed
// to write it.
type Report struct {
	Kind        string
	Agent       string   // Letta: the agent imported
	Agents      []string // Letta: every agent of the file
	Quarantined bool
	Read        map[string]int // what the file held, by kind
	Written     map[string]int // export records, by type
	LeftOut     []Tally        // what of the file has no place in the export
	Changed     []Tally        // what was trimmed or replaced so that bardo takes it (see the package doc, "Fit")
}

// Tally counts one kind of thing an import left out or changed, and says
// why.
//
// cmd/bardo prints it as is, in the left_out and changed lists of
// bardo.import/v1: its json tags are keys of that document (JSON.md).
type Tally struct {
	What   string `json:"what"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

func newReport(kind string, trusted bool) Report {
	return Report{Kind: kind, Quarantined: !trusted, Read: map[string]int{}, Written: map[string]int{},
		LeftOut: []Tally{}, Changed: []Tally{}}
}

func tally(list *[]Tally, what string, n int, reason string) {
	if n <= 0 {
		return
	}
	for i := range *list {
		if (*list)[i].What == what {
			(*list)[i].Count += n
			return
		}
	}
	*list = append(*list, Tally{What: what, Count: n, Reason: reason})
}

func (r *Report) leave(what string, n int, reason string)  { tally(&r.LeftOut, what, n, reason) }
func (r *Report) change(what string, n int, reason string) { tally(&r.Changed, what, n, reason) }

// Detect says which kind of foreign file src (of size bytes) is, by its
// content: a JSON object whose format is KIP-Cognitive-Capsule, or one
// with an agents array (also wrapped in a JSON string). It reads no more
// of the file than it needs to tell.
func Detect(src io.ReaderAt, size int64) (string, error) {
	kind := ""
	errFound := errors.New("found")
	err := walkDocument(src, size, jcs.RFC8785, &jcs.Budget{Limit: MaxHeldBytes}, func(d *jcs.Decoder) error {
		if k, err := d.Peek(); err != nil || k != jcs.Object {
			if err == nil {
				err = d.Skip()
			}
			return err
		}
		return d.Object(func(key string) error {
			switch key {
			case "format":
				if s, _, err := optText(d, 64); err != nil || s != "KIP-Cognitive-Capsule" {
					return err
				}
				kind = KindKIP
				return errFound
			case "agents":
				if k, err := d.Peek(); err != nil || k != jcs.Array {
					return err
				}
				kind = KindLetta
				return errFound
			}
			return nil
		})
	})
	switch {
	case kind != "":
		return kind, nil
	case err != nil:
		return "", err
	}
	return "", ErrUnknownKind
}

// Import converts src, a foreign file of size bytes of the given kind (""
// detects it), and writes its export to w: every line as the strict
// export reader takes it (grimoire.NewCheckedWriter), the file's values
// fitted to what bardo takes first (see the package doc, "Fit"). A file
// larger than MaxFileBytes is refused before it is read.
func Import(src io.ReaderAt, size int64, w io.Writer, kind string, o Options) (*Result, error) {
	if size > MaxFileBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d MiB an import may read", ErrTooLarge, size, MaxFileBytes>>20)
	}
	if o.GolemID != "" {
		if err := grimoire.CheckID(o.GolemID); err != nil {
			return nil, fmt.Errorf("the golem id %q %v", o.GolemID, err)
		}
	}
	if kind == "" {
		var err error
		if kind, err = Detect(src, size); err != nil {
			return nil, err
		}
	}
	switch kind {
	case KindKIP:
		return FromKIP(src, size, w, o)
	case KindLetta:
		return FromLetta(src, size, w, o)
	}
	return nil, fmt.Errorf("unknown kind %q: kip or letta", kind)
}

// walkDocument reads the JSON document src holds, under profile p,
// calling walk with a Decoder at its start: a document that is a JSON
// string holding a document is read through it (a Letta file in the
// wild). Every byte is checked, whatever walk reads: no trailing data.
func walkDocument(src io.ReaderAt, size int64, p jcs.Profile, b *jcs.Budget, walk func(*jcs.Decoder) error) error {
	d := jcs.NewDecoder(io.NewSectionReader(src, 0, size), p)
	d.Budget = b
	k, err := d.Peek()
	if err != nil {
		return decodeError(err)
	}
	inner := d
	if k == jcs.String {
		r, err := d.StringReader()
		if err != nil {
			return decodeError(err)
		}
		inner = jcs.NewDecoder(r, p)
		inner.Budget = b
	}
	if err := walk(inner); err != nil {
		return decodeError(err)
	}
	if err := inner.End(); err != nil {
		if inner != d {
			return decodeError(fmt.Errorf("a JSON string that does not hold one JSON document: %w", err))
		}
		return decodeError(err)
	}
	if inner != d {
		if err := d.End(); err != nil {
			return decodeError(err)
		}
	}
	return nil
}

// decodeError classifies an error of reading a foreign file: its JSON is
// broken (ErrMalformed), it needs more than MaxHeldBytes (ErrTooLarge),
// or it could not be read (as it is).
func decodeError(err error) error {
	var te *jcs.TypeError
	switch {
	case errors.Is(err, ErrMalformed), errors.Is(err, ErrTooLarge), errors.Is(err, ErrUnknownKind):
		return err
	case errors.As(err, new(*AgentError)):
		return err
	case errors.Is(err, jcs.ErrBudget):
		return fmt.Errorf("%w: it needs more than the %d MiB of memory an import may hold", ErrTooLarge, MaxHeldBytes>>20)
	case errors.Is(err, jcs.ErrInvalid), errors.As(err, &te):
		return fmt.Errorf("%w: not strict JSON: %v", ErrMalformed, err)
	}
	return err
}

// optText reads a string of at most max bytes, or skips a value of
// another kind and gives "".
func optText(d *jcs.Decoder, max int) (string, bool, error) {
	k, err := d.Peek()
	if err != nil || k != jcs.String {
		return "", false, err
	}
	return d.Text(max)
}

// word reads a string that names or dates something (an id, a label, a
// time): at most grimoire's id limit is kept whole up to
// bundle.MaxStringBytes; a longer one is refused, a value of another kind
// gives "".
func word(d *jcs.Decoder, path string) (string, error) {
	at := d.Offset()
	s, cut, err := optText(d, maxWordBytes)
	if err == nil && cut {
		err = fmt.Errorf("%w: %s at offset %d is longer than %d bytes", ErrMalformed, path, at, maxWordBytes)
	}
	return s, err
}

// optNumber reads a number, or skips a value of another kind (ok false).
func optNumber(d *jcs.Decoder) (float64, bool, error) {
	k, err := d.Peek()
	if err != nil || k != jcs.Number {
		return 0, false, err
	}
	f, err := d.Number()
	return f, err == nil, err
}

// isTrue reads a value and reports whether it is true.
func isTrue(d *jcs.Decoder) (bool, error) {
	k, err := d.Peek()
	if err != nil || k != jcs.Bool {
		return false, err
	}
	return d.Bool()
}

// members walks an object's members, or skips a value of another kind.
func members(d *jcs.Decoder, f func(key string) error) error {
	k, err := d.Peek()
	if err != nil || k != jcs.Object {
		return err
	}
	return d.Object(f)
}

// elements walks an array's elements, or skips a value of another kind.
func elements(d *jcs.Decoder, f func(i int) error) error {
	k, err := d.Peek()
	if err != nil || k != jcs.Array {
		return err
	}
	return d.Array(f)
}

// status is an imported entry's status: quarantined unless trusted.
func status(o Options, given string) string {
	if !o.Trusted {
		return grimoire.StatusQuarantined
	}
	switch given {
	case grimoire.StatusActive, grimoire.StatusArchived, grimoire.StatusQuarantined:
		return given
	}
	return grimoire.StatusActive
}

func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999Z07:00", "2006-01-02 15:04:05.999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
