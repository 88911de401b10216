#!/usr/bin/env bash
# Reads `neardup graph` output with networkx, igraph and pydot (installed from PyPI into a
# venv under target/) and checks it against neardup's own JSON and TSV. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/graph-check-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'networkx>=3.2,<4' 'igraph>=0.11,<0.12' 'pydot>=3,<5'
fi
cargo build --locked --quiet
"$venv/bin/python" scripts/check_graph_parsers.py target/debug/neardup
