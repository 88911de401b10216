#!/usr/bin/env bash
# What setting up a filter run passes through, measured on a running process: every
# function of the project the main thread calls from the entry point (FilterArgs::run) to
# the first document's decision, in call order (derived Clone, Debug and comparison impls
# left out), mapped to its module; prints how many modules that is
# and how many times the path returns to a module it had left. For structural changes that
# claim a shorter setup path.
#
# Usage: scripts/trace-setup.sh [-v]      (-v also lists the modules in the order entered)
# Needs gdb and nm. Builds the debug binary (no inlining, so each source function is a
# call), puts a breakpoint on each of the project's functions, and runs `neardup -j 1` on a
# two-line input under gdb; a breakpoint is removed after its third hit, so loops do not
# slow the trace (a repeat adds no module). Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
verbose=${1:-}
command -v gdb >/dev/null || { echo "trace-setup: needs gdb" >&2; exit 2; }
cargo build --quiet
bin=$PWD/target/debug/neardup
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'one two three four five six\nseven eight nine ten eleven\n' > "$work/in.txt"
nm -C "$bin" | awk '$2 ~ /^[tT]$/ && $3 ~ /^<?neardup/ {
  addr = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); print addr "\t" $0 }' > "$work/functions.tsv"

cat > "$work/trace.py" <<'EOF'
import gdb, os, re
DERIVED = re.compile(r" as core::(clone::Clone|cmp::|fmt::Debug|hash::Hash)")
work = os.environ["TRACE_DIR"]
names = {}
for line in open(os.path.join(work, "functions.tsv")):
    addr, name = line.rstrip("\n").split("\t", 1)
    names[int(addr, 16)] = name
gdb.execute("set pagination off")
gdb.execute("starti")
# A position-independent binary: its functions are at their offsets from where it is mapped.
base = 0
for line in gdb.execute("info proc mappings", to_string=True).splitlines():
    if line.strip().endswith("/neardup"):
        base = int(line.split()[0], 16)
        break
breaks = {}
for addr in names:
    try:
        breaks[addr + base] = gdb.Breakpoint("*0x%x" % (addr + base), internal=True)
    except Exception:
        pass
hits = {}
with open(os.path.join(work, "calls.txt"), "w") as out:
    while True:
        try:
            gdb.execute("continue", to_string=True)
            pc = int(gdb.parse_and_eval("$pc"))
        except gdb.error:
            break
        name = names.get(pc - base)
        # Only the thread that sets the run up (the others start on the way and read,
        # sign or wait); derived impls (Clone, Debug, comparisons) are the compiler's.
        if name is None or gdb.selected_thread().num != 1 or DERIVED.search(name):
            continue
        out.write(name + "\n")
        hits[pc] = hits.get(pc, 0) + 1
        if hits[pc] >= 3 and pc in breaks:
            breaks.pop(pc).delete()
        if "Filter>::document" in name:
            break
gdb.execute("kill")
EOF
TRACE_DIR=$work gdb -q -batch -x "$work/trace.py" --args "$bin" -j 1 "$work/in.txt" \
  > "$work/gdb.log" 2>&1 || true

python3 - "$work/calls.txt" "$verbose" <<'EOF'
import re, sys
calls = [l.rstrip("\n") for l in open(sys.argv[1])]
def module(name):
    """The module path of a function: the path before its first type name (or the whole
    path but the function's own name); for `<T as Trait>::f`, the module of T."""
    if name.startswith("<"):
        depth = 0
        for i, ch in enumerate(name):
            depth += {"<": 1, ">": -1}.get(ch, 0)
            if depth == 0:
                name = name[1:i].split(" as ")[0]
                break
    name = re.sub(r"::<impl.*", "", name)
    name = re.sub(r"<.*", "", name)
    parts = [p for p in name.split("::") if p and p != "{{closure}}"]
    path = []
    for p in parts:
        if p[0].isupper():
            return "::".join(path)
        path.append(p)
    return "::".join(path[:-1])
start = next((i for i, c in enumerate(calls) if "FilterArgs::run" in c), None)
if start is None or not any("Filter>::document" in c for c in calls):
    sys.exit("trace-setup: the trace did not reach the first decision")
entered = []
for c in calls[start:]:
    m = module(c)
    if not entered or entered[-1] != m:
        entered.append(m)
seen, returns = set(), 0
for k, m in enumerate(entered):
    if m in seen:
        returns += 1
    seen.add(m)
print(f"setup path (FilterArgs::run to the first decision): {len(calls) - start} calls, "
      f"{len(seen)} modules, {returns} returns to a module already left")
if sys.argv[2] == "-v":
    print("\n".join("  " + m for m in entered))
EOF
