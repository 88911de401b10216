#!/usr/bin/env python3
"""Pair recall and precision of `neardup --pairs` on text in any script, against an exact
join computed here, independently of neardup's code.

The truth: a document's words are its NFKC, lower-cased text split on white space, with
every character of a script written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar,
Bopomofo, Yi: told by its Unicode name, not by neardup's tables) a word of its own together
with the combining marks after it; its shingles are the word N-grams (a document of at most
N words is one shingle); a pair is a near duplicate when the Jaccard of the two shingle sets
is at least T. The exact join is the All-Pairs prefix filter (shingles ordered rarest first;
two sets with Jaccard >= T share one of their first |x| - ceil(T|x|) + 1), then verified.

Usage: scripts/language_recall.py BINARY CORPUS [-t 0.5 0.8] [-n 5] [-- NEARDUP ARGS...]
Prints one line per threshold: truth pairs, pairs found, recall, precision, seconds.
"""
import argparse
import json
import math
import subprocess
import sys
import time
import unicodedata
from collections import Counter, defaultdict

ALONE = ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH", "HIRAGANA LETTER",
         "KATAKANA LETTER", "HALFWIDTH KATAKANA LETTER", "IDEOGRAPHIC ITERATION MARK",
         "IDEOGRAPHIC NUMBER ZERO", "HIRAGANA ITERATION", "KATAKANA ITERATION", "THAI ",
         "LAO ", "KHMER ", "MYANMAR ", "BOPOMOFO ", "YI ")


def alone(c):
    return ord(c) >= 0x2EA and unicodedata.name(c, "").startswith(ALONE)


def words(text):
    out = []
    for run in unicodedata.normalize("NFKC", text).lower().split():
        current = ""
        last_alone = False
        for c in run:
            if alone(c):
                if current:
                    out.append(current)
                current, last_alone = c, True
            elif last_alone and unicodedata.category(c).startswith("M"):
                current += c
            else:
                if last_alone:
                    out.append(current)
                    current = ""
                current += c
                last_alone = False
        if current:
            out.append(current)
    return out


def shingles(ws, n):
    if not ws:
        return set()
    if len(ws) <= n:
        return {tuple(ws)}
    return {tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)}


def exact_pairs(sets, t):
    freq = Counter(s for x in sets for s in x)
    rank = {s: i for i, (s, _) in enumerate(sorted(freq.items(), key=lambda kv: (kv[1], kv[0])))}
    ordered = [sorted(rank[s] for s in x) for x in sets]
    index = defaultdict(list)
    pairs = set()
    for i, x in enumerate(ordered):
        if not x:
            continue
        prefix = len(x) - math.ceil(t * len(x) - 1e-9) + 1
        seen = set()
        for tok in x[:prefix]:
            for j in index[tok]:
                if j in seen:
                    continue
                seen.add(j)
                a, b = sets[i], sets[j]
                if min(len(a), len(b)) < t * max(len(a), len(b)) - 1e-9:
                    continue
                inter = len(a & b)
                if inter / (len(a) + len(b) - inter) >= t - 1e-9:
                    pairs.add((j, i))
            index[tok].append(i)
    return pairs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("corpus")
    p.add_argument("-t", type=float, nargs="+", default=[0.5, 0.8])
    p.add_argument("-n", type=int, default=5)
    p.add_argument("args", nargs="*")
    a = p.parse_args()
    ids, sets = [], []
    with open(a.corpus, encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            ids.append(str(doc["id"]))
            sets.append(shingles(words(doc["text"]), a.n))
    for t in a.t:
        truth = {(ids[i], ids[j]) for i, j in exact_pairs(sets, t)}
        start = time.time()
        out = subprocess.run([a.binary, "--pairs", "-q", "-t", str(t), "-n", str(a.n), *a.args,
                              a.corpus], check=True, capture_output=True, text=True).stdout
        seconds = time.time() - start
        found = set()
        for line in out.splitlines():
            x, y, _ = line.split("\t")
            found.add((x, y) if (int(x), x) < (int(y), y) else (y, x))
        truth = {(x, y) if int(x) < int(y) else (y, x) for x, y in truth}
        both = len(found & truth)
        recall = both / len(truth) if truth else 1.0
        precision = both / len(found) if found else 1.0
        print(f"T={t} truth={len(truth)} found={len(found)} recall={recall:.4f} "
              f"precision={precision:.4f} seconds={seconds:.2f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
