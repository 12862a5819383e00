package bundle

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Limits of each field, and the budget of what decoding may build
// (FORMAT.md, "Limits"). The decoded-CBOR cap alone does not bound the Go
// values decoded from it: an empty text string is one byte of CBOR and 16
// of a Go string header, an empty map a whole struct. So before anything
// is unmarshalled, a walk of the CBOR guided by the Go types counts every
// array's elements and every string's bytes against the limit of its
// field, and adds up what the values will take in memory against a budget
// that grows with the file. Nothing is allocated for a bundle past them.
const (
	// MaxEntries bounds body.entries and a snapshot's insights: the
	// bottleneck's largest cap (bottleneck.MaxEntriesLimit).
	MaxEntries = 65536
	// MaxEdges bounds body.causal_graph.
	MaxEdges = 1 << 18
	// MaxLeftOut bounds body.left_out.
	MaxLeftOut = 1 << 18
	// MaxTags bounds an entry's tags.
	MaxTags = 256
	// MaxCategoryItems bounds the items of one reflection category (the
	// reflection's defaults are 32 to 64).
	MaxCategoryItems = 4096
	// MaxListingItems bounds a listing's items: nine full categories.
	MaxListingItems = 9 * MaxCategoryItems
	// MaxRefs bounds an item's refs.
	MaxRefs = 4096
	// MaxToxicEntries bounds autopsy.toxic_entries.
	MaxToxicEntries = MaxEntries
	// MaxParents bounds header.parents (MaxAncestry bounds header.ancestry).
	MaxParents = 1024
	// MaxSnapshotEpisodes bounds a snapshot's episodes (it keeps
	// SnapshotEpisodes), MaxSnapshotMetrics its metrics.
	MaxSnapshotEpisodes = 4096
	MaxSnapshotMetrics  = 4096
	// MaxUsedEntryIDs bounds an episode's used_entry_ids.
	MaxUsedEntryIDs = 4096
	// MaxTrajectory bounds a snapshot's accuracy trajectory.
	MaxTrajectory = 65536
	// MaxSmallArray bounds the arrays of a few known words: autopsy.clocks,
	// a snapshot's pressures.
	MaxSmallArray = 16

	// MaxContentBytes bounds an entry's content, a toxic entry's, and the
	// other free texts of one record (reasons, hypotheses, an episode's
	// summary).
	MaxContentBytes = 1 << 20
	// MaxDocumentBytes bounds PLAYBOOK.md's text.
	MaxDocumentBytes = 4 << 20
	// MaxItemTextBytes bounds an item's text: a whole annotated
	// PLAYBOOK.md or STRATEGY.md.
	MaxItemTextBytes = 8 << 20
	// MaxEmbeddingDims bounds header.embedding.dims and a vector's dims:
	// an embedding or vector is at most 4 × MaxEmbeddingDims bytes.
	MaxEmbeddingDims = 16384
	// MaxKeyBytes bounds a signature's public key and signature.
	MaxKeyBytes = 256
	// MaxStringBytes bounds every other text: ids, names, times, words.
	MaxStringBytes = 64 << 10

	// The decoded CBOR of a file of n bytes is at most DecodedFloor +
	// DecodedRatio × n (and MaxDecodedSize): real bundles, mostly float32
	// embeddings and prose, compress far less than 16:1.
	DecodedFloor = 16 << 20
	DecodedRatio = 16
	// What decoding builds from a file of n bytes (Go values: structs,
	// slices, strings) is at most ObjectFloor + ObjectRatio × n (and
	// MaxDecodedObjects). A real bundle's values take about as much as
	// its CBOR.
	ObjectFloor       = 16 << 20
	ObjectRatio       = 32
	MaxDecodedObjects = 512 << 20
)

// DecodedLimit returns the most CBOR a bundle file of n bytes may decode to.
func DecodedLimit(n int64) int64 {
	return min(MaxDecodedSize, DecodedFloor+DecodedRatio*n)
}

// ObjectBudget returns the most memory the values decoded from a bundle
// file of n bytes may take.
func ObjectBudget(n int64) int64 {
	return min(MaxDecodedObjects, ObjectFloor+ObjectRatio*n)
}

// A limit is the most elements (arrays) or bytes (strings) of a field.
type limit struct {
	n    int
	what string // for messages: "tags of an entry"
}

