package grimoire_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
)

const (
	benchEntries = 20000
	benchDims    = 768
)

// benchExport is an export of benchEntries entries with benchDims-long
// embeddings, half as arrays and half as base64, and as many episodes:
// about 120 MB, the shape of a long-lived Golem's Grimoire.
var benchExport = sync.OnceValue(func() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	buf.WriteString(baseHeader.with("embedding.dims", benchDims).String() + "\n")
	v := make([]float32, benchDims)
	for i := range benchEntries {
		for j := range v {
			v[j] = rng.Float32()*2 - 1
		}
		emb := base64Of(v)
		if i%2 == 0 {
			b := []byte{'['}
			for j, f := range v {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendFloat(b, float64(f), 'g', -1, 32)
			}
			emb = string(append(b, ']'))
		}
		fmt.Fprintf(&buf, `{"type":"entry","id":"0193a6f0-7c1e-7b55-9a10-%012d","category":"heuristic","content":"When gas spikes above 80 gwei, delay rebalancing %d","embedding":%s,"confidence":0.82,"quality_score":0.7,"validated_count":14,"contradicted_count":2,"decay_class":"tactical","domain":"gas_mev","last_accessed_at":"2026-11-01T09:30:00Z","strength":3,"parent_episode_ids":["ep-%d"]}`+"\n", i, i, emb, i)
		fmt.Fprintf(&buf, `{"type":"episode","id":"ep-%d","tick":%d,"at":"2026-11-02T11:53:20Z","regime":"crisis","state":"deciding","summary":"rebalanced into pool X","action":"rebalance","outcome":"loss","pnl_usdc":-1.2,"prediction":{"statement":"price up within 50 ticks","correct":false},"used_entry_ids":["0193a6f0-7c1e-7b55-9a10-%012d"]}`+"\n", i, i, i)
	}
	return buf.Bytes()
})

// BenchmarkReader reads benchExport: entries with array and base64
// embeddings, and episodes.
func BenchmarkReader(b *testing.B) {
	data := benchExport()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd, err := grimoire.NewReader(bytes.NewReader(data), grimoire.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 2*benchEntries {
			b.Fatalf("%d records, want %d", n, 2*benchEntries)
		}
	}
}

// BenchmarkVector decodes one embedding in each encoding.
func BenchmarkVector(b *testing.B) {
	v := make([]float32, benchDims)
	for i := range v {
		v[i] = float32(i)/benchDims - 0.5
	}
	for name, in := range map[string]string{"array": arrayOf(v), "base64": base64Of(v)} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			var out grimoire.Vector
			for b.Loop() {
				if err := out.UnmarshalJSON([]byte(in)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
