package bundle

import (
	"fmt"
	"testing"
)

// BenchmarkCheckLimits is the walk Decode adds before Unmarshal, on the
// CBOR of 2048 entries with 768-dimension embeddings (as BenchmarkDecode).
func BenchmarkCheckLimits(b *testing.B) {
	bu := &Bundle{Header: Header{Format: Format, Kind: KindDeath, GolemID: "g", ExportedAt: "2026-11-02T12:00:00Z",
		Embedding:  &Embedding{Model: "bench", Dims: 768, Encoding: EncodingF32LE},
		Bottleneck: Bottleneck{MaxEntries: 2048, Now: "2026-11-02T12:00:00Z"}}}
	for i := range 2048 {
		bu.Body.Entries = append(bu.Body.Entries, Entry{ID: fmt.Sprintf("e%05d", i), Category: "heuristic",
			Content: fmt.Sprintf("When gas spikes above %d gwei, delay rebalancing", i), Embedding: make([]byte, 4*768),
			DecayClass: "structural", Domain: "general", LastAccessedAt: "2026-11-01T09:30:00Z", Tags: []string{"gas", "mev"},
			Provenance: "self_learned", Polarity: "positive", Status: "active", Source: Source{GolemID: "g"}})
	}
	p, err := Marshal(bu)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if err := checkLimits(p, deathWireType, MaxDecodedObjects, "of any bundle"); err != nil {
			b.Fatal(err)
		}
	}
}
