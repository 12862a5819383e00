package main

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
	deathreflect "github.com/bardo-golem/bardo/reflect"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// An advisor is an external command — an LLM CLI, say — that writes the
// death reflection's category 6, tell_successor (cli.md: "bundle --advisor
// CMD"). bardo runs it with `sh -c CMD`, writes a bardo.advisor-input/v1
// document to its standard input and reads its answer from its standard
// output:
//
//   - JSON, when the output starts with "{":
//     {"items": [{"text": "…", "refs": [{"kind": "entry", "id": "…"}]}]};
//     refs are optional and may only name what the input names;
//   - otherwise plain text: one item per paragraph (paragraphs are
//     separated by blank lines), without references.
//
// What the advisor writes on standard error passes through to bardo's
// (unless --quiet). A timeout, a non-zero exit, empty output or an answer
// the reflection refuses leaves the deterministic advice in category 6 and
// a warning; the bundle records the advisor and why its answer was not
// used. An advisor never fails a bundle.

// advisorInputFormat names the document an advisor reads.
const advisorInputFormat = "bardo.advisor-input/v1"

// maxAdvisorOutput bounds what is read of an advisor's answer.
const maxAdvisorOutput = 1 << 20

// advisorInstructions is the advisor's task, in the document it reads.
const advisorInstructions = "You are writing category 6 of a dying agent's death reflection: what it would tell its successor. " +
	"Read the other categories and write a few short, concrete pieces of advice. " +
	"Answer with plain text, one piece of advice per paragraph, or with JSON " +
	`{"items": [{"text": "...", "refs": [{"kind": "entry", "id": "..."}]}]} whose refs name only references given here.`

// advisorInput is the bardo.advisor-input/v1 document: the reflection with
// categories 1–5 and 7–9 assembled, each item's text and references.
type advisorInput struct {
	GolemID      string            `json:"golem_id"`
	Generation   int               `json:"generation"`
	Instructions string            `json:"instructions"`
	Categories   advisorCategories `json:"categories"`
}

type advisorCategories struct {
	BuiltToDo     []advisorItem `json:"built_to_do"`
	Learned       []advisorItem `json:"learned"`
	GotWrong      []advisorItem `json:"got_wrong"`
	Confused      []advisorItem `json:"confused"`
	Suspect       []advisorItem `json:"suspect"`
	NeverTested   []advisorItem `json:"never_tested"`
	FinalPlaybook []advisorItem `json:"final_playbook"`
	CausalGraph   []advisorItem `json:"causal_graph"`
}

type advisorItem struct {
	Text string    `json:"text"`
	Refs []refView `json:"refs"`
}

type refView struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// advisorAnswer is an advisor's JSON answer.
type advisorAnswer struct {
	Items []advisorItem `json:"items"`
}

// newAdvisorInput returns the document an advisor reads about r.
func newAdvisorInput(r *deathreflect.Reflection) advisorInput {
	items := func(name string) []advisorItem {
		out := []advisorItem{}
		for _, it := range r.Items(name) {
			refs := []refView{}
			for _, ref := range it.Refs {
				refs = append(refs, refView{Kind: ref.Kind, ID: ref.ID})
			}
			out = append(out, advisorItem{Text: it.Text, Refs: refs})
		}
		return out
	}
	return advisorInput{
		GolemID:      r.GolemID,
		Generation:   r.Generation,
		Instructions: advisorInstructions,
		Categories: advisorCategories{
			BuiltToDo:     items(deathreflect.NameBuiltToDo),
			Learned:       items(deathreflect.NameLearned),
			GotWrong:      items(deathreflect.NameGotWrong),
			Confused:      items(deathreflect.NameConfused),
			Suspect:       items(deathreflect.NameSuspect),
			NeverTested:   items(deathreflect.NameNeverTested),
			FinalPlaybook: items(deathreflect.NameFinalPlaybook),
			CausalGraph:   items(deathreflect.NameCausalGraph),
		},
	}
}

// advisor returns the pipeline's advisor for the shell command command.
func (g *globals) advisor(command string, timeout time.Duration) *thanatopsis.Advisor {
	var stderr io.Writer = g.stderr
	if g.quiet {
		stderr = io.Discard
	}
	return &thanatopsis.Advisor{
		Command: command,
		Tell: func(r *deathreflect.Reflection) ([]deathreflect.Item, error) {
			var in bytes.Buffer
			if err := writeJSON(&in, advisorInputFormat, newAdvisorInput(r)); err != nil {
				return nil, err
			}
			out, err := runAdvisor(command, timeout, in.Bytes(), stderr)
			if err != nil {
				return nil, err
			}
			items, err := parseAdvice(out)
			if err != nil {
				return nil, err
			}
			return items, checkAdvice(items)
		},
	}
}

// runAdvisor runs `sh -c command` with input on its standard input and
// returns its standard output. Its errors are the reasons a bundle records:
// short, and the same on every run.
func runAdvisor(command string, timeout time.Duration, input []byte, stderr io.Writer) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdin = bytes.NewReader(input)
	out := &cappedBuffer{max: maxAdvisorOutput}
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
		return nil, fmt.Errorf("wrote more than %d bytes", maxAdvisorOutput)
	case err != nil:
		return nil, fmt.Errorf("could not run: %w", err)
	}
	return out.Bytes(), nil
}

// parseAdvice reads an advisor's answer: JSON when it starts with "{",
// else paragraphs of plain text.
func parseAdvice(out []byte) ([]deathreflect.Item, error) {
	text := strings.TrimSpace(string(out))
	if text == "" {
		return nil, errors.New("wrote nothing")
	}
	if strings.HasPrefix(text, "{") {
		var ans advisorAnswer
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ans); err != nil {
			return nil, fmt.Errorf("its JSON answer does not parse: %w", err)
		}
		items := make([]deathreflect.Item, len(ans.Items))
		for i, a := range ans.Items {
			items[i].Text = strings.TrimSpace(a.Text)
			for _, r := range a.Refs {
				items[i].Refs = append(items[i].Refs, deathreflect.Ref{Kind: r.Kind, ID: r.ID})
			}
		}
		return items, nil
	}
	var items []deathreflect.Item
	for _, para := range paragraphs(text) {
		items = append(items, deathreflect.Item{Text: para})
	}
	return items, nil
}

// maxAdviceItems and maxAdviceText bound what an advisor may put into
// tell_successor: items, and bytes of one item's text.
const (
	maxAdviceItems = 64
	maxAdviceText  = 4096
)

// checkAdvice holds an advisor's items to the bundle's text rules, so that
// an advisor can never make a bundle that verify refuses or a successor
// cannot inherit: valid UTF-8 (the CBOR decoder refuses anything else),
// no control character but tab and newline (a NUL would cut a C reader's
// string, an escape would drive a terminal), no empty item, and the
// bounds above. Any break is a reason the advisor was not used.
func checkAdvice(items []deathreflect.Item) error {
	if len(items) > maxAdviceItems {
		return fmt.Errorf("wrote %d items, more than %d", len(items), maxAdviceItems)
	}
	for i, it := range items {
		switch {
		case it.Text == "":
			return fmt.Errorf("item %d has no text", i+1)
		case len(it.Text) > maxAdviceText:
			return fmt.Errorf("item %d has %d bytes of text, more than %d", i+1, len(it.Text), maxAdviceText)
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
