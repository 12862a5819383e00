package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
)

// inspectSnapshot prints inspect's human view of an insurance snapshot:
// the summary, then its insights in order with their successor notes.
func (g *globals) inspectSnapshot(b *bundle.Bundle, digest string, compressed int64, uncompressed, top int) error {
	if err := writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, snapshotRows(b, digest, compressed, uncompressed)); err != nil {
		return err
	}
	s := b.Snapshot
	notes := make(map[string]string, len(s.SuccessorNotes))
	for _, n := range s.SuccessorNotes {
		notes[n.ID] = n.Mark
	}
	insights := s.Insights
	if top > 0 && len(insights) > top {
		insights = insights[:top]
	}
	rows := make([][]string, len(insights))
	for i, e := range insights {
		rows[i] = []string{strconv.Itoa(i + 1), e.ID, formatFloat(e.Confidence), e.DecayClass, formatFloat(e.Decay), notes[e.ID]}
	}
	fmt.Fprintln(g.stdout)
	return writeTable(g.stdout, g.stdoutTerminal, []string{"rank", "id", "confidence", "decay_class", "decay", "note"}, rows)
}

// snapshotRows are the field/value rows of inspect's summary of a snapshot.
func snapshotRows(b *bundle.Bundle, digest string, compressed int64, uncompressed int) [][]string {
	h, s := &b.Header, b.Snapshot
	rows := headerRows(h, digest)
	add := rows.add
	add("size", fmt.Sprintf("%d bytes, %d uncompressed", compressed, uncompressed))
	episodes := fmt.Sprintf("%d of %d read", len(s.Episodes), h.Counts.Episodes)
	if n := len(s.Episodes); n > 0 {
		episodes += fmt.Sprintf(", ticks %d–%d", s.Episodes[0].Tick, s.Episodes[n-1].Tick)
	}
	add("episodes", episodes)
	add("insights", fmt.Sprintf("%d of %d candidates", len(s.Insights), h.Counts.Candidates))
	if p := s.Playbook; p != nil {
		add("playbook", fmt.Sprintf("%s, %d bytes, %s", p.Name, len(p.Text), p.Digest))
	}
	add("metrics", strconv.Itoa(len(s.Metrics)))
	if c := s.Credits; c != nil {
		add("credits", fmt.Sprintf("%s of %s USDC left, reserve %s", formatFloat(c.RemainingUSDC), formatFloat(c.InitialUSDC), formatFloat(c.DeathReserveUSDC)))
	}
	st := s.Staleness
	accuracy := "none known"
	if st.Accuracy != nil {
		accuracy = fmt.Sprintf("%s (%d of %d correct)", formatFloat(*st.Accuracy), st.Correct, st.Known)
	}
	add("accuracy", fmt.Sprintf("%s over ticks %d–%d", accuracy, st.WindowStartTick, st.WindowEndTick))
	fitness := "unknown"
	if s.Fitness != nil {
		fitness = formatFloat(*s.Fitness)
	}
	add("fitness", fmt.Sprintf("%s, senescence threshold %s", fitness, formatFloat(s.SenescenceThreshold)))
	pressures := "none"
	if len(s.Pressures) > 0 {
		pressures = strings.Join(s.Pressures, ", ")
	}
	add("pressures", pressures)
	if len(s.SuccessorNotes) > 0 {
		add("successor_notes", strconv.Itoa(len(s.SuccessorNotes)))
	}
	if len(s.Trajectory) > 0 {
		// Counts rather than ratios: exact, and short enough for a row.
		var points []string
		for _, p := range s.Trajectory {
			points = append(points, fmt.Sprintf("%d–%d %d/%d", p.StartTick, p.EndTick, p.Correct, p.Known))
		}
		add("trajectory", "correct/known: "+strings.Join(points, ", "))
	}
	signature := "none"
	if sig := b.Signature; sig != nil {
		signature = fmt.Sprintf("%s, public key %x", sig.Algorithm, sig.PublicKey)
	}
	add("signature", signature)
	return *rows
}
