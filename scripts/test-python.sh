#!/usr/bin/env bash
# The Python package's tests: builds the wheel from this tree into a fresh venv
# (target/python-test-venv: pip install ., as a user does), with pytest and the examples'
# pandas and datasets, then runs python/tests with the venv's `neardup` command first on the
# PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-test-venv
rm -rf "$venv"
python3 -m venv "$venv"
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)
"${pip[@]}" install pytest pandas datasets
"${pip[@]}" install .
PATH="$PWD/$venv/bin:$PATH" "$venv/bin/python" -m pytest -q python/tests
