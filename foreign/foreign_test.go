package foreign

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// imported is an import's result and the export it wrote.
type imported struct {
	*Result
	export []byte
}

type importer func(io.ReaderAt, int64, io.Writer, Options) (*Result, error)

func importWith(f importer, data []byte, o Options) (*imported, error) {
	var buf bytes.Buffer
	r, err := f(bytes.NewReader(data), int64(len(data)), &buf, o)
	if err != nil {
		return nil, err
	}
	return &imported{Result: r, export: buf.Bytes()}, nil
}

func fromLetta(data []byte, o Options) (*imported, error) { return importWith(FromLetta, data, o) }
func fromKIP(data []byte, o Options) (*imported, error)   { return importWith(FromKIP, data, o) }
func importData(data []byte, kind string, o Options) (*imported, error) {
	return importWith(func(src io.ReaderAt, size int64, w io.Writer, o Options) (*Result, error) {
		return Import(src, size, w, kind, o)
	}, data, o)
}

func detect(data []byte) (string, error) { return Detect(bytes.NewReader(data), int64(len(data))) }

// exportOf reads the export r wrote back with the strict reader: what
// verify and bundle would see.
func exportOf(t *testing.T, r *imported) ([]byte, []grimoire.Record) {
	t.Helper()
	return r.export, readBack(t, r.export)
}

func readBack(t testing.TB, export []byte) []grimoire.Record {
	t.Helper()
	rd, err := grimoire.NewReader(bytes.NewReader(export), grimoire.ReadOptions{Name: "import.jsonl", Strict: true})
	if err != nil {
		t.Fatalf("the export does not read back: %v\n%s", err, export)
	}
	var recs []grimoire.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the export does not read back: %v\n%s", err, export)
		}
		recs = append(recs, rec)
	}
	return recs
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func entries(recs []grimoire.Record) map[string]*grimoire.Entry {
	out := map[string]*grimoire.Entry{}
	for _, r := range recs {
		if e, ok := r.(*grimoire.Entry); ok {
			out[e.ID] = e
		}
	}
	return out
}

