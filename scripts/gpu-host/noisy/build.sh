#!/bin/bash
# Builds co-tenant images FROM local/gpu-torch:host (offline, local base).
# Usage: build.sh TAG:DUTY:PERIOD_MS ...   e.g. build.sh noisy-p30:0.01:30  →  local/gpu-torch:noisy-p30
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../handicap-image.sh"
for spec in "$@"; do
  IFS=: read -r name duty period <<<"$spec"
  build_handicap "$name" noisy "NOISY_DUTY=$duty NOISY_PERIOD_MS=$period" "$HERE/noisy.py" "$HERE/entry.sh" &&
    echo "built local/gpu-torch:$name (duty $duty, period $period ms)"
done
