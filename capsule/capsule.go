package capsule

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/jcs"
)

// The capsule frame.
const (
	Format        = "KIP-Cognitive-Capsule"
	FormatVersion = "2.0-draft"
	DigestProfile = "kip-jcs-safe-v1"
	// CorePackage is KIP's core package; the only dependency that needs
	// no content digest.
	CorePackage = "kip://core@2.0.0"
	// Package is bardo's own schema package: the types and predicates the
	// records name (PackageDefinition).
	Package = "kip://bardo/germline@1.0.0"
	// Channel is _system.origin.channel of every record bardo writes.
	Channel = "bardo-capsule"
)

// Types and predicates of Package.
const (
	TypeGolem      = Package + "/Golem"
	TypeEntry      = Package + "/Entry"
	TypeDocument   = Package + "/Document"
	TypeReflection = Package + "/ReflectionItem"
	TypeAutopsy    = Package + "/Autopsy"
	PredicateHolds = Package + "/holds"  // subject: an Entry; object: true — "the Golem holds this"
	PredicateCause = Package + "/causes" // subject, object: Entries — the causal graph
)

// External reference kinds bardo writes.
const (
	RefRedacted    = "redacted"    // bardo withheld it: the bottleneck or the Weismann barrier
	RefUnavailable = "unavailable" // the bundle names it but holds no record of it
)

// Record id prefixes: capsule-local ids, one namespace per kind of thing.
const (
	GolemID        = "golem"
	AutopsyID      = "autopsy"
	entryPrefix    = "entry:"
	docPrefix      = "document:"
	reflPrefix     = "reflection:"
	holdsPrefix    = "holds:"
	believesPrefix = "belief:"
	edgePrefix     = "edge:"
	causalPrefix   = "causal:"
	blobPrefix     = "embedding:"
	hypoPrefix     = "hypothesis:"
)

// EntryRecordID is the capsule-local id of the record of entry id.
func EntryRecordID(id string) string { return entryPrefix + id }

// ErrDigestMismatch is returned when integrity.content_digest is not the
// digest of the capsule's content.
var ErrDigestMismatch = errors.New("capsule content digest does not match")

// ErrMalformed is wrapped by every error about a capsule that breaks a rule
// of the schema or of this package.
var ErrMalformed = errors.New("malformed capsule")

// Report says what Build wrote and what it left out.
type Report struct {
	Records      map[string]int // by kind: concept, proposition, assertion
	Concepts     map[string]int // by type: Golem, Entry, Document, ReflectionItem, Autopsy
	ExternalRefs map[string]int // by kind: redacted, unavailable
	Blobs        int
	LeftOut      []LeftOut
}

