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
// # KIP capsules
//
// The content digest is checked first (capsule.Verify), then the
// schema's rules (capsule.Check). A record of bardo's own package maps
// back to what it came from (CAPSULE.md): Entry concepts to entries with
// their confidence from the Golem's holds assertion, causes assertions to
// causal edges, the Document to PLAYBOOK.md, reflection items to the
// documents reflection/<category>.md. Any other concept becomes an entry
// whose text is its name followed by its scalar attributes, one
// "name: value" line each in name order; its confidence is that of the
// latest supporting assertion about it (0.5 when none). Evidence,
// activities, other propositions and the autopsy are left out and
// counted, with the reason.
//
// # Letta Agent Files
//
// An .af file is {agents, groups, blocks, files, sources, tools,
// mcp_servers, metadata, created_at}; one in the wild is a JSON string
// holding that document, so a string is parsed once more. One agent is
// imported: Options.Agent names it (name or id); without it, the one agent
// that is not a sleep-time agent. Memory blocks come from the top-level
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
// counted). Messages are experience: each non-system message becomes an
// episode (soma), never an entry. secrets and
// tool_exec_environment_variables are never read into anything.
package foreign
