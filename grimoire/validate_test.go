package grimoire_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

const (
	categories   = "insight, heuristic, warning, causal_link, strategy_fragment, anti_knowledge, dream_journal"
	decayClasses = "structural, regime_conditional, tactical, ephemeral, procedural"
	regimes      = "bull, bear, sideways, high_vol, low_vol, crisis"
	provenances  = "self_learned, clade, predecessor, styx_query, lethe, marketplace, replicant, death_reflection, dream"
	phases       = "thriving, stable, conservation, declining, terminal"
	causes       = "credit_exhaustion, epistemic_senescence, staleness, stochastic, owner_kill, vm_failure"
)

// after puts records after the base header, so the first is on line 2.
func after(lines ...any) string { return export(append([]any{baseHeader}, lines...)...) }

func digestN(n int) string { return fmt.Sprintf("sha256:%064x", n) }

// anc is an ancestor of digest n at generation gen.
func anc(n, gen int) obj { return obj{"digest": digestN(n), "golem_id": "g", "generation": gen} }

// TestValidationRules pins every rule of docs/EXPORT.md and its exact
// message.
func TestValidationRules(t *testing.T) {
	noSpace := baseHeader.with("embedding", absent)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		// Framing and the header's place.
		{"empty export", "", []string{"t.jsonl: header is missing: the export is empty"}},
		{"only blank lines", "\n  \n\t\n", []string{"t.jsonl: header is missing: the export is empty"}},
		{"header not first", export(baseEntry, baseHeader), []string{"t.jsonl:1: header must be the first record"}},
		{"header after blank lines not first", "\n\n" + export(baseEntry), []string{"t.jsonl:3: header must be the first record"}},
		{"second header", after(baseHeader), []string{"t.jsonl:2: header: a second header: an export has exactly one"}},
		{"record without type", after(baseEntry.with("type", absent)), []string{`t.jsonl:2: record has no "type"`}},
		{"type not a string", after(baseEntry.with("type", 3)), []string{`t.jsonl:2: "type" is not a string`}},
		{"not an object", after(`[1,2]`), []string{"t.jsonl:2: invalid JSON at column 1: a record must be a JSON object"}},
		{"truncated object", after(`{"type":"entry","id":"e1"`), []string{"t.jsonl:2: invalid JSON at column 26: unexpected end of line"}},
		{"unterminated string", after(`{"type":"entry","id":"e1}`), []string{"t.jsonl:2: invalid JSON at column 22: unterminated string"}},
		{"bad literal", after(`{"type":"entry","id":"e1","confidence":0.5x}`), []string{`t.jsonl:2: entry "e1": confidence: invalid JSON: invalid character 'x' after object key:value pair`}},
		{"data after the object", after(`{"type":"fitness","tick":1,"value":0.5} x`), []string{"t.jsonl:2: invalid JSON at column 41: data after the object"}},
		{"field twice", after(`{"type":"episode","id":"ep1","tick":1,"tick":2,"at":"2026-11-01T00:00:00Z"}`), []string{`t.jsonl:2: episode "ep1": field "tick" appears twice`}},
		{"nested field twice", after(baseEntry.String()[:len(baseEntry.String())-1] + `,"source":{"golem_id":"a","golem_id":"b","generation":0,"confidence":1}}`), []string{`t.jsonl:2: entry "e1": field "source.golem_id" appears twice`}},

		// Header.
		{"header format missing", export(baseHeader.with("format", absent)), []string{"t.jsonl:1: header: format is missing"}},
		{"header format wrong", export(baseHeader.with("format", "bardo.grimoire-export/v2")), []string{`t.jsonl:1: header: format "bardo.grimoire-export/v2" is not "bardo.grimoire-export/v1"`}},
		{"header golem_id missing", export(baseHeader.with("golem_id", absent)), []string{"t.jsonl:1: header: golem_id is missing"}},
		{"header golem_id empty", export(baseHeader.with("golem_id", "")), []string{"t.jsonl:1: header: golem_id is empty"}},
		{"header generation missing", export(baseHeader.with("generation", absent)), []string{"t.jsonl:1: header: generation is missing"}},
		{"header generation null", export(baseHeader.with("generation", nil)), []string{"t.jsonl:1: header: generation is missing"}},
		{"header generation negative", export(baseHeader.with("generation", -1)), []string{"t.jsonl:1: header: generation -1 is negative"}},
		{"header generation fractional", export(baseHeader.with("generation", 1.5)), []string{"t.jsonl:1: header: generation: 1.5 is not an integer"}},
		{"header generation string", export(baseHeader.with("generation", "1")), []string{"t.jsonl:1: header: generation: a string is not an integer"}},
		{"header exported_at missing", export(baseHeader.with("exported_at", absent)), []string{"t.jsonl:1: header: exported_at is missing"}},
		{"header exported_at not RFC 3339", export(baseHeader.with("exported_at", "2026-11-02 12:00")), []string{`t.jsonl:1: header: exported_at "2026-11-02 12:00" is not an RFC 3339 time`}},
		{"header exported_at a number", export(baseHeader.with("exported_at", 1700000000)), []string{`t.jsonl:1: header: exported_at 1700000000 is not an RFC 3339 time`}},
		{"header exported_at before year 0 in UTC", export(baseHeader.with("exported_at", "0000-01-01T00:00:00+01:00")), []string{`t.jsonl:1: header: exported_at 0000-01-01T00:00:00+01:00 is outside the years 0000 to 9999 in UTC`}},
		{"header phase", export(baseHeader.with("phase", "dying")), []string{`t.jsonl:1: header: phase "dying" is not one of ` + phases}},
		{"header death cause", export(baseHeader.with("death", obj{"cause": "old_age", "at": "2026-11-02T12:00:00Z", "tick": 1})), []string{`t.jsonl:1: header: death.cause "old_age" is not one of ` + causes}},
		{"header death cause missing", export(baseHeader.with("death", obj{"at": "2026-11-02T12:00:00Z"})), []string{"t.jsonl:1: header: death.cause is missing"}},
		{"header death at missing", export(baseHeader.with("death", obj{"cause": "stochastic"})), []string{"t.jsonl:1: header: death.at is missing"}},
		{"header death at bad", export(baseHeader.with("death", obj{"cause": "stochastic", "at": "noon"})), []string{`t.jsonl:1: header: death.at "noon" is not an RFC 3339 time`}},
		{"header death tick negative", export(baseHeader.with("death", obj{"cause": "stochastic", "at": "2026-11-02T12:00:00Z", "tick": -3})), []string{"t.jsonl:1: header: death.tick -3 is negative"}},
		{"header embedding model empty", export(baseHeader.with("embedding.model", "")), []string{"t.jsonl:1: header: embedding.model is empty"}},
		{"header embedding model missing", export(baseHeader.with("embedding.model", absent)), []string{"t.jsonl:1: header: embedding.model is missing"}},
		{"header embedding dims zero", export(baseHeader.with("embedding.dims", 0)), []string{"t.jsonl:1: header: embedding.dims 0 is not positive"}},
		{"header embedding dims missing", export(baseHeader.with("embedding.dims", absent)), []string{"t.jsonl:1: header: embedding.dims is missing"}},
		{"header tick negative", export(baseHeader.with("tick", -1)), []string{"t.jsonl:1: header: tick -1 is negative"}},
		{"header tick_seconds zero", export(baseHeader.with("tick_seconds", 0)), []string{"t.jsonl:1: header: tick_seconds 0 is not positive"}},
		{"header epistemic_fitness above 1", export(baseHeader.with("epistemic_fitness", 1.5)), []string{"t.jsonl:1: header: epistemic_fitness 1.5 is outside [0,1]"}},
		{"header store.ancestry not the parent bundle", export(baseHeader.with("parent_bundle", digestN(2), "store", obj{"ancestry": []any{anc(1, 0)}})),
			[]string{"t.jsonl:1: header: store.ancestry[0] " + digestN(1) + ` is not the parent_bundle "` + digestN(2) + `"`}},
		{"header store.ancestry generations not descending", export(baseHeader.with("generation", 3, "parent_bundle", digestN(2), "store", obj{"ancestry": []any{anc(2, 1), anc(1, 1)}})),
			[]string{"t.jsonl:1: header: store.ancestry[1].generation 1 is not below 1, the generation after it"}},
		{"header store.ancestry bad digest and no golem", export(baseHeader.with("generation", 3, "parent_bundle", "x", "store", obj{"ancestry": []any{obj{"digest": "x", "golem_id": "", "generation": 2}}})),
			[]string{`t.jsonl:1: header: store.ancestry[0].digest "x" is not "sha256:" and 64 lower-case hex digits`, "t.jsonl:1: header: store.ancestry[0].golem_id is empty"}},
		{"header store.ancestry twice", export(baseHeader.with("generation", 3, "parent_bundle", digestN(2), "store", obj{"ancestry": []any{anc(2, 2), anc(2, 1)}})),
			[]string{"t.jsonl:1: header: store.ancestry[1]: ancestor " + digestN(2) + " is named twice"}},
		{"header senescence_threshold zero", export(baseHeader.with("senescence_threshold", 0)), []string{"t.jsonl:1: header: senescence_threshold 0 is outside (0,1]"}},
		{"header senescence_threshold above 1", export(baseHeader.with("senescence_threshold", 1.01)), []string{"t.jsonl:1: header: senescence_threshold 1.01 is outside (0,1]"}},
		{"header credits negative", export(baseHeader.with("credits", obj{"remaining_usdc": -1, "initial_usdc": 100, "death_reserve_usdc": -2})), []string{
			"t.jsonl:1: header: credits.remaining_usdc -1 is negative",
			"t.jsonl:1: header: credits.death_reserve_usdc -2 is negative",
		}},
		{"header every error at once", export(baseHeader.with("golem_id", absent, "generation", -2, "tick", -1)), []string{
			"t.jsonl:1: header: golem_id is missing",
			"t.jsonl:1: header: generation -2 is negative",
			"t.jsonl:1: header: tick -1 is negative",
		}},

		// Entry.
		{"entry id missing", after(baseEntry.with("id", absent)), []string{"t.jsonl:2: entry: id is missing"}},
		{"entry id null", after(baseEntry.with("id", nil)), []string{"t.jsonl:2: entry: id is missing"}},
		{"entry id empty", after(baseEntry.with("id", "")), []string{"t.jsonl:2: entry: id is empty"}},
		{"entry id is the full id", after(baseEntry.with("id", "7f3c9a12-0000-4000-8000-0000000000e1", "confidence", 1.7)), []string{`t.jsonl:2: entry "7f3c9a12-0000-4000-8000-0000000000e1": confidence 1.7 is outside [0,1]`}},
		{"entry id not a string", after(baseEntry.with("id", 12)), []string{"t.jsonl:2: entry: id: a number is not a string"}},
		{"entry category missing", after(baseEntry.with("category", absent)), []string{`t.jsonl:2: entry "e1": category is missing`}},
		{"entry category unknown", after(baseEntry.with("category", "rumor")), []string{`t.jsonl:2: entry "e1": category "rumor" is not one of ` + categories}},
		{"entry content missing", after(baseEntry.with("content", absent)), []string{`t.jsonl:2: entry "e1": content is missing`}},
		{"entry content empty", after(baseEntry.with("content", "")), []string{`t.jsonl:2: entry "e1": content is empty`}},
		{"entry confidence missing", after(baseEntry.with("confidence", absent)), []string{`t.jsonl:2: entry "e1": confidence is missing`}},
		{"entry confidence above 1", after(baseEntry.with("confidence", 1.7)), []string{`t.jsonl:2: entry "e1": confidence 1.7 is outside [0,1]`}},
		{"entry confidence negative", after(baseEntry.with("confidence", -0.1)), []string{`t.jsonl:2: entry "e1": confidence -0.1 is outside [0,1]`}},
		{"entry confidence a string", after(baseEntry.with("confidence", "high")), []string{`t.jsonl:2: entry "e1": confidence: a string is not a number`}},
		{"entry confidence_at_creation", after(baseEntry.with("confidence_at_creation", 2)), []string{`t.jsonl:2: entry "e1": confidence_at_creation 2 is outside [0,1]`}},
		{"entry quality_score missing", after(baseEntry.with("quality_score", absent)), []string{`t.jsonl:2: entry "e1": quality_score is missing`}},
		{"entry quality_score above 1", after(baseEntry.with("quality_score", 1.5)), []string{`t.jsonl:2: entry "e1": quality_score 1.5 is outside [0,1]`}},
		{"entry validated_count negative", after(baseEntry.with("validated_count", -1)), []string{`t.jsonl:2: entry "e1": validated_count -1 is negative`}},
		{"entry validated_count fractional", after(baseEntry.with("validated_count", 1.5)), []string{`t.jsonl:2: entry "e1": validated_count: 1.5 is not an integer`}},
		{"entry validated_count out of range", after(baseEntry.with("validated_count", json.Number("99999999999999999999"))), []string{`t.jsonl:2: entry "e1": validated_count: 99999999999999999999 is out of range`}},
		{"entry contradicted_count negative", after(baseEntry.with("contradicted_count", -2)), []string{`t.jsonl:2: entry "e1": contradicted_count -2 is negative`}},
		{"entry decay_class missing", after(baseEntry.with("decay_class", absent)), []string{`t.jsonl:2: entry "e1": decay_class is missing`}},
		{"entry decay_class unknown", after(baseEntry.with("decay_class", "eternal")), []string{`t.jsonl:2: entry "e1": decay_class "eternal" is not one of ` + decayClasses}},
		{"entry market_regime unknown", after(baseEntry.with("market_regime", "moon")), []string{`t.jsonl:2: entry "e1": market_regime "moon" is not one of ` + regimes}},
		{"entry tags not strings", after(baseEntry.with("tags", []any{"a", 1})), []string{`t.jsonl:2: entry "e1": tags: a number is not a string`}},
		{"entry last_accessed_at missing", after(baseEntry.with("last_accessed_at", absent)), []string{`t.jsonl:2: entry "e1": last_accessed_at is missing`}},
		{"entry last_accessed_at not RFC 3339", after(baseEntry.with("last_accessed_at", "yesterday")), []string{`t.jsonl:2: entry "e1": last_accessed_at "yesterday" is not an RFC 3339 time`}},
		{"entry created_at not RFC 3339", after(baseEntry.with("created_at", "2026-13-01T00:00:00Z")), []string{`t.jsonl:2: entry "e1": created_at "2026-13-01T00:00:00Z" is not an RFC 3339 time`}},
		{"entry valid_until past year 9999 in UTC", after(baseEntry.with("valid_until", "9999-12-31T23:00:00-02:00")), []string{`t.jsonl:2: entry "e1": valid_until 9999-12-31T23:00:00-02:00 is outside the years 0000 to 9999 in UTC`}},
		{"entry strength zero", after(baseEntry.with("strength", 0)), []string{`t.jsonl:2: entry "e1": strength 0 is less than 1`}},
		{"entry provenance unknown", after(baseEntry.with("provenance", "rumor")), []string{`t.jsonl:2: entry "e1": provenance "rumor" is not one of ` + provenances}},
		{"entry provenance empty", after(baseEntry.with("provenance", "")), []string{`t.jsonl:2: entry "e1": provenance "" is not one of ` + provenances}},
		{"entry source golem_id empty", after(baseEntry.with("source", obj{"golem_id": "", "generation": 0, "confidence": 0.5})), []string{`t.jsonl:2: entry "e1": source.golem_id is empty`}},
		{"entry source fields missing", after(baseEntry.with("source", obj{})), []string{
			`t.jsonl:2: entry "e1": source.golem_id is missing`,
			`t.jsonl:2: entry "e1": source.generation is missing`,
			`t.jsonl:2: entry "e1": source.confidence is missing`,
		}},
		{"entry source generation negative", after(baseEntry.with("source", obj{"golem_id": "x", "generation": -1, "confidence": 0.5})), []string{`t.jsonl:2: entry "e1": source.generation -1 is negative`}},
		{"entry source generation a string", after(baseEntry.with("source", obj{"golem_id": "x", "generation": "0", "confidence": 0.5})), []string{`t.jsonl:2: entry "e1": source.generation: a string is not an integer`}},
		{"entry source confidence above 1", after(baseEntry.with("source", obj{"golem_id": "x", "generation": 0, "confidence": 1.2})), []string{`t.jsonl:2: entry "e1": source.confidence 1.2 is outside [0,1]`}},
		{"entry source not an object", after(baseEntry.with("source", "golem-3f")), []string{`t.jsonl:2: entry "e1": source: a string is not an object`}},
		{"entry emotional_tag pleasure a string", after(baseEntry.with("emotional_tag", obj{"pleasure": "low"})), []string{`t.jsonl:2: entry "e1": emotional_tag.pleasure: a string is not a number`}},
		{"entry polarity unknown", after(baseEntry.with("polarity", "neutral")), []string{`t.jsonl:2: entry "e1": polarity "neutral" is not one of positive, negative`}},
		{"entry status unknown", after(baseEntry.with("status", "deleted")), []string{`t.jsonl:2: entry "e1": status "deleted" is not one of active, archived, quarantined`}},
		{"entry is_bloodstain not a boolean", after(baseEntry.with("is_bloodstain", "yes")), []string{`t.jsonl:2: entry "e1": is_bloodstain: a string is not a boolean`}},
		{"entry store arrival_confidence", after(baseEntry.with("store", obj{"arrival_confidence": 1.5})), []string{`t.jsonl:2: entry "e1": store.arrival_confidence 1.5 is outside [0,1]`}},
		{"entry store memory_strength", after(baseEntry.with("store", obj{"memory_strength": -0.5})), []string{`t.jsonl:2: entry "e1": store.memory_strength -0.5 is outside [0,1]`}},
		{"entry store weights negative", after(baseEntry.with("store", obj{"retrieval_weight": -1, "demurrage_weight": -3})), []string{
			`t.jsonl:2: entry "e1": store.retrieval_weight -1 is negative`,
			`t.jsonl:2: entry "e1": store.demurrage_weight -3 is negative`,
		}},
		{"entry embedding length", after(baseEntry.with("embedding", []float64{1, 2, 3})), []string{`t.jsonl:2: entry "e1": embedding has 3 dimensions, the header's embedding space "m" has 2`}},
		{"entry embedding base64 length", after(baseEntry.with("embedding", "base64:AACAPw==")), []string{`t.jsonl:2: entry "e1": embedding has 1 dimensions, the header's embedding space "m" has 2`}},
		{"entry embedding empty array", after(baseEntry.with("embedding", []float64{})), []string{`t.jsonl:2: entry "e1": embedding has 0 dimensions, the header's embedding space "m" has 2`}},
		{"entry embedding without a space", export(noSpace, baseEntry.with("embedding", []float64{1, 2})), []string{`t.jsonl:2: entry "e1": embedding is present but the header names no embedding space`}},
		{"entry embedding element not a number", after(baseEntry.with("embedding", []any{1, "x"})), []string{`t.jsonl:2: entry "e1": embedding: element 1 is not a number`}},
		{"entry embedding beyond float32", after(baseEntry.with("embedding", []any{1, json.Number("1e39")})), []string{`t.jsonl:2: entry "e1": embedding: element 1 (1e39) is outside the float32 range`}},
		{"entry embedding base64 not whole float32", after(baseEntry.with("embedding", "base64:AACA")), []string{`t.jsonl:2: entry "e1": embedding: 3 bytes of base64 is not a whole number of float32`}},
		{"entry embedding base64 NaN", after(baseEntry.with("embedding", "base64:AADAfwAAgD8=")), []string{`t.jsonl:2: entry "e1": embedding: element 0 is not finite`}},
		{"entry embedding string without prefix", after(baseEntry.with("embedding", "AACAPwAAgD8=")), []string{`t.jsonl:2: entry "e1": embedding: a string embedding must start with "base64:"`}},
		{"entry embedding an object", after(baseEntry.with("embedding", obj{})), []string{`t.jsonl:2: entry "e1": embedding: not an array of numbers nor a "base64:" string`}},
		{"entry several errors", after(baseEntry.with("confidence", 2, "quality_score", 3, "decay_class", absent)), []string{
			`t.jsonl:2: entry "e1": confidence 2 is outside [0,1]`,
			`t.jsonl:2: entry "e1": quality_score 3 is outside [0,1]`,
			`t.jsonl:2: entry "e1": decay_class is missing`,
		}},

		// Episode.
		{"episode id missing", after(baseEpisode.with("id", absent)), []string{"t.jsonl:2: episode: id is missing"}},
		{"episode tick missing", after(baseEpisode.with("tick", absent)), []string{`t.jsonl:2: episode "ep1": tick is missing`}},
		{"episode tick negative", after(baseEpisode.with("tick", -1)), []string{`t.jsonl:2: episode "ep1": tick -1 is negative`}},
		{"episode at missing", after(baseEpisode.with("at", absent)), []string{`t.jsonl:2: episode "ep1": at is missing`}},
		{"episode state unknown", after(baseEpisode.with("state", "sleeping")), []string{`t.jsonl:2: episode "ep1": state "sleeping" is not one of sensing, deciding`}},
		{"episode prediction correct a string", after(baseEpisode.with("prediction", obj{"correct": "yes"})), []string{`t.jsonl:2: episode "ep1": prediction.correct: a string is not a boolean`}},

		// Causal edge.
		{"causal_edge source_id missing", after(baseEdge.with("source_id", absent)), []string{"t.jsonl:2: causal_edge: source_id is missing"}},
		{"causal_edge target_id empty", after(baseEdge.with("target_id", "")), []string{"t.jsonl:2: causal_edge: target_id is empty"}},
		{"causal_edge weight above 1", after(baseEdge.with("weight", 1.5)), []string{`t.jsonl:2: causal_edge "a -> b": weight 1.5 is outside [0,1]`}},
		{"causal_edge evidence negative", after(baseEdge.with("evidence", -4)), []string{`t.jsonl:2: causal_edge "a -> b": evidence -4 is negative`}},

		// Document.
		{"document name missing", after(baseDocument.with("name", absent)), []string{"t.jsonl:2: document: name is missing"}},
		{"document text missing", after(baseDocument.with("text", absent)), []string{`t.jsonl:2: document "PLAYBOOK.md": text is missing`}},

		// Hypothesis.
		{"hypothesis id missing", after(baseHypothesis.with("id", absent)), []string{"t.jsonl:2: hypothesis: id is missing"}},
		{"hypothesis content empty", after(baseHypothesis.with("content", "")), []string{`t.jsonl:2: hypothesis "h1": content is empty`}},
		{"hypothesis origin unknown", after(baseHypothesis.with("origin", "oracle")), []string{`t.jsonl:2: hypothesis "h1": origin "oracle" is not one of replicant, expel, dream`}},
		{"hypothesis status unknown", after(baseHypothesis.with("status", "proven")), []string{`t.jsonl:2: hypothesis "h1": status "proven" is not one of untested, tested`}},
		{"hypothesis embedding length", after(baseHypothesis.with("embedding", []float64{1})), []string{`t.jsonl:2: hypothesis "h1": embedding has 1 dimensions, the header's embedding space "m" has 2`}},
		{"hypothesis embedding without a space", export(noSpace, baseHypothesis.with("embedding", []float64{1})), []string{`t.jsonl:2: hypothesis "h1": embedding is present but the header names no embedding space`}},

		// Decision cache, metric, fitness.
		{"decision_cache id missing", after(baseCache.with("id", absent)), []string{"t.jsonl:2: decision_cache: id is missing"}},
		{"decision_cache hits negative", after(baseCache.with("hits", -1)), []string{`t.jsonl:2: decision_cache "dc1": hits -1 is negative`}},
		{"metric name missing", after(baseMetric.with("name", absent)), []string{"t.jsonl:2: metric: name is missing"}},
		{"metric value missing", after(baseMetric.with("value", absent)), []string{`t.jsonl:2: metric "sharpe": value is missing`}},
		{"metric at not RFC 3339", after(baseMetric.with("at", "now")), []string{`t.jsonl:2: metric "sharpe": at "now" is not an RFC 3339 time`}},
		{"fitness tick missing", after(baseFitness.with("tick", absent)), []string{"t.jsonl:2: fitness: tick is missing"}},
		{"fitness tick negative", after(baseFitness.with("tick", -7)), []string{"t.jsonl:2: fitness: tick -7 is negative"}},
		{"fitness value missing", after(baseFitness.with("value", absent)), []string{"t.jsonl:2: fitness: value is missing"}},
		{"fitness value above 1", after(baseFitness.with("value", 1.2)), []string{"t.jsonl:2: fitness: value 1.2 is outside [0,1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readString(t, tt.in, grimoire.ReadOptions{})
			if len(res.Records) != 0 {
				t.Errorf("bad record returned: %+v", res.Records)
			}
			if d := cmp.Diff(tt.want, messages(t, res.Err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// TestDuplicates checks that a record whose id is already taken is
// rejected, naming the line of the first, while the first is kept.
func TestDuplicates(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"entry duplicate id", after(baseEntry, baseEntry), []string{`t.jsonl:3: entry "e1": duplicate id, first on line 2`}},
		{"entry duplicate of a bad entry is not a duplicate", after(baseEntry.with("confidence", 2), baseEntry), []string{`t.jsonl:2: entry "e1": confidence 2 is outside [0,1]`}},
		{"episode duplicate id", after(baseEpisode, baseEpisode), []string{`t.jsonl:3: episode "ep1": duplicate id, first on line 2`}},
		{"document duplicate name", after(baseDocument, baseDocument), []string{`t.jsonl:3: document "PLAYBOOK.md": duplicate name, first on line 2`}},
		{"hypothesis duplicate id", after(baseHypothesis, baseHypothesis), []string{`t.jsonl:3: hypothesis "h1": duplicate id, first on line 2`}},
		{"decision_cache duplicate id", after(baseCache, baseCache), []string{`t.jsonl:3: decision_cache "dc1": duplicate id, first on line 2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readString(t, tt.in, grimoire.ReadOptions{})
			if len(res.Records) != 1 {
				t.Errorf("records on lines %v, want one", res.Lines)
			}
			if d := cmp.Diff(tt.want, messages(t, res.Err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// TestValidRecords checks that the base records, and records at the edges
// of every range, pass.
func TestValidRecords(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"base records", after(baseEntry, baseEpisode, baseEdge, baseDocument, baseHypothesis, baseCache, baseMetric, baseFitness)},
		{"bounds included", after(
			baseEntry.with("confidence", 0, "quality_score", 1, "strength", 1, "confidence_at_creation", 1, "embedding", []float64{-3.4028234663852886e38, 3.4028234663852886e38}),
			baseEdge.with("weight", 0, "evidence", 0),
			baseFitness.with("value", 1, "tick", 0),
		)},
		{"header store.ancestry back to generation 0", export(baseHeader.with("generation", 2, "parent_bundle", digestN(1), "store", obj{"ancestry": []any{anc(1, 1), anc(0, 0)}}))},
		{"header bounds included", export(baseHeader.with("generation", 0, "tick", 0, "epistemic_fitness", 0, "senescence_threshold", 1, "tick_seconds", 0.001))},
		{"nulls are absent", after(baseEntry.with("valid_from", nil, "valid_until", nil, "source", nil, "embedding", nil, "market_regime", nil, "strength", nil))},
		{"empty document text", after(baseDocument.with("text", ""))},
		{"ids unique per record type", after(baseEntry.with("id", "x"), baseEpisode.with("id", "x"), baseHypothesis.with("id", "x"), baseCache.with("id", "x"))},
		{"metrics and edges may repeat", after(baseMetric, baseMetric, baseEdge, baseEdge)},
		{"prediction unknown", after(baseEpisode.with("prediction", obj{"statement": "s", "correct": nil}))},
		{"escaped keys", after(`{"type":"fitness","\u0074ick":1,"value":0.5}`)},
		{"utf-8 byte order mark", "\xef\xbb\xbf" + after(baseFitness)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readString(t, tt.in, grimoire.ReadOptions{Strict: true})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
		})
	}
}

// TestDefaults checks that the reader applies every default, from the
// header where the format says so, and normalises times to UTC.
func TestDefaults(t *testing.T) {
	in := export(
		baseHeader.with("exported_at", "2026-11-02T14:00:00+02:00", "generation", 4, "golem_id", "golem-9"),
		baseEntry.with("confidence", 0.7, "created_at", "2026-11-01T05:00:00-05:00"),
		baseHypothesis,
		baseEpisode.with("at", "2026-11-01T01:00:00+01:00"),
	)
	res := readString(t, in, grimoire.ReadOptions{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got, want := res.Header.ExportedAt, time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC); got != want {
		t.Errorf("exported_at %v, want %v", got, want)
	}
	c := 0.7
	created := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	wantEntry := &grimoire.Entry{
		Type: "entry", ID: "e1", Category: "insight", Content: "c", Confidence: 0.7, ConfidenceAtCreation: &c,
		QualityScore: 0.5, DecayClass: "tactical", Domain: "general", CreatedAt: &created,
		LastAccessedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Strength: 1, Provenance: "self_learned",
		Source: &grimoire.Source{GolemID: "golem-9", Generation: 4, Confidence: 0.7}, Polarity: "positive", Status: "active",
	}
	wantHyp := &grimoire.Hypothesis{Type: "hypothesis", ID: "h1", Content: "c", Status: "untested"}
	wantEpisode := &grimoire.Episode{Type: "episode", ID: "ep1", Tick: 5, At: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	if d := cmp.Diff([]grimoire.Record{wantEntry, wantHyp, wantEpisode}, res.Records); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	for _, tm := range []time.Time{res.Header.ExportedAt, *res.Records[0].(*grimoire.Entry).CreatedAt, res.Records[2].(*grimoire.Episode).At} {
		if tm.Location() != time.UTC {
			t.Errorf("%v is not in UTC", tm)
		}
	}
}
