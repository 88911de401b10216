#!/usr/bin/env bash
# The Python package's tests: builds the wheels from this tree (target/wheels: the module and
# the command) and installs them into a fresh venv (target/python-test-venv) with pytest and
# the examples' pandas, polars and datasets, then runs python/tests with the venv's `neardup`
# command first on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-test-venv
rm -rf "$venv" target/wheels
python3 -m venv "$venv"
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)
"${pip[@]}" install pytest pandas polars datasets
# A test build: the release profile at the test profile's opt-level 1, without link-time
# optimisation, whose work is for speed, not answers, and would double CI's build time
# (NEARDUP_WHEEL_RELEASE=1 builds the wheel a user gets).
if [ "${NEARDUP_WHEEL_RELEASE:-0}" = 0 ]; then
  export CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false
fi
# The module, and the `neardup` command in a wheel of its own (cli/).
"${pip[@]}" wheel --no-deps --wheel-dir target/wheels . ./cli
"${pip[@]}" install --no-index --find-links target/wheels 'neardup[cli]'
echo "built $(cd target/wheels && echo *.whl)"
PATH="$PWD/$venv/bin:$PATH" "$venv/bin/python" -m pytest -q python/tests
