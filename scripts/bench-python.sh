#!/usr/bin/env bash
# The Python module against the command line and against datasketch and rensa, on the same
# filter job, side by side in one run: drop each document that is at or above the threshold
# with a document kept so far (neardup --drop-dups).
#
# Builds the release binary and a venv (target/python-venv) with this repository's package
# (pip install .) and datasketch and rensa from PyPI. Each tool is one process, timed whole
# (reading the corpus included) with its peak RSS; the Python ones also report the seconds
# after loading the corpus into memory, where an application that already holds its texts
# starts. All run as scripts/bench_peers.py --filter does (word 5-gram sets of
# str.lower().split(), K = 128, exact Jaccard verification; neardup with --no-nfkc, so the
# tokens are the same); rensa gets neardup's bands.
#
# Corpora, each at 1x and 4x: the peer corpus (Gutenberg chunks with injected near
# duplicates; its first quarter is 1x) and one template posted over and over
# (scripts/make_template_corpus.py --templates 1; adversarial: every document a candidate of
# every other).
#
# Usage: scripts/bench-python.sh [TOOLS...]   (default: cli batches add rensa datasketch)
#        THRESHOLD=0.5 scripts/bench-python.sh
#        scripts/bench-python.sh tables
#
# `tables`: the module on a column already in memory (a pyarrow or polars column, read by
# the engine from its Arrow buffers; a list of str) against `neardup clusters` and `neardup
# --drop-dups` on the same texts as a file, default settings: docs/s of the call, its peak
# memory beyond what the process held before it (scripts/bench_tables.py), and whether it
# keeps the rows --drop-dups keeps (by line number).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/corpora.sh
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(cli batches add rensa datasketch)
t=${THRESHOLD:-0.8}
mkdir -p bench-data
cargo build --release --quiet
bin=target/release/neardup
venv=target/python-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import datasketch, rensa' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'datasketch==2.0.0' 'rensa==0.5.0'
fi
# The module as built from this tree, every run.
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps .
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bands=$("$bin" tune -t "$t" | head -1 | sed -E 's/.*: ([0-9]+) bands.*/\1/')

if [ "${tools[0]}" = tables ]; then
  "$venv/bin/python" -c 'import pyarrow, polars' 2>/dev/null ||
    "$venv/bin/pip" install --quiet --disable-pip-version-check pyarrow polars
  peers=$(corpus peers 0)
  quarter=bench-data/peers-quarter.jsonl
  [ -s "$quarter" ] || head -n $(($(wc -l < "$peers") / 4)) "$peers" > "$quarter"
  echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  for corpus in "$quarter" "$peers" "$(corpus tpl1 25000)" "$(corpus tpl1 100000)"; do
    docs=$(wc -l < "$corpus")
    echo
    echo "$corpus: $docs documents, $(($(wc -c < "$corpus") / 1000000)) MB"
    echo
    echo "| run | docs/s | × clusters | peak memory | × CLI's peak | kept | same rows as --drop-dups |"
    echo "|---|---|---|---|---|---|---|"
    /usr/bin/time -f '%e %M' -o "$work/clusters.time" "$bin" clusters "$corpus" > /dev/null
    read -r csecs crss < "$work/clusters.time"
    /usr/bin/time -f '%e %M' -o "$work/drop.time" "$bin" --drop-dups "$corpus" > /dev/null
    read -r dsecs drss < "$work/drop.time"
    "$bin" --annotate --id-field none "$corpus" | python3 -c '
import json, sys
for n, line in enumerate(sys.stdin, 1):
    if json.loads(line)["neardup"]["dup_of"] is None:
        print(n)' > "$work/cli.kept"
    row() { # LABEL SECONDS PEAK_KIB KEPT_FILE
      python3 - "$@" "$docs" "$csecs" "$crss" "$work/cli.kept" <<'PY'
import sys
label, secs, kib, kept, docs, csecs, crss, cli = sys.argv[1:]
secs, kib, docs, csecs, crss = float(secs), int(kib), int(docs), float(csecs), int(crss)
ours, theirs = open(kept).read().split(), open(cli).read().split()
same = "yes" if ours == theirs else f"no ({len(set(ours) ^ set(theirs))} differ)"
print(f"| {label} | {docs / secs:,.0f} | {csecs / secs:.2f} | {kib / 1024:,.0f} MiB "
      f"| {kib / crss:.2f} | {len(ours):,} | {same} |")
PY
    }
    row "neardup clusters FILE (command line)" "$csecs" "$crss" "$work/cli.kept"
    row "neardup --drop-dups FILE (command line)" "$dsecs" "$drss" "$work/cli.kept"
    for run in "pyarrow dedup" "polars dedup" "pyarrow keep_many" "list dedup"; do
      set -- $run
      echo >&2 "$corpus: $run ..."
      "$venv/bin/python" scripts/bench_tables.py "$corpus" "$1" "$2" "$work/py.kept" > "$work/py.json"
      read -r secs kib < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["seconds"], j["extra_peak_bytes"] // 1024)' "$work/py.json")
      row "neardup.$2($1 column)" "$secs" "$kib" "$work/py.kept"
    done
  done
  exit 0
