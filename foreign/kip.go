package foreign

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
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

// FromKIP converts a KIP Cognitive Capsule, src of size bytes, and
// writes its export to w. The capsule is read whole, within MaxHeldBytes;
// its digest is checked before anything else is looked at
// (capsule.ErrDigestMismatch), then the schema's rules (errors wrapping
// capsule.ErrMalformed), and only then are records built.
func FromKIP(src io.ReaderAt, size int64, w io.Writer, o Options) (*Result, error) {
	b := &jcs.Budget{Limit: MaxHeldBytes}
	d := jcs.NewDecoder(io.NewSectionReader(src, 0, size), jcs.KIPSafe)
	d.Budget = b
	v, err := d.Value()
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if errors.Is(err, jcs.ErrBudget) {
			return nil, decodeError(err)
		}
		if errors.Is(err, jcs.ErrInvalid) || errors.As(err, new(*jcs.TypeError)) {
			return nil, fmt.Errorf("%w: %w", capsule.ErrMalformed, err)
		}
		return nil, err
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
	k := &kipImport{o: o, b: b, rep: newReport(KindKIP, o.Trusted), byID: map[string]map[string]any{},
		entryOf: map[string]string{}, entryIDs: map[string]bool{}}
	p := doc["payload"].(map[string]any)
	if err := k.run(p); err != nil {
		return nil, err
	}
	out := newExportWriter(w, &k.rep, b)
	if err := out.header(&k.h); err != nil {
		return nil, err
	}
	for _, rec := range k.recs {
		if err := out.write(rec); err != nil {
			return nil, err
		}
	}
	if err := out.flush(); err != nil {
		return nil, err
	}
	return &Result{Header: k.h, Report: k.rep}, nil
}

type kipImport struct {
	o        Options
	b        *jcs.Budget
	rep      Report
	h        grimoire.Header
	recs     []grimoire.Record
	p        map[string]any
	byID     map[string]map[string]any
	entryOf  map[string]string // record id → entry id, for the concepts that became entries
	entryIDs map[string]bool   // the ids of the entries made
	// beliefs: concept record id → the latest supporting assertion about it
	beliefs map[string]map[string]any
	latest  time.Time
}

// add keeps a record to write, charging it to the budget.
func (k *kipImport) add(rec grimoire.Record) error {
	n := int64(costEntry)
	if e, ok := rec.(*grimoire.Entry); ok {
		n += 4 * int64(len(e.Embedding))
		k.entryIDs[e.ID] = true
	}
	k.recs = append(k.recs, rec)
	if err := k.b.Charge(n); err != nil {
		return decodeError(err)
	}
	return nil
}

func (k *kipImport) run(p map[string]any) error {
	k.p = p
	recs := arr(p, "records")
	for _, r := range recs {
		rm := r.(map[string]any)
		k.byID[str(rm, "id")] = rm
		k.rep.Read[str(rm, "kind")]++
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
		return err
	}
	k.h = h
	// bardo's own entries first, whatever their place in the file: a
	// concept of another package never takes the id of one.
	for _, r := range recs {
		rm := r.(map[string]any)
		if str(rm, "kind") == "concept" && str(rm, "schema_ref") == capsule.TypeEntry {
			if err := k.bardoEntry(rm); err != nil {
				return err
			}
		}
	}
	reflection := map[string][]map[string]any{}
	var autopsies, evidence, activities, golems int
	for _, r := range recs {
		rm := r.(map[string]any)
		var err error
		switch str(rm, "kind") {
		case "concept":
			switch str(rm, "schema_ref") {
			case capsule.TypeGolem:
				golems++
			case capsule.TypeEntry:
			case capsule.TypeDocument:
				a := obj(rm, "attributes")
				err = k.document(str(rm, "key"), str(a, "text"))
			case capsule.TypeReflection:
				a := obj(rm, "attributes")
				reflection[str(a, "category")] = append(reflection[str(a, "category")], rm)
			case capsule.TypeAutopsy:
				autopsies++
			default:
				err = k.concept(rm)
			}
		case "evidence":
			evidence++
		case "activity":
			activities++
		}
		if err != nil {
			return err
		}
	}
	if err := k.reflectionDocs(reflection); err != nil {
		return err
	}
	others, err := k.edges(recs)
	if err != nil {
		return err
	}
	rep := &k.rep
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
	sortRecords(k.recs)
	return nil
}

