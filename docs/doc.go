// Package docs holds bardo's own documents — the export format
// (EXPORT.md), the settled numbers and semantics (DECISIONS.md), the
// command line's conventions (CLI.md) — and the JSON Schema of an export
// line (export.schema.json), embedded so that tests anywhere in the
// module validate exports against it. Its tests hold the documents to
// the code: limits against constants, field tables against the reader's
// model, the worked example against the reader and the schema, and every
// citation of a document's section against the headings it names.
//
// Only tests import it: the bardo command does not carry a JSON Schema
// validator.
package docs
