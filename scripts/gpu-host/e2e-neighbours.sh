#!/bin/bash
# GPU host with >= 4 GPUs (issue 28): the default check on GPU 0 while another check runs on GPU 3, through
# the action entry, as two jobs of one runner host would. Usage (repo root, after source .gpu-host/setup.sh):
#   e2e-neighbours.sh pairs [ROUNDS]   ROUNDS x (default check on GPU 0 | default check on GPU 3, at once)
#   e2e-neighbours.sh slow             an image ~3% slower (a GPU co-tenant in the container arm) on GPU 0 beside
#                                      a default check on GPU 3, then the default check on GPU 0 alone
# Results in $OUT/neighbours-<part>.tgz.
set -u
PART=${1:?pairs|slow}
ROUNDS=${2:-3}
REPO=$PWD
BASE=local/gpu-torch:host
R=/tmp/nb-$PART; rm -rf "$R"; mkdir -p "$R"
nvidia-smi --query-gpu=index,name,driver_version,power.limit,clocks.sm,temperature.gpu --format=csv > "$R/gpu.csv" 2>&1
action() { # NAME IMAGE GPU
  local ws=/tmp/ws-$1; rm -rf "$ws"; mkdir -p "$ws"
  : > "$R/$1-github_output"; : > "$R/$1-step_summary.md"
  local t0; t0=$(date +%s.%N)
  ( cd "$ws" && env -i PATH="$PATH" HOME="$HOME" GITHUB_WORKSPACE="$ws" GITHUB_OUTPUT="$R/$1-github_output" \
      GITHUB_STEP_SUMMARY="$R/$1-step_summary.md" GITHUB_EVENT_NAME=workflow_dispatch RUNNER_TEMP=/tmp \
      "INPUT_IMAGE=$2" "INPUT_GPUS=$3" "INPUT_GPU-ACCESS=devices" "INPUT_COMMENT=never" \
      "INPUT_CHECK-RUN=" "INPUT_BASELINE-BRANCH=" \
      timeout -s INT 290 node "$REPO/dist/index.js" ) > "$R/$1-action.log" 2>&1
  echo "$1: image $2 gpu $3 exit=$? wall_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))") verdict=$(grep -m1 '^verdict=' "$R/$1-github_output" | cut -d= -f2)" | tee -a "$R/exits.txt"
  cp -r "$ws/gpu-overhead-results" "$R/$1" 2>/dev/null; rm -rf "$R/$1/io"; gzip -9 "$R/$1"/results.jsonl "$R/$1"/samples.csv 2>/dev/null
}
case $PART in
  pairs)
    for i in $(seq 1 "$ROUNDS"); do
      action "gpu0-round$i" "$BASE" 0 & action "gpu3-round$i" "$BASE" 3 & wait
    done ;;
  slow)
    bash scripts/gpu-host/noisy/build.sh noisy-3pct:0.02:20 > "$R/build.log" 2>&1
    action slow-gpu0 local/gpu-torch:noisy-3pct 0 & action neighbour-gpu3 "$BASE" 3 & wait
    action alone-gpu0 "$BASE" 0 ;;
esac
tar -C /tmp -czf "$OUT/neighbours-$PART.tgz" "nb-$PART"
ls -la "$OUT"
