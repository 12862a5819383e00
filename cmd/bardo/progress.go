package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/bardo-golem/bardo/grimoire"
)

// Progress bars (docs/CLI.md#streams): on stderr, for long work, only when stderr is a
// terminal, and never with --quiet. The libraries know nothing of them:
// they call back (grimoire.ReadOptions.Progress, inherit.Options.Progress)
// or the command wraps what it reads, with one line:
//
//	defer g.exportProgress(&opts, path)()
//
// A bar that is off costs a nil check.

// progressThrottle spaces the redraws of a bar: a terminal need not be
// written a thousand times a second.
const progressThrottle = 100 * time.Millisecond

// progress is one bar on stderr, or nothing (bar nil).
type progress struct {
	g     *globals
	bar   *progressbar.ProgressBar
	total int64 // -1: unknown
}

// newProgress starts a bar saying what is being done (desc: "reading
// export.jsonl"), of total units, -1 when the total is unknown; byteSized
// bars count bytes. The bar is off (every method a no-op) unless stderr is
// a terminal and neither --quiet nor --json is given (with --json, stderr
// holds one JSON document).
func (g *globals) newProgress(desc string, total int64, byteSized bool) *progress {
	p := &progress{g: g, total: total}
	if g.quiet || g.json || !g.stderrTerminal || total == 0 {
		return p
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(g.stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(progressThrottle),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
		// No redraws but on progress: a timer would write to stderr from
		// another goroutine, between the diagnostics.
		progressbar.OptionSetSpinnerChangeInterval(0),
	}
	if byteSized {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowCount())
	}
	p.bar = progressbar.NewOptions64(total, opts...)
	g.progress = p
	return p
}

// set moves the bar to n units done: back, too, when a second pass over
// an input starts.
func (p *progress) set(n int64) {
	if p == nil || p.bar == nil {
		return
	}
	if p.total >= 0 {
		n = min(n, p.total) // an input that grew while it was read
	}
	p.bar.Set64(n)
}

// add moves the bar n units on.
func (p *progress) add(n int) {
	if p == nil || p.bar == nil {
		return
	}
	if p.total < 0 || p.bar.State().CurrentNum+int64(n) <= p.total {
		p.bar.Add(n)
	}
}

// clear takes the bar off the screen until it next moves, so that a
// diagnostic starts on a clean line.
func (p *progress) clear() {
	if p != nil && p.bar != nil {
		p.bar.Clear()
	}
}

// done takes the bar off the screen for good, whether the work finished or
// failed.
func (p *progress) done() {
	if p == nil || p.bar == nil {
		return
	}
	p.bar.Exit()
	p.bar.Clear()
	if p.g.progress == p {
		p.g.progress = nil
	}
	p.bar = nil
}

// reader counts the bytes read through r on the bar.
func (p *progress) reader(r io.Reader) io.Reader {
	if p == nil || p.bar == nil {
		return r
	}
	return &progressReader{r: r, p: p}
}

type progressReader struct {
	r io.Reader
	p *progress
}

func (r *progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.p.add(n)
	return n, err
}

// inputSize is the size of the input at path, for a bar; -1 when it is
// standard input or not a regular file.
func inputSize(path string) int64 {
	if path == "-" {
		return -1
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return -1
	}
	return fi.Size()
}

// exportProgress draws a bar of the bytes of the export at path as opts
// reads them (each pass over it from the start), named as opts names it,
// and returns the function that takes it away.
func (g *globals) exportProgress(opts *grimoire.ReadOptions, path string) (done func()) {
	name := opts.Name
	if name == "" {
		name = inputName(path)
	}
	p := g.newProgress("reading "+name, inputSize(path), true)
	if p.bar == nil {
		return func() {}
	}
	opts.Progress = p.set
	return p.done
}

// inputProgress draws a bar of the bytes read through r, the input at
// path (named name in the bar), and returns the reader to read instead and
// the function that takes the bar away.
func (g *globals) inputProgress(r io.Reader, name, path string) (io.Reader, func()) {
	p := g.newProgress("reading "+name, inputSize(path), true)
	return p.reader(r), p.done
}

// stepProgress draws a bar of steps counted by the caller (desc: "planning
// golem-7a.bardo"), from the first step on, and takes it away at the last
// one; finish takes it away should the work stop before.
func (g *globals) stepProgress(desc string) (step func(done, total int), finish func()) {
	var p *progress
	step = func(done, total int) {
		if p == nil {
			p = g.newProgress(desc, int64(total), false)
		}
		p.set(int64(done))
		if done >= total {
			p.done()
		}
	}
	return step, func() { p.done() }
}
