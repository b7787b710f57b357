#!/bin/bash
# GPU host, call 2: A/A calibration (native,native,container,container interleaved in one check) and the
# sensitivity sweep (a real GPU co-tenant inside the container arm, 1-10% duty), both via the CLI.
# Everything lands in $OUT/e2e-calibration.tgz. Run from the repo root after: source .gpu-host/setup.sh
set -u
R=/tmp/evidence2; rm -rf "$R"; mkdir -p "$R"
WS=/tmp/ws2; rm -rf "$WS"; mkdir -p "$WS"
IMG=local/gpu-torch:host
bash scripts/gpu-host/noisy/build.sh noisy-0p01:0.01:20 noisy-0p03:0.03:20 noisy-0p1:0.1:20 > "$R/noisy-build.log" 2>&1
CLI="$PWD/dist/cli.js"
cd "$WS"
t0=$(date +%s)
# Sensitivity: matmul only, native anchor, stock container and three co-tenant duties.
timeout -s INT ${SENS_TIMEOUT:-200} node "$CLI" run --image "$IMG" --gpu-access devices --workloads matmul --runs 4 \
  --arms "native,container,container:local/gpu-torch:noisy-0p01,container:local/gpu-torch:noisy-0p03,container:local/gpu-torch:noisy-0p1" \
  --out sensitivity > "$R/sensitivity.log" 2>&1
echo "sensitivity exit=$? wall_s=$(( $(date +%s) - t0 ))" | tee -a "$R/exit.txt"
t0=$(date +%s)
# A/A: both pairs in one interleaved check, telemetry off (also the sampler-off side of its overhead).
timeout -s INT ${AA_TIMEOUT:-330} node "$CLI" run --image "$IMG" --gpu-access devices --workloads matmul,llm --runs 4 \
  --arms native,native,container,container --telemetry false --out aa > "$R/aa.log" 2>&1
echo "aa exit=$? wall_s=$(( $(date +%s) - t0 ))" | tee -a "$R/exit.txt"
cp -r sensitivity aa "$R/" 2>/dev/null
rm -rf "$R"/*/io
tar -C /tmp -czf "$OUT/e2e-calibration.tgz" evidence2
ls -la "$OUT"
