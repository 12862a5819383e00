package foreign

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/jcs"
)

// What an imported Letta block or passage is worth, the file saying
// nothing of it (see the package doc).
const (
	blockConfidence   = 0.6
	blockQuality      = 0.6
	passageConfidence = 0.5
	passageQuality    = 0.5
)

// What a Letta file holds beside its agents that is not imported, and why.
var lettaOthers = []struct{ key, reason string }{
	{"tools", "code and schemas, not knowledge"},
	{"mcp_servers", "connections, not knowledge"},
	{"sources", "attached data sources, not the agent's memory"},
	{"files", "attached files, not the agent's memory"},
	{"skills", "procedures of the Letta runtime, not knowledge"},
	{"groups", "how agents of the file run together"},
}

// FromLetta converts one agent of a Letta Agent File, src of size bytes,
// and writes its export to w. The file is read three times, holding only
// what it keeps (see the package doc, "Bounds"): for its agents and
// times, for the chosen agent's blocks and passages, and for its messages,
// which are written as they are read.
func FromLetta(src io.ReaderAt, size int64, w io.Writer, o Options) (*Result, error) {
	l := &lettaImport{src: src, size: size, o: o, b: &jcs.Budget{Limit: MaxHeldBytes}, rep: newReport(KindLetta, o.Trusted)}
	if err := l.survey(); err != nil {
		return nil, err
	}
	if err := l.pick(); err != nil {
		return nil, err
	}
	if err := l.header(); err != nil {
		return nil, err
	}
	out := newExportWriter(w, &l.rep, l.b)
	if err := out.header(&l.h); err != nil {
		return nil, err
	}
	entries, err := l.entries()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if err := out.write(e); err != nil {
			return nil, err
		}
	}
	if err := l.messages(out); err != nil {
		return nil, err
	}
	if err := out.flush(); err != nil {
		return nil, err
	}
	l.leftOut()
	return &Result{Header: l.h, Report: l.rep}, nil
}

type lettaImport struct {
	src  io.ReaderAt
	size int64
	o    Options
	b    *jcs.Budget
	rep  Report
	h    grimoire.Header
	at   time.Time // the file's time: exported_at, and when blocks were last in context

	// The survey: what the file holds, and of each agent what picks it
	// and dates the file.
	hasAgents bool
	agents    []*lettaAgent
	created   string
	blocks    int
	others    map[string]int
	topOwners map[string]int // agent id → top-level passages naming it

	agent  *lettaAgent // the one imported
	chosen int         // its index in agents

	msg lettaMessage // the message being read
}

// lettaAgent is what the survey keeps of an agent.
type lettaAgent struct {
	name, id, typ    string
	blockIDs         []string
	model            string
	dims             int
	secrets, toolEnv bool
	passages         int // its own passages[] objects
	messages, system int
	latest           time.Time // its latest dated message
}

func (a *lettaAgent) describe() string { return fmt.Sprintf("%s (%s)", a.name, a.id) }

func (l *lettaImport) walk(f func(d *jcs.Decoder, key string) error) error {
	return walkDocument(l.src, l.size, jcs.RFC8785, l.b, func(d *jcs.Decoder) error {
		if k, err := d.Peek(); err != nil || k != jcs.Object {
			if err == nil {
				err = fmt.Errorf("%w: an agent file is an object, this is %s", ErrMalformed, k)
			}
			return err
		}
		return d.Object(func(key string) error { return f(d, key) })
	})
}

