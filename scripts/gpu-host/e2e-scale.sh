#!/bin/bash
# GPU host with two GPUs (nvidia-h200-x2), issue 8 evidence, in one device call:
#   1. records the 2-GPU nvidia-smi outputs and the driver's /proc GPU files as test fixtures (read-only);
#   2. a 2-GPU check: native vs container, one process per GPU at once, per-GPU and pooled analysis;
#   3. the power-cap sweep's no-permission path: the same CLI as an unprivileged user with --power-caps.
# It never changes a power limit: the lent GPUs are shared, and the workplace forbids nvidia-smi -pl there.
# Usage (device call, carry .gpu-host): bash scripts/gpu-host/e2e-scale.sh   → $OUT/scale.tgz
set -u
REPO=$PWD
R=/tmp/scale; rm -rf "$R"; mkdir -p "$R/fixtures" "$R/logs"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
t0=$(date +%s)
source .gpu-host/setup.sh > "$R/logs/setup.log" 2>&1
echo "setup: $(( $(date +%s) - t0 )) s" | tee -a "$R/logs/steps.txt"

F=$R/fixtures
rec() { # rec NAME CMD...: stdout, stderr and the exact command with its exit code, as the other fixtures
  local name=$1; shift
  "$@" > "$F/$name" 2> "$F/$name.stderr"
  printf '$ %s\nrc=%s\n' "$*" "$?" > "$F/$name.cmd"
}
query=$(sed -n 's/^\$ nvidia-smi //p' test/__fixtures__/nvidia-smi/query-gpu-preflight.csv.cmd)
rec query-gpu-preflight-2gpu.csv nvidia-smi $query
rec nvidia-smi-2gpu.txt nvidia-smi
rec nvidia-smi-q-power-2gpu.txt nvidia-smi -q -d POWER
rec topo-2gpu.txt nvidia-smi topo -m
rec compute-apps-2gpu.csv nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits
uuid1=$(nvidia-smi -i 1 --query-gpu=uuid --format=csv,noheader)
rec power-limit-readback.csv nvidia-smi -i "$uuid1" --query-gpu=power.limit --format=csv,noheader,nounits
for f in /proc/driver/nvidia/gpus/*/information; do echo "== $f"; cat "$f"; done > "$F/proc-driver-nvidia-gpus-information.txt" 2>&1
ls -l /dev/nvidia* > "$F/dev-nvidia-nodes.txt" 2>&1
nvidia-smi --query-gpu=index,power.limit,power.default_limit --format=csv > "$R/logs/power-limits-before.csv"

WS=/tmp/ws-scale; rm -rf "$WS"; mkdir -p "$WS"
t1=$(date +%s)
( cd "$WS" && timeout -s INT "${MULTI_TIMEOUT:-330}" node "$REPO/dist/cli.js" run --image local/gpu-torch:host \
    --gpu-access devices --gpus all --workloads matmul,llm --runs 4 --warmup-runs 1 --out multi-gpu ) \
  > "$R/logs/multi-gpu.log" 2>&1
echo "multi-gpu exit=$? wall_s=$(( $(date +%s) - t1 ))" | tee -a "$R/logs/steps.txt"

# The same engine as an ordinary user: nvidia-smi -pl needs root, so the sweep must be skipped with a
# reason and the check must still run both arms (at the current limits). The socket is opened to that
# user on this throw-away machine only.
U=/tmp/ws-user; rm -rf "$U"; mkdir -p "$U"; chown 65534:65534 "$U"; chmod 666 /var/run/docker.sock
t2=$(date +%s)
( cd "$U" && timeout -s INT "${CAPS_TIMEOUT:-120}" setpriv --reuid=65534 --regid=65534 --clear-groups \
    env HOME="$U" PATH="$PATH" node "$REPO/dist/cli.js" run --image local/gpu-torch:host --gpu-access devices \
    --gpus 0 --workloads matmul --runs 3 --warmup-runs 0 --power-caps 400,550 --out caps-unprivileged ) \
  > "$R/logs/caps-unprivileged.log" 2>&1
echo "caps-unprivileged exit=$? wall_s=$(( $(date +%s) - t2 ))" | tee -a "$R/logs/steps.txt"
nvidia-smi --query-gpu=index,power.limit,power.default_limit --format=csv > "$R/logs/power-limits-after.csv"

cp -r "$WS/multi-gpu" "$R/multi-gpu" 2>/dev/null
cp -r "$U/caps-unprivileged" "$R/caps-unprivileged" 2>/dev/null
tar -C /tmp -czf "$OUT/scale.tgz" scale
cat "$R/logs/steps.txt"; tail -5 "$R/logs/multi-gpu.log"; tail -5 "$R/logs/caps-unprivileged.log"
