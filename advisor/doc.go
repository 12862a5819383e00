// Package advisor implements the advisor protocol of "bundle --advisor
// CMD" (docs/DECISIONS.md#death-reflection, category 6): how bardo asks an external command — an LLM CLI, say —
// to write the death reflection's category 6, tell_successor, and which
// answers it takes.
//
// # Running an advisor
//
// [Advise] runs the advisor with `sh -c CMD`, in a process group of its
// own where the system has them. It writes a bardo.advisor-input/v1
// document ([Input]) to the advisor's standard input and reads its answer
// from its standard output. What the advisor writes on standard error goes
// to the writer the caller passes. The advisor has the time the caller
// gives it; when that runs out the whole process group is killed, and it
// is killed when the advisor's shell ends as well, so that nothing it put
// in the background outlives the run. The package reads no clock of its
// own beyond that timer.
//
// # The input document
//
// bardo.advisor-input/v1 is one JSON object, indented by two spaces and
// ended by a newline: "format", "golem_id", "generation", "instructions"
// (the advisor's task, in words) and "categories", which holds categories
// 1–5 and 7–9 of the reflection in index order (built_to_do, learned,
// got_wrong, confused, suspect, never_tested, final_playbook,
// causal_graph), each a list of {"text", "refs": [{"kind", "id"}]}. Lists
// are never null; tell_successor, the category asked for, is not there.
//
// # The answer
//
//   - JSON, when the output (trimmed of white space) starts with "{":
//     {"items": [{"text": "…", "refs": [{"kind": "entry", "id": "…"}]}]};
//     refs are optional and may only name what the input names (the
//     reflection refuses an answer that names anything else); unknown
//     keys are refused;
//   - otherwise plain text: one item per paragraph (paragraphs are
//     separated by blank lines, lines of white space only), without
//     references.
//
// At most [MaxOutput] bytes are read. The items are held to the bundle's
// text rules ([Check]): at most [MaxItems] items, each with text of at
// most [MaxText] bytes of valid UTF-8 without control characters but tab
// and newline, and references to well-formed ids.
//
// # When an answer is not used
//
// A timeout, a non-zero exit, more output than MaxOutput, empty output or
// an answer the rules refuse is an error from Advise. Its text is the
// reason a bundle records: short, and the same on every run ("timed out
// after 1m0s", "exited with status 3", "wrote nothing"). The caller keeps
// the deterministic advice in category 6 then: an advisor never fails a
// bundle.
package advisor
