#!/bin/bash
# GPU host, call 3: the default check again (lighter io defaults) as the Actions runner runs it, and a graded
# sensitivity sweep: one co-tenant kernel every 200/60/30 ms inside the container arm (telemetry off, so the
# native arm here is also the sampler-off side of the telemetry overhead). Results in $OUT/e2e-final.tgz.
set -u
R=/tmp/evidence3; rm -rf "$R"; mkdir -p "$R"
WS=/tmp/ws3; rm -rf "$WS"; mkdir -p "$WS"
IMG=local/gpu-torch:host
REPO=$PWD
: > "$R/github_output"; : > "$R/step_summary.md"
t0=$(date +%s.%N)
( cd "$WS" && env GITHUB_WORKSPACE="$WS" GITHUB_OUTPUT="$R/github_output" GITHUB_STEP_SUMMARY="$R/step_summary.md" \
    RUNNER_TEMP=/tmp "INPUT_IMAGE=$IMG" "INPUT_GPU-ACCESS=devices" "INPUT_WORKLOADS=matmul,llm,io" "INPUT_OUT=default" \
    "INPUT_COMMENT=never" timeout -s INT ${DEFAULT_TIMEOUT:-280} node "$REPO/dist/index.js" ) > "$R/action-stdout.log" 2>&1
echo "action exit=$? wall_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")" | tee "$R/action-exit.txt"
cp -r "$WS/default" "$R/default" 2>/dev/null; rm -rf "$R/default/io"
bash scripts/gpu-host/noisy/build.sh noisy-p200:0.01:200 noisy-p60:0.01:60 noisy-p30:0.01:30 > "$R/noisy-build.log" 2>&1
t0=$(date +%s)
( cd "$WS" && timeout -s INT ${SWEEP_TIMEOUT:-130} node "$REPO/dist/cli.js" run --image "$IMG" --gpu-access devices \
    --workloads matmul --runs 3 --warmup-runs 0 --telemetry false \
    --arms native,container:local/gpu-torch:noisy-p200,container:local/gpu-torch:noisy-p60,container:local/gpu-torch:noisy-p30 \
    --out sweep ) > "$R/sweep.log" 2>&1
echo "sweep exit=$? wall_s=$(( $(date +%s) - t0 ))" | tee -a "$R/action-exit.txt"
cp -r "$WS/sweep" "$R/sweep" 2>/dev/null
tar -C /tmp -czf "$OUT/e2e-final.tgz" evidence3
