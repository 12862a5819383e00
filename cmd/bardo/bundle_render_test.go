package main

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
)

func TestWireView(t *testing.T) {
	tick := int64(7)
	body := bundle.Body{
		Entries: []bundle.Entry{{ID: "e1", Embedding: []byte{0, 0, 0x80, 0x3f}, Confidence: 0.5, Tags: nil}},
		Reflection: &bundle.Reflection{Learned: []bundle.Item{{
			Index: 2, Name: "learned", Text: "t",
			Vector: &bundle.Vector{Space: "bardo-text/v1", Dims: 1, Data: []byte{0, 0, 0x80, 0x3f}},
		}}},
	}
	header := bundle.Header{Format: bundle.Format, Kind: bundle.KindDeath, Tick: &tick}

	for _, tc := range []struct {
		name      string
		v         any
		noVectors bool
		want      string
	}{
		{"header keeps field order and drops empty optional fields", header, false,
			`{"format":"bardo.bundle/v1","kind":"death","golem_id":"","generation":0,"exported_at":"","tick":7,` +
				`"bottleneck":{"max_entries":0,"now":""},` +
				`"counts":{"entries":0,"candidates":0,"soma_entries":0,"causal_edges":0,"edges_left_out":0,"episodes":0,"reflection_items":0,"toxic_entries":0,"left_out":0}}`},
		{"embeddings are base64 and lists are never null", body, false,
			`{"entries":[{"id":"e1","category":"","content":"","embedding":"AACAPw==","confidence":0.5,"confidence_at_creation":0,"quality_score":0,` +
				`"decay_class":"","domain":"","last_accessed_at":"","strength":0,"provenance":"",` +
				`"source":{"golem_id":"","generation":0,"confidence":0},"polarity":"","status":"","score":0,"decay":0}],` +
				`"causal_graph":[],"reflection":{"built_to_do":[],"learned":[{"index":2,"name":"learned","text":"t",` +
				`"vector":{"space":"bardo-text/v1","dims":1,"data":"AACAPw=="},"novelty":0}],` +
				`"got_wrong":[],"confused":[],"suspect":[],"tell_successor":[],"never_tested":[],"final_playbook":[],"causal_graph":[]}}`},
		{"no vectors", body.Reflection.Learned[0], true,
			`{"index":2,"name":"learned","text":"t","vector":{"space":"bardo-text/v1","dims":1},"novelty":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := marshalJSON(wireView(reflect.ValueOf(tc.v), tc.noVectors))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, string(got)); d != "" {
				t.Errorf("view (-want +got):\n%s", d)
			}
		})
	}
}
