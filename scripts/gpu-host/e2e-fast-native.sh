#!/bin/bash
# Issue 18, device call 2 (evidence), native arms only: the 64 MiB transfer limit no longer fits the Docker
# engine bundle (.gpu-host is 59 MiB, the project tree 10.4 MiB), so the container arm cannot run on the lent
# GPU in this session. From the repo root, with Node unpacked from .gpu-host (no Docker needed):
#  1. A/A native vs native, matmul + llm, the new defaults (sequential 3..12 per arm, prestart on);
#  2. the same with prestart off and a fixed 3 runs (steady state and wall time with vs without prestart);
#  3. a genuinely slower arm: matmul and llm processes alone vs next to a GPU co-tenant (the script the slow
#     test image starts), interleaved A B B A, per-run values kept for a replay of the sequential rule.
# Everything lands in $OUT/e2e-fast.tgz.
set -u
R=/tmp/evidence-fast; rm -rf "$R"; mkdir -p "$R"
REPO=$PWD
START=$(date +%s)
BUDGET_S=${BUDGET_S:-520}
left() { echo $(( BUDGET_S - ($(date +%s) - START) )); }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit,persistence_mode --format=csv > "$R/gpu.csv" 2>&1
cat "$R/gpu.csv"

check() { # name limit [flags...]
  local name=$1 limit=$2; shift 2
  local t0; t0=$(date +%s.%N)
  ( cd /tmp && timeout -s INT "$limit" node "$REPO/dist/cli.js" run --arms native,native --workloads matmul,llm \
      --out "/tmp/$name" "$@" ) > "$R/$name.log" 2>&1
  local rc=$?
  echo "$name exit=$rc wall_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")" | tee -a "$R/exit.txt"
  mkdir -p "$R/$name"; cp /tmp/$name/{report.md,summary.json,samples.csv,runs.jsonl} "$R/$name/" 2>/dev/null
}

check aa-prestart 200
[ "$(left)" -gt 200 ] && check aa-no-prestart 190 --prestart false --max-runs 3

# Slower arm: interleaved alone/co-tenant processes, one JSON-lines file per process.
slow() { # workload pairs extra-args...
  local w=$1 pairs=$2; shift 2
  local i=0
  for p in $(seq 1 "$pairs"); do
    [ "$(left)" -lt 25 ] && break
    for mode in $( [ $((p % 2)) = 1 ] && echo "alone cotenant" || echo "cotenant alone"); do
      i=$((i + 1))
      python3 workloads/$w.py --device gpu "$@" > "$R/slow-$w-$mode-$p.jsonl" 2>/dev/null &
      local pid=$!
      local npid=""
      if [ $mode = cotenant ]; then
        NOISY_WATCH_PID=$pid NOISY_DUTY=0.02 NOISY_PERIOD_MS=20 python3 scripts/gpu-host/noisy/noisy.py >/dev/null 2>&1 &
        npid=$!
      fi
      wait $pid
      [ -n "$npid" ] && kill $npid 2>/dev/null && wait $npid 2>/dev/null
    done
  done
}
slow matmul 6 --iters 100
slow llm 5 --iters 12
python3 - "$R" <<'PY' | tee "$R/slow.txt"
import glob, json, statistics, sys
for f in sorted(glob.glob(sys.argv[1] + "/slow-*.jsonl")):
    ev = [json.loads(l) for l in open(f) if l.startswith("{")]
    for m in ("kernel_ms", "tpot_ms"):
        v = [e["value"] for e in ev if e.get("event") == "sample" and e.get("metric") == m]
        if v:
            print(f.rsplit("/", 1)[1], m, "median %.4f n=%d" % (statistics.median(v), len(v)))
PY
tar -C /tmp -czf "$OUT/e2e-fast.tgz" evidence-fast
ls -la "$OUT"
