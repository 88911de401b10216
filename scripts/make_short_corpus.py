#!/usr/bin/env python3
"""Many short documents: N lines of plain text, 1 to 8 words each from a vocabulary of
20,000 made-up words (seeded, so the same N gives the same file). A tenth of the lines are
exact repeats by chance (the short ones). For benchmarks where inserting a document into
the window, not looking it up, is most of the in-order work.

Usage: python3 scripts/make_short_corpus.py --docs N > short-N.txt
"""
import argparse
import random
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    vocabulary = [f"w{i}" for i in range(20_000)]
    out = sys.stdout
    for _ in range(args.docs):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(1, 8))]
        out.write(" ".join(words) + "\n")


if __name__ == "__main__":
    main()