// document keeps a document, its text within the bundle format's limit;
// one without a name is left out.
func (k *kipImport) document(name, text string) error {
	if name == "" {
		k.rep.leave("documents without a name", 1, "a document is known by its name")
		return nil
	}
	if len(name) > maxWordBytes {
		k.rep.change("document names", 1, whyWord)
		name = cut(name, maxWordBytes)
	}
	return k.add(&grimoire.Document{Name: name, Text: k.rep.fitText(text, bundle.MaxDocumentBytes, "document texts")})
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
				if dims, ok := num(e, "dims"); ok && dims > 0 && dims == math.Trunc(dims) {
					h.Embedding = k.rep.fitSpace(str(e, "model"), int(min(dims, 1<<31)))
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
	k.rep.fitHeader(&h, "kip:")
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
	id := k.rep.fitID(str(r, "key"), "kip:")
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
		e.LastAccessedAt = k.h.ExportedAt
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
	k.rep.fitEntry(e, k.h.Embedding)
	k.entryOf[str(r, "id")] = e.ID
	return k.add(e)
}

func (k *kipImport) embedding(e *grimoire.Entry, emb map[string]any) error {
	blob, _ := obj(k.p, "blobs")[str(emb, "blob")].(string)
	h := k.h.Embedding
	dims, _ := num(emb, "dims")
	if blob == "" || h == nil || str(emb, "model") != h.Model || dims != float64(h.Dims) {
		k.rep.leave("embeddings", 1, "its blob is missing or its space is not the Golem's")
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
func (k *kipImport) concept(r map[string]any) error {
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
		k.rep.leave("concepts without text", 1, "no name and no scalar attribute")
		return nil
	}
	e := &grimoire.Entry{ID: str(r, "id"), Category: grimoire.CategoryInsight, Content: b.String(), Confidence: kipDefaultConfidence,
		QualityScore: kipDefaultQuality, DecayClass: grimoire.DecayStructural, Status: status(k.o, grimoire.StatusActive)}
	if bel := k.beliefs[e.ID]; bel != nil {
		e.Confidence, _ = num(bel, "confidence")
	}
	ref := str(r, "schema_ref")
	e.Tags = []string{"kip:" + ref[strings.LastIndex(ref, "/")+1:]}
	e.LastAccessedAt = k.h.ExportedAt
	if s := obj(r, "_system"); s != nil {
		for _, f := range []string{"updated_at", "created_at"} {
			if t, ok := parseTime(str(s, f)); ok {
				e.LastAccessedAt = t
				break
			}
		}
	}
	normalize(e)
	recordID := e.ID
	if k.entryIDs[e.ID] {
		// The id of an entry of bardo's package: that entry keeps it.
		k.rep.change("concept ids", 1, "the id of a bardo entry the capsule holds: prefixed with kip:")
		e.ID = "kip:" + e.ID
	}
	e.ID = k.rep.fitID(e.ID, "kip:")
	k.rep.fitEntry(e, k.h.Embedding)
	k.entryOf[recordID] = e.ID
	return k.add(e)
}

// reflectionDocs writes the reflection items of each category, in their
// order, as the document reflection/<category>.md.
func (k *kipImport) reflectionDocs(byCat map[string][]map[string]any) error {
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
		if err := k.document("reflection/"+cat+".md", strings.Join(texts, "\n\n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// edges maps causes assertions between imported entries to causal edges;
// it returns how many propositions and assertions mapped to nothing.
func (k *kipImport) edges(recs []any) (int, error) {
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
		e := &grimoire.CausalEdge{SourceID: src, TargetID: dst, Weight: min(1, max(0, w))}
		if f := obj(obj(a, "facets"), "bardo/edge"); f != nil {
			if n, ok := num(f, "evidence"); ok {
				e.Evidence = int64(n)
			}
			if n, ok := num(f, "lag"); ok {
				lag := int64(n)
				e.Lag = &lag
			}
			e.Mechanism = str(f, "mechanism")
			if len(e.Mechanism) > bundle.MaxStringBytes {
				k.rep.change("edge mechanisms", 1, whyWord)
				e.Mechanism = cut(e.Mechanism, bundle.MaxStringBytes)
			}
			e.Evidence = max(0, e.Evidence)
		}
		used[str(a, "id")], used[str(prop, "id")] = true, true
		if err := k.add(e); err != nil {
			return 0, err
		}
	}
	for _, r := range recs {
		rm := r.(map[string]any)
		if kind := str(rm, "kind"); (kind == "assertion" || kind == "proposition") && !used[str(rm, "id")] {
			left++
		}
	}
	return left, nil
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

// str, num, obj and arr read the generic values of a capsule.
func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }
func obj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}
func arr(m map[string]any, k string) []any { a, _ := m[k].([]any); return a }
func num(m map[string]any, k string) (float64, bool) {
	f, ok := m[k].(float64)
	return f, ok
}
