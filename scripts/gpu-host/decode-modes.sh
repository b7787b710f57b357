#!/bin/bash
# Issue 18, device call 1: N fresh LLM decode processes back to back (decode-modes.py), each timing and
# profiling its own decode; nvidia-smi clocks between processes; results tarred into $OUT.
# Usage (repo root on the GPU host): bash scripts/gpu-host/decode-modes.sh [N]
set -u
N=${1:-16}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RES=${OUT:-/tmp}/modes
mkdir -p "$RES"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,pci.bus_id,clocks.sm,clocks.mem,clocks.max.sm,power.limit,persistence_mode --format=csv >"$RES/gpu.csv" 2>&1
cat "$RES/gpu.csv"
nproc; python3 -c 'import os; print("affinity", sorted(os.sched_getaffinity(0)))'
ls /sys/devices/system/node 2>/dev/null | grep -c node
for i in $(seq 1 "$N"); do
  timeout 60 python3 "$HERE/decode-modes.py" "$i" "$RES" 2>>"$RES/stderr.log" || echo "p$i failed rc=$?"
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv,noheader >>"$RES/smi.csv" 2>&1
done
tail -5 "$RES/stderr.log"
tar -C "${OUT:-/tmp}" -czf "${OUT:-/tmp}/modes.tgz" modes && rm -rf "$RES"
