package testkit

import "github.com/bardo-golem/bardo/bundle"

// Clade returns a clade push: Full's header as kind "clade" at the
// terminal phase's threshold 0.1, Full's entries (all at confidence 0.8),
// playbook and edges, and no reflection, autopsy or left-out list.
func Clade() *bundle.Bundle {
	full := Full()
	b := &bundle.Bundle{Header: full.Header}
	h := &b.Header
	h.Kind = bundle.KindClade
	h.Advisor = nil
	h.Share = &bundle.Share{Threshold: 0.1, Phase: "terminal"}
	b.Body = bundle.Body{Entries: full.Body.Entries, Playbook: full.Body.Playbook, CausalGraph: full.Body.CausalGraph}
	h.Counts = bundle.Counts{Entries: 3, Candidates: 5, SomaEntries: 7, CausalEdges: 2, EdgesLeftOut: 1, Episodes: 120}
	return b
}

// CladeByHand returns Clade with a threshold set by hand (no phase).
func CladeByHand() *bundle.Bundle {
	b := Clade()
	b.Header.Share = &bundle.Share{Threshold: 0.75}
	return b
}

// Listing returns a marketplace listing: Full's reflection items in
// listing order (novelty descending, then index, then text), capped at 4.
func Listing() *bundle.Bundle {
	full := Full()
	r := full.Body.Reflection
	b := &bundle.Bundle{Header: full.Header}
	h := &b.Header
	h.Kind = bundle.KindListing
	h.Embedding = nil
	h.Bottleneck.MaxEntries = 4
	h.Counts = bundle.Counts{ReflectionItems: 5}
	b.Listing = &bundle.ListingBody{Items: []bundle.Item{r.BuiltToDo[0], r.Learned[0], r.GotWrong[0], r.NeverTested[0]}}
	return b
}

// ListingSigned returns Listing signed with SigningKey.
func ListingSigned() *bundle.Bundle {
	b := Listing()
	if err := b.Sign(SigningKey()); err != nil {
		panic(err)
	}
	return b
}
