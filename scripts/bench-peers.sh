#!/usr/bin/env bash
# neardup against its peers, side by side in one run, on the same corpus and tokenisation.
#
# Builds the release binary; makes the corpus unless it exists (scripts/make_corpus.py: 130 MB
# of Project Gutenberg chunks from ../shared/data with injected, labelled near-duplicates made
# by realistic edits); creates a venv (target/peers-venv) with datasketch, rensa, gaoya and
# SetSimilaritySearch from PyPI; then, per threshold, runs each peer from a Python script as its
# users do (scripts/bench_peers.py: lower-case, whitespace split, word 5-gram sets, K = 128,
# stream of sign / LSH query / exact-Jaccard verification / insert) and neardup at --threshold
# T with --pairs on one core (taskset), with one thread (-j 1: the reader beside it), and on
# all cores (each the median of NEARDUP_RUNS runs after a warm-up). The exact pair set is SetSimilaritySearch's
# All-Pairs join; every tool's pairs are scored against it. Prints one markdown table per
# threshold: tool | docs/s | MB/s | peak RSS | precision | recall.
#
# neardup runs with --no-nfkc so that its tokens are exactly Python's str.lower().split().
# rensa and gaoya get neardup's bands for T (16 x 8 at 0.8, 32 x 4 at 0.5); datasketch picks
# its own. Throughput is wall-clock over the whole process (reading the corpus included).
#
# Usage: scripts/bench-peers.sh [THRESHOLD...]   (default 0.8 0.5)
#        PEERS="rensa gaoya" scripts/bench-peers.sh 0.8   (a subset of the peers)
#        NEARDUP_RUNS=5 scripts/bench-peers.sh   (median of 5 neardup runs; default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
thresholds=("$@")
[ ${#thresholds[@]} -gt 0 ] || thresholds=(0.8 0.5)
peers=${PEERS:-datasketch rensa gaoya}
runs=${NEARDUP_RUNS:-3}
corpus=${CORPUS:-bench-data/peers-130mb.jsonl}
mkdir -p bench-data
cargo build --release --quiet
bin=target/release/neardup
if [ ! -s "$corpus" ]; then
  echo "generating $corpus ..." >&2
  python3 scripts/make_corpus.py --mb 130 --chunk 950 --seed 7 > "$corpus.tmp"
  mv "$corpus.tmp" "$corpus"
fi
venv=target/peers-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import datasketch, rensa, gaoya, SetSimilaritySearch' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'datasketch==2.0.0' 'rensa==0.5.0' 'gaoya==0.2.2' 'SetSimilaritySearch==1.0.1'
fi
docs=$(wc -l < "$corpus")
bytes=$(wc -c < "$corpus")
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# timed NAME CMD...: runs CMD, recording wall seconds and peak RSS (KiB) of NAME.
timed() {
  local name=$1
  shift
  /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@"
}

score() { # score PAIRS TRUTH -> "precision recall"
  python3 - "$1" "$2" <<'PY'
import sys
got = set(open(sys.argv[1]).read().split("\n")) - {""}
truth = set(open(sys.argv[2]).read().split("\n")) - {""}
tp = len(got & truth)
p = tp / len(got) if got else 1.0
r = tp / len(truth) if truth else 1.0
print(f"{p:.4f} {r:.4f} {len(got)} {len(truth)}")
PY
}

row() { # row NAME LABEL TRUTH
  local name=$1 label=$2 truth=$3 secs rss
  read -r secs rss < "$work/$name.time"
  read -r p r n t < <(score "$work/$name.pairs" "$truth")
  python3 -c "
docs, secs, mb, rss = $docs, max($secs, 0.01), $bytes / 1e6, $rss / 1024
print(f'| $label | {docs / secs:,.0f} | {mb / secs:.1f} | {rss:,.0f} MiB | $p | $r |')"
  echo "$label $secs" >> "$work/speeds"
}

echo "corpus: $corpus, $docs documents, $((bytes / 1000000)) MB; $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
for t in "${thresholds[@]}"; do
  bands=$("$bin" tune -t "$t" | head -1 | sed -E 's/.*: ([0-9]+) bands.*/\1/')
  : > "$work/speeds"
  echo >&2 "T = $t: exact pairs (SetSimilaritySearch) ..."
  timed sss "$venv/bin/python" scripts/bench_peers.py setsimilaritysearch "$corpus" "$t" "$work/sss.pairs" > /dev/null
  truth=$work/truth-$t
  cp "$work/sss.pairs" "$truth"
  lines=()
  for peer in $peers; do
    echo >&2 "T = $t: $peer ..."
    timed "$peer" "$venv/bin/python" scripts/bench_peers.py "$peer" "$corpus" "$t" "$work/$peer.pairs" --bands "$bands" > /dev/null
  done
  # One core (taskset: reader, worker and sequencer share it, as a Python peer has one
  # core), one thread (-j 1, the reader beside it) on all cores, and all cores.
  for run in core1 j1 "j$cores"; do
    echo >&2 "T = $t: neardup $run ..."
    case $run in
      core1) cmd=(taskset -c 0 "$bin" -j 1) ;;
      *) cmd=("$bin" -j "${run#j}") ;;
    esac
    # A neardup run takes seconds, a peer's minutes: one run is at the mercy of a moment's
    # load on the machine, so each is run $runs times after a warm-up, and the median kept.
    if [ "$run" = core1 ]; then
      "${cmd[@]}" --pairs --id-field id --no-nfkc -t "$t" "$corpus" > /dev/null
    fi
    for k in $(seq "$runs"); do
      timed "neardup-$run-$k" "${cmd[@]}" --pairs --id-field id --no-nfkc -t "$t" "$corpus" > "$work/neardup-$run.raw"
    done
    cat "$work"/neardup-"$run"-*.time | sort -n | sed -n "$(((runs + 1) / 2))p" > "$work/neardup-$run.time"
    cut -f1,2 "$work/neardup-$run.raw" | awk -F'\t' '{ if ($1 + 0 < $2 + 0) print $1 "\t" $2; else print $2 "\t" $1 }' | sort -u > "$work/neardup-$run.pairs"
  done
  echo
  echo "T = $t (K = 128, word 5-grams; neardup $bands bands; $(wc -l < "$truth") exact pairs)"
  echo
  echo "| tool | docs/s | MB/s | peak RSS | precision | recall |"
  echo "|---|---|---|---|---|---|"
  for peer in $peers; do row "$peer" "$peer" "$truth"; done
  row sss "SetSimilaritySearch (exact All-Pairs)" "$truth"
  row neardup-core1 "**neardup, 1 core**" "$truth"
  row neardup-j1 "neardup, \`-j 1\` ($cores cores: one thread signs and sequences, the reader beside it)" "$truth"
  row neardup-j"$cores" "**neardup, \`-j $cores\` ($cores cores)**" "$truth"
  python3 - "$work/speeds" <<'PY'
import sys
rows = [l.rsplit(" ", 1) for l in open(sys.argv[1]) if l.strip()]
secs = {name: float(s) for name, s in rows}
one = next(v for k, v in secs.items() if "1 core" in k)
j1 = next(v for k, v in secs.items() if "-j 1" in k)
many = list(secs.values())[-1]
peers = {k: v for k, v in secs.items() if "neardup" not in k and "exact" not in k}
fastest = min(peers, key=peers.get)
print(f"\nneardup on 1 core is {peers[fastest] / one:.1f}x the fastest peer ({fastest}) and "
      f"{peers[fastest] / many:.1f}x on all cores; all cores {one / many:.2f}x one core, "
      f"{j1 / many:.2f}x -j 1.")
PY
done
