package foreign

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// What an imported Letta block or passage is worth, the file saying
// nothing of it (see the package doc).
const (
	blockConfidence   = 0.6
	blockQuality      = 0.6
	passageConfidence = 0.5
	passageQuality    = 0.5
)

// FromLetta converts one agent of a Letta Agent File.
func FromLetta(data []byte, o Options) (*Result, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: an agent file is an object, this is a %T", ErrMalformed, v)
	}
	agents := arr(doc, "agents")
	if agents == nil {
		return nil, fmt.Errorf("%w: no agents array: not a Letta agent file", ErrMalformed)
	}
	agent, names, err := pickAgent(agents, o.Agent)
	if err != nil {
		return nil, err
	}
	l := &lettaImport{o: o, doc: doc, agent: agent, res: &Result{Report: newReport(KindLetta, o.Trusted)}}
	l.res.Report.Agents = names
	l.res.Report.Agent = describe(agent)
	return l.run()
}

func describe(a map[string]any) string {
	return fmt.Sprintf("%s (%s)", str(a, "name"), str(a, "id"))
}

// pickAgent chooses the agent named (name or id) or, with no name, the one
// agent that is not a sleep-time agent.
func pickAgent(agents []any, want string) (map[string]any, []string, error) {
	var names []string
	var all, primary []map[string]any
	for _, a := range agents {
		am, ok := a.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("%w: agents[%d] is not an object", ErrMalformed, len(all))
		}
		all = append(all, am)
		names = append(names, describe(am))
		if !strings.Contains(str(am, "agent_type"), "sleeptime") {
			primary = append(primary, am)
		}
	}
	if want != "" {
		for _, am := range all {
			if str(am, "id") == want {
				return am, names, nil
			}
		}
		var match []map[string]any
		for _, am := range all {
			if str(am, "name") == want {
				match = append(match, am)
			}
		}
		if len(match) == 1 {
			return match[0], names, nil
		}
		return nil, nil, &AgentError{Asked: want, Agents: names}
	}
	switch {
	case len(all) == 1:
		return all[0], names, nil
	case len(primary) == 1:
		return primary[0], names, nil
	}
	return nil, nil, &AgentError{Agents: names}
}

type lettaImport struct {
	o     Options
	doc   map[string]any
	agent map[string]any
	res   *Result
	at    time.Time // the file's time: exported_at, and when blocks were last in context
}

func (l *lettaImport) run() (*Result, error) {
	rep := &l.res.Report
	msgs := arr(l.agent, "messages")
	if err := l.header(msgs); err != nil {
		return nil, err
	}
	l.blocks()
	l.passages()
	l.messages(msgs)

	// Never read: secrets and tool environment variables, even empty.
	for _, k := range []string{"secrets", "tool_exec_environment_variables"} {
		if _, ok := l.agent[k]; ok {
			rep.LeftOut = append(rep.LeftOut, LeftOut{What: "agent " + k, Count: 1, Reason: "secrets are never imported"})
		}
	}
	for _, k := range []string{"tools", "mcp_servers", "sources", "files", "skills", "groups"} {
		n := len(arr(l.doc, k))
		rep.Read[k] = n
		rep.leave(k, n, map[string]string{
			"tools": "code and schemas, not knowledge", "mcp_servers": "connections, not knowledge",
			"sources": "attached data sources, not the agent's memory", "files": "attached files, not the agent's memory",
			"skills": "procedures of the Letta runtime, not knowledge", "groups": "how agents of the file run together",
		}[k])
	}
	others := 0
	for _, a := range arr(l.doc, "agents") {
		if am, ok := a.(map[string]any); ok && str(am, "id") != str(l.agent, "id") {
			others++
		}
	}
	rep.leave("other agents", others, "one agent is imported; pick another with --agent")
	l.res.sortRecords()
	return l.res, nil
}

