#!/bin/bash
# GPU host, call 1: the default check exactly as the Actions runner runs the action, then the driver
# gate and the io-check on the real host. Everything lands in $OUT/e2e-default.tgz.
# Run from the repo root after: source .gpu-host/setup.sh
set -u
R=/tmp/evidence; rm -rf "$R"; mkdir -p "$R"
WS=/tmp/ws; rm -rf "$WS"; mkdir -p "$WS"
IMG=local/gpu-torch:host
nvidia-smi > "$R/nvidia-smi-before.txt" 2>&1
: > "$R/github_output"; : > "$R/step_summary.md"
t0=$(date +%s.%N)
( cd "$WS" && env GITHUB_WORKSPACE="$WS" GITHUB_OUTPUT="$R/github_output" GITHUB_STEP_SUMMARY="$R/step_summary.md" \
    RUNNER_TEMP=/tmp \
    "INPUT_IMAGE=$IMG" "INPUT_GPU-ACCESS=devices" "INPUT_WORKLOADS=matmul,llm,io" "INPUT_OUT=default" \
    "INPUT_COMMENT=never" "INPUT_FAIL-ON-REGRESSION=true" \
    timeout -s INT 420 node "$OLDPWD/dist/index.js" ) > "$R/action-stdout.log" 2>&1
echo "action exit=$? wall_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")" | tee "$R/action-exit.txt"
cp -r "$WS/default" "$R/default" 2>/dev/null; rm -rf "$R/default/io"
# The driver gate reading the real driver, against the image's CUDA and against explicit versions.
node dist/cli.js gate --image "$IMG" > "$R/gate-image.txt" 2>&1; echo "exit=$?" >> "$R/gate-image.txt"
node dist/cli.js gate --image "$IMG" --format json > "$R/gate-image.json" 2>&1
node dist/cli.js gate --cuda 13.1 --strict > "$R/gate-cuda13.1-strict.txt" 2>&1; echo "exit=$?" >> "$R/gate-cuda13.1-strict.txt"
node dist/cli.js gate --driver 575.51.03 --cuda 13.0 > "$R/gate-575-vs-13.0.txt" 2>&1; echo "exit=$?" >> "$R/gate-575-vs-13.0.txt"
# io-check: bind (rw), read-only bind, and a path on the writable layer (OverlayFS).
mkdir -p /tmp/io-data /tmp/io-ckpt
node dist/cli.js io-check --image "$IMG" --data /tmp/io-data:/data:ro --ckpt /tmp/io-ckpt:/checkpoints --format json > "$R/io-check-bind.json" 2>&1; echo "exit=$?" >> "$R/io-check-bind.json"
node dist/cli.js io-check --image "$IMG" --data /tmp/io-data:/data:ro --ckpt /workspace/checkpoints > "$R/io-check-overlay.txt" 2>&1; echo "exit=$?" >> "$R/io-check-overlay.txt"
tar -C /tmp -czf "$OUT/e2e-default.tgz" evidence
ls -la "$OUT"
