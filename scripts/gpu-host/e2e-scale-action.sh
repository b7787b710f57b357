#!/bin/bash
# GPU host with two GPUs (nvidia-h200-x2), second call of issue 8: the final code through the action entry
# (dist/index.js, inputs as INPUT_* the way the runner passes them), gpus: all, both arms, 6 runs + 1 warm-up
# of matmul and llm. Never changes a power limit (shared GPUs). Results in $OUT/scale-action.tgz.
set -u
REPO=$PWD
R=/tmp/scale-action; rm -rf "$R"; mkdir -p "$R"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
t0=$(date +%s)
source .gpu-host/setup.sh > "$R/setup.log" 2>&1
echo "setup: $(( $(date +%s) - t0 )) s" | tee -a "$R/steps.txt"
nvidia-smi --query-gpu=index,uuid,power.limit,clocks.sm,temperature.gpu --format=csv > "$R/gpus-before.csv"
WS=/tmp/ws-action; rm -rf "$WS"; mkdir -p "$WS"
: > "$R/github_output"; : > "$R/step_summary.md"; : > "$R/github_state"
t1=$(date +%s)
( cd "$WS" && env GITHUB_WORKSPACE="$WS" GITHUB_OUTPUT="$R/github_output" GITHUB_STEP_SUMMARY="$R/step_summary.md" \
    GITHUB_STATE="$R/github_state" RUNNER_TEMP=/tmp "INPUT_IMAGE=local/gpu-torch:host" "INPUT_GPU-ACCESS=devices" \
    "INPUT_GPUS=all" "INPUT_WORKLOADS=matmul,llm" "INPUT_RUNS=6" "INPUT_WARMUP-RUNS=1" "INPUT_OUT=multi-gpu" \
    "INPUT_COMMENT=never" timeout -s INT "${ACTION_TIMEOUT:-420}" node "$REPO/dist/index.js" ) > "$R/action.log" 2>&1
echo "action exit=$? wall_s=$(( $(date +%s) - t1 ))" | tee -a "$R/steps.txt"
nvidia-smi --query-gpu=index,uuid,power.limit,clocks.sm,temperature.gpu --format=csv > "$R/gpus-after.csv"
cp -r "$WS/multi-gpu" "$R/multi-gpu"; rm -f "$R/multi-gpu/results.jsonl"
tar -C /tmp -czf "$OUT/scale-action.tgz" scale-action
cat "$R/steps.txt" "$R/github_output"; grep -E "^\[[0-9]+/" "$R/action.log" | tail -3; head -1 "$R/multi-gpu/report.md"
