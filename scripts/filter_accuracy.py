#!/usr/bin/env python3
"""How close the filter's drops are to the exact greedy answer, on one corpus.

Runs BINARY --annotate ARGS on CORPUS twice: as given (MinHash + LSH, with its bound on work)
and with REFERENCE flags added (default "--exact --max-candidates 0": the All-Pairs join
with no bound, which is the exact greedy answer). Prints, for the dropped documents, the
precision and recall of the first against the second, and whether a third run with
--max-candidates 0 (LSH, no bound) drops exactly the same documents as the bounded run
(the bound did not bite).

Usage: scripts/filter_accuracy.py BINARY CORPUS [--reference "FLAGS"] [--no-bound-check]
       [-- NEARDUP ARGS...]
Builds before the bound existed have no --max-candidates: give them --reference=--exact
and --no-bound-check.
"""
import argparse
import json
import shlex
import subprocess
import sys


def dropped(binary, corpus, args):
    out = subprocess.run([binary, "--annotate", *args, corpus], check=True,
                         capture_output=True).stdout
    drops = set()
    for i, line in enumerate(out.splitlines()):
        if json.loads(line)["neardup"]["dup_of"] is not None:
            drops.add(i)
    return drops


def without_bound(args):
    """`args` less any --max-candidates flag (the reference runs give their own)."""
    out, skip = [], False
    for x in args:
        if skip:
            skip = False
        elif x == "--max-candidates":
            skip = True
        elif not x.startswith("--max-candidates="):
            out.append(x)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("corpus")
    p.add_argument("--reference", default="--exact --max-candidates 0")
    p.add_argument("--no-bound-check", action="store_true")
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    a = p.parse_args(argv)
    a.args = extra
    got = dropped(a.binary, a.corpus, a.args)
    ref = dropped(a.binary, a.corpus, without_bound(a.args) + shlex.split(a.reference))
    both = len(got & ref)
    precision = both / len(got) if got else 1.0
    recall = both / len(ref) if ref else 1.0
    line = (f"dropped {len(got)}, exact greedy {len(ref)}, "
            f"precision {precision:.4f}, recall {recall:.4f}")
    if not a.no_bound_check:
        unbounded = dropped(a.binary, a.corpus, without_bound(a.args) + ["--max-candidates", "0"])
        line += f", same drops without the bound: {'yes' if unbounded == got else 'NO'}"
    print(line)


if __name__ == "__main__":
    sys.exit(main())
