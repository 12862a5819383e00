package thanatopsis

import (
	"fmt"
	"io"
	"slices"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/grimoire"
)

// toxicRecords returns the full record of every toxic entry, by id. The
// autopsy keeps only small bookkeeping per entry and knows which entries
// are toxic only after the last episode, so a record comes from the
// bottleneck's selection when the entry passed it, and otherwise from a
// second read of the export, which keeps only the records asked for:
// memory stays bounded by the toxic list, whatever the export's size.
// reread says whether the second read happened.
func toxicRecords(src opener, opts grimoire.ReadOptions, toxic []autopsy.ToxicEntry, selected map[string]*grimoire.Entry) (records map[string]*grimoire.Entry, reread bool, err error) {
	records = make(map[string]*grimoire.Entry, len(toxic))
	missing := make(map[string]bool)
	for _, t := range toxic {
		if e := selected[t.EntryID]; e != nil {
			records[t.EntryID] = e
		} else {
			missing[t.EntryID] = true
		}
	}
	if len(missing) == 0 {
		return records, false, nil
	}
	if err := readEntries(src, opts, missing, records); err != nil {
		return nil, true, err
	}
	return records, true, nil
}

// readEntries reads src again and adds to records the entries whose ids
// are in want, stopping once it has them all.
func readEntries(src opener, opts grimoire.ReadOptions, want map[string]bool, records map[string]*grimoire.Entry) error {
	// The first read reported the warnings; the export has not changed.
	opts.Warn = nil
	r, err := src.Open(opts)
	if err != nil {
		return err
	}
	defer r.Close()
	left := len(want)
	for left > 0 {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		e, ok := rec.(*grimoire.Entry)
		if !ok || !want[e.ID] || records[e.ID] != nil {
			continue
		}
		records[e.ID] = e
		left--
	}
	if left == 0 {
		return r.Close()
	}
	var absent []string
	for id := range want {
		if records[id] == nil {
			absent = append(absent, id)
		}
	}
	slices.Sort(absent)
	return fmt.Errorf("%s: entry %q: the autopsy found it toxic, but a second read of the export does not hold it (the export changed while it was read)", exportName(src, opts), absent[0])
}
