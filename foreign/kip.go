package foreign

import (
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/jcs"
)

// Defaults for a concept of another package, which says nothing of them.
const (
	kipDefaultConfidence = 0.5
	kipDefaultQuality    = 0.5
)

// FromKIP converts a KIP Cognitive Capsule. Its digest is checked before
// anything else is read (capsule.ErrDigestMismatch), then the schema's
// rules (errors wrapping capsule.ErrMalformed).
func FromKIP(data []byte, o Options) (*Result, error) {
	v, err := jcs.Parse(data, jcs.KIPSafe)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", capsule.ErrMalformed, err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the document is not an object", capsule.ErrMalformed)
	}
	if err := capsule.Verify(doc); err != nil {
		return nil, err
	}
	if errs := capsule.Check(doc); len(errs) > 0 {
		if len(errs) > 1 {
			return nil, fmt.Errorf("%w (and %d more)", errs[0], len(errs)-1)
		}
		return nil, errs[0]
	}
	k := &kipImport{o: o, res: &Result{Report: newReport(KindKIP, o.Trusted)}, byID: map[string]map[string]any{},
		entryOf: map[string]string{}}
	p := doc["payload"].(map[string]any)
	return k.run(p)
}

type kipImport struct {
	o       Options
	res     *Result
	p       map[string]any
	byID    map[string]map[string]any
	entryOf map[string]string // record id → entry id, for the concepts that became entries
	// beliefs: concept record id → the latest supporting assertion about it
	beliefs map[string]map[string]any
	latest  time.Time
}

func (k *kipImport) run(p map[string]any) (*Result, error) {
	k.p = p
	recs := arr(p, "records")
	for _, r := range recs {
		rm := r.(map[string]any)
		k.byID[str(rm, "id")] = rm
		k.res.Report.Read[str(rm, "kind")]++
		for _, f := range []string{"asserted_at", "observed_at"} {
			k.seeTime(str(rm, f))
		}
		if s := obj(rm, "_system"); s != nil {
			k.seeTime(str(s, "created_at"))
			k.seeTime(str(s, "updated_at"))
		}
	}
	k.collectBeliefs(recs)
	h, err := k.header()
	if err != nil {
		return nil, err
	}
	k.res.Header = h
	reflection := map[string][]map[string]any{}
	var autopsies, evidence, activities, golems int
	for _, r := range recs {
		rm := r.(map[string]any)
		switch str(rm, "kind") {
		case "concept":
			switch str(rm, "schema_ref") {
			case capsule.TypeGolem:
				golems++
			case capsule.TypeEntry:
				if err := k.bardoEntry(rm); err != nil {
					return nil, err
				}
			case capsule.TypeDocument:
				a := obj(rm, "attributes")
				k.res.add(&grimoire.Document{Name: str(rm, "key"), Text: str(a, "text")})
			case capsule.TypeReflection:
				a := obj(rm, "attributes")
				reflection[str(a, "category")] = append(reflection[str(a, "category")], rm)
			case capsule.TypeAutopsy:
				autopsies++
			default:
				k.concept(rm)
			}
		case "evidence":
			evidence++
		case "activity":
			activities++
		}
	}
	k.reflectionDocs(reflection)
	others := k.edges(recs)
	rep := &k.res.Report
	rep.leave("autopsy", autopsies, "a death's analysis of its episodes, not knowledge; the successor's autopsy is its own")
	rep.leave("evidence records", evidence, "evidence payloads are experience, and bardo exports carry no evidence records")
	rep.leave("activity records", activities, "activities are provenance of the source brain's work, not knowledge")
	rep.leave("propositions and assertions", others, "only holds beliefs about concepts and causes edges between them map to bardo records")
	refs := map[string]int{}
	for _, r := range arr(p, "external_refs") {
		refs[str(r.(map[string]any), "kind")]++
	}
	for _, kind := range sortedKeys(refs) {
		rep.Read["external_ref:"+kind] = refs[kind]
		rep.leave("external refs ("+kind+")", refs[kind], "the capsule declares them but does not carry them")
	}
	k.res.sortRecords()
	return k.res, nil
}

