package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/store"
)

// TestInheritExitCodes pins the exit code of each class of failure of
// bardo inherit, and that a failure leaves no store behind.
func TestInheritExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tiny.bardo")
	mustBundle(t, good)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.bardo")
	if err := os.WriteFile(corrupt, raw[:len(raw)/2], 0o666); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "g.db")
	initHeir(t, existing)
	own := filepath.Join(dir, "own.db") // golem-tiny's own store
	initTiny(t, own)

	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"first inherit creates the store", []string{"inherit", good, "--store", "NEW"}, 0, ""},
		{"into an existing store", []string{"inherit", good, "--store", existing}, 0, ""},
		{"into its own Golem's store", []string{"inherit", good, "--store", own}, 65, "is the store's own: it is the store's own Golem's, golem-tiny generation 0"},
		{"into its own Golem's store, quarantined", []string{"inherit", good, "--store", own, "--quarantine"}, 65, "a Golem never inherits its own knowledge back, by any channel"},
		{"into its own Golem's store by the clade channel", []string{"inherit", good, "--store", own, "--channel", "clade"}, 65, "is the store's own"},
		{"a corrupt bundle", []string{"inherit", corrupt, "--store", "NEW"}, 65, "corrupt.bardo: bundle: "},
		{"an export is not a bundle", []string{"inherit", "testdata/tiny.jsonl", "--store", "NEW"}, 65, "testdata/tiny.jsonl is a Grimoire export, not a bardo bundle\nbardo: hint: to make a germline bundle of it use"},
		{"a missing bundle", []string{"inherit", filepath.Join(dir, "none.bardo"), "--store", "NEW"}, 66, "no such file or directory"},
		{"a clade bundle creates no store", []string{"inherit", good, "--store", "NEW", "--channel", "clade"}, 66, "a clade bundle does not create a store"},
		{"a store in a missing folder", []string{"inherit", good, "--store", filepath.Join(dir, "nowhere", "g.db")}, 73, "nowhere"},
		{"an unknown channel", []string{"inherit", good, "--store", "NEW", "--channel", "library"}, 2, `--channel "library": want predecessor, clade or snapshot`},
		{"a death bundle on the snapshot channel", []string{"inherit", good, "--store", "NEW", "--channel", "snapshot"}, 65, `channel "snapshot" takes an insurance snapshot, and this is a "death" bundle`},
		{"an unknown on-similar", []string{"inherit", good, "--store", "NEW", "--on-similar", "drop"}, 2, `--on-similar "drop": want keep, merge or ask`},
		{"ask without a terminal", []string{"inherit", good, "--store", "NEW", "--on-similar", "ask"}, 2, "standard input is not one"},
		{"another golem id for a store", []string{"inherit", good, "--store", existing, "--golem-id", "someone"}, 2, `the store ` + existing + ` is golem "golem-tiny-g1"'s`},
		{"a bad --now", []string{"inherit", good, "--store", "NEW", "--now", "today"}, 2, "not an RFC 3339 time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			newStore := filepath.Join(tmp, "new.db")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "NEW", newStore)
			}
			code, _, stderr := bardo(t, "", args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
			if _, err := os.Stat(newStore); tc.want != 0 && err == nil {
				t.Errorf("a failed inherit left a store at %s", newStore)
			}
		})
	}
}

func TestInheritExitMapping(t *testing.T) {
	for _, err := range []error{inherit.ErrDigestMismatch, inherit.ErrUnsupported, inherit.ErrLineage, &inherit.LineageError{}} {
		if got := exitCode(fmt.Errorf("b.bardo: %w", err)); got != exitDataErr {
			t.Errorf("exitCode(%v) = %d, want %d", err, got, exitDataErr)
		}
	}
}

