package foreign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// Kinds of foreign file.
const (
	KindKIP   = "kip"
	KindLetta = "letta"
)

// LettaFormat names the Letta Agent File format where bardo lists the
// formats it reads.
const LettaFormat = "letta-agent-file"

// MaxFileBytes bounds the file an import reads.
const MaxFileBytes = 256 << 20

// ErrMalformed is wrapped by every error about a file that is not the kind
// it claims or was detected to be.
var ErrMalformed = errors.New("malformed foreign file")

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
	GolemID string    // the golem_id of the export; "": from the file
}

// Result is an import: an export's header and records, and the report.
type Result struct {
	Header  grimoire.Header
	Records []grimoire.Record // entries, then edges, documents, episodes; each group in a stable order
	Report  Report
	ids     map[string]bool // type and id of every record added
}

// Report says what an import wrote and what it left out.
type Report struct {
	Kind        string
	Agent       string   // Letta: the agent imported
	Agents      []string // Letta: every agent of the file
	Quarantined bool
	Read        map[string]int // what the file held, by kind
	Written     map[string]int // export records, by type
	LeftOut     []LeftOut
}

// LeftOut is something of the file that has no place in the export.
//
// cmd/bardo prints it as is, in the left_out list of bardo.import/v1: its json
// tags are keys of that document (JSON.md).
type LeftOut struct {
	What   string `json:"what"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

func newReport(kind string, trusted bool) Report {
	return Report{Kind: kind, Quarantined: !trusted, Read: map[string]int{}, Written: map[string]int{}, LeftOut: []LeftOut{}}
}

func (r *Report) leave(what string, n int, reason string) {
	if n <= 0 {
		return
	}
	for i := range r.LeftOut {
		if r.LeftOut[i].What == what {
			r.LeftOut[i].Count += n
			return
		}
	}
	r.LeftOut = append(r.LeftOut, LeftOut{What: what, Count: n, Reason: reason})
}

// Detect says which kind of foreign file data is, by its content.
func Detect(data []byte) (string, error) {
	v, err := decode(data)
	if err != nil {
		return "", err
	}
	if m, ok := v.(map[string]any); ok {
		if m["format"] == "KIP-Cognitive-Capsule" {
			return KindKIP, nil
		}
		if _, ok := m["agents"].([]any); ok {
			return KindLetta, nil
		}
	}
	return "", ErrUnknownKind
}

// Import converts data of the given kind ("" detects it).
func Import(data []byte, kind string, o Options) (*Result, error) {
	if kind == "" {
		var err error
		if kind, err = Detect(data); err != nil {
			return nil, err
		}
	}
	switch kind {
	case KindKIP:
		return FromKIP(data, o)
	case KindLetta:
		return FromLetta(data, o)
	}
	return nil, fmt.Errorf("unknown kind %q: kip or letta", kind)
}

// decode parses a JSON document into generic values, numbers as float64.
// A document that is a JSON string holding a document is parsed once more.
func decode(data []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: not JSON: %v", ErrMalformed, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the JSON document", ErrMalformed)
	}
	if s, ok := v.(string); ok {
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf("%w: a JSON string that does not hold a JSON document: %v", ErrMalformed, err)
		}
	}
	return v, nil
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

func (r *Result) add(rec grimoire.Record) {
	// Ids are unique per record type in an export: a second entry or
	// episode with an id already written is left out, not written twice.
	var id string
	switch v := rec.(type) {
	case *grimoire.Entry:
		id = "entry\x00" + v.ID
	case *grimoire.Episode:
		id = "episode\x00" + v.ID
	case *grimoire.Document:
		id = "document\x00" + v.Name
	}
	if id != "" {
		if r.ids == nil {
			r.ids = map[string]bool{}
		}
		if r.ids[id] {
			r.Report.leave(rec.RecordType()+"s with an id already imported", 1, "ids are unique per record type in an export")
			return
		}
		r.ids[id] = true
	}
	r.Records = append(r.Records, rec)
	r.Report.Written[rec.RecordType()]++
}

// sortRecords orders records by type (entries, causal edges, documents,
// episodes), then by id or name, so the export does not depend on file
// order where the file's order carries no meaning.
func (r *Result) sortRecords() {
	rank := map[string]int{grimoire.TypeEntry: 0, grimoire.TypeCausalEdge: 1, grimoire.TypeDocument: 2, grimoire.TypeEpisode: 3}
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
	sort.SliceStable(r.Records, func(i, j int) bool {
		a, b := r.Records[i], r.Records[j]
		if ra, rb := rank[a.RecordType()], rank[b.RecordType()]; ra != rb {
			return ra < rb
		}
		if a.RecordType() == grimoire.TypeEpisode {
			return false // episodes keep the file's order: it is their time order
		}
		return key(a) < key(b)
	})
}

// str, num, obj and arr read generic JSON values.
func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }
func obj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}
func arr(m map[string]any, k string) []any { a, _ := m[k].([]any); return a }
func num(m map[string]any, k string) (float64, bool) {
	f, ok := m[k].(float64)
	return f, ok
}

func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999Z07:00", "2006-01-02 15:04:05.999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
