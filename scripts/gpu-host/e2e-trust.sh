#!/bin/bash
# GPU host, final evidence of the trust round (issues 18, 19): the default check exactly as the Actions runner
# runs the action on an unmodified image; the same with an image that is really ~3% slower (a GPU co-tenant,
# 2% duty every 20 ms, inside the container arm); and an image that differs only in one performance-changing
# variable (VAR=VALUE, default NVIDIA_TF32_OVERRIDE=0). Results in $OUT/e2e-trust-<part>.tgz.
# Run from the repo root after: source .gpu-host/setup.sh.  Usage: e2e-trust.sh default|slow|env
set -u
PART=${1:?default|slow|env}
REPO=$PWD
BASE=local/gpu-torch:host
R=/tmp/ev-$PART; rm -rf "$R"; mkdir -p "$R"
WS=/tmp/ws-$PART; rm -rf "$WS"; mkdir -p "$WS"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm,temperature.gpu --format=csv > "$R/gpu.csv" 2>&1
action() { # IMAGE WORKLOADS OUTDIR TIMEOUT
  : > "$R/github_output-$3"; : > "$R/step_summary-$3.md"
  local t0; t0=$(date +%s.%N)
  ( cd "$WS" && env -i PATH="$PATH" HOME="$HOME" GITHUB_WORKSPACE="$WS" GITHUB_OUTPUT="$R/github_output-$3" \
      GITHUB_STEP_SUMMARY="$R/step_summary-$3.md" GITHUB_EVENT_NAME=workflow_dispatch RUNNER_TEMP=/tmp \
      "INPUT_IMAGE=$1" "INPUT_GPU-ACCESS=devices" "INPUT_WORKLOADS=$2" "INPUT_OUT=$3" "INPUT_COMMENT=never" \
      "INPUT_CHECK-RUN=" "INPUT_BASELINE-BRANCH=" \
      timeout -s INT "$4" node "$REPO/dist/index.js" ) > "$R/action-$3.log" 2>&1
  echo "$3: action exit=$? wall_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")" | tee -a "$R/exits.txt"
  cp -r "$WS/$3" "$R/$3" 2>/dev/null; rm -rf "$R/$3/io"
}
case $PART in
  default) action "$BASE" matmul,llm,io default 280 ;;
  slow)
    bash scripts/gpu-host/noisy/build.sh noisy-3pct:0.02:20 > "$R/build.log" 2>&1
    action local/gpu-torch:noisy-3pct "${SLOW_WORKLOADS:-matmul,llm}" slow 280 ;;
  env)
    VAR=${ENV_VAR:-NVIDIA_TF32_OVERRIDE=0}
    ctx=$(mktemp -d); printf 'FROM %s\nENV %s\n' "$BASE" "$VAR" > "$ctx/Dockerfile"
    docker build -q -t local/gpu-torch:env-var "$ctx" > "$R/build.log" 2>&1
    echo "image env: $VAR" >> "$R/build.log"
    action local/gpu-torch:env-var matmul env 200 ;;
esac
tar -C /tmp -czf "$OUT/e2e-trust-$PART.tgz" "ev-$PART"
cat "$R/exits.txt"; grep -h -A12 -i "why the arms" "$R"/*/report.md 2>/dev/null | head -30
