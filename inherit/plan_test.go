package inherit_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

func TestPlanErrors(t *testing.T) {
	good := func() *bundle.Bundle { return newBundle(0, entry("a", "text", 0.5, 0, e1)) }
	for _, tc := range []struct {
		name   string
		b      func() *bundle.Bundle
		digest string // "": the bundle's own
		o      inherit.Options
		is     error  // errors.Is
		msg    string // or the exact message
	}{
		{name: "digest of another bundle", b: good, digest: "sha256:" + zeros(64), is: inherit.ErrDigestMismatch},
		{name: "no digest", b: good, digest: "-", is: inherit.ErrDigestMismatch},
		{name: "snapshot kind without a snapshot body", b: func() *bundle.Bundle {
			b := good()
			b.Header.Kind = bundle.KindSnapshot
			return b
		}, is: bundle.ErrCorrupt, msg: `bundle: body: a "snapshot" bundle without a snapshot body`},
		{name: "death bundle on the snapshot channel", b: good, o: inherit.Options{Channel: inherit.ChannelSnapshot}, is: inherit.ErrUnsupported,
			msg: `channel "snapshot" takes an insurance snapshot, and this is a "death" bundle: not supported by this version of bardo`},
		{name: "snapshot on the predecessor channel", b: func() *bundle.Bundle { return newSnapshot(0) }, o: inherit.Options{Channel: inherit.ChannelPredecessor}, is: inherit.ErrUnsupported,
			msg: `bundle kind "snapshot" arrives on channel "snapshot" only, not "predecessor": not supported by this version of bardo`},
		{name: "snapshot on the clade channel", b: func() *bundle.Bundle { return newSnapshot(0) }, o: inherit.Options{Channel: inherit.ChannelClade}, is: inherit.ErrUnsupported},
		{name: "unknown kind", b: func() *bundle.Bundle {
			b := good()
			b.Header.Kind = "testament"
			return b
		}, is: inherit.ErrUnsupported, msg: `bundle kind "testament": want "death", "clade" or "snapshot": not supported by this version of bardo`},
		{name: "bad snapshot insight time", b: func() *bundle.Bundle {
			b := newSnapshot(0, entry("s1", "text", 0.5, 0, e1))
			b.Snapshot.Insights[0].LastAccessedAt = "later"
			return b
		}, is: bundle.ErrCorrupt, msg: `bundle: body.insights[0] "s1": last_accessed_at "later" is not an RFC 3339 time`},
		{name: "unknown channel", b: good, o: inherit.Options{Channel: "library"}, msg: `channel "library": want "predecessor" or "clade"`},
		{name: "unknown on-similar", b: good, o: inherit.Options{OnSimilar: "drop"}, msg: `on-similar "drop": want "keep", "merge" or "ask"`},
		{name: "bad last_accessed_at", b: func() *bundle.Bundle {
			b := good()
			b.Body.Entries[0].LastAccessedAt = "yesterday"
			return b
		}, is: bundle.ErrCorrupt, msg: `bundle: body.entries[0] "a": last_accessed_at "yesterday" is not an RFC 3339 time`},
		{name: "bad valid_until", b: func() *bundle.Bundle {
			b := good()
			b.Body.Entries[0].ValidUntil = "2026-13-01T00:00:00Z"
			return b
		}, is: bundle.ErrCorrupt},
		{name: "bad exported_at", b: func() *bundle.Bundle {
			b := good()
			b.Header.ExportedAt = "now"
			return b
		}, is: bundle.ErrCorrupt, msg: `bundle: header.exported_at: "now" is not an RFC 3339 time`},
		{name: "embedding of the wrong length", b: func() *bundle.Bundle {
			b := good()
			b.Body.Entries[0].Embedding = b.Body.Entries[0].Embedding[:12]
			return b
		}, is: bundle.ErrCorrupt, msg: `bundle: body.entries[0] "a": embedding is 12 bytes, want 32 (dims 8 × 4)`},
		{name: "embedding without a space", b: func() *bundle.Bundle {
			b := good()
			b.Header.Embedding = nil
			return b
		}, is: bundle.ErrCorrupt},
		{name: "non-finite embedding", b: func() *bundle.Bundle {
			b := good()
			b.Body.Entries[0].Embedding = bundle.PackF32(vec(float32(inf())))
			return b
		}, is: bundle.ErrCorrupt},
		{name: "reflection vector of the wrong length", b: func() *bundle.Bundle {
			b := good()
			it := item(2, "learned", 0.5)
			it.Vector = &bundle.Vector{Space: space, Dims: dims, Data: []byte{1, 2, 3}}
			b.Body.Reflection = &bundle.Reflection{Learned: []bundle.Item{it}}
			return b
		}, is: bundle.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b()
			d := tc.digest
			switch d {
			case "":
				var err error
				if d, err = b.Digest(); err != nil {
					t.Fatal(err)
				}
			case "-":
				d = ""
			}
			p, err := inherit.PlanBundle(b, d, inherit.Target{GolemID: "s", Generation: 1}, tc.o)
			if err == nil {
				t.Fatalf("planned %+v, want an error", p.Counts)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %q", err, tc.is)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("error %q, want %q", err, tc.msg)
			}
		})
	}
}

