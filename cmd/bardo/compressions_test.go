package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
)

// squash collapses runs of white space, so that a phrase matches across
// the line breaks of a help text or a document.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestCompressionsOneList: every help text and the README that speak of
// an export's compressions list the reader's, from grimoire.Compressions
// (issue 34: bundle --help said "plain, zstd or gzip", the README also
// bzip2).
func TestCompressionsOneList(t *testing.T) {
	want := grimoire.CompressionsText()
	read, refused := grimoire.Compressions()
	if !slices.Equal(read, []string{"zstd", "gzip", "bzip2"}) || !slices.Equal(refused, []string{"xz", "lz4"}) {
		t.Errorf("Compressions() = %v, %v", read, refused)
	}
	mentions := 0
	for _, c := range visibleCommands(t) {
		help := squash(c.Long)
		if !strings.Contains(help, "gzip") && !strings.Contains(help, "bzip2") {
			continue
		}
		mentions++
		if !strings.Contains(help, want) {
			t.Errorf("%s --help names compressions, but not as %q", c.CommandPath(), want)
		}
	}
	if mentions < 2 {
		t.Errorf("%d commands' help name the compressions; bundle and ingest did", mentions)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := squash(string(readme))
	if !strings.Contains(text, "Exports are read "+want) {
		t.Errorf("README.md does not say %q", "Exports are read "+want)
	}
	if !strings.Contains(text, strings.Join(refused, " and ")+" are refused") {
		t.Errorf("README.md does not say %q", strings.Join(refused, " and ")+" are refused")
	}
}
