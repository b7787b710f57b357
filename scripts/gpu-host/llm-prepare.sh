#!/bin/bash
# GPU host: where an llm process spends the time between its first kernel and its first measurement (the
# `prepare` phase: graph capture, verification, warm-up, recorded facts). Runs the workload natively N times
# (default 3) as the check runs it (--iters 12) and prints its phases and the summary's capture_s/warmup_s.
# Run from the repo root. Output: $OUT/llm-prepare.jsonl (every event line, for the record).
set -u
N=${1:-3}
for i in $(seq 1 "$N"); do
  python3 workloads/llm.py --device gpu --preset 1b --iters 12 --seed 1 < /dev/null 2> /tmp/llm-prep-$i.err \
    | tee -a "$OUT/llm-prepare.jsonl" \
    | python3 -c '
import json, sys
ph, summ = {}, {}
for line in sys.stdin:
    e = json.loads(line)
    if e.get("event") == "phase":
        ph[e["name"]] = round(e["duration_s"], 3)
    elif e.get("event") == "summary":
        summ = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in e.items() if k in ("capture_s", "warmup_s", "facts_s", "measured_s", "decode_mode")}
print("run", '"$i"', "phases", ph, "summary", summ)
'
done
