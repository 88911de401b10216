#!/usr/bin/env bash
# Memory and speed of the filter, two builds side by side, runs interleaved (old, new, old,
# new …) so that the machine's drift hits both alike; or one build alone.
#
# Corpora (generated into bench-data/ once, seeded):
# - rounds-N: N documents of ordinary text, 1.6 KB each: the peer corpus rewritten round after
#   round with 30% of its words replaced (scripts/make_rounds_corpus.py), so rounds are not
#   near copies of each other (friendly data: few candidates);
# - tpl1-N, tpl100-N: N documents from 1 or 100 templates (scripts/make_template_corpus.py;
#   adversarial data: up to --max-candidates verifications per document).
# Each row: --drop-dups -t 0.8 -j 2 with default settings (plus ARGS), median wall seconds of
# $RUNS, docs/s, peak RSS, the window's RAM and disk bytes per held document (--stats), and
# whether the two builds wrote the same bytes.
#
# Usage: scripts/bench-memory.sh NEW_BINARY [OLD_BINARY]
#        SIZES="100000 1000000" RUNS=3 CORPORA="rounds tpl1 tpl100" scripts/bench-memory.sh …
#        ARGS="--max-memory 256M" scripts/bench-memory.sh target/release/neardup
set -euo pipefail
cd "$(dirname "$0")/.."
new=$1
old=${2:-}
runs=${RUNS:-3}
sizes=${SIZES:-100000 400000 1000000}
corpora=${CORPORA:-rounds tpl1 tpl100}
read -r -a args <<< "${ARGS:-}"
mkdir -p bench-data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh

peers=$(corpus peers 0)
path_of() { # path_of KIND N -> a corpus of N documents
  local kind=$1 n=$2 path
  if [ "$kind" = rounds ]; then
    path=bench-data/rounds-$n.jsonl
    if [ ! -s "$path" ]; then
      echo "generating $path ..." >&2
      python3 scripts/make_rounds_corpus.py --source "$peers" --docs "$n" > "$path.tmp"
      mv "$path.tmp" "$path"
    fi
    echo "$path"
  else
    corpus "$kind" "$n"
  fi
}

# once BIN PATH TAG: one run; appends seconds to $work/TAG.s, peak KiB to TAG.kb, keeps the
# stats line and the output's checksum.
once() {
  local bin=$1 path=$2 tag=$3
  local start=$EPOCHREALTIME
  /usr/bin/time -f '%M' -o "$work/t" "$bin" --drop-dups -t 0.8 -j 2 --stats -q "${args[@]}" \
    "$path" 2> "$work/$tag.stats" | cksum > "$work/$tag.sum"
  local end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" 'BEGIN {print b - a}' >> "$work/$tag.s"
  cat "$work/t" >> "$work/$tag.kb"
}

field() { { grep -o "\"$2\":[0-9.]*" "$work/$1.stats" || true; } | tail -1 | cut -d: -f2; }

# per_doc TAG FIELD: a per-held-document figure of --stats; builds before the spill file
# reported only window_bytes, all of it in RAM (and no disk).
per_doc() {
  local v
  v=$(field "$1" "$2")
  if [ -z "$v" ]; then
    case $2 in
      ram_bytes_per_doc) v=$(awk -v b="$(field "$1" window_bytes)" -v d="$(field "$1" window_docs)" \
        'BEGIN {printf "%d", (d > 0 ? b / d : 0)}') ;;
      *) v=0 ;;
    esac
  fi
  echo "$v"
}

row() { # row TAG DOCS BYTES
  local tag=$1 docs=$2 bytes=$3 s kb
  s=$(median < "$work/$tag.s")
  kb=$(sort -g "$work/$tag.kb" | tail -1)
  printf '%s | %.2f s | %s | %.0f | %s MiB | %s | %s' "$tag" "$s" \
    "$(awk -v d="$docs" -v s="$s" 'BEGIN {printf "%d", d / s}')" \
    "$(awk -v b="$bytes" -v s="$s" 'BEGIN {print b / 1e6 / s}')" \
    "$((kb / 1024))" "$(per_doc "$tag" ram_bytes_per_doc)" "$(per_doc "$tag" disk_bytes_per_doc)"
}

echo "| corpus | docs | build | median time | docs/s | MB/s | peak RSS | RAM B/held doc | disk B/held doc | same bytes |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for kind in $corpora; do
  for n in $sizes; do
    path=$(path_of "$kind" "$n")
    docs=$(wc -l < "$path")
    bytes=$(wc -c < "$path")
    for tag in new old; do : > "$work/$tag.s"; : > "$work/$tag.kb"; done
    for _ in $(seq "$runs"); do
      [ -n "$old" ] && once "$old" "$path" old
      once "$new" "$path" new
    done
    same=-
    [ -n "$old" ] && { cmp -s "$work/old.sum" "$work/new.sum" && same=yes || same=NO; }
    for tag in old new; do
      [ "$tag" = old ] && [ -z "$old" ] && continue
      echo "| $kind | $docs | $(row "$tag" "$docs" "$bytes") | $same |"
    done
  done
done
