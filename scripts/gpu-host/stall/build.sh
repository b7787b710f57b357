#!/bin/bash
# Builds stall images FROM local/gpu-torch:host (offline, local base): the entrypoint pauses the workload briefly.
# Usage: build.sh TAG:STALL_S:PERIOD_S ...   e.g. build.sh stall-25ms:0.025:2  →  local/gpu-torch:stall-25ms
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../handicap-image.sh"
for spec in "$@"; do
  IFS=: read -r name stall period <<<"$spec"
  build_handicap "$name" stall "STALL_S=$stall STALL_PERIOD_S=$period" "$HERE/entry.sh" &&
    echo "built local/gpu-torch:$name (stall $stall s every $period s)"
done