func (k *kipImport) seeTime(s string) {
	if t, ok := parseTime(s); ok && t.After(k.latest) {
		k.latest = t
	}
}

// collectBeliefs finds, per concept, the latest assertion supporting a
// proposition about it (ties: the larger id, so the choice is stable).
func (k *kipImport) collectBeliefs(recs []any) {
	k.beliefs = map[string]map[string]any{}
	for _, r := range recs {
		a := r.(map[string]any)
		if str(a, "kind") != "assertion" || str(a, "stance") != "support" {
			continue
		}
		prop := k.byID[str(obj(a, "proposition"), "id")]
		if prop == nil || str(prop, "predicate_ref") == capsule.PredicateCause {
			continue
		}
		subject := str(obj(prop, "subject"), "id")
		if _, ok := num(a, "confidence"); !ok {
			continue
		}
		if cur := k.beliefs[subject]; cur == nil || later(a, cur) {
			k.beliefs[subject] = a
		}
	}
}

func later(a, b map[string]any) bool {
	if ta, tb := str(a, "asserted_at"), str(b, "asserted_at"); ta != tb {
		return ta > tb // fixed-width millisecond timestamps order as strings
	}
	return str(a, "id") > str(b, "id")
}

func (k *kipImport) header() (grimoire.Header, error) {
	h := grimoire.Header{GolemID: k.o.GolemID, Format: grimoire.Format}
	for _, r := range k.byID {
		if str(r, "kind") == "concept" && str(r, "schema_ref") == capsule.TypeGolem {
			a := obj(r, "attributes")
			if h.GolemID == "" {
				h.GolemID = str(a, "golem_id")
			}
			if g, ok := num(a, "generation"); ok && g >= 0 {
				h.Generation = int(g)
			}
			h.LineageID = str(a, "lineage_id")
			h.Phase = str(a, "phase")
			if t, ok := parseTime(str(a, "exported_at")); ok {
				h.ExportedAt = t
			}
			if tick, ok := num(a, "tick"); ok {
				n := int64(tick)
				h.Tick = &n
			}
			if d := obj(a, "death"); d != nil {
				at, _ := parseTime(str(d, "at"))
				tick, _ := num(d, "tick")
				if slices.Contains(grimoire.DeathCauses, str(d, "cause")) {
					h.Death = &grimoire.Death{Cause: str(d, "cause"), At: at, Tick: int64(tick)}
				}
			}
			if e := obj(a, "embedding"); e != nil {
				if dims, ok := num(e, "dims"); ok && dims > 0 && str(e, "model") != "" {
					h.Embedding = &grimoire.EmbeddingSpace{Model: str(e, "model"), Dims: int(dims)}
				}
			}
			if p := arr(a, "parents"); len(p) > 0 {
				h.ParentBundle, _ = p[len(p)-1].(string)
			}
		}
	}
	if h.GolemID == "" {
		h.GolemID = str(obj(k.p, "source"), "space_id")
	}
	if h.ExportedAt.IsZero() {
		switch {
		case !k.o.Now.IsZero():
			h.ExportedAt = k.o.Now.UTC()
		case !k.latest.IsZero():
			h.ExportedAt = k.latest
		default:
			return h, fmt.Errorf("%w: the capsule names no time to export at: give --now", ErrMalformed)
		}
	}
	return h, nil
}

