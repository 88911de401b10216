#!/usr/bin/env python3
"""One peer's run for scripts/bench-peers.sh: near-duplicate pairs of a JSON Lines corpus
(or, with --filter, for scripts/bench-python.sh: the documents a deduplicating filter keeps).

    bench_peers.py TOOL CORPUS THRESHOLD OUT [--bands B] [--ngram 5] [--num-perm 128]
                   [--filter] [--batch N]

TOOL is datasketch, rensa, gaoya or setsimilaritysearch; or neardup, the Python module
(pairs: neardup.pairs over the whole corpus; --filter: Deduper.add_many in batches of
--batch documents, or one Deduper.add per document with --batch 1). Every tool gets the same documents as
its users would give them: tokens = text.lower().split(), shingles = the set of word n-grams
joined by spaces (a text shorter than n words is one shingle). The MinHash tools run as a
stream, the way a deduplicating pipeline uses them: for each document, sign it, query the LSH
index for earlier candidates, verify each candidate by exact Jaccard of the shingle sets, then
insert it. setsimilaritysearch is an exact All-Pairs join (its pairs are the ground truth).
Writes the verified pairs (id_a < id_b, tab-separated, one per line) to OUT and prints
one JSON line with the document count and the seconds spent after reading the corpus.

--filter: a document is dropped when a verified candidate among the documents kept so far
is at or above the threshold, and only kept documents are inserted (what `neardup
--drop-dups` does); OUT gets the ids of the kept documents, one per line, in input order.
"""

import argparse
import json
import sys
import time


def shingles(text, n):
    tokens = text.lower().split()
    if len(tokens) < n:
        return {" ".join(tokens)}
    return {" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def jaccard(a, b):
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def stream(docs, args, sign, query, insert):
    """Sign, query, verify, insert: the pairs at or above the threshold."""
    seen = {}
    pairs = []
    for doc_id, text in docs:
        s = shingles(text, args.ngram)
        m = sign(s)
        for other in query(m):
            if jaccard(s, seen[other]) >= args.threshold:
                pairs.append((other, doc_id))
        insert(doc_id, m)
        seen[doc_id] = s
    return pairs


def filter_stream(docs, args, sign, query, insert):
    """Sign, query, verify until a match, insert the kept: the ids of the kept documents."""
    kept = {}
    for doc_id, text in docs:
        s = shingles(text, args.ngram)
        m = sign(s)
        if not any(jaccard(s, kept[other]) >= args.threshold for other in query(m)):
            insert(doc_id, m)
            kept[doc_id] = s
    return list(kept)


def run_datasketch(docs, args):
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=args.threshold, num_perm=args.num_perm)

    def sign(s):
        m = MinHash(num_perm=args.num_perm)
        m.update_batch([x.encode("utf-8") for x in s])
        return m

    return args.stream(docs, args, sign, lsh.query, lsh.insert)


def run_rensa(docs, args):
    from rensa import RMinHash, RMinHashLSH

    lsh = RMinHashLSH(threshold=args.threshold, num_perm=args.num_perm, num_bands=args.bands)

    def sign(s):
        m = RMinHash(num_perm=args.num_perm, seed=42)
        m.update(list(s))
        return m

    return args.stream(docs, args, sign, lsh.query, lsh.insert)


def run_neardup(docs, args):
    import neardup

    # --no-nfkc: tokens are exactly str.lower().split(), as the peers get them.
    options = dict(threshold=args.threshold, ngram=args.ngram, num_perm=args.num_perm,
                   no_nfkc=True)
    texts = [text for _, text in docs]
    ids = [doc_id for doc_id, _ in docs]
    if not args.filter:
        return [(ids[i], ids[j]) for i, j, _ in neardup.pairs(texts, **options)]
    d = neardup.Deduper(**options)
    if args.batch == 1:
        return [i for i, t in zip(ids, texts) if d.add(t, i) is None]
    kept = []
    for start in range(0, len(texts), args.batch):
        batch = texts[start : start + args.batch]
        kept += [i for i, k in zip(ids[start:], d.keep_many(batch)) if k]
    return kept


def run_gaoya(docs, args):
    from gaoya.minhash import MinHashStringIndex

    n = args.ngram
    index = MinHashStringIndex(
        hash_size=32,
        jaccard_threshold=args.threshold,
        num_bands=args.bands,
        band_size=args.num_perm // args.bands,
        analyzer=lambda text: list(shingles(text, n)),
        id_container="smallvec",
    )
    seen = {}
    pairs = []
    for doc_id, text in docs:
        s = shingles(text, n)
        for other in index.query(text):
            if jaccard(s, seen[other]) >= args.threshold:
                pairs.append((other, doc_id))
        index.insert_document(doc_id, text)
        seen[doc_id] = s
    return pairs


def run_setsimilaritysearch(docs, args):
    from SetSimilaritySearch import all_pairs

    ids = [d for d, _ in docs]
    sets = [shingles(t, args.ngram) for _, t in docs]
    found = all_pairs(sets, similarity_func_name="jaccard", similarity_threshold=args.threshold)
    return [(ids[min(x, y)], ids[max(x, y)]) for x, y, _ in found]


def main():
    p = argparse.ArgumentParser()
    p.add_argument(
        "tool", choices=["datasketch", "rensa", "gaoya", "setsimilaritysearch", "neardup"]
    )
    p.add_argument("corpus")
    p.add_argument("threshold", type=float)
    p.add_argument("out")
    p.add_argument("--bands", type=int, default=16)
    p.add_argument("--ngram", type=int, default=5)
    p.add_argument("--num-perm", type=int, default=128)
    p.add_argument("--filter", action="store_true")
    p.add_argument("--batch", type=int, default=10_000)
    args = p.parse_args()
    args.stream = filter_stream if args.filter else stream
    if args.filter and args.tool in ("gaoya", "setsimilaritysearch"):
        p.error(f"{args.tool} runs for pairs only")
    with open(args.corpus, encoding="utf-8") as f:
        docs = [(o["id"], o["text"]) for o in map(json.loads, f)]
    start = time.perf_counter()
    pairs = globals()["run_" + args.tool](docs, args)
    seconds = time.perf_counter() - start
    with open(args.out, "w") as f:
        if args.filter:
            f.writelines(f"{doc_id}\n" for doc_id in pairs)
        else:
            for a, b in sorted(set((min(a, b), max(a, b)) for a, b in pairs)):
                f.write(f"{a}\t{b}\n")
    print(json.dumps({"tool": args.tool, "docs": len(docs), "seconds": seconds}))


if __name__ == "__main__":
    sys.exit(main())
