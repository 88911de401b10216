#!/usr/bin/env bash
# Parquet in → Parquet out against JSON Lines in → JSON Lines out, on the same rows, in one
# run: docs/s, MB/s of input, peak RSS, and whether the same rows are kept (by id); then
# against fastdedup's Parquet path on the same file, one core each.
#
# Corpora, each at 1x and 4x: the peer corpus (Gutenberg chunks with injected near
# duplicates; its first quarter is 1x) and one template posted over and over (adversarial:
# every document a candidate of every other). Each is converted to Parquet (zstd, 4 row
# groups, as the issue's check asks) with pyarrow in target/python-venv.
#
# Each pair of runs is interleaved, ROUNDS times (default 3), and the median is shown.
#
# fastdedup (wapplewhite4/fastdedup) is not built here: give its binary as FASTDEDUP=path
# (its README's flags for word 5-grams, 16 bands x 8 rows; RAYON_NUM_THREADS=1 and taskset
# one core, as neardup -j 1). Without it that part is skipped with a message.
#
# Usage: scripts/bench-parquet.sh
#        FASTDEDUP=/path/to/fastdedup ROUNDS=5 scripts/bench-parquet.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/corpora.sh
rounds=${ROUNDS:-3}
mkdir -p bench-data
cargo build --release --quiet
bin=$PWD/target/release/neardup
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -c 'import pyarrow' 2>/dev/null \
  || "$venv/bin/pip" install --quiet --disable-pip-version-check 'pyarrow>=15'
py=$venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

peers=$(corpus peers 0)
quarter=bench-data/peers-quarter.jsonl
[ -s "$quarter" ] || head -n 23852 "$peers" > "$quarter"
tpl25=$(corpus tpl1 25000)
tpl100=$(corpus tpl1 100000)

to_parquet() { # JSONL -> PARQUET (zstd, 4 row groups)
  "$py" - "$1" "$2" <<'EOF'
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
t = pa.Table.from_pylist(rows)
if "id" not in t.column_names:
    t = t.append_column("id", pa.array(range(1, len(rows) + 1), pa.int64()))
pq.write_table(t, sys.argv[2], compression="zstd", row_group_size=(len(rows) + 3) // 4)
EOF
}

run() { # ARGS... -> "docs_per_sec peak_rss_bytes"
  "$bin" -q --stats "$@" 2>&1 >/dev/null | tail -1 \
    | "$py" -c 'import json,sys; s=json.loads(sys.stdin.read()); print(s["docs_per_sec"], s["peak_rss_bytes"])'
}

kept_ids_jsonl() { "$bin" -q "$1" | "$py" -c 'import json,sys; [print(json.loads(l).get("id")) for l in sys.stdin]'; }
kept_ids_parquet() { "$py" -c 'import sys, pyarrow.parquet as pq; [print(i) for i in pq.read_table(sys.argv[1]).column("id").to_pylist()]' "$1"; }

printf '%-22s %8s | %12s %8s %8s | %12s %8s %8s | %6s %6s %s\n' corpus docs \
  "jsonl docs/s" "MB/s" "RSS MiB" "parquet d/s" "MB/s" "RSS MiB" "×d/s" "×RSS" "same rows"
for jsonl in "$quarter" "$peers" "$tpl25" "$tpl100"; do
  name=$(basename "$jsonl" .jsonl)
  pq_in=$work/$name.parquet
  to_parquet "$jsonl" "$pq_in"
  docs=$(wc -l < "$jsonl")
  jmb=$(stat -c %s "$jsonl"); pmb=$(stat -c %s "$pq_in")
  : > "$work/j"; : > "$work/p"
  for _ in $(seq "$rounds"); do
    run "$jsonl" >> "$work/j"
    run "$pq_in" -o "$work/out.parquet" >> "$work/p"
  done
  jd=$(cut -d' ' -f1 "$work/j" | median); jr=$(cut -d' ' -f2 "$work/j" | median)
  pd=$(cut -d' ' -f1 "$work/p" | median); pr=$(cut -d' ' -f2 "$work/p" | median)
  kept_ids_jsonl "$jsonl" > "$work/ids.j"
  kept_ids_parquet "$work/out.parquet" > "$work/ids.p"
  if [ "$(head -c 4 "$work/ids.j")" = "None" ]; then
    # A corpus without ids: the Parquet file numbered its rows; compare counts.
    same=$([ "$(wc -l < "$work/ids.j")" = "$(wc -l < "$work/ids.p")" ] && echo "yes (count)" || echo NO)
  else
    same=$(cmp -s "$work/ids.j" "$work/ids.p" && echo yes || echo NO)
  fi
  awk -v n="$name" -v d="$docs" -v jd="$jd" -v jr="$jr" -v pd="$pd" -v pr="$pr" \
      -v jmb="$jmb" -v pmb="$pmb" -v s="$same" 'BEGIN {
    js = d / jd; ps = d / pd
    printf "%-22s %8d | %12d %8.1f %8.0f | %12d %8.1f %8.0f | %6.2f %6.2f %s\n",
      n, d, jd, jmb / js / 1e6, jr / 1048576, pd, pmb / ps / 1e6, pr / 1048576,
      pd / jd, pr / jr, s }'
