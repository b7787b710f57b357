#!/bin/bash
# GPU host with >= 4 GPUs (issue 28): the default check on GPU 0 while another check runs on GPU 3, through
# the action entry, as two jobs of one runner host would. Usage (repo root, after source .gpu-host/setup.sh):
#   e2e-neighbours.sh pairs [ROUNDS]   ROUNDS x (default check on GPU 0 | default check on GPU 3, at once)
#   e2e-neighbours.sh ab-pairs [ROUNDS]  as pairs, one side running the code before 59b76c4 (dist/index-cd493ec.js)
#   e2e-neighbours.sh ab-turns [ROUNDS]  as pairs, one side with turns: false (each llm process measures on its
#                                      own, as before 2026-11-27), sides swapped each round
#   e2e-neighbours.sh probe-pairs [ROUNDS]  the find-state probe on GPU 1 across ROUNDS x (default check on GPU 0 |
#                                      default check on GPU 3, at once): per-token host and GPU time through the flips
#   e2e-neighbours.sh slow             an image ~3% slower (a GPU co-tenant in the container arm) on GPU 0 beside
#                                      a default check on GPU 3, then the default check on GPU 0 alone
#   e2e-neighbours.sh slow1            the ~3% slower image on GPU 0, nothing beside it
#   e2e-neighbours.sh quad [ROUNDS]    4 GPUs, ROUNDS x four checks at once, as four jobs of one runner host: the
#                                      default check on GPUs 0, 1 and 3 and the ~3% slower image on GPU 2
#   e2e-neighbours.sh duet             a duet check on GPUs 0,1 beside a default check on GPU 3, with the
#                                      find-state probe on GPU 2 across both; then the default check on GPU 0 alone
#   e2e-neighbours.sh duet-slow        the ~3% slower image as a duet on GPUs 0,1 beside a default check on GPU 3
#   e2e-neighbours.sh alone [ROUNDS]   ROUNDS x (default 1) the default check on GPU 0, nothing beside it
#   e2e-neighbours.sh warmup-ab        llm.py natively on GPU 0 with 1 and 2 warm-up requests, A B B A x 2
#   e2e-neighbours.sh jit              the default check on GPU 0 alone against the host image with the native
#                                      arm's CUDA JIT cache (~/.nv) copied in (as an image that ships SASS for this
#                                      GPU needs no JIT), then against the plain host image
#   e2e-neighbours.sh duet2            2 GPUs: a duet check on GPUs 0,1, then the default check on GPU 0 alone
#   e2e-neighbours.sh state            the find-state probe on GPU $NB_GPU for 170 s, with the default check on
#                                      GPU 0 beside it; then the default check on GPU 0 alone
#   e2e-neighbours.sh own              issue 27: a user-style PyTorch script (examples/workloads/infer.py) as a
#                                      command, both ways, against the NGC-like image on GPU 1
# NB_GPU (default 3) is the neighbour's GPU: on a 2-GPU host set NB_GPU=1 for pairs, slow and state.
# Results in $OUT/nb-<part>/.
set -u
PART=${1:?pairs|ab-turns|slow1|probe-pairs|jit|quad|slow|state|alone|warmup-ab|duet|duet2|duet-slow|own}
ROUNDS=${2:-3}
NB=${NB_GPU:-3}
REPO=$PWD
BASE=local/gpu-torch:host
# The ~3% slower image: a 2%-duty GPU co-tenant (20 ms period) in the container arm.
SLOW=local/gpu-torch:noisy-3pct
build_slow() { bash scripts/gpu-host/noisy/build.sh noisy-3pct:0.02:20 > "$R/build.log" 2>&1; }
# Straight into $OUT, so what finished comes back even when the device call's time runs out mid-way.
# A part run twice in one call gets nb-<part>-2 and so on.
R=${OUT:-/tmp}/nb-$PART; k=2; while [ -e "$R" ]; do R=${OUT:-/tmp}/nb-$PART-$k; k=$((k + 1)); done; mkdir -p "$R"
nvidia-smi --query-gpu=index,name,driver_version,power.limit,clocks.sm,temperature.gpu --format=csv > "$R/gpu.csv" 2>&1
action() { # NAME IMAGE GPU [MORE INPUT_ ASSIGNMENTS]
  local name=$1 image=$2 gpu=$3; shift 3
  local ws=/tmp/ws-$name; rm -rf "$ws"; mkdir -p "$ws" /tmp/runner-temp; cp -r "$REPO/examples" "$ws/"
  : > "$R/$name-github_output"; : > "$R/$name-step_summary.md"
  local t0; t0=$(date +%s.%N)
  ( cd "$ws" && env -i PATH="$PATH" HOME="$HOME" GITHUB_WORKSPACE="$ws" GITHUB_OUTPUT="$R/$name-github_output" \
      GITHUB_STEP_SUMMARY="$R/$name-step_summary.md" GITHUB_EVENT_NAME=workflow_dispatch RUNNER_TEMP=/tmp/runner-temp \
      "INPUT_IMAGE=$image" "INPUT_GPUS=$gpu" "INPUT_GPU-ACCESS=devices" "INPUT_COMMENT=never" \
      "INPUT_CHECK-RUN=" "INPUT_BASELINE-BRANCH=" "$@" \
      timeout -s INT 290 node "${ENTRY:-$REPO/dist/index.js}" ) > "$R/$name-action.log" 2>&1
  local rc=$?
  local verdict; verdict=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s.get('verdict'), s.get('complete'))" "$ws/gpu-overhead-results/summary.json" 2>/dev/null)
  echo "$name: image $image gpu $gpu exit=$rc wall_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))") verdict=$verdict" | tee -a "$R/exits.txt"
  cp -r "$ws/gpu-overhead-results" "$R/$name" 2>/dev/null; rm -rf "$R/$name/io"; gzip -9 "$R/$name"/results.jsonl "$R/$name"/samples.csv 2>/dev/null
}
case $PART in
  pairs)
    for i in $(seq 1 "$ROUNDS"); do
      action "gpu0-round$i" "$BASE" 0 & action "gpu$NB-round$i" "$BASE" "$NB" & wait
    done ;;
  ab-pairs)
    # This code against the one before it (dist/index-cd493ec.js, untracked), side by side, sides swapped
    # each round: does the new code decide less often beside a neighbour, or is it the host? Make the old entry
    # first (not committed): git show cd493ec:dist/index.js | xz -9 > dist/index-cd493ec.js.xz
    [ -f dist/index-cd493ec.js ] || xz -dk dist/index-cd493ec.js.xz
    for i in $(seq 1 "$ROUNDS"); do
      if [ $((i % 2)) = 1 ]; then n0=new; n3=old; else n0=old; n3=new; fi
      e0=$REPO/dist/index.js; [ $n0 = old ] && e0=$REPO/dist/index-cd493ec.js
      e3=$REPO/dist/index.js; [ $n3 = old ] && e3=$REPO/dist/index-cd493ec.js
      ENTRY=$e0 action "gpu0-round$i-$n0" "$BASE" 0 & ENTRY=$e3 action "gpu$NB-round$i-$n3" "$BASE" "$NB" & wait
    done ;;
  ab-turns)
    for i in $(seq 1 "$ROUNDS"); do
      if [ $((i % 2)) = 1 ]; then t0=true; t3=false; else t0=false; t3=true; fi
      action "gpu0-round$i-turns-$t0" "$BASE" 0 "INPUT_TURNS=$t0" &
      action "gpu$NB-round$i-turns-$t3" "$BASE" "$NB" "INPUT_TURNS=$t3" & wait
    done ;;
  probe-pairs)
    python3 scripts/gpu-host/find-state.py --gpu 1 --seconds $((ROUNDS * 125)) --out "$R/find-state" > "$R/find-state.log" 2>&1 &
    probe=$!
    sleep 12
    for i in $(seq 1 "$ROUNDS"); do
      action "gpu0-round$i" "$BASE" 0 & action "gpu3-round$i" "$BASE" 3 & wait $(jobs -p | grep -vx "$probe")
    done
    wait $probe ;;
  quad)
    build_slow
    for i in $(seq 1 "$ROUNDS"); do
      action "gpu0-round$i" "$BASE" 0 & action "gpu1-round$i" "$BASE" 1 &
      action "slow-gpu2-round$i" "$SLOW" 2 & action "gpu3-round$i" "$BASE" 3 & wait
    done ;;
  slow1)
    build_slow
    action slow-gpu0 "$SLOW" 0 ;;
  slow)
    build_slow
    action slow-gpu0 "$SLOW" 0 & action "neighbour-gpu$NB" "$BASE" "$NB" & wait
    [ -n "${SKIP_ALONE:-}" ] || action alone-gpu0 "$BASE" 0 ;;
  state)
    python3 scripts/gpu-host/find-state.py --gpu "$NB" --seconds 170 --out "$R/find-state" > "$R/find-state.log" 2>&1 &
    probe=$!
    sleep 12
    action beside-probe-gpu0 "$BASE" 0
    wait $probe
    [ -n "${SKIP_ALONE:-}" ] || action alone-gpu0 "$BASE" 0 ;;
  duet)
    python3 scripts/gpu-host/find-state.py --gpu 2 --seconds 170 --out "$R/find-state" > "$R/find-state.log" 2>&1 &
    probe=$!
    sleep 12
    action duet-gpu01 "$BASE" 0,1 & a=$!
    action neighbour-gpu3 "$BASE" 3 & b=$!
    wait $a $b $probe
    action alone-gpu0 "$BASE" 0 ;;
  jit)
    # One native llm and matmul process fill ~/.nv/ComputeCache as a check's native arm does.
    python3 workloads/llm.py --device gpu --iters 1 > "$R/native-llm.log" 2>&1
    python3 workloads/matmul.py --device gpu --iters 2 > "$R/native-matmul.log" 2>&1
    ctx=$(mktemp -d); cp -r "$HOME/.nv" "$ctx/nv"; du -sh "$ctx/nv" > "$R/jit-cache.txt"
    printf 'FROM %s\nCOPY nv /root/.nv\n' "$BASE" > "$ctx/Dockerfile"
    docker build -q -t local/gpu-torch:jit-warm "$ctx" >> "$R/jit-cache.txt" 2>&1
    action alone-jit-gpu0 local/gpu-torch:jit-warm 0
    action alone-gpu0 "$BASE" 0 ;;
  alone)
    for i in $(seq 1 "${2:-1}"); do action "alone-gpu0-round$i" "$BASE" 0; done ;;
  warmup-ab)
    # llm's warm-up requests after the graph check: 1 vs 2, native on GPU 0, in A B B A order (per-request
    # samples: is the first measured request slower with one warm-up?).
    i=0
    for w in 1 2 2 1 1 2 2 1; do
      i=$((i + 1))
      CUDA_VISIBLE_DEVICES=0 python3 workloads/llm.py --device gpu --preset 1b --iters 6 --warmup "$w" \
        > "$R/llm-$i-warmup$w.jsonl" 2> "$R/llm-$i-warmup$w.err"
    done
    python3 scripts/gpu-host/warmup-ab.py "$R" | tee "$R/warmup-ab.txt" ;;
  duet2)
    action duet-gpu01 "$BASE" 0,1
    action alone-gpu0 "$BASE" 0 ;;
  duet-slow)
    build_slow
    action slow-duet-gpu01 "$SLOW" 0,1 & a=$!
    action neighbour-gpu3 "$BASE" 3 & b=$!
    wait $a $b
    action aa-duet-gpu01 "$BASE" 0,1 ;;
  own)
    docker build -q --build-arg BASE=$BASE -t local/ngc-like:host test/__fixtures__/images/ngc-like > "$R/ngc-build.txt" 2>&1
    action own-infer local/ngc-like:host "${OWN_GPU:-1}" \
      "INPUT_COMMANDS=infer: python3 examples/workloads/infer.py --batch 8 --seq 512 --dim 1024 --iters 40" \
      "INPUT_CONTAINER-ARGS=--ipc=host --ulimit memlock=-1 --ulimit stack=67108864" ;;
esac
ls -la "$R"
