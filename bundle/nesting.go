package bundle

import "fmt"

// tooDeep returns the path of the first item, in document order, that
// nests deeper than MaxNestingDepth arrays and maps. The decoder found one;
// this says where. It walks keys and indices, not the types, so it names
// the place even where the format expects no container at all.
func tooDeep(p []byte) (string, bool) {
	path, _, found := walkDepth(p, 0, "")
	return path, found
}

func walkDepth(p []byte, depth int, path string) (string, []byte, bool) {
	h, err := readHead(p)
	if err != nil {
		return "", nil, false
	}
	p = p[h.n:]
	switch h.major {
	case 2, 3:
		if uint64(len(p)) < h.arg {
			return "", nil, false
		}
		return "", p[h.arg:], false
	case 4, 5:
		if depth+1 > MaxNestingDepth {
			return path, nil, true
		}
		for i := uint64(0); i < h.arg; i++ {
			sub := fmt.Sprintf("%s[%d]", path, i)
			if h.major == 5 {
				kh, err := readHead(p)
				if err != nil {
					return "", nil, false
				}
				if kh.major == 3 && uint64(len(p)-kh.n) >= kh.arg {
					sub = join(path, string(p[kh.n:kh.n+int(kh.arg)]))
				}
				var found bool
				if _, p, found = walkDepth(p, depth+1, sub); found || p == nil {
					return sub, nil, found
				}
			}
			var at string
			var found bool
			if at, p, found = walkDepth(p, depth+1, sub); found || p == nil {
				return at, nil, found
			}
		}
		return "", p, false
	case 6:
		return walkDepth(p, depth+1, path)
	}
	return "", p, false
}

// depthError is the DecodeError of an item nested too deep.
func depthError(p []byte, err error) *DecodeError {
	path, _ := tooDeep(p)
	msg := fmt.Sprintf("items nest deeper than the %d-level limit", MaxNestingDepth)
	return &DecodeError{Section: path, Err: &trimmedError{msg: msg, err: err}}
}