// survey reads the file's agents (what picks one and dates the file),
// its time and how much it holds of each thing.
func (l *lettaImport) survey() error {
	l.others, l.topOwners = map[string]int{}, map[string]int{}
	return l.walk(func(d *jcs.Decoder, key string) error {
		switch key {
		case "agents":
			if k, err := d.Peek(); err != nil || k != jcs.Array {
				return err
			}
			l.hasAgents = true
			return d.Array(func(i int) error {
				if k, err := d.Peek(); err != nil || k != jcs.Object {
					if err == nil {
						err = fmt.Errorf("%w: agents[%d] is not an object", ErrMalformed, i)
					}
					return err
				}
				a := &lettaAgent{}
				l.agents = append(l.agents, a)
				if err := l.b.Charge(256); err != nil {
					return err
				}
				return d.Object(func(key string) error { return l.surveyAgent(d, a, key, i) })
			})
		case "created_at":
			var err error
			l.created, err = word(d, "created_at")
			return err
		case "blocks":
			return elements(d, func(int) error { l.blocks++; return nil })
		case "passages":
			return elements(d, func(i int) error {
				return members(d, func(key string) error {
					if key != "agent_id" {
						return nil
					}
					id, err := word(d, "passages[].agent_id")
					if err != nil {
						return err
					}
					if _, ok := l.topOwners[id]; !ok {
						if err := l.b.Charge(jcs.StringCost(len(id)) + 32); err != nil {
							return err
						}
					}
					l.topOwners[id]++
					return nil
				})
			})
		}
		for _, o := range lettaOthers {
			if key == o.key {
				n := 0
				err := elements(d, func(int) error { n++; return nil })
				l.others[key] += n
				return err
			}
		}
		return nil
	})
}

func (l *lettaImport) surveyAgent(d *jcs.Decoder, a *lettaAgent, key string, i int) error {
	path := "agents[]." + key
	var err error
	switch key {
	case "name":
		a.name, err = word(d, path)
	case "id":
		a.id, err = word(d, path)
	case "agent_type":
		a.typ, err = word(d, path)
	case "block_ids":
		err = elements(d, func(j int) error {
			id, err := word(d, path+"[]")
			if err == nil {
				a.blockIDs = append(a.blockIDs, id)
				err = l.b.Charge(jcs.StringCost(len(id)))
			}
			return err
		})
	case "embedding_config":
		err = members(d, func(k string) error {
			switch k {
			case "embedding_model":
				var err error
				a.model, err = word(d, path+"."+k)
				return err
			case "embedding_dim":
				f, ok, err := optNumber(d)
				if ok && f == math.Trunc(f) && f > 0 && f <= 1<<31 {
					a.dims = int(f)
				}
				return err
			}
			return nil
		})
	case "secrets":
		a.secrets = true
	case "tool_exec_environment_variables":
		a.toolEnv = true
	case "passages":
		err = elements(d, func(int) error {
			if k, err := d.Peek(); err != nil || k != jcs.Object {
				return err
			}
			a.passages++
			return nil
		})
	case "messages":
		err = elements(d, func(j int) error {
			a.messages++
			return members(d, func(k string) error {
				switch k {
				case "role":
					role, err := word(d, "agents[].messages[].role")
					if role == "system" {
						a.system++
					}
					return err
				case "created_at":
					s, err := word(d, "agents[].messages[].created_at")
					if t, ok := parseTime(s); ok && t.After(a.latest) {
						a.latest = t
					}
					return err
				}
				return nil
			})
		})
	}
	return err
}

// pick chooses the agent named (name or id) or, with no name, the one
// agent that is not a sleep-time agent.
func (l *lettaImport) pick() error {
	if !l.hasAgents {
		return fmt.Errorf("%w: no agents array: not a Letta agent file", ErrMalformed)
	}
	if len(l.agents) == 0 {
		return fmt.Errorf("%w: the agents array is empty: the file holds no agent to import", ErrMalformed)
	}
	names := make([]string, len(l.agents))
	var primary []int
	for i, a := range l.agents {
		names[i] = a.describe()
		if !strings.Contains(a.typ, "sleeptime") {
			primary = append(primary, i)
		}
	}
	l.rep.Agents = names
	l.chosen = -1
	switch want := l.o.Agent; {
	case want != "":
		for i, a := range l.agents {
			if a.id == want {
				l.chosen = i
				break
			}
		}
		if l.chosen < 0 {
			var match []int
			for i, a := range l.agents {
				if a.name == want {
					match = append(match, i)
				}
			}
			if len(match) == 1 {
				l.chosen = match[0]
			}
		}
	case len(l.agents) == 1:
		l.chosen = 0
	case len(primary) == 1:
		l.chosen = primary[0]
	}
	if l.chosen < 0 {
		return &AgentError{Asked: l.o.Agent, Agents: names}
	}
	l.agent = l.agents[l.chosen]
	l.rep.Agent = l.agent.describe()
	return nil
}

