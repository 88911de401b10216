#!/usr/bin/env python3
"""Adversarial duplication: documents made from a few templates, each with a few words changed.

Job boards post one template thousands of times, crawls repeat page skeletons, spam comes in
families. This makes such a stream as JSON Lines ({"id": N, "text": ...}, 1-based ids):
--templates templates of --words words drawn from a vocabulary of real words (the bundled
Reuters sample), and --docs documents, each a random template with between --min-changes and
--max-changes random positions replaced by random vocabulary words. Seeded: the same flags give
the same bytes.

With 1 to 3 changes in 100 words, two documents of one template are 0.5 to 0.95 similar (word
5-grams): some pairs are duplicates at T = 0.8 and many are just below it, the hard case for a
filter. More changes push the family below the threshold (near-threshold families).

Usage: scripts/make_template_corpus.py --docs 200000 [--templates 1] [--words 100]
       [--min-changes 1] [--max-changes 3] [--seed 1] > templates.jsonl
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "tests", "data", "reuters-sample.jsonl")


def vocabulary():
    words = set()
    with open(SAMPLE, encoding="utf-8") as f:
        for line in f:
            for w in json.loads(line)["text"].split():
                w = w.strip(".,;:()\"'").lower()
                if w.isalpha() and 2 <= len(w) <= 12:
                    words.add(w)
    return sorted(words)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=int, required=True)
    p.add_argument("--templates", type=int, default=1)
    p.add_argument("--words", type=int, default=100)
    p.add_argument("--min-changes", type=int, default=1)
    p.add_argument("--max-changes", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    vocab = vocabulary()
    templates = [[rng.choice(vocab) for _ in range(a.words)] for _ in range(a.templates)]
    out = sys.stdout
    for i in range(1, a.docs + 1):
        words = list(rng.choice(templates))
        for _ in range(rng.randint(a.min_changes, a.max_changes)):
            words[rng.randrange(len(words))] = rng.choice(vocab)
        out.write(json.dumps({"id": i, "text": " ".join(words)}) + "\n")


if __name__ == "__main__":
    main()
