#!/usr/bin/env python3
"""Convert Reuters-21578 (SGML, from ../shared/data) to JSON Lines on stdout.

One object per story that has a <BODY>: {"id": NEWID, "date": "YYYY-MM-DD", "title": ..., "text": BODY}.
Usage: scripts/reuters_to_jsonl.py [path/to/reuters21578-sgm.tar.xz] > reuters.jsonl
"""
import html
import json
import re
import sys
import tarfile

DEFAULT = "../shared/data/reuters21578/reuters21578-sgm.tar.xz"
STORY = re.compile(rb'<REUTERS[^>]*NEWID="(\d+)"[^>]*>(.*?)</REUTERS>', re.S)
MONTHS = {m: i + 1 for i, m in enumerate(
    ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"])}


def field(tag, block):
    m = re.search(rb"<" + tag + rb">(.*?)</" + tag + rb">", block, re.S)
    return html.unescape(m.group(1).decode("latin-1")) if m else None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    out = sys.stdout
    with tarfile.open(path) as tar:
        members = sorted((m for m in tar.getmembers() if m.name.endswith(".sgm")), key=lambda m: m.name)
        for member in members:
            data = tar.extractfile(member).read()
            for m in STORY.finditer(data):
                block = m.group(2)
                body = field(rb"BODY", block)
                if not body:
                    continue
                body = body.replace("\x03", "").strip()
                body = re.sub(r"\s+Reuter\s*$", "", body)
                date = field(rb"DATE", block) or ""
                dm = re.match(r"\s*(\d+)-([A-Z]{3})-(\d{4})", date)
                iso = f"{dm.group(3)}-{MONTHS.get(dm.group(2), 0):02d}-{int(dm.group(1)):02d}" if dm else None
                obj = {"id": int(m.group(1)), "date": iso, "title": (field(rb"TITLE", block) or "").strip(),
                       "text": " ".join(body.split())}
                out.write(json.dumps(obj, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