func (l *lettaImport) header() error {
	a := l.agent
	h := grimoire.Header{Format: grimoire.Format, GolemID: l.o.GolemID}
	if h.GolemID == "" {
		h.GolemID = "letta:" + a.id
		if a.id == "" {
			h.GolemID = "letta:" + a.name
		}
	}
	l.rep.fitHeader(&h, "letta:")
	t, ok := parseTime(l.created)
	if !ok {
		t = a.latest
	}
	if t.IsZero() {
		if l.o.Now.IsZero() {
			return fmt.Errorf("%w: the agent file names no time (no created_at, no dated message): give --now", ErrMalformed)
		}
		t = l.o.Now.UTC()
	}
	h.ExportedAt, l.at = t, t
	if a.passages+l.topOwners[a.id] > 0 {
		h.Embedding = l.rep.fitSpace(a.model, a.dims)
	}
	l.h = h
	return nil
}

// lettaBlock is a memory block read.
type lettaBlock struct {
	id, label, value string
	cut, readOnly    bool
}

// lettaPassage is an archival passage read.
type lettaPassage struct {
	id, text, content, agentID, created, model string
	textCut                                    bool
	tags                                       []string
	tagsCut                                    int
	vec                                        grimoire.Vector
	hadVec                                     bool
}

// entries reads the chosen agent's blocks — those of the top-level
// blocks[] its block_ids name, then its inline memory_blocks — and its
// archival passages (its own passages[], then the top-level passages[]
// that name it), and returns them as entries, in id order.
func (l *lettaImport) entries() ([]grimoire.Record, error) {
	a := l.agent
	want := map[string]int{}
	for _, id := range a.blockIDs {
		if _, ok := want[id]; !ok {
			want[id] = len(want)
		}
	}
	top := make([]*lettaBlock, len(want))
	var inline []*lettaBlock
	var own, others []*lettaPassage
	err := l.walk(func(d *jcs.Decoder, key string) error {
		switch key {
		case "blocks":
			return elements(d, func(i int) error {
				b, err := l.block(d, "blocks[]")
				if b != nil {
					if j, ok := want[b.id]; ok && top[j] == nil {
						top[j] = b
						return l.b.Charge(blockCost(b))
					}
				}
				return err
			})
		case "agents":
			return elements(d, func(i int) error {
				if i != l.chosen {
					return nil
				}
				return members(d, func(key string) error {
					path := "agents[]." + key
					switch key {
					case "memory_blocks":
						return elements(d, func(j int) error {
							b, err := l.block(d, path+"[]")
							if b != nil {
								inline = append(inline, b)
								err = l.b.Charge(blockCost(b))
							}
							return err
						})
					case "passages":
						return elements(d, func(j int) error {
							p, err := l.passage(d, path+"[]")
							if p != nil {
								own = append(own, p)
								err = l.b.Charge(passageCost(p))
							}
							return err
						})
					}
					return nil
				})
			})
		case "passages":
			return elements(d, func(j int) error {
				p, err := l.passage(d, "passages[]")
				if p != nil && p.agentID == a.id {
					others = append(others, p)
					err = l.b.Charge(passageCost(p))
				}
				return err
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var recs []grimoire.Record
	mine, seen, missing := []*lettaBlock{}, map[string]bool{}, 0
	for _, id := range a.blockIDs {
		b := top[want[id]]
		switch {
		case b == nil:
			missing++
		case !seen[id]:
			seen[id] = true
			mine = append(mine, b)
		}
	}
	for _, b := range inline {
		if !seen[b.id] {
			seen[b.id] = true
			mine = append(mine, b)
		}
	}
	l.rep.Read["blocks"] = l.blocks
	l.rep.leave("block ids without a block", missing, "the agent names a block the file does not hold")
	empty := 0
	for i, b := range mine {
		if e := l.blockEntry(b, i); e != nil {
			recs = append(recs, e)
		} else {
			empty++
		}
	}
	l.rep.leave("empty blocks", empty, "no text to know")
	l.rep.leave("the system message's rendering of the blocks", a.system, "often stale; blocks are read from blocks[] only")
	list := append(own, others...)
	l.rep.Read["passages"] = len(list)
	empty, dropped := 0, 0
	for i, p := range list {
		e := l.passageEntry(p, i)
		switch {
		case e == nil:
			empty++
			continue
		case e.Embedding == nil && p.hadVec:
			dropped++
		}
		recs = append(recs, e)
	}
	l.rep.leave("empty passages", empty, "no text to know")
	l.rep.leave("passage embeddings", dropped, "not in the agent's embedding_config space (model or length differ)")
	sortRecords(recs)
	return recs, nil
}

func blockCost(b *lettaBlock) int64 {
	return costEntry + jcs.StringCost(len(b.id)) + jcs.StringCost(len(b.label)) + jcs.StringCost(len(b.value))
}

func passageCost(p *lettaPassage) int64 {
	n := costEntry + jcs.StringCost(len(p.id)) + jcs.StringCost(len(p.text)) + jcs.StringCost(len(p.content)) + 4*int64(len(p.vec))
	for _, t := range p.tags {
		n += jcs.StringCost(len(t))
	}
	return n
}

// block reads a memory block; nil for a value that is not an object.
func (l *lettaImport) block(d *jcs.Decoder, path string) (*lettaBlock, error) {
	if k, err := d.Peek(); err != nil || k != jcs.Object {
		return nil, err
	}
	b := &lettaBlock{}
	err := d.Object(func(key string) error {
		var err error
		switch key {
		case "id":
			b.id, err = word(d, path+".id")
		case "label":
			b.label, err = word(d, path+".label")
		case "value":
			b.value, b.cut, err = optText(d, bundle.MaxContentBytes)
		case "read_only":
			b.readOnly, err = isTrue(d)
		}
		return err
	})
	return b, err
}

// passage reads an archival passage: its vector only as far as it is
// one of the agent's space (see vector).
func (l *lettaImport) passage(d *jcs.Decoder, path string) (*lettaPassage, error) {
	if k, err := d.Peek(); err != nil || k != jcs.Object {
		return nil, err
	}
	p := &lettaPassage{}
	err := d.Object(func(key string) error {
		var err error
		switch key {
		case "id":
			p.id, err = word(d, path+".id")
		case "text":
			p.text, p.textCut, err = optText(d, bundle.MaxContentBytes)
		case "content":
			var c bool
			p.content, c, err = optText(d, bundle.MaxContentBytes)
			p.textCut = p.textCut || c
		case "agent_id":
			p.agentID, err = word(d, path+".agent_id")
		case "created_at":
			p.created, err = word(d, path+".created_at")
		case "tags":
			err = elements(d, func(int) error {
				s, c, err := optText(d, bundle.MaxStringBytes)
				switch {
				case c || len(p.tags) == bundle.MaxTags:
					p.tagsCut++
				case s != "":
					p.tags = append(p.tags, s)
				}
				return err
			})
		case "embedding_config":
			err = members(d, func(k string) error {
				if k == "embedding_model" {
					var err error
					p.model, err = word(d, path+".embedding_config.embedding_model")
					return err
				}
				return nil
			})
		case "embedding":
			if k, err := d.Peek(); err != nil || k == jcs.Null {
				return err
			}
			p.hadVec = true
			p.vec, err = l.vector(d)
		}
		return err
	})
	return p, err
}

// vector reads a passage's embedding as a vector of the agent's space:
// its length the space's dims, or longer with only zeros beyond them
// (Letta pads stored vectors); nil for any other value.
func (l *lettaImport) vector(d *jcs.Decoder) (grimoire.Vector, error) {
	space := l.h.Embedding
	if k, err := d.Peek(); err != nil || k != jcs.Array || space == nil {
		return nil, err
	}
	vec := make(grimoire.Vector, space.Dims)
	n, ok := 0, true
	err := d.Array(func(i int) error {
		n++
		f, isNum, err := optNumber(d)
		switch {
		case err != nil:
			return err
		case !isNum || math.Abs(f) > math.MaxFloat32:
			ok = false
		case i < space.Dims:
			vec[i] = float32(f)
		case f != 0:
			ok = false
		}
		return nil
	})
	if err != nil || !ok || n < space.Dims {
		return nil, err
	}
	return vec, nil
}

func (l *lettaImport) blockEntry(b *lettaBlock, i int) *grimoire.Entry {
	text := strings.TrimSpace(b.value)
	if text == "" {
		return nil
	}
	if b.cut {
		l.rep.change("entry contents", 1, whyText)
	}
	id := b.id
	if id == "" {
		id = fmt.Sprintf("%s-%d", b.label, i)
	}
	e := &grimoire.Entry{ID: l.rep.fitID("letta:block:"+id, "letta:block:"), Category: grimoire.CategoryInsight, Content: text,
		Confidence: blockConfidence, QualityScore: blockQuality, DecayClass: grimoire.DecayProcedural,
		Domain: "letta/" + b.label, LastAccessedAt: l.at, Status: status(l.o, grimoire.StatusActive),
		Tags: []string{"letta", "letta-block:" + b.label}}
	if b.label == "" {
		e.Domain = "letta"
	}
	if b.label == "persona" {
		e.Category = grimoire.CategoryStrategyFragment
	}
	if b.readOnly {
		e.DecayClass = grimoire.DecayStructural
		e.Tags = append(e.Tags, "read_only")
	}
	l.rep.fitEntry(e, l.h.Embedding)
	return e
}

func (l *lettaImport) passageEntry(p *lettaPassage, i int) *grimoire.Entry {
	text := strings.TrimSpace(p.text)
	if text == "" {
		text = strings.TrimSpace(p.content)
	}
	if text == "" {
		return nil
	}
	if p.textCut {
		l.rep.change("entry contents", 1, whyText)
	}
	id := p.id
	if id == "" {
		id = strconv.Itoa(i)
	}
	at := l.at
	if t, ok := parseTime(p.created); ok {
		at = t
	}
	e := &grimoire.Entry{ID: l.rep.fitID("letta:passage:"+id, "letta:passage:"), Category: grimoire.CategoryInsight, Content: text,
		Confidence: passageConfidence, QualityScore: passageQuality, DecayClass: grimoire.DecayTactical,
		Domain: "letta/archival", LastAccessedAt: at, Status: status(l.o, grimoire.StatusActive),
		Tags: append([]string{"letta", "letta-archival"}, p.tags...)}
	if p.tagsCut > 0 {
		l.rep.change("entry tags", p.tagsCut, whyTags)
	}
	if p.vec != nil && (p.model == "" || p.model == l.h.Embedding.Model) {
		e.Embedding = p.vec
	}
	l.rep.fitEntry(e, l.h.Embedding)
	return e
}

// messages writes the chosen agent's messages but system messages as
// episodes, as they are read: soma, experience that never passes a
// bottleneck.
func (l *lettaImport) messages(out *exportWriter) error {
	tick, empty := int64(0), 0
	err := l.walk(func(d *jcs.Decoder, key string) error {
		if key != "agents" {
			return nil
		}
		return elements(d, func(i int) error {
			if i != l.chosen {
				return nil
			}
			return members(d, func(key string) error {
				if key != "messages" {
					return nil
				}
				return elements(d, func(j int) error {
					m, err := l.message(d)
					if m == nil || err != nil || m.role == "system" {
						return err
					}
					ep := m.episode(l, j)
					if ep == nil {
						empty++
						return nil
					}
					tick++
					ep.Tick = tick
					return out.write(ep)
				})
			})
		})
	})
	l.rep.Read["messages"] = l.agent.messages
	l.rep.leave("messages without text or tool calls", empty, "nothing was said or done")
	return err
}

// lettaMessage is a message read: at most bundle.MaxContentBytes of its
// text, and of its tool calls' names and arguments.
type lettaMessage struct {
	role, id, created string
	content, text     string
	isString          bool // content is a plain string (older files)
	parts             []string
	calls             []string // names
	callText          strings.Builder
	held              int // bytes of text kept so far
	cut               bool
}

// message reads a message into l.msg, which it returns; nil for a
// value that is not an object.
func (l *lettaImport) message(d *jcs.Decoder) (*lettaMessage, error) {
	if k, err := d.Peek(); err != nil || k != jcs.Object {
		return nil, err
	}
	const path = "agents[].messages[]"
	m := &l.msg
	*m = lettaMessage{parts: m.parts[:0], calls: m.calls[:0]}
	room := func() int { return max(0, bundle.MaxContentBytes-m.held) }
	err := d.Object(func(key string) error {
		var err error
		var c bool
		switch key {
		case "role":
			m.role, err = word(d, path+".role")
		case "id":
			m.id, err = word(d, path+".id")
		case "created_at":
			m.created, err = word(d, path+".created_at")
		case "text":
			m.text, c, err = optText(d, room())
			m.held += len(m.text)
		case "content":
			switch k, err := d.Peek(); {
			case err != nil:
				return err
			case k == jcs.String:
				m.isString = true
				m.content, c, err = d.Text(room())
				m.held += len(m.content)
				m.cut = m.cut || c
				return err
			}
			err = elements(d, func(int) error {
				var typ, text string
				err := members(d, func(k string) error {
					var err error
					var c bool
					switch k {
					case "type":
						typ, err = word(d, path+".content[].type")
					case "text":
						text, c, err = optText(d, room())
						m.cut = m.cut || c
					}
					return err
				})
				if text != "" && (typ == "text" || typ == "") {
					m.parts = append(m.parts, strings.TrimSpace(text))
					m.held += len(text)
				}
				return err
			})
		case "tool_calls":
			err = elements(d, func(int) error {
				var name, args string
				err := members(d, func(k string) error {
					if k != "function" {
						return nil
					}
					return members(d, func(k string) error {
						var err error
						var c bool
						switch k {
						case "name":
							name, c, err = optText(d, room())
						case "arguments":
							args, c, err = optText(d, room())
						}
						m.cut = m.cut || c
						return err
					})
				})
				if name != "" {
					m.calls = append(m.calls, name)
					m.held += len(name) + 1
					if args != "" {
						m.callText.WriteString("\n" + name + "(" + args + ")")
						m.held += len(name) + len(args) + 3
					}
				}
				return err
			})
		}
		m.cut = m.cut || c
		return err
	})
	return m, err
}

// episode is the message as an episode: its text (content as a string,
// or text, or the text parts of content) then each tool call with
// arguments; the calls' names are its action. nil for a message with
// neither text nor tool calls.
func (m *lettaMessage) episode(l *lettaImport, j int) *grimoire.Episode {
	var text string
	switch {
	case m.isString:
		text = strings.TrimSpace(m.content)
	case strings.TrimSpace(m.text) != "":
		text = strings.TrimSpace(m.text)
	default:
		text = strings.Join(m.parts, "\n")
	}
	summary := strings.TrimSpace(text + m.callText.String())
	if summary == "" && len(m.calls) == 0 {
		return nil
	}
	at, ok := parseTime(m.created)
	if !ok {
		at = l.at
	}
	id := m.id
	if id == "" {
		id = strconv.Itoa(j)
	}
	ep := &grimoire.Episode{ID: l.rep.fitID("letta:message:"+id, "letta:message:"), At: at, Action: strings.Join(m.calls, ",")}
	if summary == "" {
		ep.Summary = m.role
	} else {
		ep.Summary = m.role + ": " + summary
	}
	if m.cut {
		l.rep.change("episode summaries", 1, whyText)
	}
	l.rep.fitEpisode(ep)
	return ep
}

// leftOut counts what the file holds that is not imported.
func (l *lettaImport) leftOut() {
	// Never read: secrets and tool environment variables, even empty.
	if l.agent.secrets {
		l.rep.LeftOut = append(l.rep.LeftOut, Tally{What: "agent secrets", Count: 1, Reason: "secrets are never imported"})
	}
	if l.agent.toolEnv {
		l.rep.LeftOut = append(l.rep.LeftOut, Tally{What: "agent tool_exec_environment_variables", Count: 1, Reason: "secrets are never imported"})
	}
	for _, o := range lettaOthers {
		l.rep.Read[o.key] = l.others[o.key]
		l.rep.leave(o.key, l.others[o.key], o.reason)
	}
	others := 0
	for i, a := range l.agents {
		if i != l.chosen && a.id != l.agent.id {
			others++
		}
	}
	l.rep.leave("other agents", others, "one agent is imported; pick another with --agent")
}
