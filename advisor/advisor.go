package advisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
)

// InputFormat names the document an advisor reads.
const InputFormat = "bardo.advisor-input/v1"

// MaxOutput bounds what is read of an advisor's answer, in bytes.
const MaxOutput = 1 << 20

// instructions is the advisor's task, in the document it reads.
const instructions = "You are writing category 6 of a dying agent's death reflection: what it would tell its successor. " +
	"Read the other categories and write a few short, concrete pieces of advice. " +
	"Answer with plain text, one piece of advice per paragraph, or with JSON " +
	`{"items": [{"text": "...", "refs": [{"kind": "entry", "id": "..."}]}]} whose refs name only references given here.`

// Input is the bardo.advisor-input/v1 document: the reflection with
// categories 1–5 and 7–9 assembled, each item's text and references.
type Input struct {
	Format       string     `json:"format"` // InputFormat
	GolemID      string     `json:"golem_id"`
	Generation   int        `json:"generation"`
	Instructions string     `json:"instructions"`
	Categories   Categories `json:"categories"`
}

// Categories are the reflection's categories but tell_successor, in index
// order.
type Categories struct {
	BuiltToDo     []Item `json:"built_to_do"`
	Learned       []Item `json:"learned"`
	GotWrong      []Item `json:"got_wrong"`
	Confused      []Item `json:"confused"`
	Suspect       []Item `json:"suspect"`
	NeverTested   []Item `json:"never_tested"`
	FinalPlaybook []Item `json:"final_playbook"`
	CausalGraph   []Item `json:"causal_graph"`
}

// Item is one item of the reflection, in the input, or of the advice, in
// a JSON answer.
type Item struct {
	Text string `json:"text"`
	Refs []Ref  `json:"refs"`
}

// Ref is a reference of an item: its kind ("entry", …) and the id.
type Ref struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// answer is an advisor's JSON answer.
type answer struct {
	Items []Item `json:"items"`
}

// NewInput returns the document an advisor reads about r.
func NewInput(r *reflection.Reflection) Input {
	items := func(name string) []Item {
		out := []Item{}
		for _, it := range r.Items(name) {
			refs := []Ref{}
			for _, ref := range it.Refs {
				refs = append(refs, Ref{Kind: ref.Kind, ID: ref.ID})
			}
			out = append(out, Item{Text: it.Text, Refs: refs})
		}
		return out
	}
	return Input{
		Format:       InputFormat,
		GolemID:      r.GolemID,
		Generation:   r.Generation,
		Instructions: instructions,
		Categories: Categories{
			BuiltToDo:     items(reflection.NameBuiltToDo),
			Learned:       items(reflection.NameLearned),
			GotWrong:      items(reflection.NameGotWrong),
			Confused:      items(reflection.NameConfused),
			Suspect:       items(reflection.NameSuspect),
			NeverTested:   items(reflection.NameNeverTested),
			FinalPlaybook: items(reflection.NameFinalPlaybook),
			CausalGraph:   items(reflection.NameCausalGraph),
		},
	}
}

// Encode writes in as the advisor reads it: indented by two spaces, "<"
// and "&" as they are, a newline at the end.
func (in Input) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(in)
}

// Advise asks the advisor `sh -c command` for the tell_successor items of
// r: it writes r's Input to its standard input, gives it at most timeout,
// and returns its answer parsed and checked. What the advisor writes on
// standard error goes to stderr (nil: discarded). The error, if any, is
// the reason the answer is not used.
func Advise(ctx context.Context, command string, timeout time.Duration, r *reflection.Reflection, stderr io.Writer) ([]reflection.Item, error) {
	var in bytes.Buffer
	if err := NewInput(r).Encode(&in); err != nil {
		return nil, fmt.Errorf("%s: %w", InputFormat, err)
	}
	out, err := Run(ctx, command, timeout, in.Bytes(), stderr)
	if err != nil {
		return nil, err
	}
	items, err := Parse(out)
	if err != nil {
		return nil, err
	}
	return items, Check(items)
}