func (l *lettaImport) header(msgs []any) error {
	h := grimoire.Header{Format: grimoire.Format, GolemID: l.o.GolemID}
	if h.GolemID == "" {
		h.GolemID = "letta:" + str(l.agent, "id")
		if str(l.agent, "id") == "" {
			h.GolemID = "letta:" + str(l.agent, "name")
		}
	}
	t, ok := parseTime(str(l.doc, "created_at"))
	if !ok {
		for _, m := range msgs {
			if mt, ok := parseTime(str(asMap(m), "created_at")); ok && mt.After(t) {
				t = mt
			}
		}
	}
	if t.IsZero() {
		if l.o.Now.IsZero() {
			return fmt.Errorf("%w: the agent file names no time (no created_at, no dated message): give --now", ErrMalformed)
		}
		t = l.o.Now.UTC()
	}
	h.ExportedAt, l.at = t, t
	ec := obj(l.agent, "embedding_config")
	if model, dims := str(ec, "embedding_model"), intOf(ec, "embedding_dim"); model != "" && dims > 0 && l.hasPassages() {
		h.Embedding = &grimoire.EmbeddingSpace{Model: model, Dims: dims}
	}
	l.res.Header = h
	return nil
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func intOf(m map[string]any, k string) int {
	f, ok := num(m, k)
	if !ok || f != math.Trunc(f) || f < 0 || f > 1<<31 {
		return 0
	}
	return int(f)
}

// blocks imports the agent's memory blocks: those of the top-level
// blocks[] its block_ids name, and any inline memory_blocks.
func (l *lettaImport) blocks() {
	rep := &l.res.Report
	byID := map[string]map[string]any{}
	for _, b := range arr(l.doc, "blocks") {
		if bm := asMap(b); bm != nil {
			byID[str(bm, "id")] = bm
		}
	}
	rep.Read["blocks"] = len(arr(l.doc, "blocks"))
	seen := map[string]bool{}
	var mine []map[string]any
	missing := 0
	for _, id := range arr(l.agent, "block_ids") {
		s, _ := id.(string)
		if b := byID[s]; b != nil && !seen[s] {
			seen[s] = true
			mine = append(mine, b)
		} else if b == nil {
			missing++
		}
	}
	for _, b := range arr(l.agent, "memory_blocks") {
		if bm := asMap(b); bm != nil && !seen[str(bm, "id")] {
			seen[str(bm, "id")] = true
			mine = append(mine, bm)
		}
	}
	rep.leave("block ids without a block", missing, "the agent names a block the file does not hold")
	empty := 0
	for i, b := range mine {
		text := strings.TrimSpace(str(b, "value"))
		if text == "" {
			empty++
			continue
		}
		label := str(b, "label")
		id := str(b, "id")
		if id == "" {
			id = fmt.Sprintf("%s-%d", label, i)
		}
		e := &grimoire.Entry{ID: "letta:block:" + id, Category: grimoire.CategoryInsight, Content: text,
			Confidence: blockConfidence, QualityScore: blockQuality, DecayClass: grimoire.DecayProcedural,
			Domain: "letta/" + label, LastAccessedAt: l.at, Status: status(l.o, grimoire.StatusActive),
			Tags: []string{"letta", "letta-block:" + label}}
		if label == "" {
			e.Domain = "letta"
		}
		if label == "persona" {
			e.Category = grimoire.CategoryStrategyFragment
		}
		if b["read_only"] == true {
			e.DecayClass = grimoire.DecayStructural
			e.Tags = append(e.Tags, "read_only")
		}
		l.res.add(e)
	}
	rep.leave("empty blocks", empty, "no text to know")
	rep.leave("the system message's rendering of the blocks", countSystem(arr(l.agent, "messages")),
		"often stale; blocks are read from blocks[] only")
}

func countSystem(msgs []any) int {
	n := 0
	for _, m := range msgs {
		if str(asMap(m), "role") == "system" {
			n++
		}
	}
	return n
}

func (l *lettaImport) hasPassages() bool { return len(l.passageList()) > 0 }

// passageList is the agent's archival passages: its own passages[] and
// the top-level passages[] that name it.
func (l *lettaImport) passageList() []map[string]any {
	var out []map[string]any
	for _, p := range arr(l.agent, "passages") {
		if pm := asMap(p); pm != nil {
			out = append(out, pm)
		}
	}
	for _, p := range arr(l.doc, "passages") {
		if pm := asMap(p); pm != nil && str(pm, "agent_id") == str(l.agent, "id") {
			out = append(out, pm)
		}
	}
	return out
}

func (l *lettaImport) passages() {
	rep := &l.res.Report
	list := l.passageList()
	rep.Read["passages"] = len(list)
	space := l.res.Header.Embedding
	dropped, empty := 0, 0
	for i, p := range list {
		text := strings.TrimSpace(str(p, "text"))
		if text == "" {
			text = strings.TrimSpace(str(p, "content"))
		}
		if text == "" {
			empty++
			continue
		}
		id := str(p, "id")
		if id == "" {
			id = fmt.Sprintf("%d", i)
		}
		at := l.at
		if t, ok := parseTime(str(p, "created_at")); ok {
			at = t
		}
		e := &grimoire.Entry{ID: "letta:passage:" + id, Category: grimoire.CategoryInsight, Content: text,
			Confidence: passageConfidence, QualityScore: passageQuality, DecayClass: grimoire.DecayTactical,
			Domain: "letta/archival", LastAccessedAt: at, Status: status(l.o, grimoire.StatusActive), Tags: []string{"letta", "letta-archival"}}
		for _, t := range arr(p, "tags") {
			if s, ok := t.(string); ok && s != "" {
				e.Tags = append(e.Tags, s)
			}
		}
		if vec, ok := l.vector(p, space); ok {
			e.Embedding = vec
		} else if p["embedding"] != nil {
			dropped++
		}
		l.res.add(e)
	}
	rep.leave("empty passages", empty, "no text to know")
	rep.leave("passage embeddings", dropped, "not in the agent's embedding_config space (model or length differ)")
}

// vector is a passage's embedding in the agent's space: its model (when it
// names one) is the space's, and its length the space's dims, or longer
// with only zeros beyond them (Letta pads stored vectors).
func (l *lettaImport) vector(p map[string]any, space *grimoire.EmbeddingSpace) (grimoire.Vector, bool) {
	raw := arr(p, "embedding")
	if space == nil || len(raw) < space.Dims {
		return nil, false
	}
	if ec := obj(p, "embedding_config"); ec != nil && str(ec, "embedding_model") != "" && str(ec, "embedding_model") != space.Model {
		return nil, false
	}
	vec := make(grimoire.Vector, space.Dims)
	for i, x := range raw {
		f, ok := x.(float64)
		if !ok || math.IsNaN(f) || math.Abs(f) > math.MaxFloat32 {
			return nil, false
		}
		if i >= space.Dims {
			if f != 0 {
				return nil, false
			}
			continue
		}
		vec[i] = float32(f)
	}
	return vec, true
}

// messages turns the agent's non-system messages into episodes: soma,
// experience that never passes a bottleneck.
func (l *lettaImport) messages(msgs []any) {
	rep := &l.res.Report
	rep.Read["messages"] = len(msgs)
	tick := int64(0)
	for i, m := range msgs {
		mm := asMap(m)
		if mm == nil || str(mm, "role") == "system" {
			continue
		}
		at, ok := parseTime(str(mm, "created_at"))
		if !ok {
			at = l.at
		}
		id := str(mm, "id")
		if id == "" {
			id = fmt.Sprintf("%d", i)
		}
		tick++
		ep := &grimoire.Episode{ID: "letta:message:" + id, Tick: tick, At: at, Summary: messageText(mm)}
		var calls []string
		for _, c := range arr(mm, "tool_calls") {
			fn := obj(asMap(c), "function")
			if name := str(fn, "name"); name != "" {
				calls = append(calls, name)
				if args := str(fn, "arguments"); args != "" {
					ep.Summary = strings.TrimSpace(ep.Summary + "\n" + name + "(" + args + ")")
				}
			}
		}
		ep.Action = strings.Join(calls, ",")
		if ep.Summary == "" {
			ep.Summary = str(mm, "role")
		} else {
			ep.Summary = str(mm, "role") + ": " + ep.Summary
		}
		l.res.add(ep)
	}
}

// messageText is a message's text: content [{type: "text", text}] or, in
// older files, a plain string.
func messageText(m map[string]any) string {
	if s, ok := m["content"].(string); ok {
		return strings.TrimSpace(s)
	}
	if s := str(m, "text"); s != "" {
		return strings.TrimSpace(s)
	}
	var parts []string
	for _, c := range arr(m, "content") {
		cm := asMap(c)
		if t := str(cm, "text"); t != "" && (str(cm, "type") == "text" || str(cm, "type") == "") {
			parts = append(parts, strings.TrimSpace(t))
		}
	}
	return strings.Join(parts, "\n")
}
