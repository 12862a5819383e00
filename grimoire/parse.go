package grimoire

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// recordType scans a line and returns its "type" and its members. A line
// that is not an object, or has no string "type", is an error.
func (r *Reader) recordType(line []byte) (string, []member, bool) {
	members, err := scanObject(line, r.members[:0])
	r.members = members
	if err != nil {
		r.fail(&FieldError{File: r.opts.Name, Line: r.line, Err: err})
		return "", nil, false
	}
	// encoding/json would quietly turn invalid UTF-8 into U+FFFD, and the
	// replacement would travel into bundles as if the Golem had written it.
	// (Checked after the scan, so that binary input is said to be no JSON.)
	if !utf8.Valid(line) {
		r.fail(&FieldError{File: r.opts.Name, Line: r.line, Err: errInvalidUTF8})
		return "", nil, false
	}
	for i := range members {
		if string(members[i].key) != "type" {
			continue
		}
		typ, err := unquote(members[i].value)
		if err != nil {
			r.fail(&FieldError{File: r.opts.Name, Line: r.line, Field: "type", Err: errors.New(`"type" is not a string`)})
			return "", nil, false
		}
		return typ, members, true
	}
	r.fail(&FieldError{File: r.opts.Name, Line: r.line, Field: "type", Err: errors.New(`record has no "type"`)})
	return "", nil, false
}

var errInvalidUTF8 = errors.New("line is not valid UTF-8")

// record returns the valid record of a non-blank line after the header,
// or nil after collecting its errors or warning that it was skipped.
func (r *Reader) record(line []byte) Record {
	typ, members, ok := r.recordType(line)
	if !ok {
		return nil
	}
	k := kinds[typ]
	switch {
	case typ == TypeHeader:
		r.fail(&FieldError{File: r.opts.Name, Line: r.line, Type: TypeHeader, Err: errors.New("a second header: an export has exactly one")})
		return nil
	case k == nil && r.opts.Strict:
		r.fail(&FieldError{File: r.opts.Name, Line: r.line, Field: "type", Err: fmt.Errorf("unknown record type %q", typ)})
		return nil
	case k == nil:
		r.warn(Warning{Kind: WarnUnknownType, Type: typ})
		return nil
	}
	rec := r.parse(k, line, members)
	if rec == nil {
		return nil
	}
	return rec.(Record)
}

// parse decodes and checks a record of kind k. It returns nil when the
// record breaks a rule, after collecting every rule it breaks.
func (r *Reader) parse(k *recordKind, line []byte, members []member) any {
	before := r.total
	var err error
	r.scratch, err = r.lay.inspect(k.schema, members, r.scratch)
	if err != nil {
		r.failField(k, members, "", err)
		return nil
	}
	if r.lay.dup != "" {
		r.failField(k, members, r.lay.dup, fmt.Errorf("field %q appears twice", r.lay.dup))
	}
	data := line
	if len(r.lay.unknown) > 0 {
		for _, f := range r.lay.unknown {
			if r.opts.Strict {
				r.failField(k, members, f, fmt.Errorf("unknown field %q", f))
			} else {
				r.warn(Warning{Kind: WarnUnknownField, Type: k.name, Field: f})
			}
		}
		r.stripped = k.schema.strip(r.stripped[:0], line)
		data = r.stripped
	}
	vec, vm, err := r.takeVector(k.schema, members)
	hasVec := vm != nil
	if err != nil {
		r.failField(k, members, k.schema.fields[k.schema.vector].name, err)
		return nil
	}
	var rec any
	decoded := false
	if k.decode != nil && len(r.lay.unknown) == 0 && r.lay.dup == "" {
		rec, decoded = k.decode(members, vec)
	}
	if !decoded {
		if hasVec {
			end := vm.offset + len(vm.value)
			r.stripped = append(append(append(r.stripped[:0], line[:vm.offset]...), "null"...), line[end:]...)
			data = r.stripped
		}
		rec = k.new()
		if err := json.Unmarshal(data, rec); err != nil {
			p := culprit(k.schema, members, err)
			r.failField(k, members, p.field, p.err)
			return nil
		}
		if hasVec {
			f := k.schema.fields[k.schema.vector]
			reflect.ValueOf(rec).Elem().Field(f.goIndex).Set(reflect.ValueOf(vec))
		}
	}
	r.chk.reset(&r.lay, r.header)
	k.check(rec, &r.chk)
	for _, p := range r.chk.problems {
		r.failField(k, members, p.field, p.err)
	}
	var key [16]byte
	if k.unique != "" {
		key = r.uniqueHash(k.name, uniqueKey(rec))
		if first, dup := r.seen[key]; dup {
			r.failField(k, members, k.unique, fmt.Errorf("%w %s, first on line %d", ErrDuplicate, k.unique, first))
		}
	}
	if r.total > before {
		return nil
	}
	if k.unique != "" {
		r.seen[key] = r.line
	}
	k.finish(rec, r.header)
	return rec
}

