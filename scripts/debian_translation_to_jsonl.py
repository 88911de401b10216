#!/usr/bin/env python3
"""Debian's translated package descriptions (Translation-LANG, as apt or the archive serves
them: plain, .bz2, .gz, .xz or .lz4) as JSON Lines, one description per line:
{"id": N, "package": NAME, "text": "short description. long description"}.

The long description's continuation lines are joined with spaces and its paragraph marks
(" .") become spaces too, as a crawler flattening the page would. Packages whose
descriptions were translated once for several binaries are kept as they come: those are the
corpus's natural exact and near duplicates.

Usage: scripts/debian_translation_to_jsonl.py Translation-ja.bz2 > ja.jsonl
"""
import bz2
import gzip
import json
import lzma
import subprocess
import sys


def read(path):
    if path.endswith(".bz2"):
        return bz2.open(path, "rt", encoding="utf-8").read()
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8").read()
    if path.endswith(".xz"):
        return lzma.open(path, "rt", encoding="utf-8").read()
    if path.endswith(".lz4"):
        return subprocess.run(["lz4", "-dc", path], check=True, capture_output=True).stdout.decode()
    return open(path, encoding="utf-8").read()


def records(text):
    for stanza in text.split("\n\n"):
        package, lines = None, []
        for line in stanza.split("\n"):
            if line.startswith("Package: "):
                package = line[len("Package: "):]
            elif line.startswith("Description-") and not line.startswith("Description-md5"):
                lines.append(line.split(": ", 1)[1] if ": " in line else "")
            elif line.startswith(" ") and lines:
                rest = line[1:]
                lines.append("" if rest == "." else rest)
        if package and lines:
            yield package, " ".join(x for x in lines if x)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    for i, (package, text) in enumerate(records(read(sys.argv[1])), 1):
        print(json.dumps({"id": i, "package": package, "text": text}, ensure_ascii=False))


if __name__ == "__main__":
    main()
