#!/usr/bin/env bash
# The engine's public surface as a user of the crate sees it: what rustdoc documents,
# walked from the crate root through `pub` modules and re-exports (items in a private
# module count only where re-exported). Prints the public modules, the public items by
# kind (inherent methods and associated items included, trait impls left out) and the
# public fields, first with the `#[doc(hidden)]` modules (what the command line uses),
# then without them (the documented API).
#
# Usage: scripts/count-api.sh [CHECKOUT]   (default: this one; another checkout, e.g. a
# `git worktree` of an older commit, gives the figure to compare with)
# Needs a nightly toolchain (rustdoc's JSON output is unstable); takes about a minute.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tree="$(cd "${1:-$here}" && pwd)"
if ! rustup run nightly rustdoc --version >/dev/null 2>&1; then
    echo "count-api: skipped: no nightly toolchain (rustup toolchain install nightly)" >&2
    exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for hidden in yes no; do
    flags="-Z unstable-options --output-format json"
    [ "$hidden" = yes ] && flags="$flags --document-hidden-items"
    (cd "$tree" && RUSTDOCFLAGS="$flags" cargo +nightly doc --quiet -p neardup-engine \
        --no-deps --target-dir "$out/$hidden" 2>/dev/null)
    python3 - "$out/$hidden/doc/neardup_engine.json" "$hidden" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
index = doc["index"]
kinds = collections.Counter()
counts = {"top": 0, "nested": 0, "fields": 0}
seen = set()

def public(item_id):
    item = index.get(str(item_id))
    return item if item and item.get("visibility") == "public" else None

def walk(item_id, depth):
    key = str(item_id)
    if key in seen or key not in index:
        return
    seen.add(key)
    item = index[key]
    if item.get("crate_id", 0) != 0:
        return
    kind, inner = next(iter(item["inner"].items()))
    if kind == "module":
        if depth == 1:
            counts["top"] += 1
        elif depth > 1:
            counts["nested"] += 1
        for child in inner["items"]:
            walk(child, depth + 1)
    elif kind == "use":
        if inner.get("id") is not None:
            walk(inner["id"], depth)
    elif kind == "impl":
        if inner.get("trait") is None and not inner.get("synthetic") and not inner.get("blanket_impl"):
            kinds["method or associated item"] += sum(1 for c in inner["items"] if public(c))
    else:
        kinds[kind] += 1
        if kind == "struct" and isinstance(inner["kind"], dict) and "plain" in inner["kind"]:
            counts["fields"] += sum(1 for f in inner["kind"]["plain"]["fields"] if public(f))
        for impl in inner.get("impls", []) if kind in ("struct", "enum") else []:
            walk(impl, depth)

walk(doc["root"], 0)
label = "with the hidden modules" if sys.argv[2] == "yes" else "documented API"
by_kind = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
print(f"{label}: public modules {counts['top']} top-level + {counts['nested']} nested; "
      f"public items {sum(kinds.values())} ({by_kind}); public fields {counts['fields']}")
PY
done
