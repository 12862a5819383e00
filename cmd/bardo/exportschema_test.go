package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/docs"
)

// isExportRun reports whether a command line is bardo export: its first
// word that is not a flag.
func isExportRun(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a == "export"
		}
	}
	return false
}

// exportOutput returns the -o of an export command line ("-" when none).
func exportOutput(args []string) string {
	out := "-"
	for i, a := range args {
		switch {
		case (a == "-o" || a == "--output") && i+1 < len(args):
			out = args[i+1]
		case strings.HasPrefix(a, "--output="):
			out = strings.TrimPrefix(a, "--output=")
		case strings.HasPrefix(a, "-o") && len(a) > 2 && a[2] != '-':
			out = strings.TrimPrefix(strings.TrimPrefix(a, "-o"), "=")
		}
	}
	return out
}

// captureExport copies what a bardo export of the scripts wrote (stdout,
// or its -o file when that is a regular file) into dir, for
// checkCapturedExports.
func captureExport(dir string, args []string, stdout []byte) {
	b := stdout
	if out := exportOutput(args); out != "-" {
		st, err := os.Stat(out)
		if err != nil || !st.Mode().IsRegular() {
			return // /dev/null, a FIFO: nothing to keep
		}
		if b, err = os.ReadFile(out); err != nil {
			return
		}
	}
	if f, err := os.CreateTemp(dir, "export-*.jsonl"); err == nil {
		f.Write(b)
		f.Close()
	}
}

// checkCapturedExports validates every export the scripts' bardo export
// wrote against docs/export.schema.json, unknown fields forbidden: what
// bardo writes, docs/EXPORT.md documents.
func checkCapturedExports(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "export-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Logf("export.schema.json: no bardo export of the scripts recorded in %s", dir)
		return
	}
	s, err := docs.ExportSchema(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bad, err := docs.ValidateExport(s, bytes.NewReader(raw))
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		for i, e := range bad {
			if i == 3 {
				break
			}
			t.Errorf("a bardo export of the scripts breaks docs/export.schema.json: %v\n%s", e, firstLines(raw, 2))
		}
	}
	t.Logf("export.schema.json: checked %d bardo exports of the scripts", len(files))
}

func firstLines(b []byte, n int) string {
	lines := bytes.SplitN(b, []byte("\n"), n+1)
	return string(bytes.Join(lines[:min(n, len(lines))], []byte("\n")))
}
