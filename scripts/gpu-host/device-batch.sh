#!/bin/bash
# One device call (issue 28): setup, then e2e-neighbours.sh parts in order within the call's time, then one
# tarball (the device call returns a handful of files) and each check's timeline on stdout.
# Usage: OUT=... LIMIT_S=560 device-batch.sh PART[:ARG] ...   (NB_GPU etc. pass through)
set -u
source .gpu-host/setup.sh local/gpu-torch:host > "$OUT/setup.log" 2>&1  # its $1 is the image
LIMIT_S=${LIMIT_S:-560}
PACK_S=${PACK_S:-40}
for spec in "$@"; do
  part=${spec%%:*}; arg=${spec#*:}; [ "$arg" = "$spec" ] && arg=
  # PACK_S is kept for the tarball: a part cut at LIMIT_S still has its results packed (a call that ran out
  # before packing brought back only the first few files of 100, 2026-11-27). -k: a part that ignores the
  # interrupt (the action cleaning up) is killed 15 s later.
  left=$(( LIMIT_S - PACK_S - SECONDS )); [ "$left" -gt 30 ] || { echo "skipped $spec (no time left)"; continue; }
  echo "== $spec from $(date -u +%T), $left s left" >> "$OUT/times.txt"
  timeout -k 15 -s INT "$left" bash scripts/gpu-host/e2e-neighbours.sh "$part" $arg > "$OUT/part-$SECONDS-$part.txt" 2>&1
done
# Is there a per-user JIT cache that native processes share and fresh containers never have?
{ echo "HOME=$HOME"; ls -la "$HOME/.nv/ComputeCache" 2>&1 | head -5; du -sh "$HOME/.nv" "$HOME/.cache"/* 2>&1; } > "$OUT/caches.txt"
cd "$OUT" || exit 1
cat nb-*/exits.txt
for d in nb-*/*/; do [ -f "$d/runs.jsonl" ] && { echo "-- $d"; python3 "$OLDPWD/scripts/gpu-host/timeline.py" "$d"; }; done
tar czf all.tgz nb-* part-*.txt times.txt setup.log caches.txt && rm -rf nb-* part-*.txt