func TestLettaTwoAgents(t *testing.T) {
	data := readFile(t, "two_agents.af")
	if k, err := detect(data); err != nil || k != KindLetta {
		t.Fatalf("Detect = %q, %v", k, err)
	}
	// No --agent: the one agent that is not a sleep-time agent.
	r, err := fromLetta(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, recs := exportOf(t, r)
	if r.Report.Agent != "harbor-pilot (agent-a1)" {
		t.Errorf("agent %q", r.Report.Agent)
	}
	for _, leak := range []string{"DO-NOT-LEAK", "HARBOR_TOKEN", "HARBOR_API_KEY"} {
		if bytes.Contains(raw, []byte(leak)) {
			t.Errorf("the export holds %q", leak)
		}
	}
	es := entries(recs)
	want := map[string]string{
		"letta:block:block-persona": "I am the harbor pilot's assistant. I answer briefly and never guess depths.",
		"letta:block:block-human":   "The harbor master is Ines; she prefers metric units.",
		"letta:block:block-tides":   "Never schedule an entry within one hour of low water.",
		"letta:passage:passage-1":   "The east channel silts up every spring; check depth before entering.",
		"letta:passage:passage-2":   "Pilot boats refuel at berth 9 only.",
		"letta:passage:passage-3":   "Old note embedded elsewhere.",
	}
	if len(es) != len(want) {
		t.Errorf("%d entries, want %d: %v", len(es), len(want), es)
	}
	for id, content := range want {
		e := es[id]
		if e == nil {
			t.Errorf("no entry %s", id)
			continue
		}
		if e.Content != content {
			t.Errorf("%s: content %q, want %q", id, e.Content, content)
		}
		if e.Status != grimoire.StatusQuarantined {
			t.Errorf("%s: status %q, want quarantined without --trusted", id, e.Status)
		}
	}
	if strings.Contains(es["letta:block:block-persona"].Content, "OLD") {
		t.Error("the persona came from the stale system message")
	}
	if e := es["letta:block:block-tides"]; e.DecayClass != grimoire.DecayStructural {
		t.Errorf("read-only block decay %q, want structural", e.DecayClass)
	}
	if e := es["letta:block:block-persona"]; e.Category != grimoire.CategoryStrategyFragment {
		t.Errorf("persona category %q", e.Category)
	}
	// Embeddings in the agent's space: padded zeros trimmed, another
	// model's vector left out.
	if r.Header.Embedding == nil || r.Header.Embedding.Model != "harbor-embed-small" || r.Header.Embedding.Dims != 4 {
		t.Fatalf("header embedding %+v", r.Header.Embedding)
	}
	if v := es["letta:passage:passage-2"].Embedding; len(v) != 4 || v[0] != 1 {
		t.Errorf("padded passage vector %v", v)
	}
	if v := es["letta:passage:passage-3"].Embedding; v != nil {
		t.Errorf("a vector of another model was kept: %v", v)
	}
	// Messages are episodes only: four non-system messages, and the
	// archival insert inside a tool call is no entry.
	episodes := 0
	for _, rec := range recs {
		if ep, ok := rec.(*grimoire.Episode); ok {
			episodes++
			if ep.ID == "letta:message:message-2" && (ep.Action != "archival_memory_insert" || !strings.Contains(ep.Summary, "Tankers wait")) {
				t.Errorf("tool call episode %+v", ep)
			}
		}
	}
	if episodes != 4 {
		t.Errorf("%d episodes, want 4", episodes)
	}
	for _, e := range es {
		if strings.Contains(e.Content, "Tankers wait") || strings.Contains(e.Content, "low tide?") {
			t.Errorf("a message became entry %s", e.ID)
		}
	}
	if !r.Header.ExportedAt.Equal(time.Date(2026, 4, 2, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("exported_at %v, want the file's created_at", r.Header.ExportedAt)
	}
	if r.Report.Written["entry"] != 6 || r.Report.Written["episode"] != 4 {
		t.Errorf("written %v", r.Report.Written)
	}
	var whats []string
	for _, l := range r.Report.LeftOut {
		whats = append(whats, l.What)
	}
	for _, w := range []string{"agent secrets", "agent tool_exec_environment_variables", "other agents", "empty blocks", "block ids without a block", "tools", "skills"} {
		if !strings.Contains(strings.Join(whats, "|"), w) {
			t.Errorf("left_out does not name %q: %v", w, whats)
		}
	}
}

func TestLettaAgentChoice(t *testing.T) {
	data := readFile(t, "two_agents.af")
	rows := []struct {
		name, agent, want string
		err               bool
	}{
		{"by name", "harbor-pilot-sleeptime", "harbor-pilot-sleeptime (agent-s1)", false},
		{"by id", "agent-a1", "harbor-pilot (agent-a1)", false},
		{"unknown", "nobody", "", true},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			res, err := fromLetta(data, Options{Agent: r.agent, Trusted: true})
			if r.err {
				var ae *AgentError
				if !errors.As(err, &ae) || len(ae.Agents) != 2 {
					t.Fatalf("err %v, want an AgentError listing both agents", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Report.Agent != r.want {
				t.Errorf("agent %q, want %q", res.Report.Agent, r.want)
			}
			_, recs := exportOf(t, res)
			for _, e := range entries(recs) {
				if e.Status != grimoire.StatusActive {
					t.Errorf("%s: status %q with --trusted", e.ID, e.Status)
				}
			}
		})
	}
	// Two primary agents and no --agent: the user must choose.
	two := strings.Replace(string(data), `"agent_type": "sleeptime_agent"`, `"agent_type": "letta_v1_agent"`, 1)
	var ae *AgentError
	if _, err := fromLetta([]byte(two), Options{}); !errors.As(err, &ae) || ae.Asked != "" {
		t.Errorf("err %v, want an AgentError asking for --agent", err)
	}
}

func TestLettaOldAndWrapped(t *testing.T) {
	for _, name := range []string{"old.af", "wrapped.af"} {
		t.Run(name, func(t *testing.T) {
			data := readFile(t, name)
			if k, err := detect(data); err != nil || k != KindLetta {
				t.Fatalf("Detect = %q, %v", k, err)
			}
			r, err := fromLetta(data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, recs := exportOf(t, r)
			es := entries(recs)
			if len(es) != 2 || es["letta:block:block-0"] == nil || es["letta:block:block-0"].Content != "Works at the Lisbon office, floor 3." {
				t.Errorf("entries %v", es)
			}
			if r.Header.Embedding != nil {
				t.Errorf("an embedding space without passages: %+v", r.Header.Embedding)
			}
			if r.Report.Written["episode"] != 2 {
				t.Errorf("written %v", r.Report.Written)
			}
			if r.Header.GolemID != "letta:agent-old" {
				t.Errorf("golem_id %q", r.Header.GolemID)
			}
		})
	}
}

func TestLettaNoTime(t *testing.T) {
	doc := `{"agents":[{"name":"x","id":"a","block_ids":["b"]}],"blocks":[{"id":"b","label":"human","value":"v"}]}`
	if _, err := fromLetta([]byte(doc), Options{}); !errors.Is(err, ErrMalformed) {
		t.Errorf("err %v, want ErrMalformed asking for --now", err)
	}
	r, err := fromLetta([]byte(doc), Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	exportOf(t, r)
}

func TestDetectUnknown(t *testing.T) {
	for _, s := range []string{`{}`, `[1,2]`, `"{\"x\":1}"`} {
		if _, err := detect([]byte(s)); !errors.Is(err, ErrUnknownKind) {
			t.Errorf("detect(%s) = %v", s, err)
		}
	}
	if _, err := detect([]byte(`{`)); !errors.Is(err, ErrMalformed) {
		t.Errorf("Detect of broken JSON: %v", err)
	}
}
