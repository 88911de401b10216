#!/usr/bin/env bash
# Words in every script: pair recall and precision of default `--pairs` on Debian's package
# descriptions in Japanese, Chinese and Korean (fetched once from deb.debian.org into
# bench-data/) against the independent exact join of scripts/language_recall.py, at T = 0.5
# and 0.8; then the throughput of the default filter on those corpora and on English (the peer
# corpus and Reuters-21578), with OLD_BINARY timed interleaved in the same run.
#
# Usage: scripts/bench-languages.sh [BINARY [OLD_BINARY]]   (default: target/release/neardup)
#        RUNS=5 scripts/bench-languages.sh target/release/neardup /tmp/neardup-before
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
old=${2:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/neardup
fi
runs=${RUNS:-5}
mkdir -p bench-data
# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
for lang in ja zh_CN ko; do
  if [ ! -s "bench-data/debian-$lang.jsonl" ]; then
    curl -sSfo "bench-data/Translation-$lang.bz2" \
      "$mirror/dists/bookworm/main/i18n/Translation-$lang.bz2"
    python3 scripts/debian_translation_to_jsonl.py "bench-data/Translation-$lang.bz2" \
      > "bench-data/debian-$lang.jsonl"
  fi
done
[ -s bench-data/reuters.jsonl ] \
  || python3 scripts/reuters_to_jsonl.py ../shared/data/reuters21578/reuters21578-sgm.tar.xz \
       > bench-data/reuters.jsonl

echo "## Recall and precision of default --pairs against the exact join (word 5-grams)"
for lang in ja zh_CN ko; do
  for b in ${old:+"$old"} "$bin"; do
    python3 scripts/language_recall.py "$b" "bench-data/debian-$lang.jsonl" \
      | sed "s|^|$lang $(basename "$b") |"
  done
done

# seconds BINARY FILE: wall seconds of one default filter run (-j 2).
seconds() {
  local start=$EPOCHREALTIME
  "$1" -q -j 2 --drop-dups "$2" > /dev/null
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {print b - a}'
}

echo
echo "## Default filter throughput, median of $runs runs (old and new interleaved)"
printf '%-22s %10s %12s %12s %8s\n' corpus docs "new docs/s" "old docs/s" new/old
for path in bench-data/debian-ja.jsonl bench-data/debian-zh_CN.jsonl bench-data/debian-ko.jsonl \
            bench-data/reuters.jsonl "$(corpus peers 0)"; do
  docs=$(wc -l < "$path")
  : > /tmp/bench-languages.new
  : > /tmp/bench-languages.old
  for _ in $(seq "$runs"); do
    seconds "$bin" "$path" >> /tmp/bench-languages.new
    [ -z "$old" ] || seconds "$old" "$path" >> /tmp/bench-languages.old
  done
  new_s=$(median < /tmp/bench-languages.new)
  if [ -n "$old" ]; then
    old_s=$(median < /tmp/bench-languages.old)
    awk -v n="$docs" -v a="$new_s" -v b="$old_s" -v p="$(basename "$path")" \
      'BEGIN {printf "%-22s %10d %12.0f %12.0f %8.3f\n", p, n, n / a, n / b, b / a}'
  else
    awk -v n="$docs" -v a="$new_s" -v p="$(basename "$path")" \
      'BEGIN {printf "%-22s %10d %12.0f %12s %8s\n", p, n, n / a, "-", "-"}'
  fi
done
rm -f /tmp/bench-languages.new /tmp/bench-languages.old
