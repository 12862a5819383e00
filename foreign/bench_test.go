package foreign

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// lettaBench is a Letta file of one agent with n messages (text and tool
// calls) and n/10 archival passages of 64 dimensions.
func lettaBench(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"agents":[{"name":"harbor","id":"agent-1","block_ids":["b1"],"embedding_config":{"embedding_model":"m","embedding_dim":64},"messages":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"type":"message","role":"assistant","id":"message-%d","content":[{"type":"text","text":"The tide at the bar is %d cm; wait for the flood before entering."}],"tool_calls":[{"id":"c%d","type":"function","function":{"name":"archival_memory_search","arguments":"{\"query\": \"depth %d\"}"}}],"created_at":"2026-04-01T09:01:00Z"}`, i, i%300, i, i)
	}
	b.WriteString(`],"passages":[`)
	for i := range n / 10 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"passage-%d","text":"Berth %d takes pilot boats only.","embedding":[`, i, i)
		for j := range 64 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%.6f", float64((i*64+j)%997)/997)
		}
		b.WriteString(`],"tags":["berths"]}`)
	}
	b.WriteString(`]}],"blocks":[{"id":"b1","label":"human","value":"The harbor master is Ines."}],"created_at":"2026-04-02T10:00:00Z"}`)
	return []byte(b.String())
}

// The import hot path: a Letta file of 20,000 messages and 2,000
// passages, and bardo's capsule of a 2,048-entry bundle, each into an
// export.
func BenchmarkImport(b *testing.B) {
	p := synth.DefaultParams()
	p.Entries, p.Episodes, p.Edges, p.Dims = 4000, 2000, 400, 64
	path := fixturetest.WriteFile(b, b.TempDir(), p)
	bun, err := thanatopsis.Build(grimoire.FileInput(filepath.Clean(path)), thanatopsis.Options{MaxEntries: 2048, Force: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		f    importer
	}{
		{"letta", lettaBench(20000), FromLetta},
		{"kip", capsuleOf(b, bun), FromKIP},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for range b.N {
				if _, err := tc.f(bytes.NewReader(tc.data), int64(len(tc.data)), io.Discard, Options{Trusted: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
