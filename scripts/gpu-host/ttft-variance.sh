#!/bin/bash
# GPU host: N fresh native processes of scripts/gpu-host/ttft-variance.py (default 12), one JSON line each in
# $OUT/ttft-variance.jsonl, then a table: is the llm's process-to-process TTFT spread on the GPU (event-timed
# prefill) or on the CPU (launch), and does a CUDA-graph prefill remove it? Run from the repo root.
set -u
N=${1:-12}
for i in $(seq 1 "$N"); do
  python3 scripts/gpu-host/ttft-variance.py < /dev/null >> "$OUT/ttft-variance.jsonl" 2>> "$OUT/ttft-variance.err"
done
python3 - "$OUT/ttft-variance.jsonl" <<'PY'
import json, statistics as st, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
keys = ["host_ms", "gpu_ms", "enqueue_ms", "graph_host_ms", "graph_gpu_ms", "gemm_ms"]
print("cpu", *keys, "sm_mhz", "temp", sep="\t")
for r in rows:
    print(r["cpu_start"], *["%.3f" % r[k]["median"] for k in keys], r["gpu_after"].get("clocks.sm"), r["gpu_after"].get("temperature.gpu"), sep="\t")
for k in keys:
    m = [r[k]["median"] for r in rows]
    if len(m) > 1:
        print("%-14s process medians: mean %.3f ms, CV %.2f%%, range %.3f-%.3f" % (k, st.mean(m), 100 * st.stdev(m) / st.mean(m), min(m), max(m)))
PY
