package capsule

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
)

// The capsule schema's rules (kip-capsule, kip-element, kip-common of the
// 2026-09-23 set) that apply to what bardo writes and reads, written out
// as code: the frame, the payload, every record by kind, external refs,
// blobs and integrity. Rules about parts bardo never writes or reads
// (changes, _system's plane and input bookkeeping, dependency validity)
// are checked only as far as their type.

var (
	timestampRE = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z$`)
	digestRE    = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	kipRefRE    = regexp.MustCompile(`^kip://[^@]+@[^/]+/.+$`)
)

// elementFields are the properties an element may have, each with the
// check of its value.
var elementFields = map[string]func(v any) string{
	"id": nonEmpty, "kind": oneOf("concept", "proposition", "assertion", "evidence", "activity"), "space_id": nonEmpty,
	"_system": checkSystem, "governance": isObject, "retention": isObject, "facets": objectOfObjects,
	"schema_ref": kipRef, "key": nonEmpty, "name": isString, "canonical_id": nullOr(nonEmpty), "aliases": arrayOf(nonEmpty),
	"attributes": isObject, "structural": isObject, "subject": idRef, "predicate_ref": kipRef, "object": checkObject,
	"proposition": idRef, "asserted_by": idRef, "stance": oneOf("support", "reject", "uncertain"),
	"mode": oneOf("observed", "stated", "inferred", "predicted", "hypothetical", "imported"), "confidence": unitNumber,
	"asserted_at": timestamp, "valid_time": checkValidTime, "context_refs": arrayOf(idRef), "evidence": arrayOf(checkEvidenceRef),
	"lifecycle": checkLifecycle, "evidence_class": nonEmpty, "payload": isObject, "content_digest": digest, "media_type": nonEmpty,
	"observed_at": timestamp, "source": arrayOf(idRef), "generated_by": nullOr(idRef), "activity_class": nonEmpty,
	"started_at": nullOr(timestamp), "ended_at": nullOr(timestamp), "inputs": arrayOf(idRef), "outputs": arrayOf(idRef),
	"associated_actors": arrayOf(idRef), "parameters_digest": digest,
	"status": oneOf("pending", "running", "completed", "failed", "cancelled"), "merged_into": nullOr(idRef),
}

// byKind says, per record kind, what it must carry and what it may not.
var byKind = map[string]struct{ required, forbidden []string }{
	"concept": {[]string{"schema_ref"}, []string{"activity_class", "asserted_at", "asserted_by", "associated_actors", "confidence",
		"content_digest", "context_refs", "ended_at", "evidence", "evidence_class", "generated_by", "inputs", "lifecycle", "media_type",
		"mode", "object", "observed_at", "outputs", "parameters_digest", "payload", "predicate_ref", "proposition", "source", "stance",
		"started_at", "status", "subject", "valid_time"}},
	"proposition": {[]string{"subject", "predicate_ref", "object"}, []string{"activity_class", "aliases", "asserted_at", "asserted_by",
		"associated_actors", "attributes", "canonical_id", "confidence", "content_digest", "context_refs", "ended_at", "evidence",
		"evidence_class", "generated_by", "inputs", "key", "lifecycle", "media_type", "mode", "name", "observed_at", "outputs",
		"parameters_digest", "payload", "proposition", "schema_ref", "source", "stance", "started_at", "status", "structural",
		"valid_time", "merged_into"}},
	"assertion": {[]string{"proposition", "asserted_by", "stance", "mode", "asserted_at", "lifecycle"}, []string{"activity_class",
		"aliases", "associated_actors", "attributes", "canonical_id", "content_digest", "ended_at", "evidence_class", "generated_by",
		"inputs", "key", "media_type", "name", "object", "observed_at", "outputs", "parameters_digest", "payload", "predicate_ref",
		"schema_ref", "source", "started_at", "status", "structural", "subject", "merged_into"}},
	"evidence": {[]string{"evidence_class", "payload", "content_digest", "observed_at"}, []string{"activity_class", "aliases",
		"asserted_at", "asserted_by", "associated_actors", "attributes", "canonical_id", "confidence", "context_refs", "ended_at",
		"evidence", "inputs", "key", "mode", "name", "object", "outputs", "parameters_digest", "predicate_ref", "proposition",
		"schema_ref", "stance", "started_at", "status", "structural", "subject", "valid_time", "merged_into"}},
	"activity": {[]string{"activity_class", "status", "inputs", "outputs"}, []string{"aliases", "asserted_at", "asserted_by",
		"attributes", "canonical_id", "confidence", "content_digest", "context_refs", "evidence", "evidence_class", "generated_by",
		"key", "lifecycle", "media_type", "mode", "name", "object", "observed_at", "payload", "predicate_ref", "proposition",
		"schema_ref", "source", "stance", "structural", "subject", "valid_time", "merged_into"}},
}