// TestInheritLocked: a writer finding the store locked for all of --wait
// exits 75 and applies nothing.
func TestInheritLocked(t *testing.T) {
	dir := t.TempDir()
	path, b := filepath.Join(dir, "g.db"), filepath.Join(dir, "tiny.bardo")
	initHeir(t, path)
	mustBundle(t, b)
	s, err := store.Open(context.Background(), path, store.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := bardo(t, "", "inherit", b, "--store", path, "--wait", "100ms")
	s.Close()
	if code != 75 {
		t.Errorf("locked inherit: exit %d, want 75; stderr:\n%s", code, stderr)
	}
	if code, out, _ := bardo(t, "", "inherit", b, "--store", path, "--json"); code != 0 || !strings.Contains(out, `"applied": true`) {
		t.Errorf("after the lock is released: exit %d:\n%s", code, out)
	}
}

// TestInheritReport checks the --json documents of a dry run, an apply
// and a replay, and that the dry run wrote nothing.
func TestInheritReport(t *testing.T) {
	dir := t.TempDir()
	b, path := filepath.Join(dir, "tiny.bardo"), filepath.Join(dir, "g.db")
	mustBundle(t, b)
	run := func(args ...string) inheritResult {
		t.Helper()
		code, out, stderr := bardo(t, "", append([]string{"inherit", b, "--store", path, "--json", "--now", "2026-11-03T08:00:00Z"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var res inheritResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	dry := run("--dry-run")
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a dry run created the store")
	}
	applied := run()
	replay := run()

	if dry.Applied || dry.Reason != "dry run" || dry.Plan == nil || dry.Counts == nil || dry.CreatedStore {
		t.Errorf("dry run: %+v", dry)
	}
	if len(dry.Plan.Admit) != dry.Counts.Admitted || len(dry.Plan.Sightings) != dry.Counts.SkippedDuplicate {
		t.Errorf("dry run plan lists %d admitted, %d sightings; counts %+v", len(dry.Plan.Admit), len(dry.Plan.Sightings), *dry.Counts)
	}
	want := dry
	want.Applied, want.Reason, want.Plan, want.CreatedStore, want.Activity = true, "", nil, true, applied.Activity
	if d := cmp.Diff(want, applied); d != "" {
		t.Errorf("apply, against the dry run (-want +got):\n%s", d)
	}
	if !regexp.MustCompile(`^golem-tiny-g1-[0-9a-f]{8}$`).MatchString(applied.GolemID) || applied.Generation != 1 || applied.Activity == 0 || applied.Counts.Reviewed == 0 {
		t.Errorf("apply: %+v", applied)
	}
	wantReplay := inheritResult{Reason: "already applied", Digest: applied.Digest, Store: path, Generation: 1, Channel: "predecessor",
		Warnings: []string{}, Bundle: b, Source: applied.Source}
	if d := cmp.Diff(wantReplay, replay); d != "" {
		t.Errorf("replay (-want +got):\n%s", d)
	}
	s, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantLine := []grimoire.Ancestor{{Digest: applied.Digest, GolemID: "golem-tiny", Generation: 0}}
	if m := s.Meta(); m.ParentBundle != applied.Digest || m.GolemID != applied.GolemID || !cmp.Equal(m.Ancestry, wantLine) {
		t.Errorf("store meta %+v", m)
	}
	acts, err := s.Activities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 2 || acts[1].Kind != store.ActivityInherit || acts[1].InputDigest != applied.Digest {
		t.Errorf("activities %+v: want init, then one inherit", acts)
	}
}

func TestAskSameAs(t *testing.T) {
	newPlan := func() *inherit.Plan {
		return &inherit.Plan{
			Admit: []inherit.Arrival{{}, {}},
			SameAs: []inherit.SameAs{
				{NewID: "n1", ExistingID: "o1", Cosine: 0.92},
				{NewID: "n2", ExistingID: "o2", Cosine: 0.9},
			},
		}
	}
	for _, tc := range []struct {
		name, answers string
		merged        []bool
		err           error
	}{
		{"yes then default", "y\n\n", []bool{true, false}, nil},
		{"no then YES without a newline", "n\nYES", []bool{false, true}, nil},
		{"input ends", "y\n", nil, errNoAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlan()
			p.Admit[0].Entry.ID, p.Admit[1].Entry.ID = "n1", "n2"
			var prompts bytes.Buffer
			err := askSameAs(bufio.NewReader(strings.NewReader(tc.answers)), &prompts, p, map[string]string{"n1": "new\ttext", "o1": "old text"})
			if err != tc.err {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if !strings.Contains(prompts.String(), "same_as candidate 1 of 2, cosine 0.92:\n  new n1: \"new text\"\n  old o1: \"old text\"\n") {
				t.Errorf("prompts:\n%s", prompts.String())
			}
			if tc.err != nil {
				return
			}
			for i, s := range p.SameAs {
				if s.Merged != tc.merged[i] || (p.Admit[i].SameAs != "") != tc.merged[i] {
					t.Errorf("pair %d: merged %v, pointer %q; want %v", i, s.Merged, p.Admit[i].SameAs, tc.merged[i])
				}
			}
		})
	}
}

func TestInheritParseOptions(t *testing.T) {
	t.Setenv("BARDO_STORE", "")
	for _, tc := range []struct {
		name string
		args []string
		want inheritOptions
	}{
		{"defaults", []string{"b.bardo"}, inheritOptions{Bundle: "b.bardo", Store: storeFlags{Path: "grimoire.db", Wait: 30 * time.Second},
			OnSimilar: "keep"}},
		{"every flag", []string{"-", "--store", "s.db", "--wait", "1s", "--channel", "clade", "--on-similar", "merge",
			"--golem-id", "heir", "--dry-run", "--now", "2026-11-03T09:00:00+01:00"},
			inheritOptions{Bundle: "-", Store: storeFlags{Path: "s.db", Wait: time.Second}, Channel: "clade", OnSimilar: "merge",
				GolemID: "heir", DryRun: true, Now: time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)}},
		{"ask on a dry run needs no terminal", []string{"b.bardo", "--on-similar", "ask", "--dry-run"}, inheritOptions{Bundle: "b.bardo",
			Store: storeFlags{Path: "grimoire.db", Wait: 30 * time.Second}, OnSimilar: "ask", DryRun: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGlobals(nil, &bytes.Buffer{}, &bytes.Buffer{}, t.TempDir())
			var got inheritOptions
			cmd := newInheritCmd(g, func(o inheritOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}