// bardoEntry maps an Entry concept of bardo's package back to its entry.
func (k *kipImport) bardoEntry(r map[string]any) error {
	a := obj(r, "attributes")
	id := str(r, "key")
	e := &grimoire.Entry{ID: id, Category: str(a, "category"), Content: str(a, "content"), DecayClass: str(a, "decay_class"),
		MarketRegime: str(a, "market_regime"), Domain: str(a, "domain"), Provenance: str(a, "provenance"), Polarity: str(a, "polarity"),
		IsBloodstain: a["is_bloodstain"] == true, RequiresInvestigation: a["requires_investigation"] == true,
		Status: status(k.o, str(a, "entry_status"))}
	if e.Content == "" {
		e.Content = str(r, "name")
	}
	e.Confidence = kipDefaultConfidence
	if b := k.beliefs[str(r, "id")]; b != nil {
		e.Confidence, _ = num(b, "confidence")
	}
	if c, ok := num(a, "confidence_at_creation"); ok {
		e.ConfidenceAtCreation = &c
	}
	e.QualityScore, _ = num(a, "quality_score")
	if n, ok := num(a, "validated_count"); ok {
		e.ValidatedCount = int64(n)
	}
	if n, ok := num(a, "contradicted_count"); ok {
		e.ContradictedCount = int64(n)
	}
	if n, ok := num(a, "strength"); ok {
		e.Strength = int64(n)
	}
	for _, t := range arr(a, "tags") {
		if s, ok := t.(string); ok {
			e.Tags = append(e.Tags, s)
		}
	}
	var ok bool
	if e.LastAccessedAt, ok = parseTime(str(a, "last_accessed_at")); !ok {
		e.LastAccessedAt = k.res.Header.ExportedAt
	}
	for _, f := range []struct {
		key string
		dst **time.Time
	}{{"created_at", &e.CreatedAt}, {"valid_from", &e.ValidFrom}, {"valid_until", &e.ValidUntil}} {
		if t, ok := parseTime(str(a, f.key)); ok {
			*f.dst = &t
		}
	}
	if s := obj(a, "source"); s != nil {
		g, _ := num(s, "generation")
		c, _ := num(s, "confidence")
		e.Source = &grimoire.Source{GolemID: str(s, "golem_id"), Generation: int(g), Confidence: c}
	}
	if emb := obj(a, "embedding"); emb != nil {
		if err := k.embedding(e, emb); err != nil {
			return err
		}
	}
	normalize(e)
	k.entryOf[str(r, "id")] = e.ID
	k.res.add(e)
	return nil
}

func (k *kipImport) embedding(e *grimoire.Entry, emb map[string]any) error {
	blob, _ := obj(k.p, "blobs")[str(emb, "blob")].(string)
	h := k.res.Header.Embedding
	dims, _ := num(emb, "dims")
	if blob == "" || h == nil || str(emb, "model") != h.Model || int(dims) != h.Dims {
		k.res.Report.leave("embedding of entry "+strconv.Quote(e.ID), 1, "its blob is missing or its space is not the Golem's")
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(blob, "base64:"))
	if err != nil {
		return fmt.Errorf("%w: blob %q: %v", capsule.ErrMalformed, str(emb, "blob"), err)
	}
	vec, err := bundle.UnpackF32(raw)
	if err != nil || len(vec) != h.Dims {
		return fmt.Errorf("%w: blob %q: not %d little-endian float32 values", capsule.ErrMalformed, str(emb, "blob"), h.Dims)
	}
	e.Embedding = vec
	return nil
}

