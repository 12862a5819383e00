package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/internal/lock"
)

// applyChildEnv makes the test binary a child that applies bigPlan to the
// store it names, saying "applying" on stdout first. With holdChildEnv set
// it waits for a line on stdin, holding the lock, before it applies.
const (
	applyChildEnv = "BARDO_STORE_TEST_APPLY"
	holdChildEnv  = "BARDO_STORE_TEST_HOLD"
)

// crashRows is the size of the plan a child is killed in the middle of:
// applying it takes a few hundred milliseconds, so that the kills land
// before, inside and after its transaction.
const crashRows = 6000

const bigBundle = "sha256:2222222222222222222222222222222222222222222222222222222222222222"

func TestMain(m *testing.M) {
	if p := os.Getenv(applyChildEnv); p != "" {
		os.Exit(applyChild(p))
	}
	os.Exit(m.Run())
}

func applyChild(p string) int {
	ctx := context.Background()
	s, err := Open(ctx, p, Options{Write: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer s.Close()
	plan := bigPlan(crashRows)
	os.Stdout.WriteString("applying\n")
	if os.Getenv(holdChildEnv) != "" {
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
	if _, err := s.ApplyInherit(ctx, plan, t0.Add(time.Hour)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	return 0
}

// bigPlan admits n rows with 16-dim vectors into the test store, with a
// sighting, a same_as candidate, a flag, edges and a document.
func bigPlan(n int) *inherit.Plan {
	p := &inherit.Plan{BundleDigest: bigBundle, Kind: "death", Channel: inherit.ChannelPredecessor,
		SourceGolemID: "golem-7a", StoreGolemID: "golem-7a-g1", StoreGeneration: 1,
		Documents: []grimoire.Document{{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n- big\n"}}}
	for i := range n {
		vec := make([]float32, 16)
		vec[i%16], vec[(i/16)%16] = 1, 0.5
		a := arrival(fmt.Sprintf("big-%06d", i), 0.3, vec...)
		p.Admit = append(p.Admit, a)
		if i > 0 && i%1000 == 0 {
			p.Edges = append(p.Edges, grimoire.CausalEdge{SourceID: fmt.Sprintf("big-%06d", i-1), TargetID: a.Entry.ID, Weight: 0.5})
		}
	}
	p.Sightings = []inherit.Sighting{{ExistingID: "big-000000", IncomingID: "seen", Cosine: 0.99, SourceGolemID: "golem-7a", Confidence: 0.9}}
	p.SameAs = []inherit.SameAs{{NewID: "big-000002", ExistingID: "big-000001", Cosine: 0.91}}
	p.Flags = []inherit.Flag{{EntryID: "big-000003", Recommendation: "discard", Contribution: 0.5}}
	p.Counts = inherit.Counts{Reviewed: n + 1, Admitted: n, SkippedDuplicate: 1, SameAsCandidates: 1, FlaggedToxic: 1}
	return p
}

// createAt makes the test store at p, and closes it.
func createAt(t *testing.T, p string) {
	t.Helper()
	s, err := Create(context.Background(), p, Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// startApplyChild starts a child applying bigPlan to p and returns once it
// has the lock and is about to apply. A held child applies once a line is
// written to its stdin (returned, nil unless held).
func startApplyChild(t *testing.T, p string, hold bool) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), applyChildEnv+"="+p)
	var in io.WriteCloser
	if hold {
		cmd.Env = append(cmd.Env, holdChildEnv+"=1")
		var err error
		if in, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "applying\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q, %v", line, err)
	}
	return cmd, in
}

// TestCrashMidApply kills (SIGKILL) a child in the middle of applying a
// large plan, at several moments. Whenever it dies, the store opens sound
// with either nothing of the apply or all of it, and applying again ends
// in the same state as an uninterrupted run.
func TestCrashMidApply(t *testing.T) {
	if testing.Short() {
		t.Skip("applies a large plan several times")
	}
	ctx := context.Background()
	dir := t.TempDir()

	// The states to compare with: before, and after an uninterrupted apply.
	ref := filepath.Join(dir, "reference.db")
	createAt(t, ref)
	s, err := Open(ctx, ref, Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	empty := dump(t, s)
	if _, err := s.ApplyInherit(ctx, bigPlan(crashRows), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	full := dump(t, s)
	s.Close()

	// The delays only move where the kill lands; every outcome must hold.
	for _, delay := range []time.Duration{0, 150 * time.Millisecond, 400 * time.Millisecond} {
		t.Run(fmt.Sprint("kill after ", delay), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "grimoire.db")
			createAt(t, p)
			child, _ := startApplyChild(t, p, false)
			time.Sleep(delay)
			child.Process.Kill()
			child.Wait()
			if fi, err := os.Stat(p + "-wal"); err == nil {
				t.Logf("the killed child left %d bytes of write-ahead log", fi.Size())
			}

			s, err := Open(ctx, p, Options{Write: true})
			if err != nil {
				t.Fatalf("store after the kill: %v", err)
			}
			defer s.Close()
			mustBeSound(t, s)
			a, err := s.FindActivity(ctx, ActivityInherit, bigBundle)
			if err != nil {
				t.Fatal(err)
			}
			want := empty
			if a != nil {
				want = full
			}
			t.Logf("killed with the apply committed: %v", a != nil)
			if d := cmp.Diff(want, dump(t, s)); d != "" {
				t.Fatalf("after the kill the store holds part of the apply:\n%.2000s", d)
			}

			_, err = s.ApplyInherit(ctx, bigPlan(crashRows), t0.Add(time.Hour))
			if a != nil && !errors.Is(err, ErrAlreadyApplied) || a == nil && err != nil {
				t.Fatalf("rerun: %v (committed before: %v)", err, a != nil)
			}
			if d := cmp.Diff(full, dump(t, s)); d != "" {
				t.Errorf("the rerun ends otherwise than an uninterrupted apply:\n%.2000s", d)
			}
			mustBeSound(t, s)
		})
	}
}

// TestTwoWriterProcesses: while a child process holds the store, a second
// writer is refused at once with lock.ErrLocked, or waits and then finds
// the child's bundle applied.
func TestTwoWriterProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("applies a large plan")
	}
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "grimoire.db")
	createAt(t, p)
	child, release := startApplyChild(t, p, true)
	defer child.Process.Kill()

	if _, err := Open(ctx, p, Options{Write: true}); !errors.Is(err, lock.ErrLocked) {
		t.Fatalf("a second writer without --wait: %v, want lock.ErrLocked", err)
	}
	release.Write([]byte("go\n"))
	s, err := Open(ctx, p, Options{Write: true, Wait: 2 * time.Minute})
	if err != nil {
		t.Fatalf("a second writer waiting: %v", err)
	}
	defer s.Close()
	if err := child.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	if _, err := s.ApplyInherit(ctx, bigPlan(crashRows), t0.Add(time.Hour)); !errors.Is(err, ErrAlreadyApplied) {
		t.Errorf("the waiting writer's apply: %v, want ErrAlreadyApplied", err)
	}
	mustBeSound(t, s)
}

// TestTwoWriterGoroutines: a writer waiting in another goroutine gets the
// lock once the first closes, and sees its work.
func TestTwoWriterGoroutines(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "grimoire.db")
	createAt(t, p)
	first, err := Open(ctx, p, Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		s   *Store
		err error
	}
	second := make(chan result, 1)
	go func() {
		s, err := Open(ctx, p, Options{Write: true, Wait: time.Minute})
		second <- result{s, err}
	}()
	if _, err := first.ApplyInherit(ctx, testPlanFor(first), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	first.Close()
	r := <-second
	if r.err != nil {
		t.Fatalf("waiting writer: %v", r.err)
	}
	defer r.s.Close()
	if _, err := r.s.ApplyInherit(ctx, testPlanFor(r.s), t0.Add(time.Hour)); !errors.Is(err, ErrAlreadyApplied) {
		t.Errorf("second writer's apply: %v, want ErrAlreadyApplied", err)
	}
}

// testPlanFor is a small plan with no reference to rows a store lacks.
func testPlanFor(*Store) *inherit.Plan {
	p := bigPlan(5)
	p.Edges = nil
	return p
}