// takeVector decodes a record's embedding itself and returns it with its
// member; encoding/json, when it decodes the record, is handed the line
// with null in its place: embeddings are most of an export's bytes, and
// encoding/json would scan each one twice more (to validate the line,
// then to find the value's end) before the Vector parses it. Records with
// unknown fields, rare, keep the plain path: the member is nil.
func (r *Reader) takeVector(s *schema, members []member) (Vector, *member, error) {
	if s.vector < 0 || len(r.lay.unknown) > 0 || !r.lay.has(s.fields[s.vector].name) {
		return nil, nil, nil
	}
	name := s.fields[s.vector].name
	for i := range members {
		m := &members[i]
		if string(m.key) != name {
			continue
		}
		var v Vector
		if err := v.UnmarshalJSON(m.value); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return v, m, nil
	}
	return nil, nil, nil
}

// uniqueHash returns the FNV-128a hash of a record type and its unique
// value. The reader keeps hashes, not ids, so that a million records cost
// a few tens of megabytes; a collision is as likely as guessing a 128-bit
// key.
func (r *Reader) uniqueHash(typ, id string) [16]byte {
	r.hashBuf = append(append(append(r.hashBuf[:0], typ...), 0), id...)
	r.hash.Reset()
	r.hash.Write(r.hashBuf)
	var k [16]byte
	r.hashBuf = r.hash.Sum(r.hashBuf[:0])
	copy(k[:], r.hashBuf)
	return k
}

// failField records a rule a record of kind k breaks.
func (r *Reader) failField(k *recordKind, members []member, field string, err error) {
	r.fail(&FieldError{File: r.opts.Name, Line: r.line, Type: k.name, ID: recordID(k, members), Field: field, Err: err})
}

// recordID names a record in messages from its raw members, so that it
// works even when the record does not decode: its id, or an edge's two
// ends as "source -> target".
func recordID(k *recordKind, members []member) string {
	var parts []string
	for _, f := range k.idFields {
		for i := range members {
			if string(members[i].key) == f {
				if s, err := unquote(members[i].value); err == nil && s != "" {
					parts = append(parts, s)
				}
				break
			}
		}
	}
	if len(parts) != len(k.idFields) || len(parts) == 0 {
		return ""
	}
	if len(parts) == 2 {
		return parts[0] + " -> " + parts[1]
	}
	return parts[0]
}

func (r *Reader) fail(fe *FieldError) {
	r.total++
	if len(r.errs) < r.opts.MaxErrors {
		r.errs = append(r.errs, fe)
	}
}

func (r *Reader) validationError() *ValidationError {
	return &ValidationError{Errors: r.errs, Total: r.total}
}

// warn reports w once per kind.
func (r *Reader) warn(w Warning) {
	kind := w.Kind + "\x00" + w.Type + "\x00" + w.Field
	if r.warned[kind] || len(r.warned) >= maxWarnKinds {
		return
	}
	r.warned[kind] = true
	if r.opts.Warn != nil {
		w.File, w.Line = r.opts.Name, r.line
		r.opts.Warn(w)
	}
}
