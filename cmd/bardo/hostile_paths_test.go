//go:build linux

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hostile paths: what another user who can write into a store,
// snapshot or output folder can put where bardo reads or writes — links
// to the owner's files, FIFOs, devices, its own inputs as outputs — and
// what bardo must do with each: its exit code, what it says, and that
// nothing it did not mean to write changed. Each case runs the real binary
// (this test binary as "bardo", see TestMain) in a folder of its own.

// pathWork is one case's folder: an export, a store of it, a signing key
// pair and a snapshot folder.
type pathWork struct {
	dir, export, store, key, pub, snapshots string
}

func newPathWork(t *testing.T) pathWork {
	t.Helper()
	dir := t.TempDir()
	w := pathWork{dir: dir, export: filepath.Join(dir, "x.jsonl"), store: filepath.Join(dir, "s.db"),
		key: filepath.Join(dir, "owner.key"), pub: filepath.Join(dir, "owner.key.pub"), snapshots: filepath.Join(dir, "snaps")}
	b, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.export, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(w.snapshots, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "init", "--store", w.store, "--golem-id", "golem-tiny", "--generation", "0", "--now", "2026-11-02T12:00:00Z", "--quiet")
	mustRun(t, "keygen", "-o", w.key, "--quiet")
	return w
}

// pathState maps every name under dir to what it is: a regular file's
// digest, a link's target, another file's type. It never opens anything
// but regular files, so a FIFO cannot block it.
func pathState(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[p] = "link → " + t
		case strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm"):
			// SQLite's companions of a store opened to read: the store's
			// content is the database, compared as a file.
		case fi.Mode().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
			m[p] = hex.EncodeToString(h.Sum(nil))
		default:
			m[p] = fi.Mode().Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// pathCase is one hostile path. prepare sets the trap and returns the
// command line; check, when set, looks at what the run did beyond its
// exit code (for cases that must succeed). changes lists the names the
// run may change; everything else under the folder must be as it was.
type pathCase struct {
	name    string
	class   string // the item: "lock", "same-file", "write-through", "key"
	prepare func(t *testing.T, w pathWork) []string
	code    int
	expect  string // in stderr
	changes []string
	check   func(t *testing.T, w pathWork, stdout string)
	shell   bool // run the command line with sh -c (for >&-)
}

func pathCases() []pathCase {
	ln := func(t *testing.T, target, name string) {
		t.Helper()
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	fifo := func(t *testing.T, name string) {
		t.Helper()
		if err := syscall.Mkfifo(name, 0o644); err != nil {
			t.Skip("no mkfifo:", err)
		}
	}
	// dev makes a private copy of a character device in the case's folder
	// (root only): a regression that replaces the output then replaces
	// the copy, never the machine's own /dev/null or /dev/full.
	dev := func(t *testing.T, w pathWork, name string, minor int) string {
		t.Helper()
		p := filepath.Join(w.dir, name)
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
			t.Skipf("cannot make a private %s (%v): needs root", name, err)
		}
		return p
	}
	now := "--now=2026-11-03T00:00:00Z"
	return []pathCase{
		// 1. Lock files.
		{name: "snapshot lock is a link to the owner's key", class: "lock", code: 73, expect: "a symbolic link, not a bardo lock file",
			prepare: func(t *testing.T, w pathWork) []string {
				ln(t, w.key, filepath.Join(w.snapshots, ".bardo-snapshot.lock"))
				return []string{"snapshot", w.export, "--dir", w.snapshots, now}
			}},
		{name: "store lock is a link to the owner's key", class: "lock", code: 73, expect: "a symbolic link, not a bardo lock file",
			prepare: func(t *testing.T, w pathWork) []string {
				os.Remove(w.store + ".lock")
				ln(t, w.key, w.store+".lock")
				return []string{"ingest", w.export, "--store", w.store, now}
			}},
		{name: "store lock is a dangling link", class: "lock", code: 73, expect: "a symbolic link, not a bardo lock file",
			prepare: func(t *testing.T, w pathWork) []string {
				os.Remove(w.store + ".lock")
				ln(t, filepath.Join(w.dir, "created-by-bardo"), w.store+".lock")
				return []string{"ingest", w.export, "--store", w.store, now}
			}},
		{name: "store lock is a hard link to the owner's key", class: "lock", code: 73, expect: "a file with 2 names",
			prepare: func(t *testing.T, w pathWork) []string {
				os.Remove(w.store + ".lock")
				if err := os.Link(w.key, w.store+".lock"); err != nil {
					t.Fatal(err)
				}
				return []string{"ingest", w.export, "--store", w.store, now}
			}},
		{name: "store lock holds someone's text", class: "lock", code: 73, expect: "holds something other than a pid",
			prepare: func(t *testing.T, w pathWork) []string {
				os.WriteFile(w.store+".lock", []byte("precious\n"), 0o644)
				return []string{"ingest", w.export, "--store", w.store, now}
			}},
		{name: "snapshot lock is a FIFO", class: "lock", code: 73, expect: "not a regular file",
			prepare: func(t *testing.T, w pathWork) []string {
				fifo(t, filepath.Join(w.snapshots, ".bardo-snapshot.lock"))
				return []string{"snapshot", w.export, "--dir", w.snapshots, now}
			}},
		{name: "library lock is a link", class: "lock", code: 73, expect: "a symbolic link, not a bardo lock file",
			prepare: func(t *testing.T, w pathWork) []string {
				lib := filepath.Join(w.dir, "lib.db")
				ln(t, w.key, lib+".lock")
				mustRun(t, "bundle", w.export, "-o", filepath.Join(w.dir, "b.bardo"), "--quiet")
				return []string{"library", "deposit", filepath.Join(w.dir, "b.bardo"), "--library", lib, "--library-id", "lib-1", now}
			}},

		// 2. An output that is an input.
		{name: "bundle -o its export", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string { return []string{"bundle", w.export, "-o", w.export} }},
		{name: "bundle -o a link to its export", class: "same-file", code: 73, expect: "is the same file as",
			prepare: func(t *testing.T, w pathWork) []string {
				ln(t, "x.jsonl", filepath.Join(w.dir, "out.bardo"))
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "out.bardo")}
			}},
		{name: "bundle -o a hard link to its export", class: "same-file", code: 73, expect: "is the same file as",
			prepare: func(t *testing.T, w pathWork) []string {
				os.Link(w.export, filepath.Join(w.dir, "out.bardo"))
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "out.bardo")}
			}},
		{name: "bundle of stdin -o the file stdin is", class: "same-file", code: 73, expect: "standard input",
			shell: true,
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"bardo bundle - -o " + w.export + " < " + w.export}
			}},
		{name: "bundle -o its --sign key", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"bundle", w.export, "-o", w.key, "--sign", w.key}
			}},
		{name: "bundle -o its --clade store's -wal", class: "same-file", code: 73, expect: "-wal",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"bundle", w.export, "-o", w.store + "-wal", "--clade", w.store}
			}},
		{name: "export -o its store", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string { return []string{"export", "--store", w.store, "-o", w.store} }},
		{name: "export -o its store's lock", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"export", "--store", w.store, "-o", w.store + ".lock"}
			}},
		{name: "export -o its store's -shm", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"export", "--store", w.store, "-o", w.store + "-shm"}
			}},
		{name: "export -o a link to its store", class: "same-file", code: 73, expect: "is the same file as",
			prepare: func(t *testing.T, w pathWork) []string {
				ln(t, w.store, filepath.Join(w.dir, "out.jsonl"))
				return []string{"export", "--store", w.store, "-o", filepath.Join(w.dir, "out.jsonl")}
			}},

		{name: "backup -o its store", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string { return []string{"backup", "--store", w.store, "-o", w.store} }},
		{name: "backup -o its store's -wal", class: "same-file", code: 73, expect: "-wal",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"backup", "--store", w.store, "-o", w.store + "-wal"}
			}},
		{name: "import -o its own file", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string { return []string{"import", w.export, "-o", w.export} }},
		{name: "capsule -o its store", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string { return []string{"capsule", "--store", w.store, "-o", w.store} }},
		{name: "capsule -o its bundle", class: "same-file", code: 73, expect: "refusing to write",
			prepare: func(t *testing.T, w pathWork) []string {
				b := filepath.Join(w.dir, "b.bardo")
				mustRun(t, "bundle", w.export, "-o", b, "--quiet")
				return []string{"capsule", b, "-o", b}
			}},

		// 3. Outputs that are written through, links that are kept.
		{name: "bundle -o a full device", class: "write-through", code: 74, expect: "no space left on device",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"bundle", w.export, "-o", dev(t, w, "full", 7)}
			}},
		{name: "export -o a full device", class: "write-through", code: 74, expect: "no space left on device",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"export", "--store", w.store, "-o", dev(t, w, "full", 7)}
			}},
		{name: "bundle -o a null device", class: "write-through", code: 0,
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"bundle", w.export, "-o", dev(t, w, "null", 3)}
			}},
		{name: "bundle -o a link to a null device", class: "write-through", code: 0,
			prepare: func(t *testing.T, w pathWork) []string {
				ln(t, dev(t, w, "null", 3), filepath.Join(w.dir, "null-link"))
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "null-link")}
			}},
		{name: "bundle -o a FIFO with a reader", class: "write-through", code: 0,
			prepare: func(t *testing.T, w pathWork) []string {
				p := filepath.Join(w.dir, "fifo")
				fifo(t, p)
				go func() {
					f, err := os.Open(p)
					if err != nil {
						return
					}
					n, _ := io.Copy(io.Discard, f)
					f.Close()
					os.WriteFile(filepath.Join(w.dir, "fifo-read"), []byte(strings.Repeat("x", int(n))), 0o644)
				}()
				return []string{"bundle", w.export, "-o", p}
			},
			changes: []string{"fifo-read"},
			check: func(t *testing.T, w pathWork, _ string) {
				deadline := time.Now().Add(10 * time.Second)
				for time.Now().Before(deadline) {
					if fi, err := os.Stat(filepath.Join(w.dir, "fifo-read")); err == nil {
						if fi.Size() < 100 {
							t.Errorf("the FIFO's reader got %d bytes", fi.Size())
						}
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
				t.Error("the FIFO's reader got nothing")
			}},
		{name: "bundle -o a socket with a listener", class: "write-through", code: 0,
			prepare: func(t *testing.T, w pathWork) []string {
				p := filepath.Join(w.dir, "sock")
				l, err := net.Listen("unix", p)
				if err != nil {
					t.Skip("no unix sockets:", err)
				}
				t.Cleanup(func() { l.Close() })
				go func() {
					c, err := l.Accept()
					if err != nil {
						return
					}
					n, _ := io.Copy(io.Discard, c)
					c.Close()
					// Written aside and renamed: the check never sees the file empty.
					tmp := filepath.Join(w.dir, "sock-read.tmp")
					os.WriteFile(tmp, []byte(strings.Repeat("x", int(n))), 0o644)
					os.Rename(tmp, filepath.Join(w.dir, "sock-read"))
				}()
				return []string{"bundle", w.export, "-o", p}
			},
			changes: []string{"sock-read"},
			check: func(t *testing.T, w pathWork, _ string) {
				deadline := time.Now().Add(10 * time.Second)
				for time.Now().Before(deadline) {
					if fi, err := os.Stat(filepath.Join(w.dir, "sock-read")); err == nil {
						if fi.Size() < 100 {
							t.Errorf("the socket's reader got %d bytes", fi.Size())
						}
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
				t.Error("the socket's reader got nothing")
			}},
		{name: "bundle -o a link to /dev/stdout into a pipe", class: "write-through", code: 0,
			prepare: func(t *testing.T, w pathWork) []string {
				// Through a link of the case's own: a regression replaces the
				// link, never the machine's /dev/stdout.
				ln(t, "/dev/stdout", filepath.Join(w.dir, "stdout"))
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "stdout")}
			},
			check: func(t *testing.T, w pathWork, stdout string) {
				if !strings.HasPrefix(stdout, "\x28\xb5\x2f\xfd") {
					t.Errorf("stdout is not a bundle: %d bytes", len(stdout))
				}
			}},
		{name: "bundle -o a link to /proc/self/fd/1", class: "write-through", code: 0,
			prepare: func(t *testing.T, w pathWork) []string {
				ln(t, "/proc/self/fd/1", filepath.Join(w.dir, "out"))
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "out")}
			},
			check: func(t *testing.T, w pathWork, stdout string) {
				if !strings.HasPrefix(stdout, "\x28\xb5\x2f\xfd") {
					t.Errorf("stdout is not a bundle: %d bytes", len(stdout))
				}
			}},
		{name: "bundle -o - with stdout closed", class: "write-through", code: 74, expect: "write stdout: bad file descriptor",
			shell: true,
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"bardo bundle " + w.export + " -o - >&-"}
			},
			check: func(t *testing.T, w pathWork, _ string) {}},
		{name: "bundle -o a link to a regular file keeps the link", class: "write-through", code: 0,
			prepare: func(t *testing.T, w pathWork) []string {
				os.Mkdir(filepath.Join(w.dir, "real"), 0o755)
				os.WriteFile(filepath.Join(w.dir, "real", "b.bardo"), []byte("old"), 0o644)
				ln(t, "real/b.bardo", filepath.Join(w.dir, "b.bardo"))
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "b.bardo")}
			},
			changes: []string{"real/b.bardo"},
			check: func(t *testing.T, w pathWork, _ string) {
				if tgt, err := os.Readlink(filepath.Join(w.dir, "b.bardo")); err != nil || tgt != "real/b.bardo" {
					t.Errorf("the link is now %q, %v", tgt, err)
				}
				if code, _, stderr := bardo(t, "", "verify", filepath.Join(w.dir, "real", "b.bardo")); code != 0 {
					t.Errorf("the link's target is not the bundle: %s", stderr)
				}
			}},
		{name: "bundle -o a dangling link creates its target", class: "write-through", code: 0,
			prepare: func(t *testing.T, w pathWork) []string {
				ln(t, "made.bardo", filepath.Join(w.dir, "b.bardo"))
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "b.bardo")}
			},
			changes: []string{"made.bardo"},
			check: func(t *testing.T, w pathWork, _ string) {
				if code, _, stderr := bardo(t, "", "verify", filepath.Join(w.dir, "made.bardo")); code != 0 {
					t.Errorf("the link's target is not the bundle: %s", stderr)
				}
			}},

		// 6. Key files.
		{name: "trust add /dev/zero", class: "key", code: 66, expect: "not a regular file but a character device",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"trust", "add", "/dev/zero", "--store", w.store}
			}},
		{name: "trust add /dev/urandom", class: "key", code: 66, expect: "not a regular file",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"trust", "add", "/dev/urandom", "--store", w.store}
			}},
		{name: "verify --trust /dev/zero", class: "key", code: 66, expect: "not a regular file",
			prepare: func(t *testing.T, w pathWork) []string {
				mustRun(t, "bundle", w.export, "-o", filepath.Join(w.dir, "b.bardo"), "--quiet")
				return []string{"verify", "--trust", "/dev/zero", filepath.Join(w.dir, "b.bardo")}
			}},
		{name: "bundle --sign /dev/zero", class: "key", code: 66, expect: "not a regular file",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "b.bardo"), "--sign", "/dev/zero"}
			}},
		{name: "bundle --sign a FIFO nobody writes", class: "key", code: 66, expect: "not a regular file but a FIFO",
			prepare: func(t *testing.T, w pathWork) []string {
				fifo(t, filepath.Join(w.dir, "key.fifo"))
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "b.bardo"), "--sign", filepath.Join(w.dir, "key.fifo")}
			}},
		{name: "trust add a FIFO nobody writes", class: "key", code: 66, expect: "a FIFO",
			prepare: func(t *testing.T, w pathWork) []string {
				fifo(t, filepath.Join(w.dir, "key.fifo"))
				return []string{"trust", "add", filepath.Join(w.dir, "key.fifo"), "--store", w.store}
			}},
		{name: "trust add a folder", class: "key", code: 66, expect: "a folder",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"trust", "add", w.snapshots, "--store", w.store}
			}},
		{name: "trust add a 5000-byte file", class: "key", code: 65, expect: "5000 bytes, a key file holds one line of at most 4096",
			prepare: func(t *testing.T, w pathWork) []string {
				os.WriteFile(filepath.Join(w.dir, "big.pub"), make([]byte, 5000), 0o644)
				return []string{"trust", "add", filepath.Join(w.dir, "big.pub"), "--store", w.store}
			}},
		{name: "bundle --sign a 64 MiB sparse file", class: "key", code: 65, expect: "a key file holds one line",
			prepare: func(t *testing.T, w pathWork) []string {
				p := filepath.Join(w.dir, "huge.key")
				f, err := os.Create(p)
				if err != nil {
					t.Fatal(err)
				}
				f.Truncate(64 << 20)
				f.Close()
				return []string{"bundle", w.export, "-o", filepath.Join(w.dir, "b.bardo"), "--sign", p}
			}},
		// 9. A weak key through the binary.
		{name: "trust add the neutral point", class: "key", code: 65, expect: "weak ed25519 public key",
			prepare: func(t *testing.T, w pathWork) []string {
				return []string{"trust", "add", "bardo-ed25519-public-key:AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "--store", w.store}
			}},
	}
}

