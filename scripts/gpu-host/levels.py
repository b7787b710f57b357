#!/usr/bin/env python3
"""Per-process llm TPOT in time order across checks that ran at once (issue 28: is the level a state of the
host at a moment?). Each line: start and end of the measured region (s from the first), check, arm+run, the
process's median TPOT (ms), F(ast) below --cut ms else S(low). Then how often processes that measured at the
same time on different GPUs, and adjacent processes on one GPU, were in the same level.
Usage: levels.py [--cut 3.0] RESULTS_DIR ...   (results folders of checks run at the same time)"""
import argparse
import csv
import gzip
import itertools
import json
import os
import statistics


def load(d, cut):
    runs = {(r["environment"], r["run"]): r for r in map(json.loads, open(os.path.join(d, "runs.jsonl"))) if r["workload"] == "llm"}
    vals = {}
    path = os.path.join(d, "samples.csv")
    with (open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")) as fh:
        for s in csv.DictReader(fh):
            if s["workload"] == "llm" and s["metric"] == "tpot_ms":
                vals.setdefault((s["environment"], int(s["run"])), []).append(float(s["value"]))
    out = []
    for k, v in vals.items():
        reg = runs[k]["regions"][0]
        m = statistics.median(v)
        out.append((reg["start_ms"] / 1e3, reg["end_ms"] / 1e3, os.path.basename(d.rstrip("/")), k[0][0] + str(k[1]), m, m < cut))
    return sorted(out)


ap = argparse.ArgumentParser()
ap.add_argument("--cut", type=float, default=3.0)
ap.add_argument("dirs", nargs="+")
a = ap.parse_args()
checks = [load(d, a.cut) for d in a.dirs]
rows = sorted(r for c in checks for r in c)
t0 = rows[0][0]
for r in rows:
    print("%7.1f %7.1f %-22s %-4s %.3f %s" % (r[0] - t0, r[1] - t0, r[2], r[3], r[4], "F" if r[5] else "S"))
same = tot = 0
for x, y in itertools.combinations(range(len(checks)), 2):
    for p in checks[x]:
        for q in checks[y]:
            if min(p[1], q[1]) - max(p[0], q[0]) >= 0.5 * (p[1] - p[0]):
                tot += 1
                same += p[5] == q[5]
adj = [(p[5] == q[5]) for c in checks for p, q in zip(c, c[1:])]
print("at the same time on different GPUs: %d of %d in the same level" % (same, tot))
print("adjacent processes on one GPU: %d of %d in the same level" % (sum(adj), len(adj)))
