#!/bin/bash
# GPU host (issue 52): why a container llm process takes ~2 s longer than a native one from its first kernel to
# its first measurement (first_kernel + prepare; docs/evidence/2026-12-06-h100-short.md), when the JIT cache was
# ruled out (2026-11-26). Runs the llm workload as the default check does (3 requests), one process at a time,
# apart from the tool, and prints each process's start-up phases and its prepare split (capture, warm-up,
# facts): natively; natively with a fresh empty HOME; in fresh containers; as successive `docker exec`s in one
# long-lived container (then `docker diff`: what the first process left in the container's writable layer); with
# the engine's seccomp profile off; with the host's IPC namespace.
# Usage (repo root, after source .gpu-host/setup.sh): scripts/gpu-host/startup-probe.sh [N=3]
set -u
N=${1:-3}
REPO=$PWD
OUT=${OUT:-/tmp/startup-probe}; mkdir -p "$OUT"
IMG=${PROBE_IMAGE:-local/gpu-torch:host}
ARGS=(--device gpu --preset 1b --iters 3 --seed 1)
report() {
  python3 -c '
import json, sys
label = sys.argv[1]
ph, summ = {}, {}
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if not isinstance(e, dict):
        continue
    if e.get("event") == "phase":
        ph[e["name"]] = round(e["duration_s"], 3)
    elif e.get("event") == "summary":
        summ = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in e.items() if k.endswith("_s") or k == "decode_mode"}
print(label, "phases", json.dumps(ph), "summary", json.dumps(summ), flush=True)
' "$1"
}
# shellcheck disable=SC2206
gpu_args=(${GPU_DOCKER_ARGS:-})
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0 2>/dev/null | head -1)
{
  echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); image $IMG"
  for i in $(seq 1 "$N"); do
    CUDA_VISIBLE_DEVICES=$uuid python3 workloads/llm.py "${ARGS[@]}" < /dev/null 2> /dev/null | tee -a "$OUT/events.jsonl" | report "native-$i"
  done
  for i in 1 2; do
    h=$(mktemp -d /tmp/probe-home.XXXXXX)
    HOME=$h XDG_CACHE_HOME=$h/.cache CUDA_VISIBLE_DEVICES=$uuid python3 workloads/llm.py "${ARGS[@]}" < /dev/null 2> /dev/null \
      | report "native-fresh-home-$i"
    echo "  fresh home after: $(cd "$h" && find . -type f | head -20 | tr '\n' ' ') ($(du -sk "$h" | cut -f1) KiB)"
    rm -rf "$h"
  done
  for i in $(seq 1 "$N"); do
    docker run --rm --init --network none -v "$REPO/workloads:/w:ro" "${gpu_args[@]}" "$IMG" python3 /w/llm.py "${ARGS[@]}" \
      < /dev/null 2> /dev/null | report "container-run-$i"
  done
  docker rm -f startup-probe-long > /dev/null 2>&1
  docker run -d --name startup-probe-long --init --network none -v "$REPO/workloads:/w:ro" "${gpu_args[@]}" "$IMG" sleep 3600 > /dev/null
  for i in $(seq 1 "$N"); do
    docker exec startup-probe-long python3 /w/llm.py "${ARGS[@]}" < /dev/null 2> /dev/null | report "container-exec-$i"
    [ "$i" = 1 ] && echo "  docker diff after exec 1: $(docker diff startup-probe-long | grep -v '^C /proc\|^C /dev' | head -40 | tr '\n' ' ')"
  done
  docker exec startup-probe-long sh -c 'du -sk /root/.nv /root/.cache /tmp 2>/dev/null' | tr '\n' ' '; echo
  docker rm -f startup-probe-long > /dev/null
  for i in 1 2; do
    docker run --rm --init --network none --security-opt seccomp=unconfined -v "$REPO/workloads:/w:ro" "${gpu_args[@]}" "$IMG" \
      python3 /w/llm.py "${ARGS[@]}" < /dev/null 2> /dev/null | report "container-noseccomp-$i"
  done
  for i in 1 2; do
    docker run --rm --init --network none --ipc host -v "$REPO/workloads:/w:ro" "${gpu_args[@]}" "$IMG" \
      python3 /w/llm.py "${ARGS[@]}" < /dev/null 2> /dev/null | report "container-ipchost-$i"
  done
  CUDA_VISIBLE_DEVICES=$uuid python3 workloads/llm.py "${ARGS[@]}" < /dev/null 2> /dev/null | report "native-last"
  # matmul's warm-up (0.55 s of each 2.2 s slot): the default (10 products, at least 0.5 s) against 3 products and
  # no minimum, alternating, back to back as a check runs them: the first products' times and the median.
  for i in $(seq 1 "${MATMUL_AB:-4}"); do
    for w in default short; do
      more=(); [ "$w" = short ] && more=(--warmup 3 --min-warmup-s 0)
      CUDA_VISIBLE_DEVICES=$uuid python3 workloads/matmul.py --device gpu --iters 26 --seed 1 "${more[@]}" < /dev/null 2> /dev/null \
        | python3 -c '
import json, statistics, sys
ks, ph = [], {}
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("event") == "sample" and e.get("metric") == "kernel_ms":
        ks.append(e["value"])
    elif e.get("event") == "phase":
        ph[e["name"]] = round(e["duration_s"], 3)
med = statistics.median(ks)
print(sys.argv[1], "prepare_s", ph.get("prepare"), "median_ms %.4f mean_ms %.4f first5_pct" % (med, statistics.mean(ks)),
      [round(100 * (k / med - 1), 3) for k in ks[:5]], "n", len(ks), flush=True)
' "matmul-$w-$i"
    done
  done
} 2>&1 | tee "$OUT/startup-probe.txt"
