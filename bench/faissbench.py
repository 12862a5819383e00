"""Times FAISS IndexFlatIP and numpy on one case of bardo's benchmark harness.

    /usr/bin/python3 bench/faissbench.py DIR REPS [--append] [--no-numpy | --faiss-only]

DIR holds refs.npy and queries.npy (unit vectors, float32) as
`bardobench gen` writes them. For each of FAISS (exact inner product, which
on unit vectors is the cosine) and numpy (queries @ refs.T in blocks of 256
queries, then argmax), it times REPS searches of every query's best
reference, keeps the fastest, and writes DIR/faiss.json and the scores and
indices as DIR/{faiss,numpy}_{cos,idx}.npy. With --append, the reps add to
those of an existing DIR/faiss.json, so that bench/run can alternate bardo
and FAISS runs; --no-numpy leaves numpy's results as they are (numpy runs
when there are none); --faiss-only never runs numpy (the library benchmark:
a block of 256 queries' scores against 1M references is 1 GB). Threads: FAISS's OpenMP and OpenBLAS take theirs from the
environment (bench/run sets 2).
"""

import json
import os
import sys
import time

import numpy as np


def best_numpy(refs, queries):
    cos = np.empty(len(queries), dtype=np.float32)
    idx = np.empty(len(queries), dtype=np.int64)
    for a in range(0, len(queries), 256):
        s = queries[a:a + 256] @ refs.T
        i = np.argmax(s, axis=1)
        idx[a:a + 256] = i
        cos[a:a + 256] = s[np.arange(len(i)), i]
    return cos, idx


def main():
    d, reps = sys.argv[1], int(sys.argv[2])
    append = "--append" in sys.argv[3:]
    old = {}
    path = os.path.join(d, "faiss.json")
    if append and os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
    refs = np.load(os.path.join(d, "refs.npy"))
    queries = np.load(os.path.join(d, "queries.npy"))
    threads = int(os.environ.get("OMP_NUM_THREADS", "2"))
    out = {"threads": threads, "skipped": ""}

    try:
        import faiss
    except ImportError as e:
        out["skipped"] = "faiss not importable: %s" % e
        faiss = None
    if faiss is not None:
        faiss.omp_set_num_threads(threads)
        out["faiss_version"] = faiss.__version__
        index = faiss.IndexFlatIP(refs.shape[1])
        index.add(refs)
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            D, I = index.search(queries, 1)
            times.append(time.perf_counter() - t)
        times = old.get("faiss_reps", []) + times
        out["faiss_seconds"] = min(times)
        out["faiss_reps"] = times
        np.save(os.path.join(d, "faiss_cos.npy"), D[:, 0].astype(np.float32))
        np.save(os.path.join(d, "faiss_idx.npy"), I[:, 0].astype(np.int64))
        del index

    if "--faiss-only" in sys.argv[3:]:
        with open(path, "w") as f:
            json.dump(out, f, indent=2)
        print("faiss %.3fs" % out.get("faiss_seconds", float("nan")), file=sys.stderr)
        return

    times = old.get("numpy_reps", [])
    if "--no-numpy" not in sys.argv[3:] or not times:
        for _ in range(reps):
            t = time.perf_counter()
            cos, idx = best_numpy(refs, queries)
            times.append(time.perf_counter() - t)
        np.save(os.path.join(d, "numpy_cos.npy"), cos)
        np.save(os.path.join(d, "numpy_idx.npy"), idx)
    out["numpy_seconds"] = min(times)
    out["numpy_reps"] = times

    with open(path, "w") as f:
        json.dump(out, f, indent=2)
    print("faiss %.3fs numpy %.3fs" % (out.get("faiss_seconds", float("nan")), out["numpy_seconds"]), file=sys.stderr)


if __name__ == "__main__":
    main()
