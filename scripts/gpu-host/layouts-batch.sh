#!/bin/bash
# One device call for issue 38's layouts: setup (skipped on a warm host that has the images), the co-tenant image,
# then e2e-layouts.sh parts in order, each round started only while ROUND_S seconds are left before the call's
# LIMIT_S (minus PACK_S to pack). Each part comes back as one tarball ($OUT brings back 8 files at most); the
# exits of every check are printed.
# Usage: OUT=... LIMIT_S=570 [LAY_BUILD=...] [LAY_SLOW=...] [LAY_INPUTS=...] layouts-batch.sh PART:ROUNDS[:ROUND_S] ...
set -u
T0=$(date +%s)
LIMIT_S=${LIMIT_S:-570}
PACK_S=${PACK_S:-20}
source .gpu-host/setup.sh local/gpu-torch:host > "$OUT/setup.log" 2>&1  # its $1 is the image
docker image inspect local/gpu-torch:noisy-3pct >/dev/null 2>&1 || bash scripts/gpu-host/noisy/build.sh noisy-3pct:0.02:20 >> "$OUT/setup.log" 2>&1
# LAY_BUILD: more handicap images to build first, space separated: noisy/build.sh specs (TAG:DUTY:PERIOD_MS, a GPU
# co-tenant) or stall/build.sh specs prefixed `stall/` (stall/TAG:STALL_S:PERIOD_S, the workload paused briefly).
for spec in ${LAY_BUILD:-}; do
  kind=noisy; case $spec in stall/*) kind=stall; spec=${spec#stall/} ;; esac
  docker image inspect "local/gpu-torch:${spec%%:*}" >/dev/null 2>&1 || bash "scripts/gpu-host/$kind/build.sh" "$spec" >> "$OUT/setup.log" 2>&1
done
echo "setup done after $(( $(date +%s) - T0 )) s" >> "$OUT/setup.log"
export END_AT=$(( T0 + LIMIT_S - PACK_S ))
for spec in "$@"; do
  IFS=: read -r part rounds round_s <<<"$spec"
  ROUND_S=${round_s:-120} timeout -k 15 -s INT $(( END_AT - $(date +%s) + 5 )) \
    bash scripts/gpu-host/e2e-layouts.sh "$part" "$rounds" > "$OUT/part-$part.txt" 2>&1
done
cd "$OUT" || exit 1
cat lay-*/exits.txt
for d in lay-*; do tar czf "$d.tgz" "$d" && rm -rf "$d"; done
echo "call took $(( $(date +%s) - T0 )) s"
