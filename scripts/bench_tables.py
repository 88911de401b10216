"""One timed call of the Python module on a table's text column, for scripts/bench-python.sh
tables: loads a JSON Lines corpus into the shape asked for, then times the call alone and
measures its own peak memory (the peak resident size is reset before the call through
/proc/self/clear_refs, so the figure is what the call added to what the process held).

    python scripts/bench_tables.py CORPUS SHAPE CALL KEPT_OUT
    SHAPE: pyarrow | polars | list        CALL: dedup | keep_many

Prints JSON: seconds, rows, extra_peak_bytes; writes the kept rows' line numbers (from 1).
"""

import json
import sys
import time

import neardup


def status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def load(path: str, shape: str):
    if shape == "pyarrow":
        import pyarrow.json as pj

        return pj.read_json(path).column("text")
    if shape == "polars":
        import polars as pl

        return pl.read_ndjson(path)["text"]
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def main() -> None:
    path, shape, call, out = sys.argv[1:]
    texts = load(path, shape)
    before = status("VmRSS:")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the present resident size
    start = time.perf_counter()
    if call == "dedup":
        keep = neardup.dedup(texts)["keep"]
        keep = keep.to_list() if hasattr(keep, "to_list") else keep
    else:
        keep = neardup.Deduper().keep_many(texts)
    seconds = time.perf_counter() - start
    peak = status("VmHWM:")
    with open(out, "w") as f:
        f.writelines(f"{i + 1}\n" for i, k in enumerate(keep) if k)
    json.dump(
        {"seconds": seconds, "rows": len(keep), "extra_peak_bytes": peak - before},
        sys.stdout,
    )


if __name__ == "__main__":
    main()