// fieldLimits are the limits by Go type and CBOR key. Every array field
// of the format has one (TestEveryArrayHasALimit); a text without one
// takes MaxStringBytes.
var fieldLimits = map[string]limit{
	"Header.parents":  {MaxParents, "parents"},
	"Header.ancestry": {MaxAncestry, "ancestors"},

	"Body.entries":      {MaxEntries, "entries"},
	"Body.causal_graph": {MaxEdges, "edges"},
	"Body.left_out":     {MaxLeftOut, "left-out references"},

	"Entry.tags":      {MaxTags, "tags of an entry"},
	"Entry.content":   {MaxContentBytes, "bytes of an entry's content"},
	"Entry.embedding": {4 * MaxEmbeddingDims, "bytes of an embedding"},

	"Document.text": {MaxDocumentBytes, "bytes of a document's text"},

	"Reflection.built_to_do":    {MaxCategoryItems, "items of a reflection category"},
	"Reflection.learned":        {MaxCategoryItems, "items of a reflection category"},
	"Reflection.got_wrong":      {MaxCategoryItems, "items of a reflection category"},
	"Reflection.confused":       {MaxCategoryItems, "items of a reflection category"},
	"Reflection.suspect":        {MaxCategoryItems, "items of a reflection category"},
	"Reflection.tell_successor": {MaxCategoryItems, "items of a reflection category"},
	"Reflection.never_tested":   {MaxCategoryItems, "items of a reflection category"},
	"Reflection.final_playbook": {MaxCategoryItems, "items of a reflection category"},
	"Reflection.causal_graph":   {MaxCategoryItems, "items of a reflection category"},
	"ListingBody.items":         {MaxListingItems, "items of a listing"},

	"Item.text":    {MaxItemTextBytes, "bytes of an item's text"},
	"Item.refs":    {MaxRefs, "refs of an item"},
	"Vector.data":  {4 * MaxEmbeddingDims, "bytes of a vector"},
	"Frame.reason": {MaxContentBytes, "bytes of a reason"},

	"Autopsy.clocks":                       {MaxSmallArray, "death clocks"},
	"Autopsy.toxic_entries":                {MaxToxicEntries, "toxic entries"},
	"Autopsy.regime_transition_hypothesis": {MaxContentBytes, "bytes of a hypothesis"},
	"ToxicEntry.content":                   {MaxContentBytes, "bytes of an entry's content"},
	"ToxicEntry.reason":                    {MaxContentBytes, "bytes of a reason"},

	"Advisor.reason": {MaxContentBytes, "bytes of a reason"},

	"Signature.public_key": {MaxKeyBytes, "bytes of a public key"},
	"Signature.sig":        {MaxKeyBytes, "bytes of a signature"},

	"SnapshotBody.episodes":          {MaxSnapshotEpisodes, "episodes"},
	"SnapshotBody.insights":          {MaxEntries, "insights"},
	"SnapshotBody.metrics":           {MaxSnapshotMetrics, "metrics"},
	"SnapshotBody.pressures":         {MaxSmallArray, "pressures"},
	"SnapshotBody.successor_notes":   {MaxEntries, "successor notes"},
	"SnapshotBody.trajectory":        {MaxTrajectory, "trajectory buckets"},
	"SnapshotEpisode.used_entry_ids": {MaxUsedEntryIDs, "used entry ids of an episode"},
	"SnapshotEpisode.state":          {MaxContentBytes, "bytes of an episode's state"},
	"SnapshotEpisode.summary":        {MaxContentBytes, "bytes of an episode's summary"},
	"SnapshotEpisode.action":         {MaxContentBytes, "bytes of an episode's action"},
	"SnapshotEpisode.outcome":        {MaxContentBytes, "bytes of an episode's outcome"},
	"SnapshotPrediction.statement":   {MaxContentBytes, "bytes of a prediction"},
}

var defaultTextLimit = limit{MaxStringBytes, "bytes of a text"}

// A shape is what the walk expects where a value of a Go type is decoded.
type shape struct {
	kind   shapeKind
	lim    limit             // array: elements; text, bytes: bytes
	size   int64             // array: what one element takes; pointer: what the value takes
	elem   *shape            // array, pointer
	fields map[string]*shape // record
}

type shapeKind uint8

const (
	shapeScalar shapeKind = iota // integers, floats, booleans: nothing allocated
	shapeText
	shapeBytes
	shapeArray
	shapeRecord
	shapePointer
)

var (
	deathShape    = shapeOf(deathWireType, limit{}, map[reflect.Type]*shape{})
	snapshotShape = shapeOf(snapshotWireType, limit{}, map[reflect.Type]*shape{})
	listingShape  = shapeOf(listingWireType, limit{}, map[reflect.Type]*shape{})
)

