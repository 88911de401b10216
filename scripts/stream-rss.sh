#!/usr/bin/env bash
# Memory on an endless stream: peak RSS of `neardup --window N` after 1M and after 5M
# documents (30-word chunks of the benchmark corpus, the chunk file repeated as a stream).
# Flat memory means the two peaks are within a few percent.
#
# Usage: scripts/stream-rss.sh [WINDOW]   (default 100000; needs bench-data/corpus.jsonl from
#        scripts/bench.sh or scripts/make_corpus.py)
set -euo pipefail
cd "$(dirname "$0")/.."
window=${1:-100000}
cargo build --release --quiet
chunks=bench-data/chunks-1m.jsonl
if [ ! -s "$chunks" ]; then
  [ -s bench-data/corpus.jsonl ] || python3 scripts/make_corpus.py > bench-data/corpus.jsonl
  python3 - bench-data/corpus.jsonl "$chunks" <<'PY'
import json, sys
n = 0
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as out:
    for line in src:
        words = json.loads(line)["text"].split()
        for i in range(0, len(words), 30):
            out.write(json.dumps({"text": " ".join(words[i:i + 30])}) + "\n")
            n += 1
            if n >= 1_100_000:
                sys.exit(0)
PY
fi
for n in 1000000 5000000; do
  # head closes the pipe early: the writer's SIGPIPE is expected, not a failure.
  (for _ in 1 2 3 4 5; do cat "$chunks"; done || true) | head -n "$n" |
    /usr/bin/time -f "$n documents: %e s, peak RSS %M KB" \
      target/release/neardup --window "$window" --quiet > /dev/null
done
