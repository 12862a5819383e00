package inherit_test

import (
	"errors"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
)

// newCladePush returns a clade push of golem "pred" at generation gen,
// shared at threshold.
func newCladePush(gen int, threshold float64, entries ...bundle.Entry) *bundle.Bundle {
	b := newBundle(gen, entries...)
	b.Header.Kind = bundle.KindClade
	b.Header.Share = &bundle.Share{Threshold: threshold}
	return b
}

// TestCladePushArrivals pins the clade channel's arrival confidences of a
// clade push: min(confidence, 0.4) × 0.80, whatever the generations, the
// source staying the sibling.
func TestCladePushArrivals(t *testing.T) {
	b := newCladePush(3, 0.1,
		entry("high", "gas spikes precede sandwich attacks", 0.9, 1, vec(1)),
		entry("cap", "pause when the oracle lags", 0.4, 3, vec(0, 1)),
		entry("mid", "wider spreads precede volume spikes", 0.35, 3, vec(0, 0, 1)),
		entry("low", "rebalance when funding flips", 0.1, 2, vec(0, 0, 0, 1)),
	)
	b.Body.CausalGraph = []bundle.Edge{{SourceID: "high", TargetID: "low", Weight: 0.6, Evidence: 4}}
	b.Header.Counts.CausalEdges = 1
	want := map[string]float64{"high": 0.32, "cap": 0.32, "mid": 0.28, "low": 0.08}
	for _, storeGen := range []int{0, 1, 4, 10} {
		d, _ := b.Digest()
		p, err := inherit.PlanBundle(b, d, inherit.Target{GolemID: "sibling", Generation: storeGen}, inherit.Options{Channel: inherit.ChannelClade, Now: now})
		if err != nil {
			t.Fatalf("store generation %d: %v", storeGen, err)
		}
		if p.Kind != bundle.KindClade || p.Channel != inherit.ChannelClade || len(p.Admit) != 4 {
			t.Fatalf("store generation %d: kind %q channel %q, %d admitted", storeGen, p.Kind, p.Channel, len(p.Admit))
		}
		for id, conf := range want {
			a := admitted(p, id)
			if a == nil {
				t.Fatalf("%s not admitted", id)
			}
			e := &a.Entry
			if !nearRounded(e.Confidence, conf) || *e.Store.ArrivalConfidence != e.Confidence || e.Store.Channel != inherit.ChannelClade {
				t.Errorf("store generation %d: %s arrives at %v (arrival %v, channel %q), want %v on the clade channel",
					storeGen, id, e.Confidence, *e.Store.ArrivalConfidence, e.Store.Channel, conf)
			}
			if e.Source == nil || e.Source.GolemID != "pred" {
				t.Errorf("%s: source %+v, want the sibling pred", id, e.Source)
			}
		}
		if len(p.Edges) != 1 {
			t.Errorf("store generation %d: %d edges, want the push's one", storeGen, len(p.Edges))
		}
	}
}

// TestCladePushRefusedAsPredecessor: a clade push is never a predecessor.
func TestCladePushRefusedAsPredecessor(t *testing.T) {
	b := newCladePush(0, 0.6, entry("a", "text", 0.7, 0, vec(1)))
	d, _ := b.Digest()
	for _, ch := range []string{"", inherit.ChannelPredecessor, inherit.ChannelSnapshot} {
		_, err := inherit.PlanBundle(b, d, inherit.Target{GolemID: "s", Generation: 1}, inherit.Options{Channel: ch})
		var ce *inherit.ChannelError
		if !errors.As(err, &ce) || !errors.Is(err, inherit.ErrUnsupported) || ce.Want != inherit.ChannelClade {
			t.Errorf("channel %q: error %v, want a ChannelError asking for the clade channel", ch, err)
		}
	}
}