// wireShape returns the shape of the wire type typ.
func wireShape(typ reflect.Type) *shape {
	switch typ {
	case snapshotWireType:
		return snapshotShape
	case listingWireType:
		return listingShape
	}
	return deathShape
}

// shapeOf returns the shape of t, a field with limit lim (the zero limit
// where it has none of its own). Records are shared through seen.
func shapeOf(t reflect.Type, lim limit, seen map[reflect.Type]*shape) *shape {
	switch t.Kind() {
	case reflect.String:
		if lim.n == 0 {
			lim = defaultTextLimit
		}
		return &shape{kind: shapeText, lim: lim}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			if lim.n == 0 {
				lim = limit{MaxStringBytes, "bytes"}
			}
			return &shape{kind: shapeBytes, lim: lim}
		}
		if lim.n == 0 {
			lim = limit{MaxArrayElements, "elements"}
		}
		return &shape{kind: shapeArray, lim: lim, size: int64(t.Elem().Size()), elem: shapeOf(t.Elem(), limit{}, seen)}
	case reflect.Pointer:
		return &shape{kind: shapePointer, size: max(8, int64(t.Elem().Size())), elem: shapeOf(t.Elem(), lim, seen)}
	case reflect.Struct:
		if s, ok := seen[t]; ok {
			return s
		}
		s := &shape{kind: shapeRecord, fields: map[string]*shape{}}
		seen[t] = s
		for i := range t.NumField() {
			f := t.Field(i)
			key, _, _ := strings.Cut(f.Tag.Get("cbor"), ",")
			if key == "" || key == "-" {
				continue
			}
			s.fields[key] = shapeOf(f.Type, fieldLimits[t.Name()+"."+key], seen)
		}
		return s
	}
	return &shape{kind: shapeScalar}
}

// A limitError is a field past its limit, or the values past the budget.
// path is built as the walk unwinds, innermost step first.
type limitError struct {
	steps []string
	msg   string
}

func (e *limitError) Error() string { return e.msg }

// Is makes every limitError match ErrPastLimit.
func (e *limitError) Is(target error) bool { return target == ErrPastLimit }

// ErrPastLimit is wrapped by the errors of a bundle past a limit of
// FORMAT.md's "Limits": from Decode (which also wraps ErrCorrupt: the
// bytes are bad), and from Encode and Marshal (which do not: the value
// given is too large to write, and no bytes are written).
var ErrPastLimit = errors.New("past a limit of the bundle format")

