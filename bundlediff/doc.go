// Package bundlediff says what changed from one bundle to another — an
// ancestor's and its successor's, or two runs over one export — section by
// section, for bardo diff.
//
// # Rule
//
// Two things are the same thing when they have the same key, and then
// every field of one is compared with the same field of the other:
//
//   - the header: by field, nested fields by path ("counts.entries");
//   - entries: by id. With MatchContent, the entries left over are
//     matched by the cosine of their vectors, at least ContentThreshold
//     (0.95, docs/DECISIONS.md#similarities-that-decide), computed in float64 (similarity.Cosine64), in
//     the bundles' common embedding space, or in bardo-text/v1 of the
//     content when an entry has no embedding there. Pairs are taken
//     greedily, best first, ties by id; each entry is in one pair at most.
//     Such a pair is "re-minted": a successor's copy under a new id;
//   - PLAYBOOK.md: line by line, as a unified diff (Unified) of a shortest
//     edit script, Myers' algorithm in linear space;
//   - causal edges: by their two ends;
//   - reflection items: by category and references, else category and text;
//   - toxic entries of the autopsy: by the id of the entry they name;
//     the autopsy's own fields by name;
//   - left-out references: by kind and id.
//
// Numbers report their delta, B − A in float64. Every list of the Result
// is sorted, ties by id bytewise, so equal inputs give equal results.
//
// Two bundles with the same digest have an empty Result. The converse
// holds for bundles that follow FORMAT.md's rules: every field inside the
// digest is compared, and the order of reflection items and toxic
// entries, which no rule fixes, is reported when it changes.
//
// # Descent
//
// When B descends from A (Descends: A's digest is one of B's parents or
// in B's header.ancestry), every change that inheritance explains is
// marked Expected with the Rule… constant that explains it (expect.go):
// the successor's header fields, the generational discount, provenance
// and source bookkeeping, archiving below the floor, reflection items and
// autopsy markers arriving as entries, entries cut by B's full bottleneck
// or taken for sightings when A is inherited (inherit.PlanBundle into an
// empty store), their edges, and B's own reflection, autopsy and left-out
// references. Everything else is unexpected.
//
// # Kinds
//
// Bundles of different kinds are not compared: Diff returns a KindError.
// Two death bundles compare as above. Two insurance snapshots compare by
// their own body (a snapshot's Body is empty): the header as above, the
// insights as entries (MatchContent included), the playbook, and in
// Result.Snapshot the rest — the successor notes by insight id, the
// metrics by name, the credits, the staleness test, fitness, senescence
// threshold and pressures by field, the trajectory's buckets by first
// tick, and the episodes by id, counted only: they are soma, compared but
// never shown.
package bundlediff