// TestHostilePaths runs every hostile path through the real binary.
func TestHostilePaths(t *testing.T) {
	bin, err := exec.LookPath("bardo")
	if err != nil {
		t.Fatal(err)
	}
	base := maxRSS(t, exec.Command(bin, "version"))
	tally := map[string]int{}
	for _, c := range pathCases() {
		t.Run(c.name, func(t *testing.T) {
			w := newPathWork(t)
			args := c.prepare(t, w)
			before := pathState(t, w.dir)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var cmd *exec.Cmd
			switch {
			case c.shell:
				cmd = exec.CommandContext(ctx, "sh", "-c", strings.ReplaceAll(args[0], "bardo ", bin+" "))
			case c.class == "key":
				// A regression that reads /dev/zero without bound must not
				// take the machine's memory with it: 4 GiB of address space
				// (1 GiB was too tight for a Go binary opening a SQLite store
				// on a loaded machine: the runtime failed to reserve memory
				// and exited 2).
				cmd = exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v 4194304 && exec "$@"`, "sh", bin}, args...)...)
			default:
				cmd = exec.CommandContext(ctx, bin, args...)
			}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Dir = w.dir
			rss := maxRSS(t, cmd)
			if ctx.Err() != nil {
				t.Fatalf("%v hangs", args)
			}
			code := cmd.ProcessState.ExitCode()
			if code != c.code {
				t.Fatalf("%v: exit %d, want %d\n%s", args, code, c.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.expect) {
				t.Errorf("stderr %q does not say %q", stderr.String(), c.expect)
			}
			if c.code != 0 && strings.Contains(stderr.String(), "sha256:") {
				t.Errorf("a failed run reported a digest: %s", stderr.String())
			}
			if c.check != nil {
				c.check(t, w, stdout.String())
			}
			after := pathState(t, w.dir)
			for _, n := range c.changes {
				delete(before, filepath.Join(w.dir, n))
				delete(after, filepath.Join(w.dir, n))
			}
			if d := diffState(before, after); d != "" {
				t.Errorf("the run changed what it must not:\n%s", d)
			}
			// A key file is read within 4 KiB, whatever it claims.
			const bound = 32 << 20
			if c.class == "key" && rss > base+bound {
				t.Errorf("peak resident set %d MiB, %d MiB above a run that does nothing; bound %d MiB", rss>>20, (rss-base)>>20, bound>>20)
			}
			tally[c.class]++
		})
	}
	t.Logf("hostile paths handled, by class: %v; a run that does nothing peaks at %d MiB resident", tally, base>>20)
}

// TestHostilePathsClasses keeps the corpus honest: every class the issue
// names is present.
func TestHostilePathsClasses(t *testing.T) {
	n := map[string]int{}
	for _, c := range pathCases() {
		n[c.class]++
	}
	for _, class := range []string{"lock", "same-file", "write-through", "key"} {
		if n[class] < 5 {
			t.Errorf("%d %s cases, want at least 5", n[class], class)
		}
	}
}