func (e *limitError) section() string {
	var b strings.Builder
	for i := len(e.steps) - 1; i >= 0; i-- {
		s := e.steps[i]
		if b.Len() > 0 && s[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// errStop stops the walk at bytes that are not well-formed CBOR (or that
// it does not follow): the decoder then says what is wrong with them,
// before it allocates anything.
var errStop = &limitError{msg: "stop"}

// walker counts what a walk has seen against the budget.
type walker struct {
	used, budget int64
	budgetWhat   string // how the budget was set, for messages
	skipTags     bool   // skip reads through tags (peekKind) rather than stop at them
}

// checkLimits walks p, the CBOR of a bundle read as the wire type typ,
// and returns a DecodeError at the first field past its limit, or where
// the values decoded so far would take more than budget bytes. budgetWhat
// says where the budget comes from. It returns nil for bytes it cannot
// follow that the decoder will refuse anyway.
func checkLimits(p []byte, typ reflect.Type, budget int64, budgetWhat string) error {
	w := &walker{budget: budget, budgetWhat: budgetWhat}
	s := wireShape(typ)
	_, err := w.walk(p, s, int64(typ.Size()), 0)
	if err == nil {
		return nil
	}
	le := err.(*limitError)
	if le == errStop {
		if decMode.Wellformed(p) != nil {
			return nil // Unmarshal rejects it, before allocating, and says why
		}
		// Not reached by well-formed CBOR: the walk follows all of it.
		return &DecodeError{Err: fmt.Errorf("cannot count the values against the limits")}
	}
	return &DecodeError{Section: le.section(), Err: le}
}

// charge adds n bytes of values to what the walk has seen.
func (w *walker) charge(n int64) error {
	w.used += n
	if w.used > w.budget {
		return &limitError{msg: fmt.Sprintf("the decoded values would take more than %d bytes, the budget %s", w.budget, w.budgetWhat)}
	}
	return nil
}

// alloc is what a string or byte slice of n bytes takes.
func alloc(n uint64) int64 { return int64(n+7) &^ 7 }

// walk reads the item at the start of p as s, at nesting depth depth,
// charging size (what the value takes where it is not part of its
// parent) first, and returns the bytes after it.
func (w *walker) walk(p []byte, s *shape, size int64, depth int) ([]byte, error) {
	if size > 0 {
		if err := w.charge(size); err != nil {
			return nil, err
		}
	}
	h, err := readHead(p)
	if err != nil {
		return nil, errStop
	}
	switch s.kind {
	case shapeText, shapeBytes:
		if (s.kind == shapeText) != (h.major == 3) || (s.kind == shapeBytes) != (h.major == 2) {
			break
		}
		if uint64(len(p)-h.n) < h.arg {
			return nil, errStop
		}
		if h.arg > uint64(s.lim.n) {
			return nil, &limitError{msg: fmt.Sprintf("%d bytes, more than the limit of %d %s", h.arg, s.lim.n, s.lim.what)}
		}
		if err := w.charge(alloc(h.arg)); err != nil {
			return nil, err
		}
		return p[h.n+int(h.arg):], nil
	case shapeArray:
		if h.major != 4 {
			break
		}
		if depth+1 > MaxNestingDepth || uint64(len(p)-h.n) < h.arg {
			return nil, errStop // too deep, or more elements than bytes
		}
		if h.arg > uint64(s.lim.n) {
			return nil, &limitError{msg: fmt.Sprintf("%d elements, more than the limit of %d %s", h.arg, s.lim.n, s.lim.what)}
		}
		if err := w.charge(int64(h.arg) * s.size); err != nil {
			return nil, err
		}
		q := p[h.n:]
		for i := range int(h.arg) {
			if q, err = w.walk(q, s.elem, 0, depth+1); err != nil {
				return nil, step(err, fmt.Sprintf("[%d]", i))
			}
		}
		return q, nil
	case shapeRecord:
		if h.major != 5 {
			break
		}
		if depth+1 > MaxNestingDepth || h.arg > MaxMapPairs || uint64(len(p)-h.n) < 2*h.arg {
			return nil, errStop // too deep, too many pairs, or more pairs than bytes
		}
		q := p[h.n:]
		for range int(h.arg) {
			kh, err := readHead(q)
			if err != nil {
				return nil, errStop
			}
			var f *shape
			var key []byte
			if kh.major == 3 && uint64(len(q)-kh.n) >= kh.arg {
				key = q[kh.n : kh.n+int(kh.arg)]
				f = s.fields[string(key)]
				q = q[kh.n+int(kh.arg):]
			} else if q, err = w.skip(q, depth+1); err != nil {
				return nil, err
			}
			if f == nil {
				q, err = w.skip(q, depth+1) // an unknown key: the decoder skips it, then refuses
			} else {
				q, err = w.walk(q, f, 0, depth+1)
			}
			if err != nil {
				return nil, step(err, string(key))
			}
		}
		return q, nil
	case shapePointer:
		if h.major == 7 && h.ai == 22 {
			return p[1:], nil // null: nothing allocated (and refused later)
		}
		return w.walk(p, s.elem, s.size, depth)
	}
	// A scalar, or an item of another type than the field's: the decoder
	// skips it (and refuses it) without keeping it.
	return w.skip(p, depth)
}

// step adds a step of the path to a limit error on its way up.
func step(err error, s string) error {
	le := err.(*limitError)
	if le != errStop && s != "" {
		le.steps = append(le.steps, s)
	}
	return le
}

// skip returns the bytes after the item at the start of p, which the
// decoder reads without keeping.
func (w *walker) skip(p []byte, depth int) ([]byte, error) {
	h, err := readHead(p)
	if err != nil {
		return nil, errStop
	}
	q := p[h.n:]
	switch h.major {
	case 2, 3:
		if uint64(len(q)) < h.arg {
			return nil, errStop
		}
		return q[h.arg:], nil
	case 4, 5:
		n := h.arg
		if h.major == 5 {
			if n > uint64(len(q)) {
				return nil, errStop
			}
			n *= 2
		}
		if depth+1 > MaxNestingDepth || n > uint64(len(q)) {
			return nil, errStop
		}
		for range n {
			if q, err = w.skip(q, depth+1); err != nil {
				return nil, err
			}
		}
		return q, nil
	case 6:
		if w.skipTags {
			return w.skip(q, depth+1)
		}
		return nil, errStop // tags are not allowed: the decoder says so
	}
	return q, nil
}
