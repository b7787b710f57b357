"""Which process of a turn-taking block measured first, and what its first request read (issue 38).

Usage: python3 scripts/gpu-host/first-request.py RESULTS_ROOT
Reads every samples.csv.gz below RESULTS_ROOT (the llm's per-request TPOT) and prints, per check, the TPOT
ratio of request means with and without each process's first measured request, then how often a first request
sat at the slow decode level (> 3.05 ms on H100) by arm and by whether that process measured before its
partner on the same GPU."""
import collections
import csv
import datetime
import glob
import gzip
import os
import statistics as st
import sys

SLOW_MS = 3.05
root = sys.argv[1]
first_stats = collections.Counter()
print("| check | TPOT, all requests | without each process's first request |\n| --- | ---: | ---: |")
for f in sorted(glob.glob(os.path.join(root, "**", "samples.csv.gz"), recursive=True)):
    per_arm = collections.defaultdict(list)
    first = {}
    for r in csv.DictReader(gzip.open(f, "rt")):
        if r["workload"] != "llm" or r["metric"] != "tpot_ms" or r["scope"] == "info":
            continue
        it, v = int(r["iteration"]), float(r["value"])
        per_arm[r["environment"]].append((it, v))
        if it == 1:
            t = datetime.datetime.fromisoformat(r["time"].replace("Z", "+00:00")).timestamp()
            first[(r["environment"], r["run"])] = (t, v, r["gpu"])
    if not per_arm:
        continue
    mean = lambda env, skip: st.mean([v for i, v in per_arm[env] if i > skip])
    name = os.path.relpath(os.path.dirname(f), root)
    print("| %s | %+.2f%% | %+.2f%% |" % (name, 100 * (mean("container", 0) / mean("native", 0) - 1), 100 * (mean("container", 1) / mean("native", 1) - 1)))
    for (env, _run), (t, v, gpu) in first.items():
        partners = [t2 for (e2, _r2), (t2, _v2, g2) in first.items() if e2 != env and g2 == gpu]
        if not partners:
            continue
        nearest = min(partners, key=lambda t2: abs(t2 - t))
        first_stats[(env, "first" if t < nearest else "second", "slow" if v > SLOW_MS else "fast")] += 1
print("\n| arm | measured | first request slow | of |\n| --- | --- | ---: | ---: |")
for env in ("native", "container"):
    for pos in ("first", "second"):
        slow, fast = first_stats[(env, pos, "slow")], first_stats[(env, pos, "fast")]
        print("| %s | %s | %d | %d |" % (env, pos, slow, slow + fast))
