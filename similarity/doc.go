// Package similarity is bardo's one exact max-cosine kernel: for a batch of
// query vectors it finds the most similar reference of a Set (MaxCos), or
// every reference at or above a threshold (Within), and returns cosines
// that are the same bits on every CPU and kernel.
//
// # Rule
//
// decisions.md, "Similarities that decide or print": every cosine that is
// compared to a threshold or written out is recomputed in float64 for the
// candidates the fast kernel returns within 1e-4 of the threshold or of the
// maximum. Here:
//
//   - The reference cosine is Cosine64: dot(a,b)/sqrt(‖a‖²·‖b‖²) in float64
//     from the float32 components, sums in index order, clamped to [−1, 1].
//     A zero vector has cosine 0 with everything.
//   - The kernel scores unit vectors in float32. MaxCos rechecks with
//     Cosine64 every reference whose score is within the margin of the
//     query's best score and returns the float64 maximum, ties to the lowest
//     index; Within rechecks every reference scoring at least the threshold
//     minus the margin and keeps those whose Cosine64 is at least the
//     threshold.
//   - The margin is 1e-4, or more for vectors of over 835 dims: twice the
//     worst-case float32 error of a score, (dims+3)·2^-24/(1−(dims+3)·2^-24),
//     so that no reference that could win in float64 is ever screened out,
//     whatever order a kernel sums in. The answers are therefore exactly
//     those of comparing Cosine64 against every reference.
//
// Vectors are compared only within one embedding space: a Set holds one
// space, and its callers compare only queries of that space.
//
// # Kernels
//
// The float32 kernel computes the scores of one tile — up to 30 queries ×
// 64 references — at a time, and the search keeps a running maximum per
// query, so the full query × reference matrix never exists. Work is split
// over GOMAXPROCS goroutines, by queries and, when they are few, by
// references. The tile kernel is chosen at init: the fastest one this CPU
// runs (today "generic", portable Go). Impls lists the kernels and SetImpl
// picks one; which to use is the command layer's choice, and no kernel
// changes a result.
package similarity
