#!/bin/bash
# One check through the action entry, as a runner runs it: every input that action.yml gives a default is set,
# as INPUT_<NAME>, to that default (the runner does so), then the run's own inputs override them. Sourced by the e2e-*.sh scripts; needs R (the part's results folder) and REPO.
# ACTION_TIMEOUT_S: seconds one check may run (default 280).
# WS_SEED: repo paths copied into the check's workspace first (a user's own workload and the protocol helper).
# action.yml's defaults as INPUT_ assignments (no YAML library on the GPU host: its inputs are flat scalars).
mapfile -t DEFAULT_INPUTS < <(python3 - "$REPO/action.yml" <<'PY'
import re, sys
name = None
for line in open(sys.argv[1]):
    m = re.match(r"^  ([a-z0-9-]+):\s*$", line)
    if m:
        name = m.group(1)
        continue
    m = re.match(r"^    default:\s*(.*?)\s*$", line)
    if m and name:
        v = m.group(1)
        if v[:1] in "'\"" and v[-1:] == v[:1]:
            v = v[1:-1]
        if "${{" in v:
            v = ""  # the runner's expression (github.token): no token here
        print("INPUT_%s=%s" % (name.upper(), v))
PY
)
action() { # NAME IMAGE GPUS [MORE INPUT_ ASSIGNMENTS]
  local name=$1 image=$2 gpu=$3; shift 3
  local ws=/tmp/ws-$name; rm -rf "$ws"; mkdir -p "$ws" /tmp/runner-temp
  local p; for p in ${WS_SEED:-}; do mkdir -p "$ws/$(dirname "$p")"; cp -r "$REPO/$p" "$ws/$p"; done
  : > "$R/$name-github_output"; : > "$R/$name-step_summary.md"
  local t0; t0=$(date +%s.%N)
  ( cd "$ws" && env -i PATH="$PATH" HOME="$HOME" GITHUB_WORKSPACE="$ws" GITHUB_OUTPUT="$R/$name-github_output" \
      GITHUB_STEP_SUMMARY="$R/$name-step_summary.md" GITHUB_EVENT_NAME=workflow_dispatch RUNNER_TEMP=/tmp/runner-temp \
      "${DEFAULT_INPUTS[@]}" "INPUT_IMAGE=$image" "INPUT_GPUS=$gpu" "INPUT_GPU-ACCESS=devices" "INPUT_COMMENT=never" \
      "INPUT_CHECK-RUN=" "INPUT_BASELINE-BRANCH=" "$@" \
      timeout -s INT "${ACTION_TIMEOUT_S:-280}" node "$REPO/dist/index.js" ) > "$R/$name-action.log" 2>&1
  local rc=$?
  local v; v=$(python3 - "$ws/gpu-overhead-results/summary.json" <<'PY' 2>/dev/null
import json, sys
s = json.load(open(sys.argv[1]))
out = [str(s.get("verdict"))]
for c in (s.get("analysis") or {}).get("comparisons", []) or []:
    if c.get("scope") != "steady":
        continue
    out.append("%s/%s=%s%s" % (c.get("workload"), c.get("metric"), c.get("verdict"), "" if c.get("overhead_pct") is None else "(%+.2f%%)" % c["overhead_pct"]))
print(" ".join(out))
PY
)
  echo "$name: image $image gpus $gpu exit=$rc wall_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))") $v" | tee -a "$R/exits.txt"
  cp -r "$ws/gpu-overhead-results" "$R/$name" 2>/dev/null; rm -rf "$R/$name/io" "$ws"
  gzip -9 "$R/$name"/results.jsonl "$R/$name"/samples.csv 2>/dev/null
}
