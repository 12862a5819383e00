// Package clade loads clade knowledge — what a Golem's siblings and
// ancestors already know — for novelty scoring (package novelty), from the
// sources `--clade` names: a Grimoire export, a germline bundle, and the
// entries of a store (docs/DECISIONS.md#novelty; docs/CLI.md#commands: "SRC of --clade
// is a Grimoire export, a bundle or a store").
//
// # What a source contributes
//
//   - An export: each entry's content, with its embedding tagged with the
//     export header's embedding model. Dream journal entries are skipped:
//     they are one Golem's soma, never knowledge its clade shares.
//     Quarantined entries are left out (Known): one rule for every
//     source, quarantined knowledge is not clade knowledge.
//   - A bundle: each entry's content, with its embedding tagged with
//     header.embedding's model; and each item of its death reflection, with
//     its text and its tagged vector, under the id
//     "GOLEM/reflection.CATEGORY[i]" (i from 0, as bundle sections are
//     numbered). What a dead sibling learned and told its successors is
//     clade knowledge too. Toxic entries of its autopsy are not added
//     apart: their text is in its got_wrong items. ReadBundle reads it as
//     every reader of a bundle does (bundle.DecodeChecked): a bundle that
//     breaks any rule of its format adds nothing.
//   - A store: each entry's content, with its embedding in the model the
//     store records for it, but its quarantined rows (UnknownStatus). The
//     command layer opens the store and hands it over as a novelty.Stored
//     (AddStored: the vectors stay at rest and are searched there, the
//     texts are read only when a query needs them); no stage imports the
//     store. AddStore, which takes the rows one by one (Rows), is the
//     same knowledge read whole: the tests hold AddStored to it.
//
// The command layer only tells the sources apart and opens them.
//
// Hypotheses and documents of an export are not added: they are not
// knowledge the Golem held, and a bundle carries PLAYBOOK.md as its
// final_playbook item already.
//
// # Spaces
//
// Within one clade every vector of a space has the same length; a source
// whose vectors disagree with the earlier ones of their space is bad input
// (ErrSpace), reported against that source: an export's line, a bundle's
// section. bardo-text/v1 vectors have textembed.Dims components.
package clade