// concept maps a concept of another package to an entry: its text is its
// name and its scalar attributes.
func (k *kipImport) concept(r map[string]any) {
	var b strings.Builder
	b.WriteString(str(r, "name"))
	a := obj(r, "attributes")
	for _, key := range sortedKeys(a) {
		var v string
		switch x := a[key].(type) {
		case string:
			v = x
		case float64:
			v = jcs.FormatNumber(x)
		case bool:
			v = strconv.FormatBool(x)
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(key + ": " + v)
	}
	if strings.TrimSpace(b.String()) == "" {
		k.res.Report.leave("concepts without text", 1, "no name and no scalar attribute")
		return
	}
	e := &grimoire.Entry{ID: str(r, "id"), Category: grimoire.CategoryInsight, Content: b.String(), Confidence: kipDefaultConfidence,
		QualityScore: kipDefaultQuality, DecayClass: grimoire.DecayStructural, Status: status(k.o, grimoire.StatusActive)}
	if bel := k.beliefs[e.ID]; bel != nil {
		e.Confidence, _ = num(bel, "confidence")
	}
	ref := str(r, "schema_ref")
	e.Tags = []string{"kip:" + ref[strings.LastIndex(ref, "/")+1:]}
	e.LastAccessedAt = k.res.Header.ExportedAt
	if s := obj(r, "_system"); s != nil {
		for _, f := range []string{"updated_at", "created_at"} {
			if t, ok := parseTime(str(s, f)); ok {
				e.LastAccessedAt = t
				break
			}
		}
	}
	normalize(e)
	k.entryOf[e.ID] = e.ID
	k.res.add(e)
}

// reflectionDocs writes the reflection items of each category, in their
// order, as the document reflection/<category>.md.
func (k *kipImport) reflectionDocs(byCat map[string][]map[string]any) {
	for _, cat := range sortedKeys(byCat) {
		items := byCat[cat]
		sort.SliceStable(items, func(i, j int) bool {
			pi, _ := num(obj(items[i], "attributes"), "position")
			pj, _ := num(obj(items[j], "attributes"), "position")
			return pi < pj
		})
		texts := make([]string, 0, len(items))
		for _, it := range items {
			texts = append(texts, str(obj(it, "attributes"), "text"))
		}
		k.res.add(&grimoire.Document{Name: "reflection/" + cat + ".md", Text: strings.Join(texts, "\n\n") + "\n"})
	}
}

// edges maps causes assertions between imported entries to causal edges;
// it returns how many propositions and assertions mapped to nothing.
func (k *kipImport) edges(recs []any) int {
	used := map[string]bool{}
	for _, b := range k.beliefs {
		used[str(b, "id")] = true
		used[str(obj(b, "proposition"), "id")] = true
	}
	left := 0
	for _, r := range recs {
		a := r.(map[string]any)
		if str(a, "kind") != "assertion" {
			continue
		}
		prop := k.byID[str(obj(a, "proposition"), "id")]
		if prop == nil || str(prop, "predicate_ref") != capsule.PredicateCause {
			continue
		}
		src, okS := k.entryOf[str(obj(prop, "subject"), "id")]
		objRef, _ := prop["object"].(map[string]any)
		dst, okD := k.entryOf[str(objRef, "id")]
		w, okW := num(a, "confidence")
		if !okS || !okD || !okW {
			continue
		}
		e := &grimoire.CausalEdge{SourceID: src, TargetID: dst, Weight: w}
		if f := obj(obj(a, "facets"), "bardo/edge"); f != nil {
			if n, ok := num(f, "evidence"); ok {
				e.Evidence = int64(n)
			}
			if n, ok := num(f, "lag"); ok {
				lag := int64(n)
				e.Lag = &lag
			}
			e.Mechanism = str(f, "mechanism")
		}
		used[str(a, "id")], used[str(prop, "id")] = true, true
		k.res.add(e)
	}
	for _, r := range recs {
		rm := r.(map[string]any)
		if kind := str(rm, "kind"); (kind == "assertion" || kind == "proposition") && !used[str(rm, "id")] {
			left++
		}
	}
	return left
}

// normalize puts an entry's values into the export's ranges and sets,
// so an odd capsule value never makes an export verify refuses.
func normalize(e *grimoire.Entry) {
	clamp := func(f float64) float64 { return min(1, max(0, f)) }
	e.Confidence, e.QualityScore = clamp(e.Confidence), clamp(e.QualityScore)
	if e.ConfidenceAtCreation != nil {
		c := clamp(*e.ConfidenceAtCreation)
		e.ConfidenceAtCreation = &c
	}
	if !slices.Contains(grimoire.Categories, e.Category) {
		e.Category = grimoire.CategoryInsight
	}
	if !slices.Contains(grimoire.DecayClasses, e.DecayClass) {
		e.DecayClass = grimoire.DecayStructural
	}
	if e.MarketRegime != "" && !slices.Contains(grimoire.Regimes, e.MarketRegime) {
		e.MarketRegime = ""
	}
	if e.Provenance != "" && !slices.Contains(grimoire.Provenances, e.Provenance) {
		e.Provenance = ""
	}
	if e.Polarity != "" && e.Polarity != grimoire.PolarityPositive && e.Polarity != grimoire.PolarityNegative {
		e.Polarity = ""
	}
	if e.Strength < 1 {
		e.Strength = 0 // the reader's default, 1
	}
	if e.ValidatedCount < 0 {
		e.ValidatedCount = 0
	}
	if e.ContradictedCount < 0 {
		e.ContradictedCount = 0
	}
	if e.Source != nil {
		e.Source.Confidence = clamp(e.Source.Confidence)
		if e.Source.GolemID == "" || e.Source.Generation < 0 {
			e.Source = nil
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
