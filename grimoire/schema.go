package grimoire

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// A schema lists the fields a record type (or an object nested in one)
// defines, taken from the json tags of its model type so that the two
// never disagree.
type schema struct {
	path   string // "entry", or "source" for an object nested in a record
	typ    reflect.Type
	fields []schemaField
	index  map[string]int
	nested int  // number of fields of kind kindObject
	inner  bool // an object nested in a record, not a record
	vector int  // index of the field of kind kindVector, -1 if none
}

type schemaField struct {
	name    string
	kind    fieldKind
	goIndex int     // index of the field in the Go struct
	sub     *schema // kindObject: the nested object's schema
	slot    int     // kindObject: its index in layout.sub
}

type fieldKind uint8

const (
	kindPlain  fieldKind = iota
	kindObject           // a nested object with its own schema
	kindTime             // an RFC 3339 time
	kindVector           // an embedding
)

// maxNested bounds the nested objects one record type has.
const maxNested = 4

var (
	timeType   = reflect.TypeFor[time.Time]()
	vectorType = reflect.TypeFor[Vector]()
)

// newSchema derives the schema of the struct type t: a record type's when
// nested is false, else an object nested in a record, named path. Layouts
// track one level of nesting; a model that needs more, or more fields than
// a presence bit set holds, is a programming error and panics at start-up.
func newSchema(path string, t reflect.Type, nested bool) *schema {
	s := &schema{path: path, typ: t, index: make(map[string]int), inner: nested, vector: -1}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" {
			continue
		}
		f := schemaField{name: name, goIndex: i}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == timeType:
			f.kind = kindTime
		case ft == vectorType:
			if s.vector >= 0 {
				panic(fmt.Sprintf("grimoire: %s has two vectors", path))
			}
			f.kind, s.vector = kindVector, len(s.fields)
		case ft.Kind() == reflect.Struct:
			if nested {
				panic(fmt.Sprintf("grimoire: %s.%s nests too deep for a layout", path, name))
			}
			f.kind, f.sub, f.slot = kindObject, newSchema(name, ft, true), s.nested
			s.nested++
		}
		s.index[name] = len(s.fields)
		s.fields = append(s.fields, f)
	}
	if len(s.fields) > 64 || s.nested > maxNested {
		panic(fmt.Sprintf("grimoire: schema %s is too large for a layout", path))
	}
	return s
}

// field returns the index of the named field; a name the schema does not
// define is a programming error.
func (s *schema) field(name string) int {
	i, ok := s.index[name]
	if !ok {
		panic(fmt.Sprintf("grimoire: %s has no field %q", s.path, name))
	}
	return i
}

// A layout is what the scanner learned about one record: which of its
// schema's fields are present and not null, at the top level and in its
// nested objects, and which fields the schema does not define.
type layout struct {
	s       *schema
	present uint64
	sub     [maxNested]uint64
	unknown []string // paths of unknown fields ("foo", "source.foo")
	dup     string   // the first field that appears twice, "" if none
}

// has reports whether the named top-level field is present and not null.
func (l *layout) has(name string) bool {
	return l.present&(1<<l.s.field(name)) != 0
}

// hasIn reports whether field name of the nested object parent is present
// and not null.
func (l *layout) hasIn(parent, name string) bool {
	f := l.s.fields[l.s.field(parent)]
	return l.sub[f.slot]&(1<<f.sub.field(name)) != 0
}

// inspect fills l from the members of a record of schema s.
func (l *layout) inspect(s *schema, members []member, scratch []member) ([]member, error) {
	*l = layout{s: s, unknown: l.unknown[:0]}
	var seen uint64
	for _, m := range members {
		i, ok := s.index[string(m.key)]
		if !ok {
			l.unknown = append(l.unknown, string(m.key))
			continue
		}
		if seen&(1<<i) != 0 && l.dup == "" {
			l.dup = string(m.key)
		}
		seen |= 1 << i
		if m.isNull() {
			continue
		}
		l.present |= 1 << i
		f := s.fields[i]
		if f.kind != kindObject || !m.isObject() {
			continue
		}
		var err error
		scratch, err = scanObject(m.value, scratch[:0])
		if err != nil {
			return scratch, err
		}
		var subSeen uint64
		for _, n := range scratch {
			j, ok := f.sub.index[string(n.key)]
			if !ok {
				l.unknown = append(l.unknown, f.sub.path+"."+string(n.key))
				continue
			}
			if subSeen&(1<<j) != 0 && l.dup == "" {
				l.dup = f.sub.path + "." + string(n.key)
			}
			subSeen |= 1 << j
			if !n.isNull() {
				l.sub[f.slot] |= 1 << j
			}
		}
	}
	return scratch, nil
}

// strip appends to dst the object obj without the members s does not
// define, at every level s describes. It runs only for records that carry
// unknown fields: encoding/json matches keys without regard to case, so an
// unknown "Confidence" would otherwise be decoded into confidence.
func (s *schema) strip(dst, obj []byte) []byte {
	members, err := scanObject(obj, nil)
	if err != nil {
		return append(dst, obj...) // inspect scanned it already; unreachable
	}
	dst = append(dst, '{')
	n := 0
	for _, m := range members {
		i, ok := s.index[string(m.key)]
		if !ok {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, m.rawKey...)
		dst = append(dst, ':')
		if f := s.fields[i]; f.kind == kindObject && m.isObject() {
			dst = f.sub.strip(dst, m.value)
		} else {
			dst = append(dst, m.value...)
		}
	}
	return append(dst, '}')
}
