#!/bin/bash
# GPU host, issue 19 ("Why the arms differ"): an unmodified image and an image that differs from the
# native stack in ONE environment variable, plus raw workload output for the test fixtures.
# Run from the repo root after: source .gpu-host/setup.sh. Everything lands in $OUT/why-<phase>.tgz.
# Phases (the Docker engine and Node.js do not fit one transfer together, so two device calls on one
# warm machine): `raw` (engine only: the one-variable image, raw workload output), `checks` (Node.js: the
# two checks through the CLI).
set -u
PHASE=${1:-all}
R=/tmp/why; mkdir -p "$R/raw"
WS=/tmp/why-ws; rm -rf "$WS"; mkdir -p "$WS"
IMG=local/gpu-torch:host
VAR_IMG=local/gpu-torch:tf32-override-0
ROOT_DIR=$PWD
# The one-variable image: the classic builder resolves FROM against the local image, nothing is pulled.
docker image inspect "$VAR_IMG" >/dev/null 2>&1 ||
  printf 'FROM %s\nENV NVIDIA_TF32_OVERRIDE=0\n' "$IMG" | DOCKER_BUILDKIT=0 docker build -q -t "$VAR_IMG" - > "$R/build.log" 2>&1
{ command -v dcgmi nv-hostengine; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,power.limit,clocks.max.sm --format=csv; } > "$R/host.txt" 2>&1
docker image inspect --format '{{json .Config.Env}}' "$IMG" "$VAR_IMG" > "$R/image-env.json" 2>&1
if [ "$PHASE" != checks ]; then
# Raw protocol output (stack, memory, region events) of both arms, for test fixtures.
W=/gpu-overhead/workloads
python3 workloads/matmul.py --iters 20 > "$R/raw/gpu-matmul-native.jsonl" 2> "$R/raw/gpu-matmul-native.err"
docker run --rm --network none $GPU_DOCKER_ARGS -v "$ROOT_DIR/workloads:$W:ro" "$IMG" python3 $W/matmul.py --iters 20 > "$R/raw/gpu-matmul-container.jsonl" 2> "$R/raw/gpu-matmul-container.err"
docker run --rm --network none $GPU_DOCKER_ARGS -v "$ROOT_DIR/workloads:$W:ro" "$VAR_IMG" python3 $W/matmul.py --dtype tf32 --iters 20 > "$R/raw/gpu-matmul-tf32-container-override0.jsonl" 2> "$R/raw/gpu-matmul-tf32-override0.err"
python3 workloads/llm.py --iters 2 > "$R/raw/gpu-llm-native.jsonl" 2> "$R/raw/gpu-llm-native.err"
fi
if [ "$PHASE" != raw ]; then
# Check 1: the unmodified image, default workloads' GPU part (fp32 matmul, TF32 off; LLM decode).
( cd "$WS" && timeout -s INT 240 node "$ROOT_DIR/dist/cli.js" run --image "$IMG" --gpu-access devices \
    --workloads matmul,llm --runs 3 --max-runs 3 --out unmodified ) > "$R/unmodified.log" 2>&1
echo "exit=$?" >> "$R/unmodified.log"
# Check 2: TF32 matmul against the image that sets NVIDIA_TF32_OVERRIDE=0 (and nothing else).
( cd "$WS" && timeout -s INT 150 node "$ROOT_DIR/dist/cli.js" run --image "$VAR_IMG" --gpu-access devices \
    --workloads matmul --matmul-dtype tf32 --runs 3 --max-runs 3 --out tf32-override ) > "$R/tf32-override.log" 2>&1
echo "exit=$?" >> "$R/tf32-override.log"
for d in unmodified tf32-override; do
  mkdir -p "$R/$d"; cp "$WS/$d"/{report.md,summary.json,runs.jsonl} "$R/$d/" 2>/dev/null
  gzip -c "$WS/$d/samples.csv" > "$R/$d/samples.csv.gz" 2>/dev/null
  gzip -c "$WS/$d/telemetry.csv" > "$R/$d/telemetry.csv.gz" 2>/dev/null
done
fi
tar -C /tmp -czf "$OUT/why-$PHASE.tgz" why
ls -la "$OUT"