func TestStoreRowNonFinite(t *testing.T) {
	b := newBundle(0, entry("a", "text", 0.5, 0, e1))
	tg := inherit.Target{GolemID: "s", Generation: 1, Existing: []inherit.Existing{existing("bad", "x", vec(float32(inf())))}}
	d, _ := b.Digest()
	if _, err := inherit.PlanBundle(b, d, tg, inherit.Options{}); err == nil || err.Error()[:18] != `store entry "bad":` {
		t.Errorf("error %v, want one naming the store entry", err)
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func inf() float64 { return 1e39 } // overflows float32 to +Inf

func TestStatus(t *testing.T) {
	archived := entry("arch", "archived by the predecessor", 0.9, 0, vec(0, 1))
	archived.Status = "archived"
	noSource := entry("nosrc", "no source", 0.2, 0, vec(0, 0, 1))
	noSource.Source = bundle.Source{}
	b := newBundle(0, entry("a", "active", 0.9, 0, e1), archived, noSource, entry("low", "forgotten", 0.9, -30, vec(0, 0, 0, 1)))
	for _, tc := range []struct {
		name       string
		quarantine bool
		want       map[string]string
	}{
		{"plain", false, map[string]string{"a": "active", "arch": "archived", "nosrc": "active", "low": "archived"}},
		{"quarantine", true, map[string]string{"a": "quarantined", "arch": "quarantined", "nosrc": "quarantined", "low": "quarantined"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPlan(t, b, inherit.Target{GolemID: "s", Generation: 1}, inherit.Options{Trust: inherit.Trust{Quarantine: tc.quarantine}})
			got := map[string]string{}
			for _, a := range p.Admit {
				got[a.Entry.ID] = a.Entry.Status
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("statuses (-want +got):\n%s", d)
			}
			if p.Counts.ArchivedBelowFloor != 1 {
				t.Errorf("archived below the floor: %d, want 1 (the bundle's archived entry is not)", p.Counts.ArchivedBelowFloor)
			}
			src := admitted(p, "nosrc").Entry.Source
			if *src != (grimoire.Source{GolemID: "pred", Generation: 0, Confidence: 0.2}) {
				t.Errorf("defaulted source %+v", *src)
			}
			want := []string{
				"1 entries named no source: their source is the bundle's golem at its generation",
				"1 entries arrive archived, as the bundle has them (bardo restore brings them back)",
			}
			if d := cmp.Diff(want, p.Counts.Warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

func TestGenerationWarning(t *testing.T) {
	p := mustPlan(t, newBundle(3, entry("a", "x", 0.9, 3, nil)), inherit.Target{GolemID: "s", Generation: 2}, inherit.Options{})
	want := []string{"bundle generation 3 is not below the store's generation 2: a predecessor comes from an earlier generation (sources not below the store count as 1 hop)"}
	if d := cmp.Diff(want, p.Counts.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	if p.Admit[0].Entry.Confidence != 0.3 {
		t.Errorf("confidence %v, want 0.3", p.Admit[0].Entry.Confidence)
	}
}

func TestResolve(t *testing.T) {
	b := newBundle(0, entry("n1", "near one", 0.9, 0, cos092), entry("n2", "near two", 0.9, 0, vec(0, 23, 8, 4, 4)))
	tg := inherit.Target{GolemID: "s", Generation: 1, Existing: []inherit.Existing{existing("o1", "old one", e1), existing("o2", "old two", vec(0, 1))}}
	p := mustPlan(t, b, tg, inherit.Options{OnSimilar: inherit.OnSimilarAsk})
	if len(p.SameAs) != 2 {
		t.Fatalf("same_as %+v", p.SameAs)
	}
	var asked []string
	p.Resolve(func(s inherit.SameAs) bool {
		asked = append(asked, s.NewID)
		return s.NewID == "n2"
	})
	if d := cmp.Diff([]string{"n1", "n2"}, asked); d != "" {
		t.Errorf("asked (-want +got):\n%s", d)
	}
	if p.SameAs[0].Merged || !p.SameAs[1].Merged || admitted(p, "n1").SameAs != "" || admitted(p, "n2").SameAs != "o2" {
		t.Errorf("resolved %+v; n1 → %q, n2 → %q", p.SameAs, admitted(p, "n1").SameAs, admitted(p, "n2").SameAs)
	}
}

func TestParams(t *testing.T) {
	p := mustPlan(t, newBundle(0), inherit.Target{GolemID: "s", Generation: 1}, inherit.Options{})
	for k, want := range map[string]any{"channel": "predecessor", "on_similar": "keep", "generation_factor": 0.85, "same_as_from": 0.9, "skip_above": 0.95, "store_generation": 1} {
		if p.Params[k] != want {
			t.Errorf("params[%q] = %v, want %v", k, p.Params[k], want)
		}
	}
	if p.Channel != "predecessor" || p.OnSimilar != "keep" || p.SourceGolemID != "pred" || p.StoreGolemID != "s" || p.Kind != "death" {
		t.Errorf("plan header %+v", p)
	}
}
