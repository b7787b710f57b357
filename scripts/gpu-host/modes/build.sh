#!/bin/bash
# Builds the two images of issue 52 FROM local/gpu-torch:host (offline, local base), one build each:
#   local/gpu-torch:modes-slow  — 30% of container starts run a light GPU co-tenant beside the workload
#   local/gpu-torch:modes-same  — the same files and entrypoint, SLOW_BELOW=0: it differs in nothing else
# Usage: build.sh [SHARE=0.3] [DUTY=0.1] [PERIOD_MS=20]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../handicap-image.sh"
share=${1:-0.3}; duty=${2:-0.1}; period=${3:-20}
below=$(python3 -c "print(int(round($share * 65536)))")
common="NOISY_DUTY=$duty NOISY_PERIOD_MS=$period MODES_CPU=${MODES_CPU:-0}"
build_handicap modes-slow modes "SLOW_BELOW=$below $common" "$HERE/entry.sh" "$HERE/../noisy/noisy.py"
build_handicap modes-same modes "SLOW_BELOW=0 $common" "$HERE/entry.sh" "$HERE/../noisy/noisy.py"
echo "built local/gpu-torch:modes-slow (share $share, duty $duty, period $period ms) and local/gpu-torch:modes-same"
