#!/bin/bash
# GPU host (issue 38): one answer whatever the GPU count. Through the action entry, defaults but `gpus` (and
# gpu-access: devices, which this host needs), native against an image that differs in nothing
# (local/gpu-torch:host) and against one whose entrypoint starts a light GPU co-tenant (~3% on matmul,
# scripts/gpu-host/noisy: 2% duty, 20 ms period). Usage (repo root, after source .gpu-host/setup.sh):
#   e2e-layouts.sh pairs2 ROUNDS   ROUNDS x two 2-GPU checks at once (gpus 0,1 | gpus 2,3): one same-image, one
#                                  co-tenant image, sides swapped each round (each the other's neighbour)
#   e2e-layouts.sh all4 ROUNDS     ROUNDS x one 4-GPU check (gpus 0,1,2,3), same image and co-tenant alternating
#   e2e-layouts.sh one ROUNDS      ROUNDS x (co-tenant image on GPU 0 | same image on GPU 1) at once, one GPU each
#   e2e-layouts.sh noturns ROUNDS  as `one`, with turns: false (prestart holds the next container: frozen)
# Results in $OUT/lay-<part>/ (exits.txt: one line per check; each check's results folder beside it).
set -u
PART=${1:?pairs2|all4|one|noturns}
ROUNDS=${2:-2}
REPO=$PWD
BASE=local/gpu-torch:host
SLOW=local/gpu-torch:noisy-3pct
docker image inspect "$SLOW" >/dev/null 2>&1 || bash scripts/gpu-host/noisy/build.sh noisy-3pct:0.02:20
R=${OUT:-/tmp}/lay-$PART; mkdir -p "$R"
nvidia-smi --query-gpu=index,name,driver_version,power.limit,clocks.sm,temperature.gpu --format=csv > "$R/gpu.csv" 2>&1
# shellcheck source=action-lib.sh
source "$REPO/scripts/gpu-host/action-lib.sh"
case $PART in
  pairs2)
    for i in $(seq 1 "$ROUNDS"); do
      if [ $((i % 2)) = 1 ]; then a=$BASE; b=$SLOW; na=same; nb=cotenant; else a=$SLOW; b=$BASE; na=cotenant; nb=same; fi
      action "r$i-g01-$na" "$a" 0,1 & action "r$i-g23-$nb" "$b" 2,3 & wait
    done ;;
  all4)
    for i in $(seq 1 "$ROUNDS"); do
      if [ $((i % 2)) = 1 ]; then img=$BASE; n=same; else img=$SLOW; n=cotenant; fi
      action "r$i-g0123-$n" "$img" 0,1,2,3
    done ;;
  one|noturns)
    t=true; [ "$PART" = noturns ] && t=false
    for i in $(seq 1 "$ROUNDS"); do
      action "r$i-g0-cotenant" "$SLOW" 0 "INPUT_TURNS=$t" & action "r$i-g1-same" "$BASE" 1 "INPUT_TURNS=$t" & wait
    done ;;
esac
