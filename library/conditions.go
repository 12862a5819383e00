package library

import (
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// Default numbers of current conditions taken from a living Golem's
// export.
const (
	DefaultRecentEpisodes = 50
	DefaultRecentEntries  = 20
)

// ConditionsFromExport reads a living Golem's current conditions from its
// export: its most recently accessed entries (the latest last_accessed_at
// first, ties by id bytewise; dream_journal entries left out), each with
// its model vector when the header names the space, then its last
// episodes (the largest ticks, the later line first on a tie), each as the
// text of its summary — or, when it has none, of its regime, state,
// action, outcome and prediction. At most entries and episodes of each are
// kept, so memory does not grow with the export. Errors are the reader's.
func ConditionsFromExport(r *grimoire.Reader, entries, episodes int) ([]Condition, error) {
	model := ""
	if h := r.Header(); h.Embedding != nil {
		model = h.Embedding.Model
	}
	type timed struct {
		c    Condition
		at   time.Time
		tick int64
		line int
	}
	var ents, eps []timed
	keep := func(list []timed, x timed, n int, less func(a, b timed) bool) []timed {
		if n <= 0 {
			return list
		}
		i, _ := slices.BinarySearchFunc(list, x, func(a, b timed) int {
			if less(a, b) {
				return -1
			}
			return 1
		})
		if i >= n {
			return list
		}
		list = slices.Insert(list, i, x)
		if len(list) > n {
			list = list[:n]
		}
		return list
	}
	entryFirst := func(a, b timed) bool {
		if !a.at.Equal(b.at) {
			return a.at.After(b.at)
		}
		return a.c.ID < b.c.ID
	}
	episodeFirst := func(a, b timed) bool {
		if a.tick != b.tick {
			return a.tick > b.tick
		}
		return a.line > b.line
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch x := rec.(type) {
		case *grimoire.Entry:
			if x.Category == grimoire.CategoryDreamJournal {
				continue
			}
			c := Condition{Kind: ConditionEntry, ID: x.ID, Text: x.Content}
			if len(x.Embedding) > 0 && model != "" {
				c.Space, c.Vector = model, slices.Clone([]float32(x.Embedding))
			}
			ents = keep(ents, timed{c: c, at: x.LastAccessedAt}, entries, entryFirst)
		case *grimoire.Episode:
			c := Condition{Kind: ConditionEpisode, ID: x.ID, Text: episodeText(x)}
			eps = keep(eps, timed{c: c, tick: x.Tick, line: r.Line()}, episodes, episodeFirst)
		}
	}
	out := make([]Condition, 0, len(ents)+len(eps))
	for _, t := range ents {
		out = append(out, t.c)
	}
	for _, t := range eps {
		out = append(out, t.c)
	}
	return out, nil
}

// episodeText is what an episode says about the conditions it met.
func episodeText(e *grimoire.Episode) string {
	if s := strings.TrimSpace(e.Summary); s != "" {
		return s
	}
	parts := []string{e.Regime, e.State, e.Action, e.Outcome}
	if e.Prediction != nil {
		parts = append(parts, e.Prediction.Statement)
	}
	var b strings.Builder
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			if b.Len() > 0 {
				b.WriteString(" ")
			}
			b.WriteString(p)
		}
	}
	return b.String()
}
