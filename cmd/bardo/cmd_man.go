package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/bardo-golem/bardo/internal/atomicfile"
)

// manDate is the date every man page carries. It is fixed, not the day the
// pages were made, so that regenerating them gives the same bytes: the
// repository's man/ is checked against the commands (TestManPagesFresh).
var manDate = time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)

// manSection is the section of the manual the pages are in: commands.
const manSection = "1"

type manOptions struct {
	Dir string // DIR
}

func newManCmd(g *globals, runF func(manOptions) error) *cobra.Command {
	var o manOptions
	cmd := &cobra.Command{
		Use:   "man DIR",
		Short: "Write a man page for each command into a folder",
		Long: `Write the manual: one roff page per command into DIR (made when it does
not exist), bardo.1 for bardo itself and bardo-<command>.1 for each
command, in section 1, made from the commands' help by cobra's man page
generator. The pages carry a fixed date, not the day they were made, so
that making them again gives the same bytes: a page is rewritten only
when it changed, and a bardo*.1 page of a command that no longer exists is
removed. Flag defaults are shown as they are without $BARDO_STORE and
$BARDO_LIBRARY.

The repository keeps the pages in man/: regenerate them after changing a
command's help with

  go run ./cmd/bardo man man

and read one with man -l man/bardo-inherit.1.

A summary goes to stderr unless --quiet; with --json a bardo.man/v1
document goes to stdout: dir, pages [{name, written}], removed.

` + exitStatus(
			status{exitCantCreat, "DIR or a page cannot be created"},
			status{exitIOErr, "I/O error writing a page or removing an old one, disk full included"},
		),
		Example: `  bardo man man
  bardo man /usr/local/share/man/man1 && mandb -q
  bardo man "$(mktemp -d)" --json | jq -r '.pages[].name'`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Dir = args[0]
			if runF != nil {
				return runF(o)
			}
			return runMan(g, o)
		},
	}
	return cmd
}

// manResult is the --json document of man, bardo.man/v1.
type manResult struct {
	Dir     string      `json:"dir"`
	Pages   []manStatus `json:"pages"`
	Removed []string    `json:"removed"`
}

type manStatus struct {
	Name    string `json:"name"`
	Written bool   `json:"written"` // false: the page was already there, byte for byte
}

func runMan(g *globals, o manOptions) error {
	pages, err := manPages(g)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o777); err != nil {
		return &atomicfile.OutputError{Path: o.Dir, Err: err}
	}
	res := manResult{Dir: o.Dir, Pages: make([]manStatus, len(pages)), Removed: []string{}}
	keep := make(map[string]bool, len(pages))
	for i, p := range pages {
		keep[p.Name] = true
		res.Pages[i].Name = p.Name
		if res.Pages[i].Written, err = writeManPage(filepath.Join(o.Dir, p.Name), p.Data); err != nil {
			return err
		}
	}
	old, err := filepath.Glob(filepath.Join(o.Dir, "bardo*."+manSection))
	if err != nil {
		return err
	}
	for _, path := range old {
		if name := filepath.Base(path); !keep[name] {
			if err := os.Remove(path); err != nil {
				return &atomicfile.WriteError{Op: "remove", Path: path, Err: err}
			}
			res.Removed = append(res.Removed, name)
		}
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.man/v1", res)
	}
	written := 0
	for _, p := range res.Pages {
		if p.Written {
			written++
		}
	}
	g.notef("%s: %d pages, %d written, %d unchanged, %d removed", o.Dir, len(pages), written, len(pages)-written, len(res.Removed))
	return nil
}

// writeManPage writes data to path, unless path holds it already, and
// says whether it wrote.
func writeManPage(path string, data []byte) (bool, error) {
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, data):
		return false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, &atomicfile.OutputError{Path: path, Err: err}
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return false, err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return false, err
	}
	return true, f.Commit()
}

// manPage is one page of the manual: its file name and roff text.
type manPage struct {
	Name string
	Data []byte
}

// manPages renders the page of every command a user can run, by command
// path. The tree is a fresh one, whose help is rewritten for the pages
// (manMarkdown), and whose defaults do not depend on the environment:
// pages made on two machines are the same.
func manPages(g *globals) ([]manPage, error) {
	mg := *g
	mg.storePath = defaultStorePath("")
	mg.libraryPath = ""
	root := newRootCmd(&mg)
	var pages []manPage
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			return nil
		}
		c.DisableAutoGenTag = true // no HISTORY section naming the generator and the date
		if c.Long != "" {
			c.Long = manMarkdown(c.Long)
		}
		header := &doc.GenManHeader{Section: manSection, Date: &manDate, Source: "bardo", Manual: "bardo manual"}
		var buf bytes.Buffer
		if err := doc.GenMan(c, header, &buf); err != nil {
			return fmt.Errorf("man page of %s: %w", c.CommandPath(), err)
		}
		pages = append(pages, manPage{Name: strings.ReplaceAll(c.CommandPath(), " ", "-") + "." + manSection, Data: buf.Bytes()})
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	slices.SortFunc(pages, func(a, b manPage) int { return strings.Compare(a.Name, b.Name) })
	return pages, nil
}
