#!/bin/bash
# GPU host (issue 40): a user's own DataLoader workload (examples/workloads/dataloader.py, 4 worker processes
# passing 38 MB batches through /dev/shm) from the workflow's `commands:` input, against an NGC-style image whose
# entrypoint prints NGC's banner and shm NOTE and then `cd`s away from the workspace (entrypoint.d/60-cd.sh).
# Through the action entry with every action.yml default set as the runner sets it. Usage (repo root, after
# source .gpu-host/setup.sh):  e2e-dataloader.sh fails|ipc [GPU]
#   fails  the default /dev/shm (64 MiB, no container-args) and a relative command path: both fail, and the
#          report must name the cause and its fix
#   ipc    container-args --ipc=host (NGC's advice): the check runs to a verdict
set -u
PART=${1:?fails|ipc}
GPU=${2:-0}
REPO=$PWD
R=${OUT:-/tmp}/lay-dataloader-$PART; mkdir -p "$R"
NGC=local/ngc-like-cd:host
if ! docker image inspect "$NGC" >/dev/null 2>&1; then
  ctx=$(mktemp -d); cp -r test/__fixtures__/images/ngc-like/. "$ctx/"
  printf '%s\n' '# Many images start in their own folder; this one leaves the workspace on purpose.' 'cd /opt/nvidia' > "$ctx/entrypoint.d/60-cd.sh"
  docker build -q --build-arg BASE=local/gpu-torch:host -t "$NGC" "$ctx" > "$R/ngc-build.txt" 2>&1; rm -rf "$ctx"
fi
export WS_SEED="examples/workloads/dataloader.py workloads"
# shellcheck source=action-lib.sh
source "$REPO/scripts/gpu-host/action-lib.sh"
CMD='loader: python3 {workspace}/examples/workloads/dataloader.py --workers 4 --batch 64'
case $PART in
  fails)
    action shm64 "$NGC" "$GPU" "INPUT_COMMANDS=$CMD"
    action relative-path "$NGC" "$GPU" "INPUT_COMMANDS=loader: python3 examples/workloads/dataloader.py" "INPUT_CONTAINER-ARGS=--ipc=host" ;;
  ipc)
    action ipc-host "$NGC" "$GPU" "INPUT_COMMANDS=$CMD" "INPUT_CONTAINER-ARGS=--ipc=host" ${MAX_RUNS:+"INPUT_MAX-RUNS=$MAX_RUNS"} ;;
esac
grep -h -i -E "shm|shared memory|ipc|entrypoint|working directory|cd " "$R"/*-action.log | sort | uniq -c | sort -rn | head -40 > "$R/causes.txt"