// LeftOut is something of the bundle that has no place in the capsule.
//
// cmd/bardo prints it as is, in the left_out list of bardo.capsule/v1: its json
// tags are keys of that document (JSON.md).
type LeftOut struct {
	What   string `json:"what"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

// Timestamp writes t as KIP's Timestamp: UTC, exactly milliseconds.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// kipTime converts a bundle time (RFC 3339) to a KIP Timestamp.
func kipTime(s string) (string, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", fmt.Errorf("%w: time %q: %v", bundle.ErrCorrupt, s, err)
	}
	return Timestamp(t), nil
}

// Build maps a death bundle, whose digest is digest, to a capsule document
// (JSON values, see CAPSULE.md) with its integrity block, and reports what
// went where.
func Build(b *bundle.Bundle, digest string) (map[string]any, *Report, error) {
	if b.Header.Kind != bundle.KindDeath {
		return nil, nil, fmt.Errorf("%w: a capsule is made of a death bundle, not of kind %q", bundle.ErrCorrupt, b.Header.Kind)
	}
	w := &writer{b: b, space: "bardo:" + b.Header.GolemID + ":g" + strconv.Itoa(b.Header.Generation),
		rep:   &Report{Records: map[string]int{}, Concepts: map[string]int{}, ExternalRefs: map[string]int{}, LeftOut: []LeftOut{}},
		blobs: map[string]any{}}
	var err error
	if w.exportedAt, err = kipTime(b.Header.ExportedAt); err != nil {
		return nil, nil, err
	}
	if err := w.golem(digest); err != nil {
		return nil, nil, err
	}
	for i := range b.Body.Entries {
		if err := w.entry(&b.Body.Entries[i]); err != nil {
			return nil, nil, err
		}
	}
	for i, e := range b.Body.CausalGraph {
		w.edge(i+1, e)
	}
	if p := b.Body.Playbook; p != nil {
		w.document(p)
	}
	w.reflection()
	w.autopsy()
	refs := w.externalRefs()
	w.leftOut()

	payload := map[string]any{
		"manifest":            map[string]any{"kind": "snapshot", "closure": "selective", "roots": w.roots},
		"source":              map[string]any{"space_id": w.space, "snapshot_seq": snapshotSeq(b)},
		"schema_dependencies": dependencies(),
		"records":             w.concepts(),
		"external_refs":       refs,
		"blobs":               w.blobs,
		"handling": map[string]any{"bardo/source": map[string]any{
			"format": bundle.Format, "bundle_digest": digest, "golem_id": b.Header.GolemID, "generation": b.Header.Generation,
		}},
	}
	doc := map[string]any{"format": Format, "format_version": FormatVersion, "payload": payload}
	sum, err := Digest(doc)
	if err != nil {
		return nil, nil, err
	}
	doc["integrity"] = map[string]any{"digest_profile": DigestProfile, "content_digest": sum, "signatures": []any{}}
	w.rep.Blobs = len(w.blobs)
	return doc, w.rep, nil
}

// Marshal is the capsule's byte form: its canonical JSON and a newline.
func Marshal(doc map[string]any) ([]byte, error) {
	out, err := jcs.Marshal(doc, jcs.KIPSafe)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Digest is integrity.content_digest of doc: "sha256:" and the hex SHA-256
// of the kip-jcs-safe-v1 form of every top-level field but integrity.
func Digest(doc map[string]any) (string, error) {
	covered := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != "integrity" {
			covered[k] = v
		}
	}
	// A document read (jcs values) is hashed as its canonical form is
	// written, never held; one built in Go goes through its JSON.
	h := sha256.New()
	if err := jcs.Encode(h, covered); errors.Is(err, jcs.ErrNotValue) {
		canon, err := jcs.Marshal(covered, jcs.KIPSafe)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		h.Reset()
		h.Write(canon)
	} else if err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Verify checks doc's integrity block: the profile is kip-jcs-safe-v1 and
// content_digest is Digest(doc). A mismatch is ErrDigestMismatch.
func Verify(doc map[string]any) error {
	integ, ok := doc["integrity"].(map[string]any)
	if !ok {
		return fmt.Errorf("%w: integrity: missing or not an object", ErrMalformed)
	}
	if p := integ["digest_profile"]; p != DigestProfile {
		return fmt.Errorf("%w: integrity.digest_profile %v is not %s", ErrMalformed, p, DigestProfile)
	}
	want, _ := integ["content_digest"].(string)
	got, err := Digest(doc)
	if err != nil {
		return err
	}
	if want != got {
		return fmt.Errorf("%w: integrity.content_digest says %s, the content is %s", ErrDigestMismatch, want, got)
	}
	return nil
}

func snapshotSeq(b *bundle.Bundle) int64 {
	if b.Header.Tick != nil && *b.Header.Tick >= 0 {
		return *b.Header.Tick
	}
	return 0
}

func dependencies() []any {
	return []any{
		map[string]any{"package_ref": CorePackage},
		map[string]any{"package_ref": Package, "content_digest": PackageDigest()},
	}
}

type writer struct {
	b          *bundle.Bundle
	space      string
	exportedAt string
	records    []any
	roots      []string
	blobs      map[string]any
	rep        *Report
	props      []any // propositions and assertions, after the concepts
}

func (w *writer) system(created string) map[string]any {
	s := map[string]any{"version": 1, "state": "active",
		"origin": map[string]any{"principal_id": w.b.Header.GolemID, "channel": Channel, "import_id": nil}}
	if created != "" {
		s["created_at"] = created
	}
	return s
}

func (w *writer) concept(id, typ, key, name string, attrs map[string]any, created string) {
	rec := map[string]any{"id": id, "kind": "concept", "space_id": w.space, "schema_ref": typ,
		"key": key, "name": name, "attributes": attrs, "_system": w.system(created)}
	w.records = append(w.records, rec)
	w.rep.Records["concept"]++
	w.rep.Concepts[typ[len(Package)+1:]]++
}

func (w *writer) concepts() []any { return append(w.records, w.props...) }

func (w *writer) golem(digest string) error {
	h := w.b.Header
	attrs := map[string]any{"golem_id": h.GolemID, "generation": h.Generation, "exported_at": h.ExportedAt,
		"bundle_digest": digest, "bottleneck": map[string]any{"max_entries": h.Bottleneck.MaxEntries, "now": h.Bottleneck.Now}}
	if h.LineageID != "" {
		attrs["lineage_id"] = h.LineageID
	}
	if len(h.Parents) > 0 {
		attrs["parents"] = toAny(h.Parents)
	}
	if h.Tick != nil {
		attrs["tick"] = *h.Tick
	}
	if h.Phase != "" {
		attrs["phase"] = h.Phase
	}
	if h.Death != nil {
		attrs["death"] = map[string]any{"cause": h.Death.Cause, "at": h.Death.At, "tick": h.Death.Tick}
	}
	if h.Embedding != nil {
		// A capsule's blobs are f32le whatever the bundle's encoding: an
		// f16le embedding is widened, exactly (entryConcept).
		attrs["embedding"] = map[string]any{"model": h.Embedding.Model, "dims": h.Embedding.Dims, "encoding": bundle.EncodingF32LE}
	}
	w.concept(GolemID, TypeGolem, h.GolemID, h.GolemID, attrs, "")
	w.roots = append(w.roots, GolemID)
	return nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func (w *writer) entry(e *bundle.Entry) error {
	attrs := map[string]any{
		"category": e.Category, "content": e.Content, "confidence_at_creation": e.ConfidenceAtCreation,
		"quality_score": e.QualityScore, "decay_class": e.DecayClass, "domain": e.Domain,
		"last_accessed_at": e.LastAccessedAt, "strength": e.Strength, "provenance": e.Provenance,
		"source":   map[string]any{"golem_id": e.Source.GolemID, "generation": e.Source.Generation, "confidence": e.Source.Confidence},
		"polarity": e.Polarity, "entry_status": e.Status, "bottleneck_score": e.Score, "decay": e.Decay,
	}
	setIf := func(k string, ok bool, v any) {
		if ok {
			attrs[k] = v
		}
	}
	setIf("validated_count", e.ValidatedCount != 0, e.ValidatedCount)
	setIf("contradicted_count", e.ContradictedCount != 0, e.ContradictedCount)
	setIf("market_regime", e.MarketRegime != "", e.MarketRegime)
	setIf("tags", len(e.Tags) > 0, toAny(e.Tags))
	setIf("created_at", e.CreatedAt != "", e.CreatedAt)
	setIf("valid_from", e.ValidFrom != "", e.ValidFrom)
	setIf("valid_until", e.ValidUntil != "", e.ValidUntil)
	setIf("is_bloodstain", e.IsBloodstain, true)
	setIf("requires_investigation", e.RequiresInvestigation, true)
	if len(e.Embedding) > 0 && w.b.Header.Embedding != nil {
		v, err := w.b.Header.Embedding.Unpack(e.Embedding)
		if err != nil {
			return fmt.Errorf("entry %q: embedding %w", e.ID, err)
		}
		key := blobPrefix + e.ID
		w.blobs[key] = "base64:" + base64.StdEncoding.EncodeToString(bundle.PackF32(v))
		attrs["embedding"] = map[string]any{"blob": key, "model": w.b.Header.Embedding.Model, "dims": w.b.Header.Embedding.Dims, "encoding": bundle.EncodingF32LE}
	}
	created := ""
	if e.CreatedAt != "" {
		var err error
		if created, err = kipTime(e.CreatedAt); err != nil {
			return fmt.Errorf("entry %q: created_at: %w", e.ID, err)
		}
	}
	id := EntryRecordID(e.ID)
	w.concept(id, TypeEntry, e.ID, e.Content, attrs, created)
	w.roots = append(w.roots, id)

	// The entry's confidence is the Golem's assertion that it holds the
	// entry, as of the export: KIP keeps confidence off concepts.
	prop := holdsPrefix + e.ID
	w.proposition(prop, id, PredicateHolds, true)
	a := w.assertion(believesPrefix+e.ID, prop, e.Confidence, modeOf(e.Provenance), lifecycleOf(e.Status))
	if e.ValidFrom != "" || e.ValidUntil != "" {
		vt := map[string]any{}
		for k, v := range map[string]string{"from": e.ValidFrom, "until": e.ValidUntil} {
			if v == "" {
				vt[k] = nil
				continue
			}
			t, err := kipTime(v)
			if err != nil {
				return fmt.Errorf("entry %q: valid_%s: %w", e.ID, k, err)
			}
			vt[k] = t
		}
		a["valid_time"] = vt
	}
	return nil
}

// modeOf is the assertion mode of an entry's provenance: knowledge the
// Golem earned itself is inferred, the rest came from elsewhere.
func modeOf(provenance string) string {
	switch provenance {
	case grimoire.ProvenanceSelfLearned, grimoire.ProvenanceDeathReflection, grimoire.ProvenanceDream, grimoire.ProvenanceReplicant:
		return "inferred"
	}
	return "imported"
}

func lifecycleOf(status string) string {
	if status == "" {
		return "active"
	}
	return status
}

func (w *writer) proposition(id, subject, predicate string, object any) {
	w.props = append(w.props, map[string]any{"id": id, "kind": "proposition", "space_id": w.space,
		"subject": map[string]any{"id": subject}, "predicate_ref": predicate, "object": object, "_system": w.system("")})
	w.rep.Records["proposition"]++
}

func (w *writer) assertion(id, prop string, confidence float64, mode, status string) map[string]any {
	a := map[string]any{"id": id, "kind": "assertion", "space_id": w.space,
		"proposition": map[string]any{"id": prop}, "asserted_by": map[string]any{"id": GolemID},
		"stance": "support", "mode": mode, "confidence": confidence, "asserted_at": w.exportedAt,
		"lifecycle": map[string]any{"status": status}, "_system": w.system("")}
	w.props = append(w.props, a)
	w.rep.Records["assertion"]++
	return a
}

// edge writes the n-th edge of the causal graph (sorted by its ends).
// Its ids are numbered, not named after the ends: entry ids may hold any
// character, so no separator could keep two pairs apart.
func (w *writer) edge(n int, e bundle.Edge) {
	pair := strconv.Itoa(n)
	prop := edgePrefix + pair
	w.proposition(prop, EntryRecordID(e.SourceID), PredicateCause, map[string]any{"id": EntryRecordID(e.TargetID)})
	a := w.assertion(causalPrefix+pair, prop, e.Weight, "inferred", "active")
	facet := map[string]any{}
	if e.Evidence != 0 {
		facet["evidence"] = e.Evidence
	}
	if e.Lag != nil {
		facet["lag"] = *e.Lag
	}
	if e.Mechanism != "" {
		facet["mechanism"] = e.Mechanism
	}
	if len(facet) > 0 {
		a["facets"] = map[string]any{"bardo/edge": facet}
	}
}

func (w *writer) document(d *bundle.Document) {
	w.concept(docPrefix+d.Name, TypeDocument, d.Name, d.Name, map[string]any{"text": d.Text, "digest": d.Digest}, "")
	w.roots = append(w.roots, docPrefix+d.Name)
}

func (w *writer) reflection() {
	r := w.b.Body.Reflection
	if r == nil {
		return
	}
	vectors := 0
	for _, items := range [][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect, r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
		for i, it := range items {
			id := reflPrefix + it.Name + ":" + strconv.Itoa(i+1)
			refs := make([]any, 0, len(it.Refs))
			for _, ref := range it.Refs {
				refs = append(refs, map[string]any{"kind": ref.Kind, "id": ref.ID, "record": w.refID(ref)})
			}
			attrs := map[string]any{"category": it.Name, "index": it.Index, "position": i + 1, "text": it.Text, "novelty": it.Novelty, "refs": refs}
			w.concept(id, TypeReflection, it.Name+":"+strconv.Itoa(i+1), it.Text, attrs, "")
			w.roots = append(w.roots, id)
			if it.Vector != nil {
				vectors++
			}
		}
	}
	if vectors > 0 {
		w.rep.LeftOut = append(w.rep.LeftOut, LeftOut{What: "reflection item vectors", Count: vectors,
			Reason: "an item's vector is its entry's embedding or the bardo-text/v1 hash of its text, both recomputable"})
	}
}

// refID is the capsule-local id a reference of the bundle resolves to.
func (w *writer) refID(r bundle.Ref) string {
	switch r.Kind {
	case bundle.RefEntry:
		return EntryRecordID(r.ID)
	case bundle.RefDocument:
		return docPrefix + r.ID
	}
	return hypoPrefix + r.ID
}

func (w *writer) autopsy() {
	a := w.b.Body.Autopsy
	if a == nil {
		return
	}
	toxic := make([]any, 0, len(a.ToxicEntries))
	for _, t := range a.ToxicEntries {
		m := map[string]any{"entry": map[string]any{"kind": t.Entry.Kind, "id": t.Entry.ID, "record": w.refID(t.Entry)},
			"content": t.Content, "contribution_to_failure": t.ContributionToFailure, "confidence_at_failure": t.ConfidenceAtFailure,
			"recommendation": t.Recommendation, "failure_rate": t.FailureRate, "uses": t.Uses, "failures": t.Failures}
		for k, v := range map[string]string{"decay_class": t.DecayClass, "domain": t.Domain, "reason": t.Reason} {
			if v != "" {
				m[k] = v
			}
		}
		toxic = append(toxic, m)
	}
	attrs := map[string]any{"clocks": toAny(a.Clocks), "window_start_tick": a.WindowStartTick, "window_end_tick": a.WindowEndTick,
		"known": a.Known, "correct": a.Correct, "senescence_threshold": a.SenescenceThreshold, "toxic_entries": toxic,
		"unrecorded_toxic": a.UnrecordedToxic}
	if a.Accuracy != nil {
		attrs["accuracy"] = *a.Accuracy
	}
	if a.Fitness != nil {
		attrs["fitness"] = *a.Fitness
	}
	for k, v := range map[string]string{"failure_regime": a.FailureRegime, "last_valid_regime": a.LastValidRegime, "regime_transition_hypothesis": a.RegimeTransitionHypothesis} {
		if v != "" {
			attrs[k] = v
		}
	}
	w.concept(AutopsyID, TypeAutopsy, AutopsyID, "epistemic autopsy", attrs, "")
	w.roots = append(w.roots, AutopsyID)
}

// externalRefs declares every reference a record makes to something the
// capsule does not carry: what bardo withheld (redacted) and any entry the
// bundle names without a record or a declaration (unavailable).
func (w *writer) externalRefs() []any {
	carried := map[string]bool{}
	for _, r := range w.records {
		carried[r.(map[string]any)["id"].(string)] = true
	}
	declared := map[string]bool{}
	for _, r := range w.b.Body.LeftOut {
		declared[w.refID(r)] = true
	}
	named := map[string]bundle.Ref{}
	add := func(r bundle.Ref) {
		if id := w.refID(r); !carried[id] {
			named[id] = r
		}
	}
	for _, r := range w.b.Body.LeftOut {
		add(r)
	}
	if rf := w.b.Body.Reflection; rf != nil {
		for _, items := range [][]bundle.Item{rf.BuiltToDo, rf.Learned, rf.GotWrong, rf.Confused, rf.Suspect, rf.TellSuccessor, rf.NeverTested, rf.FinalPlaybook, rf.CausalGraph} {
			for _, it := range items {
				for _, r := range it.Refs {
					add(r)
				}
			}
		}
	}
	if a := w.b.Body.Autopsy; a != nil {
		for _, t := range a.ToxicEntries {
			add(t.Entry)
		}
	}
	ids := make([]string, 0, len(named))
	for id := range named {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		// Withheld by bardo: declared left out by the bottleneck, or a
		// hypothesis or document the Weismann barrier keeps in the soma
		// (the item carries its text). An entry the bundle names without
		// declaring it is one it does not have.
		r := named[id]
		kind := RefUnavailable
		if declared[id] || r.Kind != bundle.RefEntry {
			kind = RefRedacted
		}
		out = append(out, map[string]any{"id": id, "kind": kind, "locator": map[string]any{"bardo_kind": r.Kind, "bardo_id": r.ID}})
		w.rep.ExternalRefs[kind]++
	}
	return out
}

func (w *writer) leftOut() {
	c := w.b.Header.Counts
	if c.EdgesLeftOut > 0 {
		w.rep.LeftOut = append(w.rep.LeftOut, LeftOut{What: "causal edges", Count: c.EdgesLeftOut,
			Reason: "an end did not pass the bottleneck; the bundle does not carry them either"})
	}
	if c.SomaEntries > 0 {
		w.rep.LeftOut = append(w.rep.LeftOut, LeftOut{What: "soma entries", Count: c.SomaEntries,
			Reason: "did not pass the genomic bottleneck; only those a reflection item or the autopsy names are declared, as redacted external refs"})
	}
}