done

echo
echo "Parquet in -> lines out and other codecs, $(basename "$peers"), median of $rounds:"
pq_in=$work/$(basename "$peers" .jsonl).parquet
for args in "--output-format lines" "--compression none" "--compression snappy" "--compression zstd"; do
  : > "$work/x"
  # shellcheck disable=SC2086
  for _ in $(seq "$rounds"); do run "$pq_in" $args -o "$work/out.x" >> "$work/x"; done
  printf '  %-24s %8d docs/s %6.0f MiB\n' "$args" "$(cut -d' ' -f1 "$work/x" | median)" \
    "$(cut -d' ' -f2 "$work/x" | median | awk '{print $1 / 1048576}')"
done

echo
echo "peak RSS under --max-memory (--spill-dir none, so the window fills), $(basename "$peers"), median of $rounds:"
printf '  %-8s %16s %16s %16s\n' budget "jsonl -> jsonl" "parquet -> lines" "parquet -> parquet"
for budget in 64M 128M 256M; do
  row=()
  for args in "$peers" "$pq_in --output-format lines" "$pq_in"; do
    : > "$work/x"
    # shellcheck disable=SC2086
    for _ in $(seq "$rounds"); do
      run --max-memory "$budget" --spill-dir none $args -o "$work/out.x" >> "$work/x"
    done
    row+=("$(cut -d' ' -f2 "$work/x" | median | awk '{printf "%.1f MiB", $1 / 1048576}')")
  done
  printf '  %-8s %16s %16s %16s\n' "$budget" "${row[@]}"
done

echo
if [ -z "${FASTDEDUP:-}" ] || [ ! -x "$FASTDEDUP" ]; then
  echo "fastdedup: skipped (give its binary as FASTDEDUP=path)"
  exit 0
fi
echo "against fastdedup fuzzy-dedup, Parquet in and out, one core each (taskset -c 0), median of $rounds:"
printf '%-22s %8s | %10s %8s %8s | %10s %8s %8s | %6s\n' corpus docs "neardup s" "RSS MiB" dropped \
  "fastdedup s" "RSS MiB" dropped "×"
for jsonl in "$quarter" "$peers"; do
  name=$(basename "$jsonl" .jsonl)
  pq_in=$work/$name.parquet
  : > "$work/n"; : > "$work/f"
  for _ in $(seq "$rounds"); do
    /usr/bin/time -f '%e %M' -o "$work/t" taskset -c 0 "$bin" -q -j 1 "$pq_in" -o "$work/n.parquet"
    cat "$work/t" >> "$work/n"
    /usr/bin/time -f '%e %M' -o "$work/t" taskset -c 0 env RAYON_NUM_THREADS=1 "$FASTDEDUP" \
      fuzzy-dedup -i "$pq_in" -o "$work/f.parquet" --threshold 0.8 --field text \
      --word-shingles --shingle-size 5 --bands 16 --rows-per-band 8 > /dev/null 2>&1
    cat "$work/t" >> "$work/f"
  done
  docs=$(wc -l < "$jsonl")
  nk=$("$py" -c 'import sys, pyarrow.parquet as pq; print(pq.read_metadata(sys.argv[1]).num_rows)' "$work/n.parquet")
  fk=$("$py" -c 'import sys, pyarrow.parquet as pq; print(pq.read_metadata(sys.argv[1]).num_rows)' "$work/f.parquet")
  ns=$(cut -d' ' -f1 "$work/n" | median); nr=$(cut -d' ' -f2 "$work/n" | median)
  fs=$(cut -d' ' -f1 "$work/f" | median); fr=$(cut -d' ' -f2 "$work/f" | median)
  awk -v n="$name" -v d="$docs" -v ns="$ns" -v nr="$nr" -v fs="$fs" -v fr="$fr" \
      -v nk="$nk" -v fk="$fk" 'BEGIN {
    printf "%-22s %8d | %10.2f %8.0f %8d | %10.2f %8.0f %8d | %6.1f\n",
      n, d, ns, nr / 1024, d - nk, fs, fr / 1024, d - fk, fs / ns }'
done
