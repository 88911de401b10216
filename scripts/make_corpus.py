#!/usr/bin/env python3
"""Build a benchmark corpus from the Gutenberg subset in ../shared/data, with labelled near-duplicates.

Each book is cut into chunks of about --chunk characters at paragraph boundaries (whitespace
folded), one JSON object per chunk: {"id": N, "text": ...}. After every chunk, with probability
--dup-rate, a near-duplicate of a recent chunk is emitted as well, made by realistic edits
(word swaps, a deleted or inserted sentence, a changed footer, case and punctuation changes,
HTML wrapping); its object carries "dup_of": id of the source and "edit": the kind of edit.

Usage: scripts/make_corpus.py [--mb 220] [--chunk 1200] [--dup-rate 0.05] [--seed 1] > corpus.jsonl
Deterministic for a given seed. Needs only Python 3's standard library.
"""
import argparse
import io
import json
import random
import re
import sys
import tarfile

DEFAULT = "../shared/data/gutenberg/gutenberg-subset.tar.xz"


def chunks(text, size):
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    cur = []
    n = 0
    for p in paras:
        if not p:
            continue
        cur.append(p)
        n += len(p) + 1
        if n >= size:
            yield " ".join(cur)
            cur, n = [], 0
    if cur and n >= size // 4:
        yield " ".join(cur)


def edit(text, rng):
    words = text.split(" ")
    kind = rng.choice(["swap", "delete_sentence", "insert_sentence", "footer", "case_punct", "html", "typos"])
    if kind == "swap" and len(words) > 4:
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(words) - 1)
            words[i], words[i + 1] = words[i + 1], words[i]
    elif kind == "delete_sentence":
        sents = re.split(r"(?<=[.!?]) ", text)
        if len(sents) > 2:
            del sents[rng.randrange(len(sents))]
        return " ".join(sents), kind
    elif kind == "insert_sentence":
        sents = re.split(r"(?<=[.!?]) ", text)
        sents.insert(rng.randrange(len(sents) + 1), "This passage was reprinted with the permission of the publisher.")
        return " ".join(sents), kind
    elif kind == "footer":
        return text + " -- Posted by the archive team; see our website for more texts like this one.", kind
    elif kind == "case_punct":
        return text.upper().replace(",", "").replace(";", ","), kind
    elif kind == "html":
        return "<div class=\"entry\"><p>" + text.replace(". ", ".</p><p>", 3) + "</p></div>", kind
    else:
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(words))
            w = words[i]
            if len(w) > 3:
                j = rng.randrange(len(w) - 1)
                words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
        kind = "typos"
    return " ".join(words), kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=DEFAULT)
    ap.add_argument("--mb", type=float, default=220.0, help="stop after this many MB of output")
    ap.add_argument("--chunk", type=int, default=1200)
    ap.add_argument("--dup-rate", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    limit = int(args.mb * 1e6)
    written = 0
    next_id = 1
    recent = []
    with tarfile.open(args.source) as tar:
        members = sorted((m for m in tar.getmembers() if m.isfile() and m.name.endswith(".txt")), key=lambda m: m.name)
        while written < limit:
            for m in members:
                text = tar.extractfile(m).read().decode("utf-8", "replace")
                for c in chunks(text, args.chunk):
                    line = json.dumps({"id": next_id, "text": c}, ensure_ascii=False) + "\n"
                    recent.append((next_id, c))
                    next_id += 1
                    out.write(line)
                    written += len(line.encode())
                    if len(recent) > 5000:
                        recent = recent[-2500:]
                    if rng.random() < args.dup_rate:
                        src_id, src = rng.choice(recent)
                        dup, kind = edit(src, rng)
                        line = json.dumps({"id": next_id, "text": dup, "dup_of": src_id, "edit": kind}, ensure_ascii=False) + "\n"
                        next_id += 1
                        out.write(line)
                        written += len(line.encode())
                    if written >= limit:
                        break
                if written >= limit:
                    break
            # A larger --mb than the books hold repeats them: exact copies, as in real crawls.
    out.flush()


if __name__ == "__main__":
    main()