// Run runs `sh -c command` with input on its standard input, for at most
// timeout, and returns its standard output. Its errors are the reasons a
// bundle records: short, and the same on every run.
func Run(ctx context.Context, command string, timeout time.Duration, input []byte, stderr io.Writer) ([]byte, error) {
	if stderr == nil {
		stderr = io.Discard
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdin = bytes.NewReader(input)
	out := &cappedBuffer{max: MaxOutput}
	cmd.Stdout = out
	cmd.Stderr = stderr
	killGroupOnCancel(cmd)
	// A process the shell started may hold standard output open after the
	// shell is killed: stop waiting for it soon after.
	cmd.WaitDelay = time.Second

	err := cmd.Run()
	// The advisor's answer is in: whatever it left running in the
	// background (its process group) goes now, not at some later time.
	killGroup(cmd)
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("timed out after %s", timeout)
	case errors.As(err, &exit):
		if exit.Exited() {
			return nil, fmt.Errorf("exited with status %d", exit.ExitCode())
		}
		return nil, fmt.Errorf("ended by %s", exit)
	case out.overflow:
		return nil, fmt.Errorf("wrote more than %d bytes", MaxOutput)
	case err != nil:
		return nil, fmt.Errorf("could not run: %w", err)
	}
	return out.Bytes(), nil
}

// Parse reads an advisor's answer: JSON when it starts with "{", else
// paragraphs of plain text.
func Parse(out []byte) ([]reflection.Item, error) {
	text := strings.TrimSpace(string(out))
	if text == "" {
		return nil, errors.New("wrote nothing")
	}
	if strings.HasPrefix(text, "{") {
		var ans answer
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ans); err != nil {
			return nil, fmt.Errorf("its JSON answer does not parse: %w", err)
		}
		items := make([]reflection.Item, len(ans.Items))
		for i, a := range ans.Items {
			items[i].Text = strings.TrimSpace(a.Text)
			for _, r := range a.Refs {
				items[i].Refs = append(items[i].Refs, reflection.Ref{Kind: r.Kind, ID: r.ID})
			}
		}
		return items, nil
	}
	var items []reflection.Item
	for _, para := range paragraphs(text) {
		items = append(items, reflection.Item{Text: para})
	}
	return items, nil
}

// MaxItems and MaxText bound what an advisor may put into
// tell_successor: items, and bytes of one item's text.
const (
	MaxItems = 64
	MaxText  = 4096
)

// Check holds an advisor's items to the bundle's text rules, so that
// an advisor can never make a bundle that verify refuses or a successor
// cannot inherit: valid UTF-8 (the CBOR decoder refuses anything else),
// no control character but tab and newline (a NUL would cut a C reader's
// string, an escape would drive a terminal), no empty item, and the
// bounds above. Any break is a reason the advisor was not used.
func Check(items []reflection.Item) error {
	if len(items) > MaxItems {
		return fmt.Errorf("wrote %d items, more than %d", len(items), MaxItems)
	}
	for i, it := range items {
		switch {
		case it.Text == "":
			return fmt.Errorf("item %d has no text", i+1)
		case len(it.Text) > MaxText:
			return fmt.Errorf("item %d has %d bytes of text, more than %d", i+1, len(it.Text), MaxText)
		case !utf8.ValidString(it.Text):
			return fmt.Errorf("item %d is not valid UTF-8", i+1)
		}
		for j, r := range it.Text {
			if (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r < 0xa0) {
				return fmt.Errorf("item %d holds control character U+%04X at byte %d", i+1, r, j)
			}
		}
		for _, ref := range it.Refs {
			if err := grimoire.CheckID(ref.ID); err != nil {
				return fmt.Errorf("item %d refers to a bad id: %v", i+1, err)
			}
		}
	}
	return nil
}

// paragraphs splits text at blank lines (lines of white space only) and
// returns each paragraph's lines joined by "\n", trimmed.
func paragraphs(text string) []string {
	var out, cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.TrimSpace(strings.Join(cur, "\n")))
			cur = nil
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, strings.TrimRight(line, " \t"))
	}
	flush()
	return out
}

// cappedBuffer keeps the first max bytes written to it and notes whether
// more came; it never fails a write, so the writer is not killed by a
// broken pipe. It has no ReadFrom, so io.Copy goes through Write.
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); len(p) > room {
		c.overflow = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *cappedBuffer) Bytes() []byte { return c.buf.Bytes() }
