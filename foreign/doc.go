// Package foreign turns memory files of other agent systems into a
// bardo.grimoire-export/v1 export, so a foreign agent's knowledge can
// become a generation of a bardo lineage: KIP Cognitive Capsules
// (FromKIP, package capsule) and Letta Agent Files (FromLetta). Detect
// tells them apart by content.
//
// # Trust
//
// Trust does not migrate (KIP Capsule Specification §39.5): every entry an
// import writes has status quarantined unless Options.Trusted, whatever
// the file says, so a store that ingests it keeps it out of recall and
// out of every bottleneck until the owner reviews it.
//
// # Strict JSON
//
// A foreign file is read as strictly as an export (jcs.Decoder): UTF-8
// without a byte order mark, no lone surrogate, no member name twice in
// an object, no data after the document. A file that breaks one of these
// is refused (ErrMalformed), never read as its last member or with
// U+FFFD in place of its bytes: two ids that differ only in bytes that
// are not UTF-8 would become one. A NUL (\u0000) is a character like any
// other in a text, as the export reader keeps it; in an id it breaks the
// id rule (see Fit).
//
// # Bounds
//
// An import never holds a file whole, nor more than MaxHeldBytes of what
// it reads: a file past MaxFileBytes, or that would need more (an object
// of millions of member names, a capsule of millions of records, entries
// past it), is refused with ErrTooLarge before anything is written. A
// Letta file is read in three passes — its agents and times; the chosen
// agent's blocks and passages, the only records held, to be sorted; its
// messages, each written as an episode as it is read — and a text of the
// file is held no longer than the export takes it (see Fit), so its
// messages, tool calls and arguments cost time linear in the file and
// memory bounded by a message. A capsule is read whole, within the
// budget: its digest must be checked over all of it, and it is, before a
// record is built.
//
// # Fit
//
// An import writes only what bardo takes: every line goes through
// grimoire.NewCheckedWriter, the rules of the strict export reader, and
// the file's values are first fitted to them and to the bundle format's
// limits, each change counted in Report.Changed (bardo import prints it,
// and --json lists it as "changed"). An id that breaks the id rule
// (grimoire.CheckID: too long, a control or format character, a space at
// either end) becomes its namespace ("letta:block:", "kip:", …),
// "sha256-" and 32 hex digits of its SHA-256, so distinct ids stay
// distinct; the Golem's id from the file likewise (Options.GolemID must
// pass the rule as it is). An entry's content and an episode's summary
// are cut at bundle.MaxContentBytes, a document's text at
// bundle.MaxDocumentBytes, an entry's tags to bundle.MaxTags of at most
// bundle.MaxStringBytes each, its domain to that; an embedding space of
// more than bundle.MaxEmbeddingDims dimensions is dropped with every
// vector in it, and a vector that is not finite is left out. A header's
// lineage_id that is no id, a negative tick, a phase the format does not
// name and a parent_bundle that is no digest are left unset (a death's
// negative tick is 0). A word of the file — an id, a name, a label, a
// time — longer than bundle.MaxStringBytes is refused. A record the
// checked writer still refuses fails the import (ErrMalformed), and a
// second record of one id is left out and counted.
//
// # KIP capsules
//
// The content digest is checked first (capsule.Verify), then the
// schema's rules (capsule.Check). A record of bardo's own package maps
// back to what it came from (CAPSULE.md): Entry concepts to entries with
// their confidence from the Golem's holds assertion, causes assertions to
// causal edges, the Document to PLAYBOOK.md, reflection items to the
// documents reflection/<category>.md. Any other concept becomes an entry
// whose id is its record id and whose text is its name followed by its
// scalar attributes, one "name: value" line each in name order; its
// confidence is that of the latest supporting assertion about it (0.5
// when none). bardo's entries are made first, wherever they are in the
// file: a concept of another package whose record id is an entry's id
// takes "kip:" before it, so it never takes the entry's place. Evidence,
// activities, other propositions and the autopsy are left out and
// counted, with the reason.
//
// # Letta Agent Files
//
// An .af file is {agents, groups, blocks, files, sources, tools,
// mcp_servers, metadata, created_at}; one in the wild is a JSON string
// holding that document, so a string is read through. One agent is
// imported: Options.Agent names it (name or id); without it, the one agent
// that is not a sleep-time agent. A file whose agents array is empty holds
// nothing to import (ErrMalformed). Memory blocks come from the top-level
// blocks[] the agent links with block_ids (and any inline memory_blocks),
// never from the system message, whose rendering of them is often stale.
// Each non-empty block becomes one entry (persona: strategy_fragment,
// procedural; other labels: insight, procedural; read-only blocks are
// structural) with confidence 0.6 and quality 0.6: a block is what the
// agent keeps in context every turn, so it is last accessed at the
// file's time. Archival passages, where a file carries them (an agent's
// passages[] or top-level passages[] naming the agent), become insight
// entries (confidence 0.5, quality 0.5, tactical) with their embeddings
// in the space of the agent's embedding_config (a vector of another
// length, or padded with zeros beyond it, is trimmed or left out and
// counted). Messages are experience: each non-system message with text
// or a tool call becomes an episode (soma), never an entry; one with
// neither is left out and counted. secrets and
// tool_exec_environment_variables are never read into anything.
package foreign