// Check returns every rule doc breaks, in document order; nil when it
// satisfies them all. Each error wraps ErrMalformed and names the path.
func Check(doc map[string]any) []error {
	c := &checker{}
	c.fields("", doc, []string{"format", "format_version", "payload", "integrity"}, []string{"format", "format_version", "payload", "integrity"})
	if doc["format"] != Format {
		c.errf("format", "is %v, not %s", doc["format"], Format)
	}
	if doc["format_version"] != FormatVersion {
		c.errf("format_version", "is %v, not %s", doc["format_version"], FormatVersion)
	}
	if p, ok := doc["payload"].(map[string]any); ok {
		c.payload(p)
	} else if doc["payload"] != nil {
		c.errf("payload", "is not an object")
	}
	if in, ok := doc["integrity"].(map[string]any); ok {
		c.fields("integrity", in, []string{"digest_profile", "content_digest"}, []string{"digest_profile", "content_digest", "covers", "signatures"})
		if in["digest_profile"] != DigestProfile {
			c.errf("integrity.digest_profile", "is %v, not %s", in["digest_profile"], DigestProfile)
		}
		c.value("integrity.content_digest", in["content_digest"], digest)
		c.value("integrity.covers", in["covers"], nonEmpty)
		c.value("integrity.signatures", in["signatures"], arrayOf(isObject))
	} else if doc["integrity"] != nil {
		c.errf("integrity", "is not an object")
	}
	return c.errs
}

type checker struct{ errs []error }

func (c *checker) errf(path, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%w: %s: %s", ErrMalformed, path, fmt.Sprintf(format, args...)))
}

// fields checks required and allowed property names of an object.
func (c *checker) fields(path string, obj map[string]any, required, allowed []string) {
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			c.errf(join(path, k), "is required")
		}
	}
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(allowed, k) {
			c.errf(join(path, k), "is not a property of this object")
		}
	}
}

// value checks v with check, when present.
func (c *checker) value(path string, v any, check func(any) string) {
	if v == nil {
		return
	}
	if msg := check(v); msg != "" {
		c.errf(path, "%s", msg)
	}
}

