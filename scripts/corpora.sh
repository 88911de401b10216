# Sourced by the benchmark scripts: the generated corpora and a median.
# Needs the repository root as the working directory.

corpus() { # corpus KIND N -> path (generated once)
  local kind=$1 n=$2 path
  case $kind in
    tpl1) path=bench-data/tpl1-$n.jsonl ;;
    tpl100) path=bench-data/tpl100-$n.jsonl ;;
    text) path=bench-data/text-$n.jsonl ;;
    short) path=bench-data/short-$n.txt ;;
    peers) path=bench-data/peers-130mb.jsonl ;;
  esac
  if [ ! -s "$path" ]; then
    echo "generating $path ..." >&2
    case $kind in
      tpl1) python3 scripts/make_template_corpus.py --docs "$n" --templates 1 > "$path.tmp" ;;
      tpl100) python3 scripts/make_template_corpus.py --docs "$n" --templates 100 > "$path.tmp" ;;
      # ~0.72 KB a line, as the template documents; enough megabytes for n lines, then cut.
      text) python3 scripts/make_corpus.py --chunk 640 --mb $((n / 900 + 8)) --seed 3 2> /dev/null \
              | head -n "$n" > "$path.tmp" ;;
      # 1-8 words a line, plain text: inserting, not looking up, is most of the work.
      short) python3 scripts/make_short_corpus.py --docs "$n" > "$path.tmp" ;;
      # Gutenberg chunks with injected near duplicates: the corpus of scripts/bench-peers.sh.
      peers) python3 scripts/make_corpus.py --mb 130 --chunk 950 --seed 7 > "$path.tmp" ;;
    esac
    mv "$path.tmp" "$path"
  fi
  echo "$path"
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
