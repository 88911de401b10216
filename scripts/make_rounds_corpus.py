#!/usr/bin/env python3
"""A large corpus of ordinary text: the peer corpus rewritten round after round.

Reads a JSON Lines corpus (by default the peer corpus, bench-data/peers-130mb.jsonl, made by
scripts/make_corpus.py) and writes --docs documents: round 0 is the corpus as it is, and every
later round is the whole corpus again with a share (--rate, 0.3) of each document's words
replaced by words drawn from the corpus' own vocabulary. A word 5-gram survives a round only
if its five words all do (0.7^5 = 17%), so two rounds of one document are far apart (Jaccard
about 0.1), while the near-duplicates injected into the peer corpus stay near each other
within a round when their edits touch the same words. Ids run from 1 over the whole output.

Usage: scripts/make_rounds_corpus.py --docs 1000000 [--source F] [--rate 0.3] [--seed 1] > out.jsonl
Deterministic for a given seed. Needs only Python 3's standard library.
"""
import argparse
import io
import json
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default="bench-data/peers-130mb.jsonl")
    ap.add_argument("--docs", type=int, required=True)
    ap.add_argument("--rate", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with open(args.source, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f]
    # The vocabulary, once per distinct word, so substitutions are mostly ordinary words.
    vocab = sorted({w for t in texts[:20000] for w in t.split()})
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    written = 0
    round_no = 0
    while written < args.docs:
        # One generator per round: its seed alone decides that round's substitutions, so a
        # shorter --docs is a prefix of a longer one.
        rng = random.Random(args.seed * 1_000_003 + round_no)
        for text in texts:
            if written >= args.docs:
                break
            if round_no > 0:
                words = text.split()
                n = len(words)
                for i in rng.sample(range(n), int(n * args.rate)):
                    words[i] = vocab[rng.randrange(len(vocab))]
                text = " ".join(words)
            written += 1
            out.write(json.dumps({"id": written, "text": text}, ensure_ascii=False))
            out.write("\n")
        round_no += 1
    out.flush()


if __name__ == "__main__":
    main()
