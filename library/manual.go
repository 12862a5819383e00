package library

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bardo-golem/bardo/grimoire"
)

// ErrPick is matched by the error FromExportPicked returns for a pick it
// cannot honour: an id the export does not hold, a quarantined entry, or
// a row its store set aside.
var ErrPick = errors.New("cannot pick")

// A PickError names the picked ids a manual pull cannot take, and why.
// Nothing is deposited then.
type PickError struct {
	Missing     []string // picked ids no entry of the export has, sorted
	Quarantined []string // picked entries that are quarantined, sorted
	SetAside    []string // picked entries whose ids are of a set-aside form (grimoire.IsSetAside), sorted
}

func (e *PickError) Error() string {
	var parts []string
	if len(e.Missing) > 0 {
		parts = append(parts, fmt.Sprintf("picked %s: no entry of the export has %s", quoteIDs(e.Missing), plural(len(e.Missing), "this id", "these ids")))
	}
	if len(e.Quarantined) > 0 {
		parts = append(parts, fmt.Sprintf("picked %s: quarantined, and quarantined knowledge is never deposited", quoteIDs(e.Quarantined)))
	}
	if len(e.SetAside) > 0 {
		parts = append(parts, fmt.Sprintf("picked %s: rows their store set aside, which are its own and never deposited", quoteIDs(e.SetAside)))
	}
	return strings.Join(parts, "; ") + "; nothing deposited"
}

// Is makes a PickError match ErrPick.
func (e *PickError) Is(target error) bool { return target == ErrPick }

// quoteIDs quotes the first ten ids and says how many more there are.
func quoteIDs(ids []string) string {
	const shown = 10
	q := make([]string, 0, min(len(ids), shown)+1)
	for _, id := range ids[:min(len(ids), shown)] {
		q = append(q, fmt.Sprintf("%q", id))
	}
	if len(ids) > shown {
		q = append(q, fmt.Sprintf("and %d more", len(ids)-shown))
	}
	return strings.Join(q, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// MaxPickList bounds a pick list (ParsePicks): a million ids of 64 bytes.
const MaxPickList = 64 << 20

// ParsePicks reads a pick list: one id a line, surrounding blanks trimmed,
// empty lines skipped, LF or CRLF. A list past MaxPickList bytes, or one
// that is not UTF-8, is an error matching ErrPick; name names it in
// messages.
func ParsePicks(r io.Reader, name string) ([]string, error) {
	p, err := io.ReadAll(io.LimitReader(r, MaxPickList+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", name, err)
	case len(p) > MaxPickList:
		return nil, fmt.Errorf("%s: %w: more than %d bytes of ids", name, ErrPick, MaxPickList)
	}
	var picks []string
	n := 0
	for line := range strings.Lines(string(p)) {
		n++
		id := strings.TrimSpace(line)
		switch {
		case id == "":
			continue
		case !utf8.ValidString(id):
			return nil, fmt.Errorf("%s:%d: %w: the id is not UTF-8", name, n, ErrPick)
		}
		picks = append(picks, id)
	}
	return picks, nil
}

// ManualDigest is the idempotency key of a manual pull: the SHA-256 of
// "bardo.manual-pick/v1", the export's digest and the picked ids, sorted,
// one a line. Pulling other entries of the same export is another
// deposit; pulling the same ones again is not.
func ManualDigest(exportDigest string, picks []string) string {
	h := sha256.New()
	io.WriteString(h, "bardo.manual-pick/v1\n"+exportDigest+"\n")
	for _, id := range picks {
		io.WriteString(h, id+"\n")
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// FromExportPicked reads what an owner pulls by hand from a dying Golem's
// export on the manual channel: exactly the entries whose ids are picked,
// whatever their category or confidence (no filter), without their soma
// (emotional tag, parent episodes) or store state; the causal edges whose
// two ends are both picked and that qualify (EdgeQualifies); no
// documents. A picked id the export does not hold, a quarantined entry
// or a row its store set aside (grimoire.IsSetAside) is a *PickError and
// nothing is offered. The deposit's digest is ManualDigest of the
// export's content digest, taken as it is read (the export is read once). Memory grows with the picks, not with the export.
// Other errors are the reader's.
func FromExportPicked(r *grimoire.Reader, picks []string) (*Offering, error) {
	ids := slices.Clone(picks)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: no id picked", ErrPick)
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	h := r.Header()
	src := &Offering{Channel: ChannelManual, Kind: KindExport, GolemID: h.GolemID, Generation: h.Generation}
	model := ""
	if h.Embedding != nil {
		model = h.Embedding.Model
	}
	found := make(map[string]bool, len(ids))
	var quarantined, setAside []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch x := rec.(type) {
		case *grimoire.Entry:
			src.Offered++
			if !want[x.ID] {
				src.LeftOut++
				continue
			}
			found[x.ID] = true
			switch {
			case x.Status == grimoire.StatusQuarantined:
				quarantined = append(quarantined, x.ID)
				continue
			case grimoire.IsSetAside(x.ID):
				setAside = append(setAside, x.ID)
				continue
			}
			src.Entries = append(src.Entries, offerOf(x, model))
		case *grimoire.CausalEdge:
			src.EdgesOffered++
			if !want[x.SourceID] || !want[x.TargetID] || !EdgeQualifies(x) {
				src.EdgesLeftOut++
				continue
			}
			src.Edges = append(src.Edges, *x)
		}
	}
	pe := &PickError{Quarantined: quarantined, SetAside: setAside}
	for _, id := range ids {
		if !found[id] {
			pe.Missing = append(pe.Missing, id)
		}
	}
	if len(pe.Missing) > 0 || len(pe.Quarantined) > 0 || len(pe.SetAside) > 0 {
		slices.Sort(pe.Quarantined)
		slices.Sort(pe.SetAside)
		return nil, pe
	}
	exportDigest, err := r.ContentDigest()
	if err != nil {
		return nil, err
	}
	src.Digest = ManualDigest(exportDigest, ids)
	return src, nil
}
