package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// cmdResult is DIR/NAME.json: every timed run of one command of a case
// (NAME inherit: `bardo inherit BUNDLE --store STORE --dry-run`; the
// library benchmark's ingest, inherit, bundle_clade, bundle, novelty and
// recall), and, for an inherit, what the last one reported.
type cmdResult struct {
	Reps []cmdRep `json:"reps"`
	// From the last rep's bardo.inherit/v1 document: the rows reviewed
	// (the bundle's entries and reflection items) and admitted.
	Reviewed           int `json:"reviewed,omitempty"`
	Admitted           int `json:"admitted,omitempty"`
	SkippedDuplicate   int `json:"skipped_duplicate,omitempty"`
	SameAsCandidates   int `json:"same_as_candidates,omitempty"`
	ArchivedBelowFloor int `json:"archived_below_floor,omitempty"`
}

// cmdRep is one run, as /usr/bin/time -v measured it.
type cmdRep struct {
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"` // user + system
	PeakRSSMiB  float64 `json:"peak_rss_mib"`
}

// inheritDoc is the part of bardo inherit's --json document the harness
// reads.
type inheritDoc struct {
	Format  string `json:"format"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason"`
	Counts  struct {
		Reviewed           int `json:"reviewed"`
		Admitted           int `json:"admitted"`
		SkippedDuplicate   int `json:"skipped_duplicate"`
		SameAsCandidates   int `json:"same_as_candidates"`
		ArchivedBelowFloor int `json:"archived_below_floor"`
	} `json:"counts"`
}

// cmdCmdRep adds one timed run of a command to DIR/NAME.json: its
// /usr/bin/time -v report and, with -result, its --json document, which
// must be of -format; an inherit's (bardo.inherit/v1) must be a dry run's
// (nothing applied), and its counts are kept; a library deposit's or
// equip's must have applied (a rep that wrote nothing timed nothing).
func cmdCmdRep(args []string) error {
	fs := flag.NewFlagSet("cmdrep", flag.ContinueOnError)
	dir := fs.String("dir", "", "the case `folder`")
	name := fs.String("name", "", "the command's `name`: the results go to DIR/NAME.json")
	timev := fs.String("timev", "", "the /usr/bin/time -v report of the run")
	doc := fs.String("result", "", "the run's --json document")
	format := fs.String("format", "", "the `format` the document must have, e.g. bardo.inherit/v1")
	appendRes := fs.Bool("append", false, "add the rep to those of DIR/NAME.json, when there is one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *name == "" || *timev == "" || (*doc == "") != (*format == "") || fs.NArg() > 0 {
		return fmt.Errorf("usage: bardobench cmdrep -dir DIR -name NAME -timev FILE [-result FILE -format FORMAT] [-append]")
	}
	tv, err := readTimeV(*timev)
	if err != nil {
		return err
	}
	path := filepath.Join(*dir, *name+".json")
	var res cmdResult
	if *appendRes {
		if err := readJSONFile(path, &res); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	res.Reps = append(res.Reps, cmdRep{WallSeconds: tv.seconds, CPUSeconds: tv.cpu, PeakRSSMiB: tv.maxRSS})
	tail := ""
	if *doc != "" {
		var d inheritDoc
		if err := readJSONFile(*doc, &d); err != nil {
			return err
		}
		if d.Format != *format {
			return fmt.Errorf("%s: format %q, want %q", *doc, d.Format, *format)
		}
		if d.Format == "bardo.inherit/v1" {
			if d.Applied {
				return fmt.Errorf("%s: not a dry run's bardo.inherit/v1 document (applied)", *doc)
			}
			c := d.Counts
			res.Reviewed, res.Admitted, res.SkippedDuplicate, res.SameAsCandidates, res.ArchivedBelowFloor =
				c.Reviewed, c.Admitted, c.SkippedDuplicate, c.SameAsCandidates, c.ArchivedBelowFloor
			tail = fmt.Sprintf("; %d reviewed, %d admitted", c.Reviewed, c.Admitted)
		}
		if (d.Format == "bardo.library-deposit/v1" || d.Format == "bardo.library-equip/v1") && !d.Applied {
			return fmt.Errorf("%s: a %s document that applied nothing", *doc, d.Format)
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %.3fs wall, %.3fs CPU, peak RSS %.0f MiB%s\n", *name, tv.seconds, tv.cpu, tv.maxRSS, tail)
	return writeJSONFile(path, res)
}
