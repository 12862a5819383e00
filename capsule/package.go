package capsule

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/bardo-golem/bardo/jcs"
)

// PackageDefinition is bardo's schema package kip://bardo/germline@1.0.0:
// the types and predicates its capsules name, each with the attributes it
// carries. Its kip-jcs-safe-v1 digest (PackageDigest) is the
// content_digest of the capsule's schema dependency on it; a change here
// is a new package version.
func PackageDefinition() map[string]any {
	str := map[string]any{"type": "string"}
	num := map[string]any{"type": "number"}
	obj := map[string]any{"type": "object"}
	arr := map[string]any{"type": "array"}
	return map[string]any{
		"package_ref": Package,
		"description": "A dying Golem's germline as bardo passes it on (bardo.bundle/v1): its entries, causal graph, PLAYBOOK.md, death reflection and epistemic autopsy.",
		"types": map[string]any{
			"Golem": map[string]any{"description": "The Golem whose germline this is; the asserter of every belief.",
				"attributes": map[string]any{"golem_id": str, "generation": num, "lineage_id": str, "parents": arr, "exported_at": str,
					"tick": num, "phase": str, "death": obj, "embedding": obj, "bundle_digest": str, "bottleneck": obj}},
			"Entry": map[string]any{"description": "A Grimoire entry that passed the genomic bottleneck; its text is the name and attributes.content, its confidence the Golem's holds assertion.",
				"attributes": map[string]any{"category": str, "content": str, "confidence_at_creation": num, "quality_score": num,
					"validated_count": num, "contradicted_count": num, "decay_class": str, "market_regime": str, "domain": str, "tags": arr,
					"created_at": str, "last_accessed_at": str, "valid_from": str, "valid_until": str, "strength": num, "provenance": str,
					"source": obj, "is_bloodstain": map[string]any{"type": "boolean"}, "polarity": str, "entry_status": str,
					"requires_investigation": map[string]any{"type": "boolean"}, "bottleneck_score": num, "decay": num, "embedding": obj}},
			"Document": map[string]any{"description": "A germline document (PLAYBOOK.md).",
				"attributes": map[string]any{"text": str, "digest": str}},
			"ReflectionItem": map[string]any{"description": "One item of the 9-category death reflection.",
				"attributes": map[string]any{"category": str, "index": num, "position": num, "text": str, "novelty": num, "refs": arr}},
			"Autopsy": map[string]any{"description": "The epistemic autopsy: which entries drove the failed predictions.",
				"attributes": map[string]any{"clocks": arr, "window_start_tick": num, "window_end_tick": num, "known": num, "correct": num,
					"accuracy": num, "fitness": num, "senescence_threshold": num, "toxic_entries": arr, "unrecorded_toxic": num,
					"failure_regime": str, "last_valid_regime": str, "regime_transition_hypothesis": str}},
		},
		"predicates": map[string]any{
			"holds":  map[string]any{"description": "The Golem holds the subject Entry; the assertion's confidence is the entry's confidence.", "subject": "Entry", "object": "boolean"},
			"causes": map[string]any{"description": "An edge of the causal graph; the assertion's confidence is the edge weight.", "subject": "Entry", "object": "Entry"},
		},
	}
}

var packageDigest = sync.OnceValue(func() string {
	canon, err := jcs.Marshal(PackageDefinition(), jcs.KIPSafe)
	if err != nil {
		panic("capsule: the package definition is not canonicalizable: " + err.Error())
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:])
})

// PackageDigest is the kip-jcs-safe-v1 digest of PackageDefinition.
func PackageDigest() string { return packageDigest() }
