package inherit_test

import (
	"bytes"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
)

// FuzzPlan plans what the fuzz bytes make — a bundle from the generator
// that claims anything against a small store, or, when the bytes are a
// bundle file, that bundle against an empty store — and checks that
// planning never panics and its invariants hold.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{1}, 64))
	f.Add(bytes.Repeat([]byte{7, 3, 250, 9}, 64))
	var enc bytes.Buffer
	if err := bundle.Encode(&enc, reflectionBundle(1)); err != nil {
		f.Fatal(err)
	}
	f.Add(enc.Bytes())
	f.Fuzz(func(t *testing.T, p []byte) {
		if b, err := bundle.Decode(bytes.NewReader(p)); err == nil {
			tg := inherit.Target{GolemID: "succ", Generation: b.Header.Generation + 1}
			d, err := b.Digest()
			if err != nil {
				t.Fatal(err)
			}
			plan, err := inherit.PlanBundle(b, d, tg, inherit.Options{})
			if err == nil {
				checkPlan(t, b, tg, inherit.Options{}, plan)
			}
			return
		}
		b, tg, o := genPlanInput(&choices{p})
		d, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		plan, err := inherit.PlanBundle(b, d, tg, o)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, b, tg, o, plan)
	})
}
