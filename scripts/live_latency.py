#!/usr/bin/env python3
"""A live pipe: feeds N distinct JSON Lines documents to a neardup binary, one every INTERVAL
seconds, and measures for each the time until its line comes out (all are kept).

Usage: scripts/live_latency.py BINARY N INTERVAL [NEARDUP_ARGS...]
Prints how many lines came out within INTERVAL, and the largest and median delays.
"""
import os, subprocess, sys, time, json, select
bin_, n, interval = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
args = sys.argv[4:]
lines = [json.dumps({"id": i, "text": f"document {i} about " + " ".join(f"w{i}x{j}" for j in range(40))}) + "\n" for i in range(n)]
p = subprocess.Popen([bin_] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
lat = []
buf = b""
for l in lines:
    t0 = time.monotonic()
    p.stdin.write(l.encode())
    got = False
    while time.monotonic() - t0 < interval:
        r, _, _ = select.select([p.stdout], [], [], max(0, interval - (time.monotonic() - t0)))
        if r:
            buf += os.read(p.stdout.fileno(), 1 << 16)
            if buf.count(b"\n") >= 1:
                lat.append(time.monotonic() - t0); buf = buf[buf.index(b"\n")+1:]; got = True
                rest = interval - (time.monotonic() - t0)
                if rest > 0: time.sleep(rest)
                break
    if not got: lat.append(None)
p.stdin.close(); p.wait()
ok = [x for x in lat if x is not None]
print(f"{len(ok)}/{n} lines out within {interval*1000:.0f} ms; max {max(ok)*1000 if ok else float('nan'):.1f} ms, median {sorted(ok)[len(ok)//2]*1000 if ok else float('nan'):.1f} ms")