func (c *checker) payload(p map[string]any) {
	req := []string{"manifest", "source", "schema_dependencies", "records", "external_refs", "blobs", "handling"}
	c.fields("payload", p, req, append(slices.Clone(req), "changes"))
	if m, ok := p["manifest"].(map[string]any); ok {
		c.fields("payload.manifest", m, []string{"kind", "closure", "roots"}, []string{"kind", "closure", "roots", "base_seq", "target_seq"})
		c.value("payload.manifest.kind", m["kind"], oneOf("snapshot", "delta"))
		c.value("payload.manifest.closure", m["closure"], oneOf("closed", "referential", "selective"))
		c.value("payload.manifest.roots", m["roots"], arrayOf(nonEmpty))
		c.value("payload.manifest.base_seq", m["base_seq"], safeUint)
		c.value("payload.manifest.target_seq", m["target_seq"], safeUint)
		if m["kind"] == "delta" && (m["base_seq"] == nil || m["target_seq"] == nil) {
			c.errf("payload.manifest", "a delta needs base_seq and target_seq")
		}
	} else {
		c.value("payload.manifest", p["manifest"], isObject)
	}
	if s, ok := p["source"].(map[string]any); ok {
		c.fields("payload.source", s, []string{"space_id", "snapshot_seq"}, []string{"space_id", "snapshot_seq"})
		c.value("payload.source.space_id", s["space_id"], nonEmpty)
		c.value("payload.source.snapshot_seq", s["snapshot_seq"], safeUint)
	} else {
		c.value("payload.source", p["source"], isObject)
	}
	if deps, ok := p["schema_dependencies"].([]any); ok {
		for i, d := range deps {
			path := fmt.Sprintf("payload.schema_dependencies[%d]", i)
			dm, ok := d.(map[string]any)
			if !ok {
				c.errf(path, "is not an object")
				continue
			}
			c.fields(path, dm, []string{"package_ref"}, []string{"package_ref", "content_digest"})
			c.value(path+".package_ref", dm["package_ref"], nonEmpty)
			c.value(path+".content_digest", dm["content_digest"], digest)
			if dm["package_ref"] != CorePackage && dm["content_digest"] == nil {
				c.errf(path, "package %v needs a content_digest (only %s may go without)", dm["package_ref"], CorePackage)
			}
		}
	} else {
		c.value("payload.schema_dependencies", p["schema_dependencies"], isArray)
	}
	if recs, ok := p["records"].([]any); ok {
		for i, r := range recs {
			path := fmt.Sprintf("payload.records[%d]", i)
			if rm, ok := r.(map[string]any); ok {
				c.element(path, rm)
			} else {
				c.errf(path, "is not an object")
			}
		}
	} else {
		c.value("payload.records", p["records"], isArray)
	}
	if refs, ok := p["external_refs"].([]any); ok {
		for i, r := range refs {
			path := fmt.Sprintf("payload.external_refs[%d]", i)
			rm, ok := r.(map[string]any)
			if !ok {
				c.errf(path, "is not an object")
				continue
			}
			c.fields(path, rm, []string{"id", "kind"}, []string{"id", "kind", "locator"})
			c.value(path+".id", rm["id"], nonEmpty)
			c.value(path+".kind", rm["kind"], oneOf("source_element", "canonical_identity", "semantic_locator", "external_artifact", "redacted", "unavailable"))
			c.value(path+".locator", rm["locator"], isObject)
		}
	} else {
		c.value("payload.external_refs", p["external_refs"], isArray)
	}
	if blobs, ok := p["blobs"].(map[string]any); ok {
		for _, k := range sortedKeys(blobs) {
			if _, ok := blobs[k].(string); !ok {
				c.errf("payload.blobs."+k, "is not a string")
			}
		}
	} else {
		c.value("payload.blobs", p["blobs"], isObject)
	}
	c.closure(p)
	c.value("payload.handling", p["handling"], isObject)
	c.value("payload.changes", p["changes"], arrayOf(isObject))
}

// closure checks that record ids are unique and that every reference a
// record makes ({id} in subject, object, proposition, asserted_by) and
// every root is a record of the capsule or a declared external ref.
func (c *checker) closure(p map[string]any) {
	known := map[string]bool{}
	recs, _ := p["records"].([]any)
	for i, r := range recs {
		rm, _ := r.(map[string]any)
		id, _ := rm["id"].(string)
		if id == "" {
			continue
		}
		if known[id] {
			c.errf(fmt.Sprintf("payload.records[%d].id", i), "%q is the id of an earlier record", id)
		}
		known[id] = true
	}
	refs, _ := p["external_refs"].([]any)
	for _, r := range refs {
		if rm, ok := r.(map[string]any); ok {
			if id, ok := rm["id"].(string); ok {
				known[id] = true
			}
		}
	}
	for i, r := range recs {
		rm, _ := r.(map[string]any)
		for _, k := range []string{"subject", "object", "proposition", "asserted_by"} {
			ref, ok := rm[k].(map[string]any)
			if !ok {
				continue
			}
			if id, ok := ref["id"].(string); ok && !known[id] {
				c.errf(fmt.Sprintf("payload.records[%d].%s", i, k), "%q is neither a record nor an external ref", id)
			}
		}
	}
	if m, ok := p["manifest"].(map[string]any); ok {
		roots, _ := m["roots"].([]any)
		for i, r := range roots {
			if id, ok := r.(string); ok && !known[id] {
				c.errf(fmt.Sprintf("payload.manifest.roots[%d]", i), "%q is neither a record nor an external ref", id)
			}
		}
	}
}

