package grimoire

import (
	"encoding/json"
	"strconv"
	"time"
)

// decodeEntry decodes an entry from the members the scanner found, by
// hand, for the common record: entries are most of an export's records,
// and encoding/json's reflection is most of an entry's cost once its
// embedding is decoded apart (takeVector). It reports false when the
// record has anything it does not handle, or anything encoding/json would
// refuse; the caller then decodes the record with encoding/json, which
// words the error. What it returns is what encoding/json would decode:
// FuzzDecodeEntry compares the two.
//
// The caller has checked that every member names a field of Entry (no
// unknown field) and that no field appears twice. vec is the embedding
// takeVector decoded, nil when it did not (the member is then null or
// absent).
func decodeEntry(members []member, vec Vector) (*Entry, bool) {
	e := &Entry{Embedding: vec}
	for i := range members {
		m := &members[i]
		v := m.value
		if string(v) == "null" { // encoding/json leaves every field of Entry as it was on null
			continue
		}
		ok := true
		switch string(m.key) {
		case "type":
			e.Type, ok = fastString(v)
		case "id":
			e.ID, ok = fastString(v)
		case "category":
			e.Category, ok = fastString(v)
		case "content":
			e.Content, ok = fastString(v)
		case "embedding":
			ok = vec != nil
		case "confidence":
			e.Confidence, ok = fastFloat(v)
		case "confidence_at_creation":
			var f float64
			f, ok = fastFloat(v)
			e.ConfidenceAtCreation = &f
		case "quality_score":
			e.QualityScore, ok = fastFloat(v)
		case "validated_count":
			e.ValidatedCount, ok = fastInt(v)
		case "contradicted_count":
			e.ContradictedCount, ok = fastInt(v)
		case "decay_class":
			e.DecayClass, ok = fastString(v)
		case "market_regime":
			e.MarketRegime, ok = fastString(v)
		case "domain":
			e.Domain, ok = fastString(v)
		case "tags":
			e.Tags, ok = fastStrings(v)
		case "created_at":
			e.CreatedAt, ok = fastTimePtr(v)
		case "last_accessed_at":
			ok = e.LastAccessedAt.UnmarshalJSON(v) == nil
		case "valid_from":
			e.ValidFrom, ok = fastTimePtr(v)
		case "valid_until":
			e.ValidUntil, ok = fastTimePtr(v)
		case "strength":
			e.Strength, ok = fastInt(v)
		case "provenance":
			e.Provenance, ok = fastString(v)
		case "source":
			ok = v[0] == '{' && json.Unmarshal(v, &e.Source) == nil
		case "parent_episode_ids":
			e.ParentEpisodeIDs, ok = fastStrings(v)
		case "emotional_tag":
			e.EmotionalTag, ok = fastEmotionalTag(v)
		case "is_bloodstain":
			e.IsBloodstain, ok = fastBool(v)
		case "polarity":
			e.Polarity, ok = fastString(v)
		case "status":
			e.Status, ok = fastString(v)
		case "requires_investigation":
			e.RequiresInvestigation, ok = fastBool(v)
		case "store":
			ok = v[0] == '{' && json.Unmarshal(v, &e.Store) == nil
		default:
			ok = false
		}
		if !ok {
			return nil, false
		}
	}
	return e, true
}

// fastString is a JSON string value as encoding/json decodes it into a
// string; the line is valid UTF-8 (recordType checked it).
func fastString(v []byte) (string, bool) {
	s, err := unquote(v)
	return s, err == nil
}

// fastFloat is a JSON number as encoding/json decodes it into a float64:
// strconv.ParseFloat of its text, a number out of range refused.
func fastFloat(v []byte) (float64, bool) {
	if !isJSONNumber(v) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// fastInt is a JSON number as encoding/json decodes it into an int64:
// strconv.ParseInt of its text, so that 1.0, 1e2 and out-of-range
// numbers are refused.
func fastInt(v []byte) (int64, bool) {
	if !isJSONNumber(v) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

func fastBool(v []byte) (bool, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// fastTimePtr decodes a time as encoding/json does: time.Time's
// UnmarshalJSON on the value as written.
func fastTimePtr(v []byte) (*time.Time, bool) {
	t := new(time.Time)
	if err := t.UnmarshalJSON(v); err != nil {
		return nil, false
	}
	return t, true
}

// fastStrings decodes an array of strings: [] is an empty slice, not nil,
// as encoding/json makes it; a null element is "".
func fastStrings(v []byte) ([]string, bool) {
	if v[0] != '[' {
		return nil, false
	}
	out := []string{}
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == ']' {
		return out, skipSpace(v, i+1) == len(v)
	}
	for i < len(v) {
		var s string
		switch {
		case v[i] == '"':
			end, _, err := skipString(v, i)
			if err != nil {
				return nil, false
			}
			if s, err = unquote(v[i:end]); err != nil {
				return nil, false
			}
			i = end
		case len(v)-i >= 4 && string(v[i:i+4]) == "null":
			i += 4
		default:
			return nil, false
		}
		out = append(out, s)
		i = skipSpace(v, i)
		if i == len(v) {
			return nil, false
		}
		switch v[i] {
		case ',':
			i = skipSpace(v, i+1)
		case ']':
			return out, skipSpace(v, i+1) == len(v)
		default:
			return nil, false
		}
	}
	return nil, false
}

// fastEmotionalTag decodes an emotional_tag object whose members are the
// four fields EmotionalTag defines, each once; anything else is left to
// encoding/json.
func fastEmotionalTag(v []byte) (*EmotionalTag, bool) {
	if v[0] != '{' {
		return nil, false
	}
	var buf [4]member
	ms, err := scanObject(v, buf[:0])
	if err != nil {
		return nil, false
	}
	t := &EmotionalTag{}
	var seen uint8
	for i := range ms {
		m := &ms[i]
		var bit uint8
		ok := true
		if string(m.value) == "null" {
			ok = string(m.key) == "primary" || string(m.key) == "pleasure" || string(m.key) == "arousal" || string(m.key) == "dominance"
		} else {
			switch string(m.key) {
			case "primary":
				bit = 1
				t.Primary, ok = fastString(m.value)
			case "pleasure":
				bit = 2
				t.Pleasure, ok = fastFloat(m.value)
			case "arousal":
				bit = 4
				t.Arousal, ok = fastFloat(m.value)
			case "dominance":
				bit = 8
				t.Dominance, ok = fastFloat(m.value)
			default:
				ok = false
			}
		}
		if !ok || seen&bit != 0 {
			return nil, false
		}
		seen |= bit
	}
	return t, true
}
