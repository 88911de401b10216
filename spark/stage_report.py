#!/usr/bin/env python3
"""Where a Spark job's time went, from Spark's own event log (spark.eventLog.enabled).

    spark/stage_report.py EVENT_LOG [--by-stage]

Sums Spark's task metrics by the job description the driver set for each step
(`SparkContext.setJobDescription`; the call site where none was set): wall seconds from the
first stage submitted to the last completed, stages, tasks, executor run and CPU seconds,
JVM GC seconds, bytes read from input and through the shuffle. Prints a Markdown table.
"""
import argparse
import json
import os
import re
import sys
from collections import OrderedDict


def event_lines(path):
    """The events of a log file, or of a rolling log's directory (events_1_…, events_2_…)."""
    if os.path.isdir(path):
        parts = [f for f in os.listdir(path) if f.startswith("events_")]
        parts.sort(key=lambda f: int(re.match(r"events_(\d+)_", f).group(1)))
        files = [os.path.join(path, f) for f in parts]
    else:
        files = [path]
    for name in files:
        if name.endswith((".zstd", ".lz4", ".snappy", ".lzf")):
            sys.exit(f"stage_report: {name} is compressed: run the job with "
                     "--conf spark.eventLog.compress=false")
        with open(name) as f:
            yield from f


def summarise(path, by_stage):
    job_of_stage, description, rows = {}, {}, OrderedDict()
    span = [None, None]
    for line in event_lines(path):
        e = json.loads(line)
        kind = e["Event"]
        if kind == "SparkListenerApplicationStart":
            span[0] = e["Timestamp"]
        elif kind == "SparkListenerApplicationEnd":
            span[1] = e["Timestamp"]
        elif kind == "SparkListenerJobStart":
            for s in e.get("Stage IDs", []):
                job_of_stage[s] = e["Job ID"]
            description[e["Job ID"]] = (e.get("Properties") or {}).get("spark.job.description")
        elif kind == "SparkListenerStageCompleted":
            info = e["Stage Info"]
            if "Submission Time" not in info:
                continue  # skipped: its shuffle output was already there
            step = description.get(job_of_stage.get(info["Stage ID"])) \
                or info["Stage Name"].split(" at ")[0]
            key = f"{info['Stage ID']} {step}: {info['Stage Name']}" if by_stage else step
            acc = {a["Name"]: a.get("Value", 0) for a in info.get("Accumulables", [])}
            num = lambda name: int(acc.get(name, 0) or 0)
            r = rows.setdefault(key, dict(first=info["Submission Time"], last=0, stages=0,
                                          tasks=0, run=0, cpu=0, gc=0, input=0, read=0, write=0))
            r["first"] = min(r["first"], info["Submission Time"])
            r["last"] = max(r["last"], info["Completion Time"])
            r["stages"] += 1
            r["tasks"] += info["Number of Tasks"]
            r["run"] += num("internal.metrics.executorRunTime") / 1e3
            r["cpu"] += num("internal.metrics.executorCpuTime") / 1e9
            r["gc"] += num("internal.metrics.jvmGCTime") / 1e3
            r["input"] += num("internal.metrics.input.bytesRead")
            r["read"] += (num("internal.metrics.shuffle.read.remoteBytesRead")
                          + num("internal.metrics.shuffle.read.localBytesRead"))
            r["write"] += num("internal.metrics.shuffle.write.bytesWritten")
    return rows, span


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("log", help="an event log: a file, or the directory of a rolling one "
                               "(what Spark 4 writes under spark.eventLog.dir)")
    p.add_argument("--by-stage", action="store_true", help="one row a stage, not a step")
    args = p.parse_args(argv)
    rows, (start, end) = summarise(args.log, args.by_stage)
    mb = lambda b: f"{b / 1e6:.1f}"
    print("| step | wall s | stages | tasks | executor run s | CPU s | GC s | input MB "
          "| shuffle read MB | shuffle write MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, r in rows.items():
        print(f"| {key} | {(r['last'] - r['first']) / 1e3:.1f} | {r['stages']} | {r['tasks']} "
              f"| {r['run']:.1f} | {r['cpu']:.1f} | {r['gc']:.1f} | {mb(r['input'])} "
              f"| {mb(r['read'])} | {mb(r['write'])} |")
    if start and end:
        print(f"\nsession: {(end - start) / 1e3:.1f} s from its start to its stop")


if __name__ == "__main__":
    main(sys.argv[1:])