fi

peers=$(corpus peers 0)
quarter=bench-data/peers-quarter.jsonl
[ -s "$quarter" ] || head -n $(($(wc -l < "$peers") / 4)) "$peers" > "$quarter"
corpora=("$quarter" "$peers" "$(corpus tpl1 25000)" "$(corpus tpl1 100000)")

# run TOOL CORPUS: one timed process; writes the kept ids to $work/TOOL.kept.
run() {
  local tool=$1 corpus=$2 py=(--filter --bands "$bands")
  local timing=(/usr/bin/time -f '%e %M' -o "$work/$tool.time")
  case $tool in
    cli) "${timing[@]}" "$bin" --drop-dups --no-nfkc -t "$t" "$corpus" > "$work/cli.out"
         echo '{}' > "$work/cli.json" ;;
    batches) "${timing[@]}" "$venv/bin/python" scripts/bench_peers.py neardup "$corpus" "$t" \
               "$work/$tool.kept" "${py[@]}" --batch 10000 > "$work/$tool.json" ;;
    add) "${timing[@]}" "$venv/bin/python" scripts/bench_peers.py neardup "$corpus" "$t" \
           "$work/$tool.kept" "${py[@]}" --batch 1 > "$work/$tool.json" ;;
    *) "${timing[@]}" "$venv/bin/python" scripts/bench_peers.py "$tool" "$corpus" "$t" \
         "$work/$tool.kept" "${py[@]}" > "$work/$tool.json" ;;
  esac
}

label() {
  case $1 in
    cli) echo "neardup --drop-dups (command line, -j $(nproc))" ;;
    batches) echo "**neardup.Deduper.add_many**, batches of 10,000" ;;
    add) echo "neardup.Deduper.add, one by one" ;;
    *) echo "$1 (stream: sign, query, verify, insert)" ;;
  esac
}

echo "threshold $t; rensa with $bands bands; $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
for corpus in "${corpora[@]}"; do
  docs=$(wc -l < "$corpus")
  bytes=$(wc -c < "$corpus")
  echo
  echo "$corpus: $docs documents, $((bytes / 1000000)) MB"
  echo
  echo "| tool | docs/s (process) | docs/s (after loading) | MB/s | peak RSS | kept |"
  echo "|---|---|---|---|---|---|"
  for tool in "${tools[@]}"; do
    # On one template the peers' candidate lists hold the whole family (rensa: 163 docs/s at
    # 25,000 documents and falling): their 4x run would take hours, and is left out.
    if [[ $tool =~ ^(rensa|datasketch)$ ]] && [ "$docs" -gt 60000 ] && [[ $corpus == *tpl1* ]]; then
      continue
    fi
    echo >&2 "$corpus: $tool ..."
    run "$tool" "$corpus"
    kept=$( [ "$tool" = cli ] && wc -l < "$work/cli.out" || wc -l < "$work/$tool.kept")
    read -r secs rss < "$work/$tool.time"
    python3 - "$work/$tool.json" "$(label "$tool")" "$docs" "$bytes" "$secs" "$rss" "$kept" <<'PY'
import json, sys
path, label, docs, mb, secs, rss, kept = sys.argv[1:]
docs, mb, secs = int(docs), int(mb) / 1e6, max(float(secs), 0.01)
after = json.load(open(path)).get("seconds")
after = f"{docs / after:,.0f}" if after else "–"
print(f"| {label} | {docs / secs:,.0f} | {after} | {mb / secs:.1f} | {int(rss) / 1024:,.0f} MiB | {int(kept):,} |")
PY
  done
done
