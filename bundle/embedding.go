package bundle

import "fmt"

// Embeddings are what a writer chooses for a bundle's vectors
// (SetEmbeddings, bardo's --embeddings): the encodings and EmbeddingsNone.
const (
	EmbeddingsF32  = "f32"  // EncodingF32LE, the default
	EmbeddingsF16  = "f16"  // EncodingF16LE: half the bytes
	EmbeddingsNone = "none" // no vectors at all
)

// EmbeddingChoices are the values of SetEmbeddings, in the order help
// lists them.
var EmbeddingChoices = []string{EmbeddingsF32, EmbeddingsF16, EmbeddingsNone}

// Width is the number of bytes of one component in encoding enc (4 for
// f32le, 2 for f16le), or 0 for an encoding this package does not know.
func Width(enc string) int {
	switch enc {
	case EncodingF32LE:
		return 4
	case EncodingF16LE:
		return 2
	}
	return 0
}

// Unpack decodes an entry's embedding in the space e names: exactly
// e.Dims components of its encoding, every one finite, widened to float32
// exactly (the one decoding of header.embedding every reader uses).
func (e *Embedding) Unpack(p []byte) ([]float32, error) {
	w := Width(e.Encoding)
	if w == 0 {
		return nil, fmt.Errorf("encoding %q is neither %q nor %q", e.Encoding, EncodingF32LE, EncodingF16LE)
	}
	if want := w * e.Dims; len(p) != want {
		return nil, fmt.Errorf("is %d bytes, want %d (dims %d × %d)", len(p), want, e.Dims, w)
	}
	v, err := Widen(e.Encoding, p)
	if err != nil {
		return nil, err
	}
	if k := nonFinite(e.Encoding, p); k >= 0 {
		return nil, fmt.Errorf("component %d is %v, not a finite number", k, v[k])
	}
	return v, nil
}

// Widen decodes data in encoding enc (f32le, f16le) to float32, exactly;
// it checks neither the length against a space nor finiteness
// (Embedding.Unpack does both).
func Widen(enc string, p []byte) ([]float32, error) {
	switch enc {
	case EncodingF32LE:
		return UnpackF32(p)
	case EncodingF16LE:
		return UnpackF16(p)
	}
	return nil, fmt.Errorf("bundle: encoding %q is neither %q nor %q", enc, EncodingF32LE, EncodingF16LE)
}

// nonFinite reports the index of the first NaN or infinity of data in
// encoding enc, or -1 (also for an encoding Width does not know).
func nonFinite(enc string, p []byte) int {
	if enc == EncodingF16LE {
		return finiteF16(p)
	}
	return finiteF32(p)
}

// SetEmbeddings re-encodes a bundle's vectors as choice, one of
// EmbeddingChoices, before it is encoded (and signed: the digest covers
// them):
//
//   - EmbeddingsF32: entries' embeddings as f32le (widened, exactly, if
//     they were f16le).
//   - EmbeddingsF16: entries' embeddings as f16le, each component rounded
//     to the nearest binary16 (ties to even); a component beyond the
//     binary16 range is an error, and nothing is changed then. Reflection
//     and listing items' vectors stay f32le: a vector has no encoding of
//     its own, and they are few.
//   - EmbeddingsNone: no vectors at all: no entry embeddings, no
//     header.embedding, no item vectors. A successor compares such rows
//     through bardo-text/v1 of their text.
//
// Its entries are those of the kind: the body's entries, or a snapshot's
// insights; a listing has only item vectors.
func (b *Bundle) SetEmbeddings(choice string) error {
	entries := b.Body.Entries
	if b.Snapshot != nil {
		entries = b.Snapshot.Insights
	}
	h := b.Header.Embedding
	switch choice {
	case EmbeddingsF32, EmbeddingsF16:
		if h == nil {
			return nil
		}
		to := EncodingF32LE
		if choice == EmbeddingsF16 {
			to = EncodingF16LE
		}
		if h.Encoding == to {
			return nil
		}
		out := make([][]byte, len(entries))
		for i := range entries {
			if len(entries[i].Embedding) == 0 {
				continue
			}
			v, err := h.Unpack(entries[i].Embedding)
			if err != nil {
				return fmt.Errorf("bundle: entry %q: embedding %w", entries[i].ID, err)
			}
			if to == EncodingF32LE {
				out[i] = PackF32(v)
			} else if out[i], err = PackF16(v); err != nil {
				return fmt.Errorf("bundle: entry %q: embedding %w", entries[i].ID, err)
			}
		}
		for i := range entries {
			if out[i] != nil {
				entries[i].Embedding = out[i]
			}
		}
		e := *h
		e.Encoding = to
		b.Header.Embedding = &e
	case EmbeddingsNone:
		for i := range entries {
			entries[i].Embedding = nil
		}
		b.Header.Embedding = nil
		if r := b.Body.Reflection; r != nil {
			for _, items := range [][]Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect, r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
				dropVectors(items)
			}
		}
		if b.Listing != nil {
			dropVectors(b.Listing.Items)
		}
	default:
		return fmt.Errorf("bundle: embeddings %q is not one of %v", choice, EmbeddingChoices)
	}
	return nil
}

func dropVectors(items []Item) {
	for i := range items {
		items[i].Vector = nil
	}
}