func (c *checker) element(path string, r map[string]any) {
	allowed := make([]string, 0, len(elementFields))
	for k := range elementFields {
		allowed = append(allowed, k)
	}
	c.fields(path, r, []string{"id", "kind", "space_id", "_system"}, allowed)
	for _, k := range sortedKeys(r) {
		if check, ok := elementFields[k]; ok {
			if k == "object" {
				// object may be null: a value, not an absence.
				if msg := checkObject(r[k]); msg != "" {
					c.errf(path+"."+k, "%s", msg)
				}
				continue
			}
			if r[k] == nil && k != "canonical_id" && k != "generated_by" && k != "started_at" && k != "ended_at" && k != "merged_into" {
				c.errf(path+"."+k, "is null")
				continue
			}
			c.value(path+"."+k, r[k], check)
		}
	}
	kind, _ := r["kind"].(string)
	rule, ok := byKind[kind]
	if !ok {
		return
	}
	for _, k := range rule.required {
		if _, ok := r[k]; !ok {
			c.errf(path, "a %s needs %s", kind, k)
		}
	}
	for _, k := range rule.forbidden {
		if _, ok := r[k]; ok {
			c.errf(path+"."+k, "a %s may not carry %s", kind, k)
		}
	}
}

func checkSystem(v any) string {
	s, ok := v.(map[string]any)
	if !ok {
		return "is not an object"
	}
	for _, k := range []string{"version", "state", "origin"} {
		if _, ok := s[k]; !ok {
			return k + " is required"
		}
	}
	allowed := []string{"version", "state", "created_at", "updated_at", "created_tx", "updated_tx", "origin", "plane_versions",
		"input_versions", "output_versions", "input_references", "dependency_validity", "space_seq", "recording_validity", "output_plane_versions"}
	for _, k := range sortedKeys(s) {
		if !slices.Contains(allowed, k) {
			return k + " is not a property of _system"
		}
	}
	if n, ok := s["version"].(float64); !ok || n < 1 || n != math.Trunc(n) || n > 1<<53-1 {
		return "version is not an integer ≥ 1"
	}
	if msg := nonEmpty(s["state"]); msg != "" {
		return "state " + msg
	}
	for _, k := range []string{"created_at", "updated_at"} {
		if t, ok := s[k]; ok {
			if msg := timestamp(t); msg != "" {
				return k + " " + msg
			}
		}
	}
	o, ok := s["origin"].(map[string]any)
	if !ok {
		return "origin is not an object"
	}
	for _, k := range sortedKeys(o) {
		if !slices.Contains([]string{"principal_id", "channel", "import_id"}, k) {
			return "origin." + k + " is not a property of origin"
		}
	}
	if nonEmpty(o["principal_id"]) != "" || nonEmpty(o["channel"]) != "" {
		return "origin needs a principal_id and a channel"
	}
	if id, ok := o["import_id"]; ok && id != nil && nonEmpty(id) != "" {
		return "origin.import_id is neither null nor a non-empty string"
	}
	return ""
}

func checkObject(v any) string {
	switch v := v.(type) {
	case nil, string, float64, bool:
		return ""
	case map[string]any:
		return idRef(v)
	}
	return "is neither a reference {id} nor a scalar"
}

