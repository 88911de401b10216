#!/usr/bin/env python3
"""The Leipzig entity-resolution records (../shared/data/leipzig-er) as one JSON Lines corpus.

Every record of the six record files (Abt, Buy, Amazon, GoogleProducts, DBLP2, ACM) becomes
one line {"id": "SET/FILE/ID", "text": ...}: the text is the record's descriptive fields
joined by spaces (name or title, description, manufacturer, authors, venue, year), which is
what a user deduplicating product or bibliographic records would compare. The labelled
matches are not used: this corpus measures pair recall against an exact join.

Usage: scripts/leipzig_to_jsonl.py [DIR] > leipzig.jsonl   (DIR: ../shared/data/leipzig-er)
"""
import csv
import json
import os
import sys

FILES = [
    ("Abt-Buy", "Abt.csv"),
    ("Abt-Buy", "Buy.csv"),
    ("Amazon-GoogleProducts", "Amazon.csv"),
    ("Amazon-GoogleProducts", "GoogleProducts.csv"),
    ("DBLP-ACM", "DBLP2.csv"),
    ("DBLP-ACM", "ACM.csv"),
]
FIELDS = ["name", "title", "description", "manufacturer", "authors", "venue", "year"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "shared", "data", "leipzig-er")
    out = sys.stdout
    for folder, name in FILES:
        # Some files are Latin-1; undecodable bytes are replaced, never fatal.
        with open(os.path.join(root, folder, name), encoding="utf-8", errors="replace", newline="") as f:
            for row in csv.DictReader(f):
                text = " ".join(row[k].strip() for k in FIELDS if row.get(k) and row[k].strip())
                ident = f"{folder}/{name[:-4]}/{row['id']}"
                out.write(json.dumps({"id": ident, "text": text}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
