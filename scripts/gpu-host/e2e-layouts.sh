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
#   e2e-layouts.sh pairs2same ROUNDS  as pairs2, both checks of the image that differs in nothing
#   e2e-layouts.sh all4same / all4cotenant ROUNDS  as all4, one image only
#   e2e-layouts.sh noturns2 ROUNDS    as pairs2, with turns: false
# END_AT (epoch seconds, optional): no round starts unless ROUND_S (default 120) seconds are left before it, so a
# device call's limit never cuts a check in half.
# Results in $OUT/lay-<part>/ (exits.txt: one line per check; each check's results folder beside it).
set -u
PART=${1:?pairs2|pairs2same|noturns2|all4|all4same|all4cotenant|one|noturns}
ROUNDS=${2:-2}
REPO=$PWD
BASE=local/gpu-torch:host
# LAY_SLOW: another co-tenant image (built by layouts-batch.sh's LAY_BUILD); LAY_INPUTS: more INPUT_ assignments
# for every check, space separated (e.g. INPUT_GATE-METRICS=llm/tpot_p99_ms for issue 39's tail metrics).
SLOW=${LAY_SLOW:-local/gpu-torch:noisy-3pct}
read -r -a EXTRA <<<"${LAY_INPUTS:-}"
[ "$SLOW" = local/gpu-torch:noisy-3pct ] && { docker image inspect "$SLOW" >/dev/null 2>&1 || bash scripts/gpu-host/noisy/build.sh noisy-3pct:0.02:20; }
R=${OUT:-/tmp}/lay-$PART; mkdir -p "$R"
nvidia-smi --query-gpu=index,name,driver_version,power.limit,clocks.sm,temperature.gpu --format=csv > "$R/gpu.csv" 2>&1
# shellcheck source=action-lib.sh
source "$REPO/scripts/gpu-host/action-lib.sh"
room() { # ROUND: is there time for one more round?
  [ -z "${END_AT:-}" ] && return 0
  [ $(( $(date +%s) + ${ROUND_S:-120} )) -le "$END_AT" ] && return 0
  echo "round $1 of $PART not started: $(( END_AT - $(date +%s) )) s left" | tee -a "$R/exits.txt"; return 1
}
case $PART in
  pairs2|noturns2)
    t=true; [ "$PART" = noturns2 ] && t=false
    for i in $(seq 1 "$ROUNDS"); do
      room "$i" || break
      if [ $((i % 2)) = 1 ]; then a=$BASE; b=$SLOW; na=same; nb=cotenant; else a=$SLOW; b=$BASE; na=cotenant; nb=same; fi
      action "r$i-g01-$na" "$a" 0,1 "INPUT_TURNS=$t" "${EXTRA[@]}" & action "r$i-g23-$nb" "$b" 2,3 "INPUT_TURNS=$t" "${EXTRA[@]}" & wait
    done ;;
  pairs2same)
    for i in $(seq 1 "$ROUNDS"); do
      room "$i" || break
      action "r$i-g01-same" "$BASE" 0,1 "${EXTRA[@]}" & action "r$i-g23-same" "$BASE" 2,3 "${EXTRA[@]}" & wait
    done ;;
  all4|all4same|all4cotenant)
    for i in $(seq 1 "$ROUNDS"); do
      room "$i" || break
      if [ $((i % 2)) = 1 ]; then img=$BASE; n=same; else img=$SLOW; n=cotenant; fi
      [ "$PART" = all4same ] && { img=$BASE; n=same; }
      [ "$PART" = all4cotenant ] && { img=$SLOW; n=cotenant; }
      action "r$i-g0123-$n" "$img" 0,1,2,3 "${EXTRA[@]}"
    done ;;
  one|noturns)
    t=true; [ "$PART" = noturns ] && t=false
    for i in $(seq 1 "$ROUNDS"); do
      room "$i" || break
      action "r$i-g0-cotenant" "$SLOW" 0 "INPUT_TURNS=$t" "${EXTRA[@]}" & action "r$i-g1-same" "$BASE" 1 "INPUT_TURNS=$t" "${EXTRA[@]}" & wait
    done ;;
esac