func checkValidTime(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "is not an object"
	}
	for _, k := range sortedKeys(m) {
		if k != "from" && k != "until" {
			return k + " is not a property of valid_time"
		}
		if m[k] != nil {
			if msg := timestamp(m[k]); msg != "" {
				return k + " " + msg
			}
		}
	}
	return ""
}

func checkEvidenceRef(v any) string {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 2 || nonEmpty(m["id"]) != "" || oneOf("support", "challenge", "context")(m["role"]) != "" {
		return "is not {id, role: support|challenge|context}"
	}
	return ""
}

func checkLifecycle(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "is not an object"
	}
	if nonEmpty(m["status"]) != "" {
		return "status is required and non-empty"
	}
	for _, k := range sortedKeys(m) {
		switch k {
		case "status":
		case "supersedes", "superseded_by", "corrects", "corrected_by":
			if msg := arrayOf(idRef)(m[k]); msg != "" {
				return k + " " + msg
			}
		case "retracted_at":
			if m[k] != nil && timestamp(m[k]) != "" {
				return "retracted_at is not a timestamp"
			}
		default:
			return k + " is not a property of lifecycle"
		}
	}
	return ""
}

func nonEmpty(v any) string {
	if s, ok := v.(string); !ok || s == "" {
		return "is not a non-empty string"
	}
	return ""
}

func isString(v any) string {
	if _, ok := v.(string); !ok {
		return "is not a string"
	}
	return ""
}

func isObject(v any) string {
	if _, ok := v.(map[string]any); !ok {
		return "is not an object"
	}
	return ""
}

func isArray(v any) string {
	if _, ok := v.([]any); !ok {
		return "is not an array"
	}
	return ""
}

func objectOfObjects(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "is not an object"
	}
	for _, k := range sortedKeys(m) {
		if _, ok := m[k].(map[string]any); !ok {
			return k + " is not an object"
		}
	}
	return ""
}

func oneOf(vals ...string) func(any) string {
	return func(v any) string {
		if s, ok := v.(string); ok && slices.Contains(vals, s) {
			return ""
		}
		return fmt.Sprintf("is %v, not one of %v", v, vals)
	}
}

func kipRef(v any) string {
	if s, ok := v.(string); !ok || !kipRefRE.MatchString(s) {
		return fmt.Sprintf("%v is not a kip://package@version/symbol reference", v)
	}
	return ""
}

func digest(v any) string {
	if s, ok := v.(string); !ok || !digestRE.MatchString(s) {
		return fmt.Sprintf("%v is not sha256:<64 lowercase hex>", v)
	}
	return ""
}

func timestamp(v any) string {
	if s, ok := v.(string); !ok || !timestampRE.MatchString(s) {
		return fmt.Sprintf("%v is not a timestamp with exactly milliseconds (2026-11-02T12:00:00.000Z)", v)
	}
	return ""
}

func unitNumber(v any) string {
	if f, ok := v.(float64); !ok || f < 0 || f > 1 {
		return fmt.Sprintf("%v is not a number in [0,1]", v)
	}
	return ""
}

func safeUint(v any) string {
	if f, ok := v.(float64); !ok || f < 0 || f != math.Trunc(f) || f > 1<<53-1 {
		return fmt.Sprintf("%v is not an integer in [0, 2^53−1]", v)
	}
	return ""
}

func idRef(v any) string {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 || nonEmpty(m["id"]) != "" {
		return "is not a reference {id}"
	}
	return ""
}

func arrayOf(check func(any) string) func(any) string {
	return func(v any) string {
		a, ok := v.([]any)
		if !ok {
			return "is not an array"
		}
		for i, e := range a {
			if msg := check(e); msg != "" {
				return fmt.Sprintf("[%d] %s", i, msg)
			}
		}
		return ""
	}
}

func nullOr(check func(any) string) func(any) string {
	return func(v any) string {
		if v == nil {
			return ""
		}
		return check(v)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
