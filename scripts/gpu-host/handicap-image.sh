#!/bin/bash
# Sourced by noisy/build.sh, stall/build.sh and modes/build.sh: one handicap image FROM local/gpu-torch:host
# (offline, local base; HANDICAP_BASE names another, e.g. a CPU test image for a dry run).
# build_handicap TAG SUBDIR "K=V ..." FILE...  →  local/gpu-torch:TAG with FILE... in /opt/SUBDIR/, the ENV given,
# and /opt/SUBDIR/entry.sh (one of the files) as its entrypoint, which ends by exec'ing the workload.
build_handicap() {
  local name=$1 sub=$2 env=$3; shift 3
  local ctx files rc
  ctx=$(mktemp -d)
  cp "$@" "$ctx/"
  files=$(cd "$ctx" && ls | tr '\n' ' ')
  printf 'FROM %s\nCOPY %s/opt/%s/\nENV %s\nENTRYPOINT ["/bin/sh", "/opt/%s/entry.sh"]\n' \
    "${HANDICAP_BASE:-local/gpu-torch:host}" "$files" "$sub" "$env" "$sub" > "$ctx/Dockerfile"
  docker build -q -t "local/gpu-torch:$name" "$ctx" >/dev/null
  rc=$?
  rm -rf "$ctx"
  return $rc
}
