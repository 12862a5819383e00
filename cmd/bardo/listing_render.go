package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
)

// inspectListing prints a marketplace listing: its header rows, then its
// items in listing order (the first n; 0: all).
func (g *globals) inspectListing(b *bundle.Bundle, digest string, compressed int64, uncompressed, n int) error {
	h := &b.Header
	rows := headerRows(h, digest)
	rows.add("listing", fmt.Sprintf("%d items of %d reflection items, at most %d, by novelty", len(b.Listing.Items), h.Counts.ReflectionItems, h.Bottleneck.MaxEntries))
	rows.add("size", fmt.Sprintf("%d bytes, %d uncompressed", compressed, uncompressed))
	signature := "none"
	if s := b.Signature; s != nil {
		signature = fmt.Sprintf("%s, public key %x", s.Algorithm, s.PublicKey)
	}
	rows.add("signature", signature)
	if err := writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, *rows); err != nil {
		return err
	}
	items := b.Listing.Items
	if n > 0 && len(items) > n {
		items = items[:n]
	}
	out := make([][]string, len(items))
	for i, it := range items {
		refs := make([]string, len(it.Refs))
		for j, r := range it.Refs {
			refs[j] = r.Kind + ":" + r.ID
		}
		out[i] = []string{strconv.Itoa(i + 1), formatFloat(it.Novelty), strconv.Itoa(it.Index), it.Name, clipLine(it.Text, 72), strings.Join(refs, " ")}
	}
	fmt.Fprintln(g.stdout)
	return writeTable(g.stdout, g.stdoutTerminal, []string{"rank", "novelty", "index", "category", "text", "refs"}, out)
}

// clipLine is text on one line, cut to at most n runes with "…".
func clipLine(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
