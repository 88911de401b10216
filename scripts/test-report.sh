#!/usr/bin/env bash
# The report page in a real browser: Debian's headless Chromium, driven by selenium through
# chromedriver (scripts/check_report.py), opens pages made by the binary from disk with the
# network off. Pages: the Reuters sample (with a document holding <script>alert(1)</script>
# added) and any corpus given as an argument. Installs chromium and chromium-driver with
# apt-get when they are missing and it can (root, or sudo without a password); otherwise it
# says why and skips.
#
# Usage: scripts/test-report.sh [BINARY] [CORPUS...]   (default: target/debug/neardup)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/neardup}
shift || true
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  as_root=()
  [ "$(id -u)" = 0 ] || as_root=(sudo -n)
  install() { "${as_root[@]}" apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1; }
  # A fresh machine's package lists may be empty: update them once if the install fails.
  if command -v apt-get >/dev/null &&
    { install || { "${as_root[@]}" apt-get update -qq >/dev/null 2>&1 && install; }; }; then
    echo "installed chromium and chromium-driver"
  else
    echo "SKIPPED: the report's browser test needs Debian's chromium and chromium-driver, and apt-get could not install them here"
    exit 0
  fi
fi
venv=target/report-test-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import selenium' 2>/dev/null ||
  "$venv/bin/pip" install --quiet --disable-pip-version-check selenium
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script='{"id": "xss", "text": "<script>alert(1)</script> The board said quarterly profit rose on strong demand for its services"}'
{ cat tests/data/reuters-sample.jsonl; echo "$script"; echo "${script/services/products}"; } > "$work/reuters.jsonl"
check() { # "COMMAND..." CORPUS MUST_SHOW...
  local command=$1 corpus=$2
  shift 2
  # shellcheck disable=SC2086 # the command's words
  "$bin" $command --stats --report "$work/page.html" "$corpus" 2> "$work/stderr" > /dev/null
  grep '^{' "$work/stderr" | tail -1 > "$work/stats.json"
  "$venv/bin/python" scripts/check_report.py "$work/page.html" "$work/stats.json" "$@"
}
shown="<script>alert(1)</script> The board said"
check --drop-dups "$work/reuters.jsonl" "$shown"
check clusters "$work/reuters.jsonl" "$shown"
check "clusters --keep longest" "$work/reuters.jsonl" "$shown"
check graph "$work/reuters.jsonl" "$shown"
# The smallest runs: one line (nothing dropped, no group), and four.
echo "the only line here with some words" > "$work/one.txt"
printf 'a b c d e f g\na b c d e f g\nx y z w v u t\na b c d e f h\n' > "$work/four.txt"
check --drop-dups "$work/one.txt"
check clusters "$work/one.txt"
check "--drop-dups -t 0.5" "$work/four.txt"
check "graph -t 0.5" "$work/four.txt"
for corpus in "$@"; do
  check --drop-dups "$corpus"
  check clusters "$corpus"
done
