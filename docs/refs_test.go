package docs

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// foreignCitations are names of documents a clone of the repository does
// not have, and the paths of a machine: the repository carries its own
// documents (docs/), and its files point at them.
var foreignCitations = []*regexp.Regexp{
	regexp.MustCompile(`\.\./shared`),
	regexp.MustCompile(`shared/(spec|seeds)`),
	regexp.MustCompile(`\bdecisions\.md`),
	regexp.MustCompile(`\bcli\.md`),
	regexp.MustCompile(`grimoire-export\.md`),
	regexp.MustCompile("(^|[\\s\"'`(=:])/work/"),
}

// TestNoForeignCitations fails when a file of the repository outside
// docs/ names a document of outside it (../shared, decisions.md, cli.md,
// grimoire-export.md) or a path of this machine (issue 34).
func TestNoForeignCitations(t *testing.T) {
	files := repoFiles(t, "")
	for _, f := range files {
		if strings.HasPrefix(f, "docs/") {
			continue
		}
		b, err := os.ReadFile("../" + f)
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet in the index
			}
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			for _, re := range foreignCitations {
				if re.MatchString(line) {
					t.Errorf("%s:%d cites %q, which a clone does not have: point at docs/ (%s)", f, n+1, re.FindString(line), strings.TrimSpace(line))
				}
			}
		}
	}
}

// docLink finds a citation of a Markdown file's section: a relative link
// "(X.md#anchor)" or a path "dir/X.md#anchor".
var docLink = regexp.MustCompile(`([A-Za-z0-9_./-]*[A-Za-z0-9_-]+\.md)?#([A-Za-z0-9_-]+)`)

// TestAnchors fails when a file of the repository cites a section of a
// document of docs/ that does not exist — "docs/DECISIONS.md#genomic-bottleneck"
// in a comment, "(DECISIONS.md#decay)" in a document — or when a document
// of docs/ cites a section of any Markdown file that does not exist.
func TestAnchors(t *testing.T) {
	files := repoFiles(t, "")
	isFile := map[string]bool{}
	for _, f := range files {
		isFile[f] = true
	}
	cache := map[string]map[string]bool{}
	anchorsOf := func(f string) map[string]bool {
		if a, ok := cache[f]; ok {
			return a
		}
		b, err := os.ReadFile("../" + f)
		if err != nil {
			t.Fatal(err)
		}
		cache[f] = anchors(string(b))
		return cache[f]
	}
	cited := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".sum") || strings.Contains(f, "/testdata/fuzz/") {
			continue
		}
		b, err := os.ReadFile("../" + f)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		inDocs := strings.HasPrefix(f, "docs/") && strings.HasSuffix(f, ".md")
		for n, line := range strings.Split(string(b), "\n") {
			for _, m := range docLink.FindAllStringSubmatchIndex(line, -1) {
				doc, anchor := "", line[m[4]:m[5]]
				if m[2] >= 0 {
					doc = line[m[2]:m[3]]
				}
				var target string
				switch {
				case doc == "" && inDocs && m[0] > 0 && line[m[0]-1] == '(':
					target = f // (#anchor) within a document of docs/
				case doc == "":
					continue // a Go comment's "#" alone, a colour, an issue number
				case strings.HasPrefix(doc, "docs/"):
					target = doc
				case inDocs:
					target = path.Clean(path.Join(path.Dir(f), doc))
				case isFile[path.Join("docs", path.Base(doc))] && !isFile[path.Clean(path.Join(path.Dir(f), doc))]:
					target = path.Join("docs", path.Base(doc))
				default:
					continue // another document's section: not ours to check
				}
				if !strings.HasPrefix(target, "docs/") && !inDocs {
					continue
				}
				if !isFile[target] {
					t.Errorf("%s:%d cites %s#%s: no file %s", f, n+1, doc, anchor, target)
					continue
				}
				if !strings.HasSuffix(target, ".md") {
					continue
				}
				cited++
				if !anchorsOf(target)[anchor] {
					t.Errorf("%s:%d cites %s#%s: %s has no such section", f, n+1, target, anchor, target)
				}
			}
		}
	}
	if cited < 20 {
		t.Errorf("only %d citations of docs/ sections found: the test no longer sees them", cited)
	}
	t.Logf("%d citations of sections checked", cited)
}
